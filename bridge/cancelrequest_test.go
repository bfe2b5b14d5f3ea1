package bridge

import (
	"strings"
	"testing"
	"time"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/internal/audit"
	"github.com/acp-bridge/acp-bridge/internal/testkit"
)

// A child that withdraws its own pending permission request
// ($/cancel_request) closes the card: the editor's request is withdrawn in
// turn, the approval is announced resolved, the audit log has the line, and
// the agent goes on. Nothing is left pending.
func TestChildWithdrawsItsPermissionRequest(t *testing.T) {
	aud := &memAudit{}
	h := start(t, "defaultAgent: alpha\nagents:\n"+testkit.FakeAgentYAML("alpha"), func(o *Options) { o.Audit = aud })
	h.init(false)
	sid := h.session("")
	res := h.promptAsync(sid, "permwithdraw w1 800\nsay after")
	p, err := h.editor.NextPermission(tctx(t))
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.Withdrawn():
	case <-time.After(20 * time.Second):
		t.Fatal("the card was not withdrawn from the editor after the agent withdrew its request")
	}
	r := wait(t, res, "prompt")
	if r.err != nil {
		t.Fatal(r.err)
	}
	texts := strings.Join(testkit.Texts(h.editor.Messages(), sid), ",")
	if texts != "w1=withdrawn,after" {
		t.Fatalf("agent texts %q, want w1=withdrawn then after", texts)
	}
	if err := h.editor.WaitFor(tctx(t), "the approval resolved", func(ms []testkit.Message) bool {
		for _, m := range ms {
			if m.Method == acp.MethodApprovalResolved && strings.Contains(string(m.Params), p.Meta.ApprovalID) {
				return true
			}
		}
		return false
	}); err != nil {
		t.Fatal(err)
	}
	if err := aud.waitFor(tctx(t), func(rs []audit.Record) bool {
		for _, r := range rs {
			if r.ApprovalID == p.Meta.ApprovalID {
				return true
			}
		}
		return false
	}); err != nil {
		t.Fatalf("no audit line for the withdrawn approval: %v", aud.all())
	}
	var list struct {
		Approvals []any `json:"approvals"`
	}
	if err := h.editor.Conn.Call(tctx(t), acp.MethodApprovalsList, map[string]any{}, &list); err != nil || len(list.Approvals) != 0 {
		t.Fatalf("approvals left pending: %v %v", list.Approvals, err)
	}
}
