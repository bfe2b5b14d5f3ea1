//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Red-team (issue 21, "places that run code later"): inside the workspace's
// .git, only config, config.worktree, hooks/, info/, commondir and the
// existing modules/*/{config,hooks} are held. An agent in the sandbox can
// still create
//   - .git/rebase-merge/ with a git-rebase-todo holding `exec CMD`: the
//     person's next `git rebase --continue` (VS Code offers "Continue")
//     runs CMD outside the sandbox;
//   - .git/modules/evil/ (config with core.fsmonitor) and a gitfile
//     sub/.git naming it: the next `git status` in sub (VS Code's git
//     extension opens nested repositories by itself) runs the fsmonitor.
//
// The policy treats every path under .git as a breaker; the sandbox does
// not, so an unasked write (python -c, a test suite) gets through.
// Each script is run unsandboxed first to show the damage happens.
func TestGitStateThatRunsLaterCannotBeCreated(t *testing.T) {
	requireMechanism(t)
	attack := `set -e
H=$(git rev-parse HEAD)
mkdir -p .git/rebase-merge
echo refs/heads/main > .git/rebase-merge/head-name
echo $H > .git/rebase-merge/onto; echo $H > .git/rebase-merge/orig-head
: > .git/rebase-merge/interactive
printf 'exec touch PWN_rebase\n' > .git/rebase-merge/git-rebase-todo
mkdir -p .git/modules/evil sub
git init -q --bare .git/modules/evil
git config -f .git/modules/evil/config core.bare false
git config -f .git/modules/evil/config core.worktree ../../../sub
git config -f .git/modules/evil/config core.fsmonitor "touch $PWD/PWN_fsmonitor; false"
echo "gitdir: ../.git/modules/evil" > sub/.git
`
	later := func(t *testing.T, ws string) []string {
		for _, c := range [][]string{
			{"git", "-c", "user.email=a@b", "-c", "user.name=a", "rebase", "--continue"},
			{"git", "-C", "sub", "status"},
		} {
			cmd := exec.Command(c[0], c[1:]...)
			cmd.Dir = ws
			_ = cmd.Run()
		}
		var ran []string
		for _, f := range []string{"PWN_rebase", "PWN_fsmonitor"} {
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
	if ran := later(t, cws); len(ran) != 2 {
		t.Fatalf("control: only %v ran", ran)
	}

	home, ws := mk(t)
	s := placeSpec(t, home, ws)
	out, _ := runIn(t, s, ws, home, attack)
	if ran := later(t, ws); len(ran) != 0 {
		t.Errorf("created inside the sandbox, ran outside later: %s\n sandbox output: %s", strings.Join(ran, ", "), out)
	}
}
