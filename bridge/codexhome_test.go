package bridge

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acp-bridge/acp-bridge/profiles"
)

func TestPreparePrivateHome(t *testing.T) {
	codex, qwen := profiles.ProfileByName("codex"), profiles.ProfileByName("qwen")
	tests := []struct {
		name     string
		prof     *profiles.Profile
		files    map[string]string // relative to the person's directory
		noPerson bool
		linkCopy bool   // the copied file is a symbolic link to one elsewhere
		want     string // the copied file's content; "" = none in the private home
		links    []string
	}{
		{name: "codex config and auth", prof: codex, files: map[string]string{"config.toml": "model = \"m\"\n", "auth.json": "{}"},
			want: "model = \"m\"\n", links: []string{"auth.json", "sessions", "archived_sessions"}},
		{name: "codex no config", prof: codex, files: map[string]string{"history.jsonl": ""}, links: []string{"history.jsonl", "sessions"}},
		{name: "codex no person home", prof: codex, noPerson: true},
		{name: "qwen settings, oauth, leftover backup", prof: qwen,
			files: map[string]string{"settings.json": `{"model":{"name":"a"}}`, "oauth_creds.json": "{}", "settings.json.orig": "old", "commands/x.md": "c"},
			want:  `{"model":{"name":"a"}}`, links: []string{"oauth_creds.json", "settings.json.orig", "commands", "projects", "tmp"}},
		{name: "qwen settings is a dotfiles link", prof: qwen, linkCopy: true, files: map[string]string{"memory.md": "m"},
			want: `{"linked":true}`, links: []string{"memory.md", "projects"}},
		{name: "qwen no person home", prof: qwen, noPerson: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ph := tc.prof.PrivateHome
			if ph == nil || len(ph.Copies) != 1 {
				t.Fatalf("profile %s declares no private home with one copy: %+v", tc.prof.Name, ph)
			}
			copied := ph.Copies[0]
			person := filepath.Join(t.TempDir(), ph.Dir)
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
				if tc.linkCopy {
					target := filepath.Join(t.TempDir(), "dotfiles-"+copied)
					if err := os.WriteFile(target, []byte(tc.want), 0o600); err != nil {
						t.Fatal(err)
					}
					if err := os.Symlink(target, filepath.Join(person, copied)); err != nil {
						t.Fatal(err)
					}
				}
			}
			h, err := preparePrivateHome(ph, tc.prof.Name, person)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(filepath.Base(h.Dir), privateHomePrefix+tc.prof.Name+"-home-") || h.Person != person || h.Env != ph.Env {
				t.Errorf("private home %+v", h)
			}
			for _, l := range tc.links {
				target, err := os.Readlink(filepath.Join(h.Dir, l))
				if err != nil || target != filepath.Join(person, l) {
					t.Errorf("%s: link to %q (%v), want %q", l, target, err, filepath.Join(person, l))
				}
			}
			cfg := filepath.Join(h.Dir, copied)
			got, err := os.ReadFile(cfg)
			if tc.want == "" {
				if !os.IsNotExist(err) {
					t.Errorf("private %s exists (%q, %v), want none", copied, got, err)
				}
			} else {
				if string(got) != tc.want {
					t.Errorf("private %s %q, want %q", copied, got, tc.want)
				}
				if fi, err := os.Lstat(cfg); err != nil || !fi.Mode().IsRegular() {
					t.Errorf("private %s is not a regular file (a copy): %v %v", copied, fi, err)
				}
				// Rewriting the copy as Qwen does (a temp file renamed
				// over it, the old one renamed to a backup first) leaves
				// the person's file as it was, and a leftover backup's link
				// is replaced, not written through (checked below).
				tmp := cfg + ".tmp"
				if err := os.WriteFile(tmp, []byte("approval_policy = \"never\"\n"), 0o600); err != nil {
					t.Fatal(err)
				}
				if err := os.Rename(cfg, cfg+".orig"); err != nil {
					t.Fatal(err)
				}
				if err := os.Rename(tmp, cfg); err != nil {
					t.Fatal(err)
				}
				if p, _ := os.ReadFile(filepath.Join(person, copied)); string(p) != tc.want {
					t.Errorf("person's %s is %q after the copy was rewritten", copied, p)
				}
			}
			env, _ := privateHomeConfined(map[string]string{ph.Env: "/configured", "HOME": "/h"}, nil, h)
			if env[ph.Env] != h.Dir || env["HOME"] != "/h" {
				t.Errorf("confined environment %v", env)
			}
			h.Remove()
			if _, err := os.Lstat(h.Dir); !os.IsNotExist(err) {
				t.Errorf("private home still there after Remove: %v", err)
			}
			for rel, c := range tc.files {
				if rel == copied {
					continue
				}
				if got, err := os.ReadFile(filepath.Join(person, rel)); err != nil || string(got) != c {
					t.Errorf("Remove touched the person's %s: %q %v", rel, got, err)
				}
			}
		})
	}
	if _, err := preparePrivateHome(codex.PrivateHome, "codex", "relative/.codex"); err == nil {
		t.Error("a relative home was accepted")
	}
}

func TestPersonHome(t *testing.T) {
	for _, name := range []string{"codex", "qwen"} {
		ph := profiles.ProfileByName(name).PrivateHome
		t.Run(name, func(t *testing.T) {
			t.Setenv(ph.Env, "")
			if got := personHome(ph, map[string]string{ph.Env: "/x/cx"}, "/h"); got != "/x/cx" {
				t.Errorf("configured: %q", got)
			}
			if got := personHome(ph, map[string]string{ph.Env: "rel"}, "/h"); got != "/h/"+ph.Dir {
				t.Errorf("relative configured value: %q, want the home's", got)
			}
			if got := personHome(ph, nil, ""); got != "" {
				t.Errorf("no home: %q", got)
			}
			t.Setenv(ph.Env, "/env/cx")
			if got := personHome(ph, nil, "/h"); got != "/env/cx" {
				t.Errorf("inherited: %q", got)
			}
		})
	}
}
