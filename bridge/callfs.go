package bridge

import (
	"os"
	"path"
	"path/filepath"
	"sync/atomic"

	"github.com/acp-bridge/acp-bridge/policy"
)

// callFS is the engine's file system (policy.FS, with Exists and Readlink)
// for one decision: every lstat(2) it makes is remembered until the
// decision ends (seal), so the prefixes that the protected places share
// (home, the workspace, /tmp, ...) are looked at once per decision instead
// of once per place and per reading. A symlink check of the protected
// places (policy's realProbeList) walked every component of about a hundred
// paths for every call, twice per decision: 500-600 lstat calls, most of
// the time of an approval (docs/benchmarks.md, "Where the time goes").
//
// What a decision sees is what one reading of the file system gave: within
// one decision a path answers the same every time it is asked about, as a
// decision already assumes (the call runs after it, on a file system that
// may have changed meanwhile, with or without this cache). Nothing is
// remembered across decisions, and once sealed every question goes to the
// file system again, so an Env kept after the decision (a card's session
// grant, read when the person answers) never sees an old answer.
//
// It is used by one goroutine until sealed.
type callFS struct {
	sealed atomic.Bool
	// watch keeps where the protected places lead between decisions
	// (placewatch_linux.go); nil = each decision resolves them.
	watch *placeWatch
	lstat map[string]lstatResult
	real  map[string]realResult
}

type lstatResult struct {
	ok, link bool
	err      error
}

type realResult struct {
	path string
	err  error
}

// newCallFS is the file system of one decision of the bridge, with the
// process's watch of the protected places.
func newCallFS() *callFS {
	c := newPlainCallFS()
	c.watch = sharedPlaceWatch()
	return c
}

// newPlainCallFS is callFS without the watch: every place is resolved.
func newPlainCallFS() *callFS {
	return &callFS{lstat: map[string]lstatResult{}, real: map[string]realResult{}}
}

// RealPlaces implements policy.PlaceResolver through the watch: it reads
// the kernel's queue of changes first, so it answers what resolving each
// place now would (placeWatch). Sealed or not: the watch holds across
// decisions by itself.
func (c *callFS) RealPlaces(key string, places []string) []string {
	return c.watch.realPlaces(key, places)
}

// seal ends the decision: from now on every call reads the file system,
// and what was remembered is let go (an Env kept for a card's session
// grant keeps its callFS for as long as the card is open). Called by the
// goroutine that used it.
func (c *callFS) seal() {
	c.sealed.Store(true)
	c.lstat, c.real = nil, nil
}

func (c *callFS) stat(p string) lstatResult {
	if r, ok := c.lstat[p]; ok {
		return r
	}
	fi, err := os.Lstat(p)
	r := lstatResult{ok: err == nil, err: err}
	if err == nil {
		r.link = fi.Mode()&os.ModeSymlink != 0
	}
	c.lstat[p] = r
	return r
}

// Exists implements the engine's existence check: one lstat(2), the last
// component not followed.
func (c *callFS) Exists(p string) bool {
	if c.sealed.Load() {
		return policy.OSFS{}.Exists(p)
	}
	return c.stat(p).ok
}

// Readlink implements the engine's reading of one link (not remembered:
// only links are read, and they are few).
func (c *callFS) Readlink(p string) (string, error) { return os.Readlink(p) }

// EvalSymlinks is filepath.EvalSymlinks, with the resolution of each
// parent directory and the lstat of each component remembered. For a clean
// absolute path whose last component is not a link, the path resolves to
// its parent's resolution joined with that component, and fails when the
// parent fails or the component cannot be lstat'ed (as filepath's walk
// fails on the first component it cannot lstat). Anything else (a
// relative or unclean path, a last component that is a link) goes to
// filepath.EvalSymlinks as it is, so links, "..", loops and their errors
// are resolved by the standard library alone.
func (c *callFS) EvalSymlinks(p string) (string, error) {
	if c.sealed.Load() || !path.IsAbs(p) || path.Clean(p) != p {
		return filepath.EvalSymlinks(p)
	}
	return c.eval(p)
}

func (c *callFS) eval(p string) (string, error) {
	if p == "/" {
		return p, nil
	}
	if r, ok := c.real[p]; ok {
		return r.path, r.err
	}
	var r realResult
	dir, base := path.Split(p)
	parent, err := c.eval(path.Clean(dir))
	switch {
	case err != nil:
		r.err = err
	default:
		q := path.Join(parent, base)
		switch st := c.stat(q); {
		case !st.ok:
			r.err = st.err // os.Lstat's *PathError, as filepath's walk returns it
		case st.link:
			r.path, r.err = filepath.EvalSymlinks(p)
		default:
			r.path = q
		}
	}
	c.real[p] = r
	return r.path, r.err
}
