package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/acp-bridge/acp-bridge/internal/audit"
)

// TestRecordPathsInWorkspaceRefused: the bridge refuses to start when its
// audit log (user config) or its log (--log-file) would be inside the
// workspace, where an agent could erase the record; nothing is written
// there. The control: the same settings with the paths outside start.
func TestRecordPathsInWorkspaceRefused(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	cfg := filepath.Join(home, "config.yaml")
	run := func(config string, args ...string) (string, int) {
		if err := os.WriteFile(cfg, []byte(config), 0o600); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(binPath, append([]string{"--workspace", ws, "--config", cfg}, args...)...)
		cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"))
		cmd.Dir = ws
		cmd.Stdin = strings.NewReader("") // the editor goes away at once
		out, _ := cmd.CombinedOutput()
		return string(out), cmd.ProcessState.ExitCode()
	}
	inWS := filepath.Join(ws, ".logs", "audit.jsonl")
	out, code := run("audit: {path: '" + inWS + "'}\n")
	if code != 2 || !strings.Contains(out, "audit.path") || !strings.Contains(out, inWS) || !strings.Contains(out, "workspace") {
		t.Errorf("audit.path in the workspace: exit %d\n%s", code, out)
	}
	logInWS := filepath.Join(ws, "bridge.log")
	out, code = run("{}\n", "--log-file", logInWS)
	if code != 2 || !strings.Contains(out, "--log-file") || !strings.Contains(out, logInWS) {
		t.Errorf("--log-file in the workspace: exit %d\n%s", code, out)
	}
	for _, p := range []string{inWS, logInWS} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("the refused %s was created in the workspace", p)
		}
	}
	// Control: outside the workspace, the same bridge starts and exits 0
	// when the editor closes its stdin.
	outside := filepath.Join(home, "logs", "audit.jsonl")
	if out, code := run("audit: {path: '"+outside+"'}\n", "--log-file", filepath.Join(home, "bridge.log")); code != 0 {
		t.Errorf("paths outside the workspace: exit %d\n%s", code, out)
	}
}

// TestAuditCommandAfterFlood: `acp-bridge audit` shows a deny written before
// a flood of unasked records far past the budget (the deny file is read
// with the others), each deny once.
func TestAuditCommandAfterFlood(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l, err := audit.Open(path, 32<<10, nil)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now().Add(-time.Hour)
	if err := l.Append(audit.Record{Time: t0, Agent: "claude", SessionID: "s", ToolCallID: "rm", Call: json.RawMessage(`{"tool":"Bash","command":"rm -rf ~"}`),
		Specifier: "Bash(rm -rf ~)", Decision: "deny", Source: "rule", Rule: "Bash(rm *)"}); err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("x", 64<<10)
	for i := range 400 { // 25 MB of rawInput against a 32 KiB budget
		call, _ := json.Marshal(map[string]any{"tool": "Read", "input": map[string]string{"data": big}})
		if err := l.Append(audit.Record{Time: t0.Add(time.Duration(i+1) * time.Millisecond), Agent: "claude", SessionID: "s",
			ToolCallID: "u" + strconv.Itoa(i), Call: call, Decision: "unasked", Would: "allow", Source: "rule"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(binPath, "audit", "--path", path, "--decision", "deny").CombinedOutput()
	if err != nil {
		t.Fatalf("acp-bridge audit: %v\n%s", err, out)
	}
	if strings.Count(string(out), "Bash(rm -rf ~)") != 1 || !strings.Contains(string(out), "1 record(s)") {
		t.Fatalf("acp-bridge audit --decision deny after the flood:\n%s", out)
	}
}
