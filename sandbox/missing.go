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
	missingLists.Lock()
	l, ok := missingLists.m[key]
	missingLists.Unlock()
	if ok {
		return l
	}
	for i, p := range pl.paths {
		if bits[i/64]&(1<<(i%64)) != 0 {
			l = append(l, p)
		}
	}
	missingLists.Lock()
	if len(missingLists.m) >= maxJoined {
		clear(missingLists.m)
	}
	missingLists.m[key] = l
	missingLists.Unlock()
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

// missingLists holds MissingProtected's shared lists, read-only once stored.
var missingLists = struct {
	sync.Mutex
	m map[string][]string
}{m: map[string][]string{}}

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
	joined.Lock()
	l, ok := joined.m[key]
	joined.Unlock()
	if ok {
		return places{key, l}
	}
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
	joined.Lock()
	if len(joined.m) >= maxJoined {
		clear(joined.m)
	}
	joined.m[key] = l
	joined.Unlock()
	return places{key, l}
}

// joined holds placesUnder's lists, read-only once stored.
var joined = struct {
	sync.Mutex
	m map[string][]string
}{m: map[string][]string{}}

// maxJoined bounds joined and missingLists; past it, a table starts again.
const maxJoined = 64

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
