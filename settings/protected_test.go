package settings

import (
	"path/filepath"
	"slices"
	"testing"
)

func TestPolicyFiles(t *testing.T) {
	e := newEnv(t)
	s := e.mustLoad()
	got := s.PolicyFiles()
	for _, want := range []string{e.userDir, e.wsFile()} {
		if !slices.Contains(got, want) {
			t.Errorf("PolicyFiles() = %q: missing %s", got, want)
		}
	}

	cfg := filepath.Join(t.TempDir(), "my.yaml")
	writeFile(t, cfg, "defaultAgent: demo\n")
	s = e.mustLoad(func(o *Options) { o.ConfigFile = cfg })
	if got := s.PolicyFiles(); !slices.Contains(got, cfg) {
		t.Errorf("PolicyFiles() with --config = %q: missing %s", got, cfg)
	}
	for _, p := range s.PolicyFiles() {
		if !filepath.IsAbs(p) {
			t.Errorf("PolicyFiles(): %q is not absolute", p)
		}
	}
}
