package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestHooksPath(t *testing.T) {
	cases := []struct{ config, want string }{
		{"[core]\n\thooksPath = .husky\n", ".husky"},
		{"[core]\n\thookspath=\"hooks dir\"\n", "hooks dir"},
		{"[core] hooksPath = x\n", "x"},
		{"[alias]\n\thooksPath = no\n", ""},
		{"[core]\n\tbare = false\n", ""},
		{"[core]\n\thooksPath = a\n[core]\n\thooksPath = b\n", "b"},
	}
	for _, c := range cases {
		p := filepath.Join(t.TempDir(), "config")
		if err := os.WriteFile(p, []byte(c.config), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := hooksPath(p); got != c.want {
			t.Errorf("hooksPath(%q) = %q, want %q", c.config, got, c.want)
		}
	}
	if got := hooksPath(filepath.Join(t.TempDir(), "none")); got != "" {
		t.Errorf("missing config: %q", got)
	}
}

func TestGitfileAndCommondir(t *testing.T) {
	d := t.TempDir()
	mustWrite(t, filepath.Join(d, "wt", ".git"), "gitdir: ../gd/wt\n")
	mustWrite(t, filepath.Join(d, "abs", ".git"), "gitdir: /elsewhere/x\n")
	mustWrite(t, filepath.Join(d, "bad", ".git"), "not a gitfile")
	mustWrite(t, filepath.Join(d, "gd", "wt", "commondir"), "../..\n")
	for p, want := range map[string]string{
		filepath.Join(d, "wt", ".git"):  filepath.Join(d, "gd", "wt"),
		filepath.Join(d, "abs", ".git"): "/elsewhere/x",
		filepath.Join(d, "bad", ".git"): "",
	} {
		if got := readGitfile(p); got != want {
			t.Errorf("readGitfile(%s) = %q, want %q", p, got, want)
		}
	}
	if got := readCommondir(filepath.Join(d, "gd", "wt")); got != d {
		t.Errorf("readCommondir = %q, want %q", got, d)
	}
}

func TestFilterEnv(t *testing.T) {
	in := []string{"PATH=/bin", "HOME=/h", "LC_ALL=C", "SSH_AUTH_SOCK=/s", "DBUS_SESSION_BUS_ADDRESS=x", "AWS_ACCESS_KEY_ID=a",
		"GITHUB_TOKEN=t", "ANTHROPIC_API_KEY=k", "MY_VAR=v", "MY_VARX=w", "=broken"}
	got := FilterEnv(in, []string{"ANTHROPIC_*", "MY_VAR"})
	want := []string{"PATH=/bin", "HOME=/h", "LC_ALL=C", "ANTHROPIC_API_KEY=k", "MY_VAR=v"}
	if !slices.Equal(got, want) {
		t.Errorf("FilterEnv = %v, want %v", got, want)
	}
}

// The commondir a blocked place reads as is the git directory itself, and
// JSON places read as an empty object: the person's git and editor keep
// working while the sandbox runs.
func TestBlockedContent(t *testing.T) {
	for p, want := range map[string]string{
		"/w/.git/commondir": ".\n", "/w/.vscode/tasks.json": "{}\n", "/w/opencode.jsonc": "{}\n", "/w/.envrc": "",
	} {
		if got := blockedContent(p); got != want {
			t.Errorf("blockedContent(%s) = %q, want %q", p, got, want)
		}
	}
}
