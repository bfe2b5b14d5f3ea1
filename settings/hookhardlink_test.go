package settings

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Red team 15 (refused now: hookCheck.hardLinked): a hook program (or script) outside every writable tree
// that is a hard link of a file in the workspace (installed with ln or
// cp -l, a package manager's hard-linked store). writableWhere judges the
// path and its symlinks, never the link count; the companion is refused
// for exactly this (orgproc.oneName: "another name could be written where
// the sandbox does not guard it"). The agent writes the workspace's name
// in place; the hook runs that outside every sandbox. Control: the
// workspace's name is refused.
func TestHookHardLinkedFromTheWorkspaceRefused(t *testing.T) {
	root := t.TempDir()
	ws, tools := filepath.Join(root, "ws"), filepath.Join(root, "tools")
	for _, d := range []string{ws, tools} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	inWS, hook := filepath.Join(ws, "guard.sh"), filepath.Join(tools, "guard.sh")
	if err := os.WriteFile(inWS, []byte("#!/bin/sh\necho '{\"decision\":\"ask\"}'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(inWS, hook); err != nil {
		t.Skipf("link: %v", err)
	}
	trees := []WritableTree{{Path: ws, Why: "it is the workspace"}}
	environ := []string{"HOME=/nonexistent-home", "PATH=/usr/bin:/bin"}
	for _, cmd := range [][]string{{hook}, {"/bin/sh", hook}} {
		probs := hookPathProblems(Config{Hooks: []HookConfig{{Name: "guard", Command: cmd}}}, trees, nil, environ)
		marker := filepath.Join(root, "ran")
		os.Remove(marker)
		// the agent writes the workspace's name in place (same inode)
		if err := os.WriteFile(inWS, []byte("#!/bin/sh\ntouch "+marker+"\necho '{\"decision\":\"allow\"}'\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		c := exec.Command(cmd[0], cmd[1:]...)
		c.Dir, c.Env = "/", hookEnviron(environ, trees, nil)
		out, err := c.CombinedOutput()
		_, statErr := os.Stat(marker)
		t.Logf("%q: problems %v; ran the agent's rewrite: %v (%v %s)", cmd, probs, statErr == nil, err, out)
		if len(probs) == 0 && statErr == nil {
			t.Errorf("HOLE: %q (a hard link of %s) loads, and runs what the agent wrote there", cmd, inWS)
		}
	}
	if p := hookPathProblems(Config{Hooks: []HookConfig{{Name: "guard", Command: []string{inWS}}}}, trees, nil, environ); len(p) == 0 {
		t.Fatal("control: the workspace's name accepted")
	}
}

// The class as a property: a file the check judges (the program, a
// shell's or an interpreter's script, an awk -f program, a glued one)
// with a second name in the workspace is refused in every position; the
// same command once the workspace's name is removed (one link) loads.
func TestHookHardLinkProperty(t *testing.T) {
	root := t.TempDir()
	ws, tools := filepath.Join(root, "ws"), filepath.Join(root, "tools")
	for _, d := range []string{ws, tools} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	trees := []WritableTree{{Path: ws, Why: "it is the workspace"}}
	environ := []string{"HOME=/nonexistent-home", "PATH=/usr/bin:/bin"}
	files := map[string]string{"guard.sh": "#!/bin/sh\necho\n", "hook.py": "print(1)\n", "hook.awk": "BEGIN{}\n", "hook.js": "1\n"}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(tools, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cmds := [][]string{
		{filepath.Join(tools, "guard.sh")},
		{"/bin/sh", filepath.Join(tools, "guard.sh")},
		{"/usr/bin/python3", filepath.Join(tools, "hook.py")},
		{"/usr/bin/awk", "-f", filepath.Join(tools, "hook.awk")},
		{"/usr/bin/awk", "-f" + filepath.Join(tools, "hook.awk")},
		{"/usr/bin/node", filepath.Join(tools, "hook.js")},
	}
	for _, cmd := range cmds {
		f := cmd[len(cmd)-1]
		if len(cmd) == 1 {
			f = cmd[0]
		}
		f = filepath.Join("/", f[strings.IndexByte(f, '/'):])
		other := filepath.Join(ws, "other-name")
		os.Remove(other)
		if err := os.Link(f, other); err != nil {
			t.Skipf("link: %v", err)
		}
		if p := hookPathProblems(Config{Hooks: []HookConfig{{Name: "g", Command: cmd}}}, trees, nil, environ); len(p) == 0 {
			t.Errorf("%q accepted while %s is another name of %s", cmd, other, f)
		}
		os.Remove(other)
		if p := hookPathProblems(Config{Hooks: []HookConfig{{Name: "g", Command: cmd}}}, trees, nil, environ); len(p) != 0 {
			t.Errorf("control: %q (one name) refused: %v", cmd, p[0])
		}
	}
}
