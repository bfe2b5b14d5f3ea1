package sandbox

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestHookSeesNoAgentThroughProc: the files of a running agent are
// reachable by another name than their path, its /proc entry
// (/proc/PID/root/<workspace>/..., /proc/PID/cwd/...): a magic link that
// leads into the agent's own mount namespace, where the workspace is
// bound writable, past every tmpfs the hook's namespace lays over it. A
// bridge run as root runs agents and hooks as root without capabilities,
// and the kernel lets one such process follow the other's links. The hook
// runs in a PID namespace of its own with its own /proc: no agent is there
// to follow. Control: unconfined, the hook reads the agent's file through
// its /proc entry.
func TestHookSeesNoAgentThroughProc(t *testing.T) {
	requireMechanism(t)
	m := Probe()
	root := t.TempDir()
	ws, tools := filepath.Join(root, "ws"), filepath.Join(root, "tools")
	for _, d := range []string{ws, tools} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(ws, ".hookrc"), []byte("agent-wrote\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mask := filepath.Join(root, "mask")
	if err := os.WriteFile(mask, nil, 0); err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(root, "agent-tmp")
	if err := os.MkdirAll(tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	// The agent: in its real sandbox (the arguments every agent gets),
	// the workspace writable, waiting.
	args := BwrapArgs(Spec{Writable: []string{ws}}, mask, tmp, ws, []string{"/bin/sh", "-c", "echo ready; exec sleep 600"})
	agent := exec.Command(m.Path, args...)
	out, err := agent.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	agent.Stderr = os.Stderr
	if err := agent.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = agent.Process.Kill(); _ = agent.Wait() })
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "ready\n" {
		t.Fatalf("the agent did not start: %q %v", line, err)
	}
	// The hook reads every process's view of the workspace it can find.
	hook := filepath.Join(tools, "hook.sh")
	script := "#!/bin/sh\nfor p in /proc/[0-9]*; do cat \"$p/root" + ws + "/.hookrc\" \"$p/cwd/.hookrc\" 2>/dev/null; done\necho '{\"decision\":\"ask\"}'\n"
	if err := os.WriteFile(hook, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	run := func(argv []string) string {
		t.Helper()
		b, err := exec.Command(argv[0], argv[1:]...).CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %v\n%s", argv, err, b)
		}
		return string(b)
	}
	if got := run([]string{hook}); !strings.Contains(got, "agent-wrote") {
		t.Fatalf("control: unconfined, the hook did not reach the agent's file through /proc; the test proves nothing\n%s", got)
	}
	argv, err := HookArgv([]string{ws}, nil, []string{hook})
	if err != nil {
		t.Fatal(err)
	}
	got := run(argv)
	if strings.Contains(got, "agent-wrote") {
		t.Errorf("the hook read the agent's file through /proc:\n%s", got)
	}
	if !strings.Contains(got, `{"decision":"ask"}`) {
		t.Errorf("the hook did not run to its end:\n%s", got)
	}
}
