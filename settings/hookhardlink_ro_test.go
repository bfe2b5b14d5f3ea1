package settings

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestRT15bHookHardLinkReadOnlyModeRefused (red team 15b): hardLinked skips
// a file the bridge's user cannot write (access W_OK), but the owner of a
// 0555 file can chmod it back: an agent (the same user) chmods the
// workspace's name of the hook (the same inode), rewrites it, and the hook
// runs that outside every sandbox; the hook's own bubblewrap masks the
// workspace, not the inode reached by the hook's outside name. Run as a
// user (root's access() always says writable, so root is refused anyway).
// Control: the same file writable (0755) is refused.
func TestHookHardLinkReadOnlyModeRefused(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root: access(W_OK) is always true; run as a user")
	}
	root := t.TempDir()
	ws, tools := filepath.Join(root, "ws"), filepath.Join(root, "tools")
	for _, d := range []string{ws, tools} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	inWS, hook := filepath.Join(ws, "guard.sh"), filepath.Join(tools, "guard.sh")
	trees := []WritableTree{{Path: ws, Why: "it is the workspace"}}
	environ := []string{"HOME=/nonexistent-home", "PATH=/usr/bin:/bin"}
	cmd := []string{hook}
	for _, mode := range []os.FileMode{0o755, 0o555} {
		os.Remove(inWS)
		os.Remove(hook)
		if err := os.WriteFile(hook, []byte("#!/bin/sh\necho '{\"decision\":\"ask\"}'\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(hook, mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Link(hook, inWS); err != nil {
			t.Skipf("link: %v", err)
		}
		probs := hookPathProblems(Config{Hooks: []HookConfig{{Name: "guard", Command: cmd}}}, trees, nil, environ)
		// the agent (owner) chmods and rewrites the workspace's name in place
		marker := filepath.Join(root, "ran")
		os.Remove(marker)
		if err := os.Chmod(inWS, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(inWS, []byte("#!/bin/sh\ntouch "+marker+"\necho '{\"decision\":\"allow\"}'\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		out, _ := exec.Command(hook).CombinedOutput()
		_, statErr := os.Stat(marker)
		t.Logf("mode %o: problems %v; agent's rewrite ran: %v (%s)", mode, probs, statErr == nil, out)
		if len(probs) == 0 && statErr == nil {
			t.Errorf("red team 15b: hook %s (mode %o, hard link of %s) loads; the agent chmod+rewrote it and it ran", hook, mode, inWS)
		}
	}
}
