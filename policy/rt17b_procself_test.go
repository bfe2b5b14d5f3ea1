package policy

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRT17bProcSelfCwdRead (red team 17b): the engine resolves a path's
// symlinks in the process that judges (the bridge: bridge/callfs.go, with
// the real file system), but /proc/self/... is a different place in every
// process: /proc/self/cwd is the judging process's directory, not the
// directory of the program that opens the path (the command's cwd, the
// agent's). `cat /proc/self/cwd/.env` run in the workspace reads the
// workspace's .env, which a Read deny rule protects; judged from another
// directory it is a read of that directory's .env and is allowed. The
// sandbox masks .env only if it existed when the agent started
// (docs/sandbox.md: "a file matching a Read deny rule created later is not
// masked until the agent restarts (the policy still decides what is
// asked)"). Unsandboxed control below: the same path, opened by a process
// whose directory is the workspace, yields the secret.
func TestRT17bProcSelfCwdRead(t *testing.T) {
	proj := t.TempDir()
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(proj, ".env"), []byte("API_KEY=s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// Control: the program that opens the path has the workspace as its
	// directory, and reads the protected file.
	cmd := exec.Command("sh", "-c", "cat /proc/self/cwd/.env")
	cmd.Dir = proj
	out, err := cmd.Output()
	if err != nil || !strings.Contains(string(out), "s3cret") {
		t.Fatalf("control: cat /proc/self/cwd/.env in the workspace: %q %v", out, err)
	}
	origin := Origin{Layer: "workspace", File: proj + "/.acp-bridge.yaml", Root: proj}
	pol, errs := Compile([]RuleText{
		{List: "deny", Text: "Read(./.env)", Origin: origin},
		{List: "allow", Text: "Bash", Origin: origin},
		{List: "allow", Text: "Read", Origin: origin},
	})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	env := Env{Cwd: proj, ProjectRoot: proj, Home: home, FS: OSFS{}}
	for _, c := range []Call{
		{Tool: "Bash", Command: "cat .env"}, // the control spelling: denied
		{Tool: "Bash", Command: "cat /proc/self/cwd/.env"},
		{Tool: "Bash", Command: "cat /proc/thread-self/cwd/.env"},
		{Tool: "Read", Paths: []string{"/proc/self/cwd/.env"}},
	} {
		for _, mode := range []Mode{ModeDefault, ModeBypass} {
			v := Evaluate(Input{Call: c, Mode: mode, Env: env, Policy: pol})
			if v.Decision != Deny {
				t.Errorf("%s %s%s in %s: got %s (%s: %s), want deny (Read(./.env) holds; the program opening the path reads %s/.env)",
					c.Tool, c.Command, strings.Join(c.Paths, ","), mode, v.Decision, v.Source, v.Reason, proj)
			}
		}
	}
}
