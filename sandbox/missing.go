package sandbox

import (
	"os"
	"path/filepath"
	"strings"

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
		for _, pl := range policy.Places() {
			if pl.Base != policy.InRoot || strings.ContainsAny(pl.Path, "*?[") {
				continue
			}
			p := filepath.Join(r, filepath.FromSlash(pl.Path))
			if seen[p] {
				continue
			}
			seen[p] = true
			if _, err := os.Lstat(p); os.IsNotExist(err) {
				out = append(out, p)
			}
		}
	}
	return out
}
