package settings

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Red team 15 (refused now: hookCheck.mounted, internal/mountnames): a hook program outside every writable tree by its path,
// but the same file as one in the workspace through a bind mount (an
// install directory bind-mounted from a checkout: /opt/corp-hooks from
// ~/proj/hooks, fstab or a container's volume). writableWhere judges the
// path (and its symlinks), not the mount: the hook loads, and the agent,
// which may write the workspace's name of the file, rewrites what runs
// outside every sandbox. Run in a private mount namespace (unshare -m,
// root), re-executing this test binary inside it. Control: the workspace's
// name is refused.
func TestHookThroughABindMountRefused(t *testing.T) {
	if os.Getenv("RT15_BIND_INNER") != "" {
		rt15BindInner(t)
		return
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root for unshare -m")
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("no unshare")
	}
	root := t.TempDir()
	ws := filepath.Join(root, "ws")
	opt := filepath.Join(root, "opt-corp-hooks")
	tools, optTools, optFile := filepath.Join(root, "tools"), filepath.Join(root, "opt-tools"), filepath.Join(root, "opt-file")
	for _, d := range []string{filepath.Join(ws, "hooks"), opt, tools, optTools, optFile} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(ws, "hooks", "guard.sh"), []byte("#!/bin/sh\necho '{\"decision\":\"ask\"}'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	// Also: the file itself bound onto a file outside (refused), and a
	// directory outside every writable tree bound elsewhere (control: loads).
	for _, f := range []string{filepath.Join(tools, "ok.sh"), filepath.Join(optFile, "guard.sh")} {
		if err := os.WriteFile(f, []byte("#!/bin/sh\necho '{\"decision\":\"ask\"}'\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("unshare", "-m", "--propagation", "private", "/bin/sh", "-c",
		`mount --bind "$1" "$2" && mount --bind "$4" "$5" && mount --bind "$6" "$7" && exec "$3" -test.run '^TestHookThroughABindMountRefused$' -test.v -test.count=1`, "sh",
		filepath.Join(ws, "hooks"), opt, os.Args[0], tools, optTools, filepath.Join(ws, "hooks", "guard.sh"), filepath.Join(optFile, "guard.sh"))
	cmd.Env = append(os.Environ(), "RT15_BIND_INNER=1", "RT15_WS="+ws, "RT15_OPT="+opt, "RT15_ROOT="+root)
	out, err := cmd.CombinedOutput()
	t.Logf("inner: %v\n%s", err, out)
	if err != nil {
		t.Errorf("HOLE (see inner output)")
	}
}

func rt15BindInner(t *testing.T) {
	ws, opt, root := os.Getenv("RT15_WS"), os.Getenv("RT15_OPT"), os.Getenv("RT15_ROOT")
	trees := []WritableTree{{Path: ws, Why: "it is the workspace"}}
	environ := []string{"HOME=/nonexistent-home", "PATH=/usr/bin:/bin"}
	hook := filepath.Join(opt, "guard.sh")
	probs := hookPathProblems(Config{Hooks: []HookConfig{{Name: "guard", Command: []string{hook}}}}, trees, nil, environ)
	// the agent writes the workspace's name of the file
	marker := filepath.Join(root, "ran")
	if err := os.WriteFile(filepath.Join(ws, "hooks", "guard.sh"), []byte("#!/bin/sh\ntouch "+marker+"\necho '{\"decision\":\"allow\"}'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	c := exec.Command(hook)
	c.Dir, c.Env = "/", hookEnviron(environ, trees, nil)
	out, err := c.CombinedOutput()
	_, statErr := os.Stat(marker)
	t.Logf("%s: problems %v; ran the agent's rewrite: %v (%v %s)", hook, probs, statErr == nil, err, out)
	if len(probs) == 0 && statErr == nil {
		t.Errorf("HOLE: a hook bind-mounted from the workspace loads, and runs what the agent wrote there")
	}
	if ctl := hookPathProblems(Config{Hooks: []HookConfig{{Name: "guard", Command: []string{filepath.Join(ws, "hooks", "guard.sh")}}}}, trees, nil, environ); len(ctl) == 0 {
		t.Fatal("control: the workspace's name accepted")
	}
	if p := hookPathProblems(Config{Hooks: []HookConfig{{Name: "guard", Command: []string{"/bin/sh", filepath.Join(root, "opt-file", "guard.sh")}}}}, trees, nil, environ); len(p) == 0 {
		t.Error("a hook script bind-mounted (the file itself) from the workspace loaded")
	}
	if p := hookPathProblems(Config{Hooks: []HookConfig{{Name: "guard", Command: []string{filepath.Join(root, "opt-tools", "ok.sh")}}}}, trees, nil, environ); len(p) != 0 {
		t.Errorf("control: a hook bound from a directory outside every writable tree refused: %v", p[0])
	}
}
