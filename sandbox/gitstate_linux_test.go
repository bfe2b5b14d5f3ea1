//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Red team 2 (issue 21, "places that run code later"): an agent in the
// sandbox created .git/modules/evil/ (config with core.fsmonitor) and a
// gitfile sub/.git naming it: the person's next `git status` in sub (VS
// Code's git extension opens nested repositories by itself) ran the
// fsmonitor outside the sandbox. modules/ (and worktrees/, sequencer/) are
// now held. (The red team's .git/rebase-merge todo is the policy's only:
// a placeholder there makes git report a rebase in progress to the person;
// docs/sandbox.md says what remains.) The script is run unsandboxed first
// to show the damage happens.
func TestGitStateThatRunsLaterCannotBeCreated(t *testing.T) {
	requireMechanism(t)
	attack := `set -e
mkdir -p .git/modules/evil sub
git init -q --bare .git/modules/evil
git config -f .git/modules/evil/config core.bare false
git config -f .git/modules/evil/config core.worktree ../../../sub
git config -f .git/modules/evil/config core.fsmonitor "touch $PWD/PWN_fsmonitor; false"
echo "gitdir: ../.git/modules/evil" > sub/.git
`
	later := func(t *testing.T, ws string) []string {
		for _, c := range [][]string{
			{"git", "-C", "sub", "status"},
		} {
			cmd := exec.Command(c[0], c[1:]...)
			cmd.Dir = ws
			_ = cmd.Run()
		}
		var ran []string
		for _, f := range []string{"PWN_fsmonitor"} {
			if _, err := os.Stat(filepath.Join(ws, f)); err == nil {
				ran = append(ran, f)
			}
		}
		return ran
	}
	mk := func(t *testing.T) (home, ws string) {
		home = filepath.Join(t.TempDir(), "home")
		ws = filepath.Join(home, "proj")
		if err := os.MkdirAll(ws, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, c := range [][]string{{"git", "init", "-q", "-b", "main", "."},
			{"git", "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-q", "--allow-empty", "-m", "a"}} {
			cmd := exec.Command(c[0], c[1:]...)
			cmd.Dir = ws
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatal(string(out), err)
			}
		}
		return home, ws
	}

	// control: unsandboxed, both run later
	_, cws := mk(t)
	cmd := exec.Command("/bin/sh", "-c", attack)
	cmd.Dir = cws
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("control attack failed: %s %v", out, err)
	}
	if ran := later(t, cws); len(ran) != 1 {
		t.Fatalf("control: only %v ran", ran)
	}

	home, ws := mk(t)
	s := placeSpec(t, home, ws)
	out, _ := runIn(t, s, ws, home, attack)
	if ran := later(t, ws); len(ran) != 0 {
		t.Errorf("created inside the sandbox, ran outside later: %s\n sandbox output: %s", strings.Join(ran, ", "), out)
	}
}

// Every git directory's state that git acts on later is held, existing or
// not, while an existing submodule's git directory (inside the held
// modules/) stays ordinary work. Each attempt is run unsandboxed on a fresh
// tree first: there it leaves its mark on the disk.
func TestGitStateHeldSubmoduleWorks(t *testing.T) {
	requireMechanism(t)
	id := "git -c user.email=a@b -c user.name=a -c protocol.file.allow=always"
	mk := func(t *testing.T) (home, ws string) {
		home = filepath.Join(t.TempDir(), "home")
		ws = filepath.Join(home, "proj")
		src := filepath.Join(home, "libsrc")
		for _, d := range []string{ws, src} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		for _, c := range []struct{ dir, sh string }{
			{src, "git init -q -b main . && " + id + " commit -q --allow-empty -m lib"},
			{ws, "git init -q -b main . && " + id + " commit -q --allow-empty -m a && " + id + " submodule -q add ../libsrc lib && " + id + " commit -qm sub"},
		} {
			cmd := exec.Command("/bin/sh", "-c", c.sh)
			cmd.Dir = c.dir
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%s: %v %s", c.sh, err, out)
			}
		}
		return home, ws
	}
	attempts := []struct {
		name, sh string
		mark     string // what the attempt leaves on the disk
	}{
		{"a cherry-pick sequence", "mkdir -p .git/sequencer && echo 'pick HEAD' > .git/sequencer/todo", ".git/sequencer/todo"},
		{"a new worktree's git directory", "mkdir -p .git/worktrees/x && echo ../.. > .git/worktrees/x/commondir", ".git/worktrees/x/commondir"},
		{"a new submodule's git directory", "git init -q --bare .git/modules/evil && git config -f .git/modules/evil/config core.fsmonitor 'touch pwn'", ".git/modules/evil/config"},
		{"a submodule's nested submodule", "git init -q --bare .git/modules/lib/modules/n", ".git/modules/lib/modules/n/config"},
		{"a submodule's config", "git config -f .git/modules/lib/config core.fsmonitor 'touch pwn'", ".git/modules/lib/config:fsmonitor"},
	}
	marked := func(ws, mark string) bool {
		f, want, _ := strings.Cut(mark, ":")
		b, err := os.ReadFile(filepath.Join(ws, f))
		return err == nil && strings.Contains(string(b), want)
	}
	for _, a := range attempts {
		t.Run(a.name, func(t *testing.T) {
			_, cws := mk(t)
			cmd := exec.Command("/bin/sh", "-c", a.sh)
			cmd.Dir = cws
			if out, err := cmd.CombinedOutput(); err != nil || !marked(cws, a.mark) {
				t.Fatalf("control: unsandboxed, %q left no mark: %v %s", a.sh, err, out)
			}
			home, ws := mk(t)
			s := placeSpec(t, home, ws)
			out, _ := runIn(t, s, ws, home, a.sh)
			if marked(ws, a.mark) {
				t.Errorf("created inside the sandbox: %s\n%s", a.mark, out)
			}
		})
	}
	t.Run("work in the existing submodule", func(t *testing.T) {
		home, ws := mk(t)
		s := placeSpec(t, home, ws)
		out, err := runIn(t, s, ws, home, "set -e; cd lib; echo x > f; git add f; "+id+" commit -qm x; git log --oneline | wc -l")
		if err != nil || !strings.Contains(out, "2") {
			t.Fatalf("commit in the submodule failed: %v\n%s", err, out)
		}
		cmd := exec.Command("git", "-C", filepath.Join(ws, "lib"), "log", "--oneline")
		if b, err := cmd.Output(); err != nil || strings.Count(string(b), "\n") != 2 {
			t.Fatalf("the commit is not on the disk: %v %s", err, b)
		}
	})
}
