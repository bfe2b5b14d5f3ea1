package sandbox

import (
	"encoding/binary"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/acp-bridge/acp-bridge/policy"
)

// MissingProtected lists the protected places of the table (policy.Places,
// InRoot, without globs) under each root that do not exist now. The sandbox
// keeps most missing places from being created (Spec.Blocked) but lets a
// repository be created where there was none (git init is ordinary work);
// the bridge watches these paths to tell the person when one appears
// (bridge/created.go).
//
// The list is shared and must not be changed: every call reads the disk
// (one lstat per place), and calls that find the same places missing under
// the same roots get the same list, so a thousand sessions in one
// workspace hold one list and a session's start allocates little more
// than its lstat calls (docs/benchmarks.md, "Where the time goes").
func MissingProtected(roots ...string) []string {
	pl := placesUnder(roots)
	var small [4]uint64
	bits := small[:]
	if n := (len(pl.paths) + 63) / 64; n > len(small) {
		bits = make([]uint64, n)
	}
	found := false
	for i, p := range pl.paths {
		var st syscall.Stat_t // not os.Lstat: no FileInfo per place per session
		if err := syscall.Lstat(p, &st); errors.Is(err, fs.ErrNotExist) {
			bits[i/64] |= 1 << (i % 64)
			found = true
		}
	}
	if !found {
		return nil
	}
	key := missingKey(pl.key, bits)
	if l, ok := missingLists.get(key); ok {
		return l
	}
	var l []string
	for i, p := range pl.paths {
		if bits[i/64]&(1<<(i%64)) != 0 {
			l = append(l, p)
		}
	}
	missingLists.put(key, l)
	return l
}

// missingKey names one set of missing places under one list of roots.
func missingKey(rootsKey string, bits []uint64) string {
	b := make([]byte, 0, len(rootsKey)+1+8*len(bits))
	b = append(b, rootsKey...)
	b = append(b, 0)
	for _, w := range bits {
		b = binary.LittleEndian.AppendUint64(b, w)
	}
	return string(b)
}

// missingLists holds MissingProtected's shared lists.
var missingLists = sharedLists{m: map[string][]string{}}

// sharedLists is a table of lists, read-only once stored, bounded: past
// maxShared entries it starts again.
type sharedLists struct {
	mu sync.Mutex
	m  map[string][]string
}

func (t *sharedLists) get(key string) ([]string, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	l, ok := t.m[key]
	return l, ok
}

func (t *sharedLists) put(key string, l []string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.m) >= maxShared {
		clear(t.m)
	}
	t.m[key] = l
}

// places is the in-root places joined to a list of roots.
type places struct {
	key   string // the roots, joined by NUL
	paths []string
}

// placesUnder joins every in-root place to every root, without repeats, in
// root order. It depends on the roots and the place table alone, so the
// lists of the last roots seen are kept: a thousand sessions in one
// workspace join and deduplicate the paths once, not a thousand times.
func placesUnder(roots []string) places {
	key := strings.Join(roots, "\x00")
	if l, ok := joined.get(key); ok {
		return places{key, l}
	}
	var l []string
	seen := map[string]bool{}
	for _, r := range roots {
		if r == "" {
			continue
		}
		for _, rel := range inRootPlaces() {
			p := filepath.Join(r, rel)
			if !seen[p] {
				seen[p] = true
				l = append(l, p)
			}
		}
	}
	joined.put(key, l)
	return places{key, l}
}

// joined holds placesUnder's lists.
var joined = sharedLists{m: map[string][]string{}}

// maxShared bounds joined and missingLists.
const maxShared = 64

// inRootPlaces are the places under a root that name one path (no
// wildcard), as relative paths: read once (policy.Places copies the list
// at every call, and a session start asked for it).
var inRootPlaces = sync.OnceValue(func() []string {
	var out []string
	for _, pl := range policy.Places() {
		if pl.Base == policy.InRoot && !strings.ContainsAny(pl.Path, "*?[") {
			out = append(out, filepath.FromSlash(pl.Path))
		}
	}
	return out
})
