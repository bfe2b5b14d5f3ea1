package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// rt15bRun runs argv and returns its combined output (errors are output).
func rt15bRun(argv []string) string {
	out, _ := exec.Command(argv[0], argv[1:]...).CombinedOutput()
	return string(out)
}

// TestRT15bHookSeesAgentsPrivateHome (red team 15b): an agent's private
// home (codex's CODEX_HOME: /tmp/acp-bridge-homes-<uid>/acp-bridge-sandbox-*/codex-home,
// bound writable in the agent's sandbox) is a tree an agent writes; the
// hook's sandbox hides the agents' private temp dirs in os.TempDir() but
// not the homes root. A hook that reads a file its request names reads the
// agent's file. Control: unconfined it reads it too; the workspace file
// next to it is hidden (the mask works for what it lists).
func TestHookDoesNotSeeAgentsPrivateHome(t *testing.T) {
	requireMechanism(t)
	old := homesBase
	homesBase = t.TempDir()
	defer func() { homesBase = old }()
	root, err := ensureHomesRoot()
	if err != nil {
		t.Fatal(err)
	}
	top, err := os.MkdirTemp(root, privatePrefix)
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(top, "codex-home")
	ws := t.TempDir()
	for _, d := range []string{home} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	agentFile := filepath.Join(home, "AGENTS.md")
	wsFile := filepath.Join(ws, "x")
	os.WriteFile(agentFile, []byte("AGENT-WROTE-HOME\n"), 0o600)
	os.WriteFile(wsFile, []byte("AGENT-WROTE-WS\n"), 0o600)
	hook := []string{"/bin/cat", agentFile, wsFile}
	if out := rt15bRun(hook); !strings.Contains(out, "AGENT-WROTE-HOME") {
		t.Fatalf("control: %s", out)
	}
	argv, err := HookArgv([]string{ws}, nil, hook)
	if err != nil {
		t.Fatal(err)
	}
	out := rt15bRun(argv)
	if strings.Contains(out, "AGENT-WROTE-WS") {
		t.Fatalf("control: the workspace is not hidden: %s", out)
	}
	if strings.Contains(out, "AGENT-WROTE-HOME") {
		t.Errorf("the hook's sandbox read a file in an agent's private home (%s):\n%s", home, out)
	}
}

// TestRT15bHookReachesMaskedTreeThroughProc (red team 15b): the hook's
// sandbox shares the host's /proc. /proc/<pid>/root and /proc/<pid>/cwd of
// any process of the same user outside the hook's mount namespace (the
// bridge itself, whose cwd is typically the workspace; an agent's bwrap
// monitor) lead into the real, unmasked workspace. A hook that reads a
// path its request names (e.g. the tool's file_path) reads the agent's
// file. Control: the plain path is hidden.
func TestHookReachesMaskedTreeThroughProc(t *testing.T) {
	requireMechanism(t)
	ws := t.TempDir()
	f := filepath.Join(ws, ".hookrc")
	os.WriteFile(f, []byte("AGENT-WROTE\n"), 0o600)
	pid := strconv.Itoa(os.Getpid())
	viaRoot := "/proc/" + pid + "/root" + f
	argv, err := HookArgv([]string{ws}, nil, []string{"/bin/cat", f})
	if err != nil {
		t.Fatal(err)
	}
	if out := rt15bRun(argv); strings.Contains(out, "AGENT-WROTE") {
		t.Fatalf("control: the plain path is not hidden: %s", out)
	}
	argv, _ = HookArgv([]string{ws}, nil, []string{"/bin/cat", viaRoot})
	if out := rt15bRun(argv); strings.Contains(out, "AGENT-WROTE") {
		t.Errorf("the hook read the masked workspace through %s:\n%s", viaRoot, out)
	}
}
