package bridge

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/internal/testkit"
	"github.com/acp-bridge/acp-bridge/wire"
)

// An agent that announces a tool call and asks about it right after its
// session/new answer, before the editor can have that answer (so while the
// bridge still holds the session's updates): the request is judged on the
// call as announced (a Bash command, denied by its rule), never as a call
// of no known tool. CI once saw "unknown(`rm -rf build`)" here: the held
// tool_call had not reached the session's tool-call cache.
func TestRequestRightAfterSessionNewIsJudgedOnItsAnnouncement(t *testing.T) {
	h := start(t, "defaultAgent: alpha\npermissions: {deny: [\"Bash(rm *)\"]}\nagents:\n"+
		testkit.FakeAgentYAML("alpha", "--ask-at-new=rm -rf build"))
	h.init(false)
	ctx := tctx(t)
	var ids []string
	for range 8 {
		ids = append(ids, h.session(""))
	}
	if err := h.editor.WaitFor(ctx, "every session's early request answered", func(msgs []testkit.Message) bool {
		for _, id := range ids {
			if !slices.ContainsFunc(testkit.Texts(msgs, id), func(s string) bool { return strings.HasPrefix(s, "atnew=") }) {
				return false
			}
		}
		return true
	}); err != nil {
		t.Fatal(err)
	}
	msgs := h.editor.Messages()
	for _, id := range ids {
		var got []wire.ApprovalResolvedParams
		for _, m := range msgs {
			if m.Method != acp.MethodApprovalResolved {
				continue
			}
			var r wire.ApprovalResolvedParams
			if err := json.Unmarshal(m.Params, &r); err != nil {
				t.Fatal(err)
			}
			if r.SessionID == id {
				got = append(got, r)
			}
		}
		if len(got) != 1 {
			t.Fatalf("session %s: %d resolved notices, want 1: %+v", id, len(got), got)
		}
		r := got[0]
		if r.Decision != "deny" || r.Specifier != "Bash(rm -rf build)" || r.Rule != "Bash(rm *)" {
			t.Errorf("session %s: decided %s on %q by rule %q (%s), want deny on Bash(rm -rf build) by Bash(rm *)", id, r.Decision, r.Specifier, r.Rule, r.Reason)
		}
	}
	if n := len(h.editor.Permissions); n != 0 {
		t.Errorf("the editor was asked %d times", n)
	}
	for _, id := range ids {
		for _, tx := range testkit.Texts(msgs, id) {
			if strings.HasPrefix(tx, "atnew=") && tx != "atnew=reject" {
				t.Errorf("session %s: the agent was answered %q", id, tx)
			}
		}
	}
}
