package sandbox

import (
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/acp-bridge/acp-bridge/policy"
)

// The private directory's life (docs/sandbox.md, "The private directory's
// life"): Prepare makes it, holds an exclusive flock on its lockName file
// for as long as the sandbox lives (the kernel drops the lock when the
// bridge process dies, however it dies), and records in manifestName each
// placeholder it makes in the person's trees before making it. Cleanup
// removes the placeholders and the directory. Sweep, at a bridge's start,
// does the same for every private directory whose lock is free: one a
// bridge left behind when it was killed.
const (
	lockName     = "owner.lock"
	manifestName = "placeholders.json"
	// maxManifest bounds what Sweep reads of a manifest.
	maxManifest = 1 << 20
)

// manifest is the placeholders file of a private directory.
type manifest struct {
	Version      int           `json:"version"`
	Placeholders []placeholder `json:"placeholders"`
}

// placeholder is one mount point Prepare made where a protected place did
// not exist. Path is the path with its parent directory resolved when it
// was made (no symbolic link on the way): removal refuses a path that
// reaches it through a link now.
//
// Borrowed: the place existed when Prepare ran (the person's own empty
// directory, or a placeholder another live sandbox made and still holds):
// this sandbox's mount is on it, so no one may remove it while this
// sandbox lives, but it is not this sandbox's to remove. A placeholder
// another live sandbox made is adopted instead (recorded as made): the
// last of its users to end removes it.
type placeholder struct {
	Path     string `json:"path"`
	Dir      bool   `json:"dir,omitempty"`
	Content  string `json:"content,omitempty"`
	Borrowed bool   `json:"borrowed,omitempty"`
}

// writeManifest replaces dir's manifest with ps (a new file renamed into
// place, so a crash never leaves half of one).
func writeManifest(dir string, ps []placeholder) error {
	data, err := json.Marshal(manifest{Version: 1, Placeholders: ps})
	if err != nil {
		return fmt.Errorf("sandbox: placeholders manifest: %w", err)
	}
	tmp := filepath.Join(dir, manifestName+".new")
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return fmt.Errorf("sandbox: placeholders manifest: %w", err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, manifestName)); err != nil {
		return fmt.Errorf("sandbox: placeholders manifest: %w", err)
	}
	return nil
}

// parseManifest reads a manifest found on disk: untrusted input. Only the
// entries a placeholder could have been made at are returned (validPlaceholder).
func parseManifest(data []byte) ([]placeholder, error) {
	var m manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("sandbox: placeholders manifest: %w", err)
	}
	if m.Version != 1 {
		return nil, fmt.Errorf("sandbox: placeholders manifest version %d: want 1", m.Version)
	}
	var out []placeholder
	for _, p := range m.Placeholders {
		if validPlaceholder(p) {
			out = append(out, p)
		}
	}
	return out, nil
}

// validPlaceholder: p names a path Prepare could have made a placeholder
// at, with what it would have put there. The path is absolute and clean,
// not the root; a file's content is the one blockedContent gives its name
// and a directory has none; its name is one a protected place that runs
// code has as one of its segments (a blocked place is such a place or
// the first missing directory on its way).
func validPlaceholder(p placeholder) bool {
	if !filepath.IsAbs(p.Path) || filepath.Clean(p.Path) != p.Path || p.Path == "/" ||
		strings.ContainsAny(p.Path, "\x00\n") {
		return false
	}
	if p.Dir && p.Content != "" || !p.Dir && p.Content != blockedContent(p.Path) {
		return false
	}
	return placeName(filepath.Base(p.Path))
}

// placeName: name is a segment (a glob segment matching it) of a protected
// place that runs code.
func placeName(name string) bool {
	if name == "" || name == "." || name == ".." {
		return false
	}
	for _, pl := range policy.Places() {
		if !pl.RunsCode {
			continue
		}
		for _, seg := range strings.Split(pl.Path, "/") {
			if seg == "*" {
				// matches any name; a glob only expands to what
				// exists, so a placeholder is never made there.
				continue
			}
			if ok, _ := path.Match(seg, name); ok {
				return true
			}
		}
	}
	return false
}
