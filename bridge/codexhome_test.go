package bridge

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPrepareCodexHome(t *testing.T) {
	tests := []struct {
		name       string
		files      map[string]string // relative to the person's CODEX_HOME
		noPerson   bool
		wantConfig string // "" = no config.toml in the private home
		wantLinks  []string
	}{
		{name: "config and auth", files: map[string]string{"config.toml": "model = \"m\"\n", "auth.json": "{}"},
			wantConfig: "model = \"m\"\n", wantLinks: []string{"auth.json", "sessions", "archived_sessions"}},
		{name: "no config", files: map[string]string{"history.jsonl": ""}, wantLinks: []string{"history.jsonl", "sessions"}},
		{name: "no person home", noPerson: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			person := filepath.Join(t.TempDir(), ".codex")
			if !tc.noPerson {
				for rel, c := range tc.files {
					p := filepath.Join(person, rel)
					if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(p, []byte(c), 0o600); err != nil {
						t.Fatal(err)
					}
				}
			}
			h, err := prepareCodexHome(person)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(filepath.Base(h.Dir), codexPrivatePrefix) || h.Person != person {
				t.Errorf("codexHome %+v", h)
			}
			cfg := filepath.Join(h.Dir, codexConfigFile)
			got, err := os.ReadFile(cfg)
			if tc.wantConfig == "" {
				if !os.IsNotExist(err) {
					t.Errorf("private config.toml exists (%q, %v), want none", got, err)
				}
			} else {
				if string(got) != tc.wantConfig {
					t.Errorf("private config.toml %q, want %q", got, tc.wantConfig)
				}
				if fi, err := os.Lstat(cfg); err != nil || !fi.Mode().IsRegular() {
					t.Errorf("private config.toml is not a regular file (a copy): %v %v", fi, err)
				}
				// Writing the copy leaves the person's file as it was.
				if err := os.WriteFile(cfg, []byte("approval_policy = \"never\"\n"), 0o600); err != nil {
					t.Fatal(err)
				}
				if p, _ := os.ReadFile(filepath.Join(person, codexConfigFile)); string(p) != tc.wantConfig {
					t.Errorf("person's config.toml is %q after the copy was written", p)
				}
			}
			for _, l := range tc.wantLinks {
				target, err := os.Readlink(filepath.Join(h.Dir, l))
				if err != nil || target != filepath.Join(person, l) {
					t.Errorf("%s: link to %q (%v), want %q", l, target, err, filepath.Join(person, l))
				}
			}
			h.Remove()
			if _, err := os.Lstat(h.Dir); !os.IsNotExist(err) {
				t.Errorf("private home still there after Remove: %v", err)
			}
			for rel, c := range tc.files {
				if rel == codexConfigFile {
					continue
				}
				if got, err := os.ReadFile(filepath.Join(person, rel)); err != nil || string(got) != c {
					t.Errorf("Remove touched the person's %s: %q %v", rel, got, err)
				}
			}
		})
	}
	if _, err := prepareCodexHome("relative/.codex"); err == nil {
		t.Error("a relative codex home was accepted")
	}
}

func TestPersonCodexHome(t *testing.T) {
	t.Setenv("CODEX_HOME", "")
	if got := personCodexHome(map[string]string{"CODEX_HOME": "/x/cx"}, "/h"); got != "/x/cx" {
		t.Errorf("configured: %q", got)
	}
	if got := personCodexHome(map[string]string{"CODEX_HOME": "rel"}, "/h"); got != "/h/.codex" {
		t.Errorf("relative configured value: %q, want the home's", got)
	}
	t.Setenv("CODEX_HOME", "/env/cx")
	if got := personCodexHome(nil, "/h"); got != "/env/cx" {
		t.Errorf("inherited: %q", got)
	}
}
