package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestHookRunsBlindToWhatAgentsWrite: a decision hook whose script
// (outside every writable tree, so the settings' check passes it) sources
// a file from the directory its request names: the workspace, where an
// agent wrote that file. Unconfined (the control) the agent's code runs
// outside every sandbox and leaves its mark outside the workspace; under
// HookArgv the workspace is an empty directory to the hook, nothing of the
// agent's runs, and the hook still runs, reads what it may (a place kept
// read-only inside the workspace, its own files) and writes outside the
// trees. Every tree an agent may write, and every agent's private temp
// directory, is hidden the same way.
func TestHookRunsBlindToWhatAgentsWrite(t *testing.T) {
	requireMechanism(t)
	root := t.TempDir()
	ws, tools, extra := filepath.Join(root, "ws"), filepath.Join(root, "tools"), filepath.Join(root, "extra")
	keep := filepath.Join(ws, ".config", "acp-bridge")
	for _, d := range []string{ws, tools, extra, keep} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	mark := filepath.Join(tools, "agent-code-ran")
	write := func(p, s string, mode os.FileMode) {
		t.Helper()
		if err := os.WriteFile(p, []byte(s), mode); err != nil {
			t.Fatal(err)
		}
	}
	// What agents wrote, in each kind of tree.
	for _, d := range []string{ws, extra} {
		write(filepath.Join(d, ".hookrc"), "echo agent > "+mark+"\n", 0o644)
	}
	priv, err := os.MkdirTemp("", privatePrefix+"hooktest-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(priv)
	write(filepath.Join(priv, ".hookrc"), "echo agent > "+mark+"\n", 0o644)
	write(filepath.Join(keep, "policy.txt"), "kept-policy\n", 0o644)
	// The hook: it reads directories from its request and sources what it
	// finds there (a hook's own code, which no check of its command sees).
	hook := filepath.Join(tools, "hook.sh")
	write(hook, `#!/bin/sh
while read -r dir; do
  [ -f "$dir/.hookrc" ] && . "$dir/.hookrc"
done
cat `+filepath.Join(keep, "policy.txt")+` 2>/dev/null || echo no-policy
ls -A `+ws+` | tr '\n' ' '; echo
echo wrote > `+filepath.Join(tools, "hook-log")+`
echo '{"decision":"ask"}'
`, 0o755)
	request := ws + "\n" + extra + "\n" + priv + "\n"
	run := func(argv []string) string {
		t.Helper()
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Stdin = strings.NewReader(request)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %v\n%s", argv, err, out)
		}
		return string(out)
	}

	// Control: unconfined, the agent's file runs.
	out := run([]string{hook})
	if _, err := os.Stat(mark); err != nil {
		t.Fatalf("control: the agent's .hookrc did not run unconfined (%v); the test proves nothing\n%s", err, out)
	}
	if err := os.Remove(mark); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(tools, "hook-log")); err != nil {
		t.Fatal(err)
	}

	argv, err := HookArgv([]string{ws, extra}, []string{keep}, []string{hook})
	if err != nil {
		t.Fatal(err)
	}
	out = run(argv)
	if b, err := os.ReadFile(mark); err == nil {
		t.Fatalf("the agent's code ran in the hook's sandbox (%q)\n%s", b, out)
	}
	for _, want := range []string{"kept-policy", `{"decision":"ask"}`} {
		if !strings.Contains(out, want) {
			t.Errorf("the hook's output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, ".hookrc") {
		t.Errorf("the hook saw the workspace's files:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(tools, "hook-log")); err != nil {
		t.Errorf("the hook could not write outside the trees: %v", err)
	}
	// And on disk nothing of the workspace changed.
	if b, err := os.ReadFile(filepath.Join(ws, ".hookrc")); err != nil || !strings.Contains(string(b), "echo agent") {
		t.Errorf("the workspace's file changed: %q %v", b, err)
	}
}

// TestHookMasksOutermostOnce: nested trees are hidden by their outermost
// one; a tree that is a symlink is hidden at its real path too; a tree that
// is a file is hidden as a file (both names); what does not exist, "/" and
// relative paths are left alone.
func TestHookMasksOutermostOnce(t *testing.T) {
	root := t.TempDir()
	a := filepath.Join(root, "a")
	nested := filepath.Join(a, "b")
	real := filepath.Join(root, "real")
	link := filepath.Join(root, "link")
	for _, d := range []string{nested, real} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(root, "history")
	fileLink := filepath.Join(root, "history-link")
	inA := filepath.Join(a, "f")
	for _, f := range []string{file, inA} {
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(file, fileLink); err != nil {
		t.Fatal(err)
	}
	got, files := hookMasks([]string{nested, a, link, "/", "rel", filepath.Join(root, "missing"), fileLink, inA, file})
	if !slices.Equal(files, []string{fileLink, file}) {
		t.Errorf("file masks %v, want the file tree at its name and its real path, once, and none under a hidden directory", files)
	}
	has := func(p string) bool {
		for _, g := range got {
			if g == p {
				return true
			}
		}
		return false
	}
	for _, want := range []string{a, link, real} {
		if !has(want) {
			t.Errorf("masks %v lack %s", got, want)
		}
	}
	for _, not := range []string{nested, "/", "rel", filepath.Join(root, "missing")} {
		if has(not) {
			t.Errorf("masks %v hold %s", got, not)
		}
	}
}

// TestHookRunsBlindToAWritableFile: a writable tree may be one file
// (allowWrite naming ~/.zsh_history or a tool's state file): the agent
// writes it, and a hook that reads it gets nothing under HookArgv.
// Control: unconfined, the hook reads what the agent wrote.
func TestHookRunsBlindToAWritableFile(t *testing.T) {
	requireMechanism(t)
	root := t.TempDir()
	f := filepath.Join(root, "state.json")
	if err := os.WriteFile(f, []byte("agent-wrote\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	argv := []string{"/bin/cat", f}
	if b, err := exec.Command(argv[0], argv[1:]...).CombinedOutput(); err != nil || !strings.Contains(string(b), "agent-wrote") {
		t.Fatalf("control: unconfined cat read %q (%v); the test proves nothing", b, err)
	}
	wrapped, err := HookArgv([]string{f}, nil, argv)
	if err != nil {
		t.Fatal(err)
	}
	b, err := exec.Command(wrapped[0], wrapped[1:]...).CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %v\n%s", wrapped, err, b)
	}
	if strings.Contains(string(b), "agent-wrote") {
		t.Errorf("the hook read the agent's file tree: %q", b)
	}
}
