package sandbox

import (
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
func MissingProtected(roots ...string) []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range roots {
		if r == "" {
			continue
		}
		for _, rel := range inRootPlaces() {
			p := filepath.Join(r, rel)
			if seen[p] {
				continue
			}
			seen[p] = true
			var st syscall.Stat_t // not os.Lstat: no FileInfo per place per session
			if err := syscall.Lstat(p, &st); errors.Is(err, fs.ErrNotExist) {
				out = append(out, p)
			}
		}
	}
	return out
}

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
