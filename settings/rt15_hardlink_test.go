package settings

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Red team 15: a hook program (or script) outside every writable tree
// that is a hard link of a file in the workspace (installed with ln or
// cp -l, a package manager's hard-linked store). writableWhere judges the
// path and its symlinks, never the link count; the companion is refused
// for exactly this (orgproc.oneName: "another name could be written where
// the sandbox does not guard it"). The agent writes the workspace's name
// in place; the hook runs that outside every sandbox. Control: the
// workspace's name is refused.
func TestRT15HookHardLinkedFromTheWorkspace(t *testing.T) {
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
