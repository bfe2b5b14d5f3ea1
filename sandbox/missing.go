package sandbox

import (
	"os"
	"path/filepath"
)

// MissingProtected lists the protected paths (ProtectedNames) under each
// root that do not exist now. The sandbox cannot keep them from being
// created (only existing paths are re-bound read-only); the bridge watches
// them to tell the person when one appears (bridge/created.go).
func MissingProtected(roots ...string) []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range roots {
		if r == "" {
			continue
		}
		for _, n := range ProtectedNames {
			p := filepath.Join(r, n)
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
