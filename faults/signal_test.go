package faults

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/acp-bridge/acp-bridge/internal/testkit"
)

// SIGTERM with approvals pending in two agents: the editor sees each
// resolved by shutdown, each child gets its answer (cancelled) exactly
// once, every child is stopped, the audit log has a line for every
// decision, and the bridge exits 0.
func TestSIGTERMWithWorkInFlight(t *testing.T) {
	dir := t.TempDir()
	// The audit log outside the reports' directory, which the agents may
	// write (a record path inside a writable tree is refused).
	rf, rg, auditPath := filepath.Join(dir, "f"), filepath.Join(dir, "g"), filepath.Join(t.TempDir(), "audit.jsonl")
	p := start(t, startOpts{config: "defaultAgent: f\naudit: {path: " + auditPath + "}\npermissions: {allow: [\"Bash(touch ok)\"]}\nagents:\n" +
		agentYAML("f", rf) + agentYAML("g", rg)})
	p.init()
	sf, sg := p.session("f"), p.session("g")
	p.promptAsync(sf, "perm ok\nperm a b\nwait")
	p.promptAsync(sg, "perm c")
	ids := map[string]bool{}
	for range 3 {
		c, err := p.editor.NextPermission(tctx(t))
		if err != nil {
			t.Fatal(err)
		}
		ids[c.Meta.ApprovalID] = true
	}
	pf, pg := p.agentPid("f"), p.agentPid("g")
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	p.waitExit("SIGTERM")
	if p.exit != nil {
		t.Fatalf("bridge exit after SIGTERM: %v", p.exit)
	}
	// The editor's read loop has seen everything the bridge wrote once its
	// stdout closed; wait for that, then count.
	<-p.editor.Conn.Done()
	shutdown := 0
	for _, r := range testkit.Resolved(p.editor.Messages()) {
		if ids[r["approvalId"].(string)] {
			if r["by"] != "shutdown" || r["decision"] != "cancelled" {
				t.Errorf("approval %v resolved %v by %v, want cancelled by shutdown", r["approvalId"], r["decision"], r["by"])
			}
			shutdown++
		}
	}
	if shutdown != 3 {
		t.Errorf("%d of 3 pending approvals announced resolved by shutdown", shutdown)
	}
	answers := readReport(t, rf)
	for id, a := range readReport(t, rg) {
		answers[id] = a
	}
	want := map[string]string{"ok": "allow", "a": "cancelled", "b": "cancelled", "c": "cancelled"}
	for id, w := range want {
		if got := answers[id]; len(got) != 1 || got[0] != w {
			t.Errorf("the agent's request %s got %q, want one answer: %s", id, got, w)
		}
	}
	for name, pid := range map[string]int{"agent f": pf, "agent g": pg} {
		waitGone(t, pid, p.cmd.Process.Pid, name)
	}
	data, err := os.ReadFile(auditPath)
	if err != nil {
		t.Fatalf("audit log: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	bySource := map[string]int{}
	for _, l := range lines {
		var r struct {
			ApprovalID string `json:"approvalId"`
			Decision   string `json:"decision"`
			Source     string `json:"source"`
		}
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("audit line %q: %v", l, err)
		}
		bySource[r.Decision+"/"+r.Source]++
		if ids[r.ApprovalID] && (r.Decision != "cancelled" || r.Source != "shutdown") {
			t.Errorf("audit line for a pending approval: %s", l)
		}
	}
	if len(lines) != 4 || bySource["cancelled/shutdown"] != 3 {
		t.Fatalf("audit log has %d lines %v, want 4: the rule's allow and 3 cancelled by shutdown:\n%s", len(lines), bySource, data)
	}
}
