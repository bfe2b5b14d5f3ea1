//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acp-bridge/acp-bridge/profiles"
)

// declOf is the private home the profile declares (as the bridge builds
// it, bridge/privatehome.go).
func declOf(t *testing.T, name, person string) HomeDecl {
	t.Helper()
	prof := profiles.ProfileByName(name)
	ph := prof.PrivateHome
	if ph == nil || len(ph.Copies) != 1 {
		t.Fatalf("profile %s declares no private home with one copy: %+v", name, ph)
	}
	d := HomeDecl{Profile: name, Env: ph.Env, Person: person, Copies: ph.Copies, ReadOnly: ph.ReadOnly, Made: ph.Made}
	for _, c := range prof.HomePlaces() {
		d.Places = append(d.Places, HomePlace{Name: c.Path, Dir: c.Dir})
	}
	return d
}

// makeHome makes d's home and its copies as Prepare would (masked: the
// Read-masked paths).
func makeHome(t *testing.T, d HomeDecl, masked map[string]Path) (*Home, HomeSpec) {
	t.Helper()
	h, err := MakeHome(d)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Remove)
	hs := homeSpec(h, masked)
	if err := homeCopies(Spec{Homes: []HomeSpec{hs}}); err != nil {
		t.Fatal(err)
	}
	return h, hs
}

func TestMakeHome(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	tests := []struct {
		name     string
		prof     string
		files    map[string]string // relative to the person's directory
		noPerson bool
		linkCopy bool   // the copied file is a symbolic link to one elsewhere
		want     string // the copied file's content; "" = none in the private home
		links    []string
		places   []string // config places: mount points, not links
		denied   bool     // a Read mask on the copied file
	}{
		{name: "codex config and auth", prof: "codex", files: map[string]string{"config.toml": "model = \"m\"\n", "auth.json": "{}", "rules/default.rules": "r"},
			want: "model = \"m\"\n", links: []string{"auth.json", "sessions", "archived_sessions"}, places: []string{"rules", ".env", "AGENTS.md", "skills", "prompts"}},
		{name: "codex no config", prof: "codex", files: map[string]string{"history.jsonl": ""}, links: []string{"history.jsonl", "sessions"}, places: []string{"rules"}},
		{name: "codex no person home", prof: "codex", noPerson: true, places: []string{"rules", ".env"}},
		{name: "codex config denied", prof: "codex", files: map[string]string{"config.toml": "secret = 1\n"}, denied: true, links: []string{"sessions"}},
		{name: "qwen settings, oauth, leftover backup", prof: "qwen",
			files: map[string]string{"settings.json": `{"model":{"name":"a"}}`, "oauth_creds.json": "{}", "settings.json.orig": "old", "commands/x.md": "c"},
			want:  `{"model":{"name":"a"}}`, links: []string{"oauth_creds.json", "settings.json.orig", "commands", "projects", "tmp"}},
		{name: "qwen settings is a dotfiles link", prof: "qwen", linkCopy: true, files: map[string]string{"memory.md": "m"},
			want: `{"linked":true}`, links: []string{"memory.md", "projects"}},
		{name: "qwen settings denied", prof: "qwen", files: map[string]string{"settings.json": `{"apiKey":"sk-secret"}`}, denied: true},
		{name: "qwen no person home", prof: "qwen", noPerson: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			person := filepath.Join(t.TempDir(), "."+tc.prof)
			d := declOf(t, tc.prof, person)
			copied := d.Copies[0]
			readOnly := len(d.ReadOnly) > 0
			if !tc.noPerson {
				for rel, c := range tc.files {
					write(t, filepath.Join(person, rel), c)
				}
				if tc.linkCopy {
					target := filepath.Join(t.TempDir(), "dotfiles-"+copied)
					write(t, target, tc.want)
					if err := os.Symlink(target, filepath.Join(person, copied)); err != nil {
						t.Fatal(err)
					}
				}
			}
			masked := map[string]Path{}
			if tc.denied {
				masked[filepath.Join(person, copied)] = Path{Path: filepath.Join(person, copied)}
			}
			h, hs := makeHome(t, d, masked)
			if !strings.HasPrefix(h.Dir, HomesRoot()+"/") || h.Person != person || h.Env != d.Env {
				t.Errorf("private home %+v, want it in %s", h, HomesRoot())
			}
			if hs.Dir != h.Dir || len(hs.Copies) != 1 || hs.Copies[0].Denied != tc.denied || hs.Copies[0].ReadOnly != readOnly {
				t.Errorf("home spec %+v", hs)
			}
			for _, l := range tc.links {
				target, err := os.Readlink(filepath.Join(h.Dir, l))
				if err != nil || target != filepath.Join(person, l) {
					t.Errorf("%s: link to %q (%v), want %q", l, target, err, filepath.Join(person, l))
				}
			}
			for _, p := range tc.places {
				fi, err := os.Lstat(filepath.Join(h.Dir, p))
				if err != nil || fi.Mode()&os.ModeSymlink != 0 {
					t.Errorf("config place %s: %v %v, want a mount point (not a link)", p, fi, err)
					continue
				}
				if fi.IsDir() {
					if es, _ := os.ReadDir(filepath.Join(h.Dir, p)); len(es) != 0 {
						t.Errorf("config place %s holds %d entries on the host, want an empty mount point", p, len(es))
					}
				}
			}
			cfg := filepath.Join(h.Dir, copied)
			got, err := os.ReadFile(cfg)
			switch {
			case tc.denied:
				if strings.Contains(string(got), "secret") || (string(got) != "{}\n" && string(got) != "") {
					t.Errorf("a Read-masked %s was copied: %q", copied, got)
				}
			case tc.want == "" && readOnly:
				if err != nil || len(got) != 0 {
					t.Errorf("read-only %s: %q %v, want an empty mount point", copied, got, err)
				}
			case tc.want == "":
				if !os.IsNotExist(err) {
					t.Errorf("private %s exists (%q, %v), want none", copied, got, err)
				}
			default:
				if string(got) != tc.want {
					t.Errorf("private %s %q, want %q", copied, got, tc.want)
				}
				if fi, err := os.Lstat(cfg); err != nil || !fi.Mode().IsRegular() {
					t.Errorf("private %s is not a regular file (a copy): %v %v", copied, fi, err)
				}
				// Rewriting the copy as Qwen does (a temp file renamed
				// over it, the old one renamed to a backup first) leaves
				// the person's file as it was (outside the sandbox: the
				// read-only copies are held by their mount, tested in
				// TestPrivateHomeHeld).
				tmp := cfg + ".tmp"
				write(t, tmp, "approval_policy = \"never\"\n")
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
			h.Remove()
			h.Remove() // twice: no harm
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
	bad := []HomeDecl{
		{Profile: "codex", Env: "CODEX_HOME", Person: "relative/.codex"},
		{Profile: "codex", Env: "", Person: "/abs/.codex"},
		{Profile: "codex", Env: "CODEX_HOME", Person: "/abs/.codex", Copies: []string{"../x"}},
		{Profile: "codex", Env: "CODEX_HOME", Person: "/abs/.codex", Places: []HomePlace{{Name: "a/b"}}},
	}
	for _, d := range bad {
		if h, err := MakeHome(d); err == nil {
			h.Remove()
			t.Errorf("%+v was accepted", d)
		}
	}
}

// A homes root someone else could read, or a link, is refused.
func TestHomesRootMustBePrivate(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	if err := os.Mkdir(HomesRoot(), 0o755); err != nil {
		t.Fatal(err)
	}
	if h, err := MakeHome(HomeDecl{Profile: "codex", Env: "CODEX_HOME", Person: "/nonexistent/.codex"}); err == nil {
		h.Remove()
		t.Error("a homes root open to others was used")
	}
	os.Remove(HomesRoot())
	if err := os.Symlink(t.TempDir(), HomesRoot()); err != nil {
		t.Fatal(err)
	}
	if h, err := MakeHome(HomeDecl{Profile: "codex", Env: "CODEX_HOME", Person: "/nonexistent/.codex"}); err == nil {
		h.Remove()
		t.Error("a homes root that is a link was used")
	}
	// the control: a private one is used
	os.Remove(HomesRoot())
	h, err := MakeHome(HomeDecl{Profile: "codex", Env: "CODEX_HOME", Person: "/nonexistent/.codex"})
	if err != nil {
		t.Fatalf("a fresh homes root: %v", err)
	}
	h.Remove()
}
