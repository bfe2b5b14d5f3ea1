//go:build linux

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acp-bridge/acp-bridge/internal/testkit"
)

// Red team 14: docs/org.md promises that while the managed tier requires
// decision events and the companion that exports them is down, "no agent
// starts either: session/new is refused naming why". The check sat in the
// agent's process start only (bridge.agentRT.startOnce): a session/new on an
// agent that was already running was not refused while the companion was
// down. Now every session that opens is (bridge.sessionsBlocked). The
// companion is kept down by killing it with its file moved away (each
// restart fails); the first session/new, before, is the control.
func TestRT14SessionWhileCompanionDown(t *testing.T) {
	prefix := managedNS(t, map[string]string{"managed-settings.yaml": "telemetry:\n  enabled: true\n  protocol: grpc\n  endpoint: \"http://127.0.0.1:1\"\n"})
	home, ws := t.TempDir(), t.TempDir()
	p := startBinVia(t, prefix, home, ws, "defaultAgent: f\nagents:\n"+testkit.FakeAgentYAML("f")+testkit.FakeAgentYAML("g"))
	cx := ctx(t)
	m := initialize(t, cx, p, nil)
	if !m.Telemetry.Managed || !m.Telemetry.Enabled {
		t.Fatalf("initialize's telemetry %+v", m.Telemetry)
	}
	if _, err := p.editor.NewSession(cx, ws, "f"); err != nil {
		t.Fatalf("control: the first session/new: %v", err)
	}
	comp := filepath.Join(filepath.Dir(binPath), "acp-bridge-org")
	if err := os.Rename(comp, comp+".away"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Rename(comp+".away", comp) })
	pid := childNamed(t, p.cmd.Process.Pid, "acp-bridge-org")
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitLog(t, p, "acp-bridge-org is not running")
	time.Sleep(300 * time.Millisecond)
	// Control: an agent that is not running yet is refused.
	_, errG := p.editor.NewSession(cx, ws, "g")
	t.Logf("session/new g (not running) while the companion is down: %v", errG)
	if errG == nil || !strings.Contains(errG.Error(), "no agent starts") {
		t.Fatalf("control: a new agent was not refused while the companion is down: %v", errG)
	}
	// A second session on agent f, already running: refused too, naming why.
	sid, errF := p.editor.NewSession(cx, ws, "f")
	if errF == nil {
		t.Fatalf("session/new on a running agent succeeded (%s) while the required telemetry exporter is down", sid)
	}
	if !strings.Contains(errF.Error(), "no agent starts") || !strings.Contains(errF.Error(), "session/new refused") {
		t.Fatalf("session/new on a running agent refused without saying why: %v", errF)
	}
}

// childNamed is the pid of parent's child whose comm is name.
func childNamed(t *testing.T, parent int, name string) int {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		ents, _ := os.ReadDir("/proc")
		for _, e := range ents {
			pid, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
			if err != nil {
				continue
			}
			s := string(b)
			i, j := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
			if i < 0 || j < 0 || s[i+1:j] != name {
				continue
			}
			f := strings.Fields(s[j+1:])
			if len(f) > 1 && f[1] == strconv.Itoa(parent) {
				return pid
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("no child %s of %d", name, parent)
	return 0
}
