package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestRT16HookSeesAgentFilesThroughProc (red team 16): the hook's sandbox
// hides each tree an agent may write with a tmpfs, but it binds the host's
// / (with the host's /proc) and makes no PID namespace of its own. Where
// bubblewrap makes no user namespace (the bridge run as root, as in a dev
// container, or a setuid bwrap), the hook may follow /proc/PID/root and
// /proc/PID/cwd of an agent's process (same user, every capability dropped,
// so the ptrace access check passes): /proc/<agent pid>/cwd is the agent's
// workspace as the agent sees it. The hook of TestHookRunsBlindToWhatAgentsWrite
// (it reads directories from its request and sources what it finds there)
// given /proc/<agent pid>/cwd sources the agent's code: the floor "whatever
// a hook loads, sources or reads, it cannot be a file an agent wrote"
// (docs/sandbox.md) does not hold for a path through /proc. Run as root here
// (fails); as an unprivileged user (bubblewrap in a user namespace) it passes:
// the kernel refuses /proc/PID/root across the user namespace.
func TestRT16HookSeesAgentFilesThroughProc(t *testing.T) {
	requireMechanism(t)
	root := t.TempDir()
	ws, tools := filepath.Join(root, "ws"), filepath.Join(root, "tools")
	for _, d := range []string{ws, tools} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	mark := filepath.Join(tools, "agent-code-ran")
	if err := os.WriteFile(filepath.Join(ws, ".hookrc"), []byte("echo agent > "+mark+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	hook := filepath.Join(tools, "hook.sh")
	if err := os.WriteFile(hook, []byte("#!/bin/sh\nwhile read -r dir; do\n  [ -f \"$dir/.hookrc\" ] && . \"$dir/.hookrc\"\ndone\necho '{\"decision\":\"ask\"}'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	argv, err := HookArgv([]string{ws}, nil, []string{hook})
	if err != nil {
		t.Fatal(err)
	}
	run := func(request string) string {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Stdin = strings.NewReader(request)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %v\n%s", argv, err, out)
		}
		return string(out)
	}
	// Control (what the docs promise): the workspace named as itself is hidden.
	run(ws + "\n")
	if _, err := os.Stat(mark); err == nil {
		t.Fatal("control: the agent's code ran with the workspace named directly")
	}
	// An agent: a process of the same user with every capability dropped,
	// as in every agent's sandbox (a non-root bridge has none to drop, so
	// there /proc/<bridge pid>/root serves as well).
	agent := exec.Command(argv[0], "--die-with-parent", "--cap-drop", "ALL", "--dev-bind", "/", "/", "--chdir", ws, "--", "sleep", "30")
	if err := agent.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = agent.Process.Kill(); _, _ = agent.Process.Wait() }()
	var pids []string
	for i := 0; i < 100 && len(pids) == 0; i++ {
		b, _ := os.ReadFile("/proc/" + strconv.Itoa(agent.Process.Pid) + "/task/" + strconv.Itoa(agent.Process.Pid) + "/children")
		pids = strings.Fields(string(b))
		if len(pids) == 0 {
			time.Sleep(20 * time.Millisecond)
		}
	}
	if len(pids) == 0 {
		t.Fatal("the agent process did not start")
	}
	for _, name := range []string{"/proc/" + pids[0] + "/root" + ws, "/proc/" + pids[0] + "/cwd", "/proc/" + strconv.Itoa(os.Getpid()) + "/root" + ws} {
		out := run(name + "\n")
		if b, err := os.ReadFile(mark); err == nil {
			t.Errorf("the agent's code ran in the hook's sandbox, the workspace named %s (%q)\n%s", name, b, out)
			_ = os.Remove(mark)
		}
	}
}
