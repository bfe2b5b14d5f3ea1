package sandbox

// Private state homes (docs/sandbox.md, "Private state homes"). Some agents
// rewrite a file of their state directory that the sandbox keeps read-only
// as a place (Codex's CODEX_HOME/config.toml, Qwen Code's
// QWEN_HOME/settings.json). When the sandbox confines such an agent it runs
// with a state directory of its own, declared by its profile
// (profiles.PrivateHome) and made here for that process:
//
//   - MakeHome makes a private directory (its owner lock held while the
//     bridge lives, so Sweep removes it after a crash) under the homes
//     root, holding the home: a symbolic link to each entry of the
//     person's directory, a mount point for each of the agent's config
//     places there (never a link: a link in a writable directory can be
//     replaced by the agent, and its target written), and, filled by
//     Prepare, a copy of each state file;
//   - Compute decides, with the Read deny rules, what each copy holds (the
//     same rule as the sandbox's own Copies: never a file the agent could
//     not read at its original place) and what each config place shows
//     (the person's, read-only; or an empty one);
//   - bwrap.go binds the home writable, each read-only copy and each
//     config place read-only over its mount point (a mount point cannot be
//     renamed, replaced or removed), and hides the homes root from every
//     sandbox but for the agent's own home.

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// HomeDecl is a private state home to make: the profile's declaration
// (profiles.PrivateHome) for one person's directory.
type HomeDecl struct {
	// Profile names the agent's profile (in the directory's name).
	Profile string
	// Env is the variable that names the home to the agent.
	Env string
	// Person is the person's directory (absolute) the home is made from.
	Person string
	// Copies are entry names copied rather than linked (state files).
	Copies []string
	// ReadOnly are those of Copies kept read-only inside (the agent has
	// nothing of its own to write there): a missing one is an empty file.
	ReadOnly []string
	// Places are the agent's config places in the home (entry names,
	// Dir for a directory): read-only inside, neither linked nor copied.
	Places []HomePlace
	// Made are directories made in the person's directory before linking
	// (what the agent keeps across processes: its sessions).
	Made []string
}

// HomePlace is one config place of a private home.
type HomePlace struct {
	Name string `json:"name"`
	Dir  bool   `json:"dir,omitempty"`
}

// Home is a private state home MakeHome made. Remove it once the agent's
// process has exited.
type Home struct {
	// Dir is the home (Env's value inside the sandbox).
	Dir    string
	Person string
	Env    string
	decl   HomeDecl
	top    string // the private directory holding Dir and the lock
	lock   *os.File
	once   sync.Once
}

// homesRootPrefix names the directory, in the system's temp directory,
// that holds every private home of this user: hidden in every sandbox
// (each sees its own home only), so that no agent reads another's copies.
const homesRootPrefix = "acp-bridge-homes-"

// homesBase is where the homes root is made when it is a directory this
// user may write and search (a variable for the tests).
var homesBase = "/tmp"

// HomesRoot is the directory holding this user's private homes: in
// homesBase (/tmp) whatever the bridge's TMPDIR, so that every bridge of
// the user, whichever TMPDIR its editor or shell gave it, hides the same
// root in its sandboxes (docs/sandbox.md, "Red team 10"); in the system's
// temp directory only where /tmp cannot be used (and on systems without
// the Linux sandbox).
func HomesRoot() string {
	base := homesBase
	if !usableDir(base) {
		base = os.TempDir()
	}
	return filepath.Join(base, homesRootPrefix+strconv.Itoa(os.Geteuid()))
}

// ensureHomesRoot makes the homes root if missing and checks it is this
// user's own directory, closed to others (a fixed name in a shared temp
// directory: someone else may have made it first).
func ensureHomesRoot() (string, error) {
	root := HomesRoot()
	if err := os.Mkdir(root, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", fmt.Errorf("sandbox: private homes directory: %w", err)
	}
	if err := ownPrivateDir(root); err != nil {
		return "", fmt.Errorf("sandbox: private homes directory %s: %w", root, err)
	}
	return root, nil
}

// MakeHome makes the private home d declares. A person's directory that
// does not exist yet gives an empty home (the agent then makes its own
// defaults there), with its config places' mount points.
func MakeHome(d HomeDecl) (*Home, error) {
	if !filepath.IsAbs(d.Person) {
		return nil, fmt.Errorf("sandbox: %s home %q: not an absolute path", d.Profile, d.Person)
	}
	if d.Env == "" {
		return nil, fmt.Errorf("sandbox: %s home: no variable names it", d.Profile)
	}
	for _, n := range append(append(slices.Clone(d.Copies), d.Made...), placeNames(d.Places)...) {
		if n == "" || n == "." || n == ".." || strings.ContainsRune(n, '/') {
			return nil, fmt.Errorf("sandbox: %s home: entry %q is not a name", d.Profile, n)
		}
	}
	d.Person = filepath.Clean(d.Person)
	root, err := ensureHomesRoot()
	if err != nil {
		return nil, err
	}
	top, err := os.MkdirTemp(root, privatePrefix)
	if err != nil {
		return nil, fmt.Errorf("sandbox: private %s home: %w", d.Profile, err)
	}
	lock, err := lockPrivate(top)
	if err != nil {
		os.RemoveAll(top)
		return nil, err
	}
	h := &Home{Dir: filepath.Join(top, d.Profile+"-home"), Person: d.Person, Env: d.Env, decl: d, top: top, lock: lock}
	if err := os.Mkdir(h.Dir, 0o700); err != nil {
		h.Remove()
		return nil, fmt.Errorf("sandbox: private %s home: %w", d.Profile, err)
	}
	if err := h.fill(); err != nil {
		h.Remove()
		return nil, fmt.Errorf("sandbox: private %s home from %s: %w", d.Profile, d.Person, err)
	}
	return h, nil
}

func placeNames(ps []HomePlace) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Name)
	}
	return out
}

func (h *Home) place(name string) (HomePlace, bool) {
	for _, p := range h.decl.Places {
		if p.Name == name {
			return p, true
		}
	}
	return HomePlace{}, false
}

// fill links the person's entries and makes the mount points of the
// config places and of the read-only copies. The copies' content is
// Prepare's (writeCopy), once Compute has the Read deny rules.
func (h *Home) fill() error {
	for _, p := range h.decl.Places {
		mp := filepath.Join(h.Dir, p.Name)
		var err error
		if p.Dir {
			err = os.Mkdir(mp, 0o700)
		} else {
			err = os.WriteFile(mp, nil, 0o600)
		}
		if err != nil {
			return err
		}
	}
	for _, name := range h.decl.ReadOnly {
		if err := os.WriteFile(filepath.Join(h.Dir, name), nil, 0o600); err != nil {
			return err
		}
	}
	if fi, err := os.Stat(h.Person); err != nil || !fi.IsDir() {
		if err == nil || errors.Is(err, fs.ErrNotExist) {
			return nil // nothing to link: the agent starts from its defaults
		}
		return err
	}
	for _, d := range h.decl.Made {
		if err := os.Mkdir(filepath.Join(h.Person, d), 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
	}
	entries, err := os.ReadDir(h.Person)
	if err != nil {
		return err
	}
	for _, e := range entries {
		name := e.Name()
		if _, isPlace := h.place(name); isPlace || slices.Contains(h.decl.Copies, name) {
			continue
		}
		if err := os.Symlink(filepath.Join(h.Person, name), filepath.Join(h.Dir, name)); err != nil {
			return err
		}
	}
	return nil
}

// Remove deletes the private directory (its links, not what they point
// at: os.RemoveAll does not follow symbolic links) and frees its lock.
// Safe to call more than once, and on nil.
func (h *Home) Remove() {
	if h == nil {
		return
	}
	h.once.Do(func() {
		os.RemoveAll(h.top)
		if h.lock != nil {
			h.lock.Close()
		}
	})
}

// HomeSpec is what the sandbox makes of one private home (Spec.Homes).
type HomeSpec struct {
	// Dir is the home, writable inside.
	Dir string `json:"dir"`
	// Copies are its state files, copied by Prepare.
	Copies []HomeCopy `json:"copies,omitempty"`
	// Places are its config places, bound read-only.
	Places []HomeBind `json:"places,omitempty"`
}

// HomeCopy is one state file of a private home.
type HomeCopy struct {
	From string `json:"from"`
	To   string `json:"to"`
	// Denied: a Read deny rule makes From unreadable inside: the copy is
	// empty ("{}" for JSON), never its content.
	Denied bool `json:"denied,omitempty"`
	// ReadOnly: bound read-only over itself (a mount point).
	ReadOnly bool `json:"readOnly,omitempty"`
}

// HomeBind is one config place of a private home: From (the person's
// place; "" for an empty one) bound read-only at To.
type HomeBind struct {
	From string `json:"from,omitempty"`
	To   string `json:"to"`
	Dir  bool   `json:"dir,omitempty"`
}

// homeSpec is what Compute makes of h: masked are the Read-masked paths
// (a copy or a place a mask reaches is empty).
func homeSpec(h *Home, masked map[string]Path) HomeSpec {
	hs := HomeSpec{Dir: h.Dir}
	for _, name := range h.decl.Copies {
		from := filepath.Join(h.Person, name)
		hs.Copies = append(hs.Copies, HomeCopy{From: from, To: filepath.Join(h.Dir, name),
			Denied: readMasked(from, masked), ReadOnly: slices.Contains(h.decl.ReadOnly, name)})
	}
	for _, p := range h.decl.Places {
		from := filepath.Join(h.Person, p.Name)
		b := HomeBind{To: filepath.Join(h.Dir, p.Name), Dir: p.Dir}
		if fi, err := os.Stat(from); err == nil && fi.IsDir() == p.Dir && !readMasked(from, masked) && !maskedBelow(from, masked) {
			b.From = from
		}
		hs.Places = append(hs.Places, b)
	}
	return hs
}

// readMasked: a Read mask makes p unreadable inside (p masked, or a
// directory above it). The one rule for every copy the bridge makes
// outside the sandbox (Spec.Copies, a home's copies and places): never one
// of a file the agent could not read at its original place.
func readMasked(p string, masked map[string]Path) bool {
	_, ok := masked[p]
	return ok || maskedAbove(p, masked)
}

// maskedBelow: a Read mask lies inside the directory p.
func maskedBelow(p string, masked map[string]Path) bool {
	for m := range masked {
		if strings.HasPrefix(m, p+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// writeCopy writes the private copy to of the state file from: its
// content (of its target when it is a symbolic link), or when denied an
// empty one ("{}" for JSON). A missing or non-regular from gives no copy,
// except an empty one where must (a read-only copy's mount point exists).
func writeCopy(from, to string, denied bool) error {
	if denied {
		empty := []byte{}
		if strings.HasSuffix(from, ".json") {
			empty = []byte("{}\n")
		}
		return os.WriteFile(to, empty, 0o600)
	}
	fi, err := os.Stat(from)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case !fi.Mode().IsRegular():
		return nil // not a file: not copied
	}
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, data, 0o600)
}
