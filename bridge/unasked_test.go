package bridge

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/internal/audit"
	"github.com/acp-bridge/acp-bridge/internal/testkit"
)

// unaskedRecords are the audit records of tool calls run without asking.
func unaskedRecords(m *memAudit, session string) []audit.Record {
	var out []audit.Record
	for _, r := range m.all() {
		if r.SessionID == session && r.Decision == "unasked" {
			out = append(out, r)
		}
	}
	return out
}

// An agent that never asks (no modes, nothing at launch) runs tools
// unasked: each finished call is audited as unasked with what the policy
// would have said; a denied one raises a notice in the chat and cancels the
// turn, and the notice names the rule. The file the agent made is on disk
// (the bridge cannot stop what it is not asked about: the sandbox can).
func TestUnaskedToolCallsAreSeen(t *testing.T) {
	cases := []struct {
		name       string
		extra      string
		script     string
		would      string
		cancelled  bool
		noticeWant bool
	}{
		{"would ask: audited, the turn goes on", "", "run touch made.txt", "ask", false, false},
		{"would deny: audited, notice, turn cancelled", "permissions: {deny: [\"Bash(touch *)\"]}\n", "run touch made.txt\nwait", "deny", true, true},
		{"would deny, cancelling off: audited and noticed, the turn goes on", "permissions: {deny: [\"Bash(touch *)\"], cancelOnUnaskedDeny: false}\n", "run touch made.txt", "deny", false, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			aud := &memAudit{}
			h := start(t, tc.extra+"defaultAgent: plain\nagents:\n"+testkit.FakeAgentYAML("plain", "--modes=none"), func(o *Options) { o.Audit = aud })
			h.init(false)
			sid := h.session("")
			ctx := tctx(t)
			stop, err := h.editor.Prompt(ctx, sid, tc.script)
			if err != nil {
				t.Fatal(err)
			}
			if got := stop == acp.StopCancelled; got != tc.cancelled {
				t.Errorf("stop reason %q, want cancelled=%v", stop, tc.cancelled)
			}
			if _, err := os.Stat(filepath.Join(h.ws, "made.txt")); err != nil {
				t.Errorf("the unasked call did not run (the case proves nothing): %v", err)
			}
			// The judging goroutine writes the audit line.
			if err := aud.waitFor(ctx, func(rs []audit.Record) bool {
				for _, r := range rs {
					if r.SessionID == sid && r.Decision == "unasked" {
						return true
					}
				}
				return false
			}); err != nil {
				t.Fatalf("no unasked audit record: %v %v", err, aud.all())
			}
			if tc.noticeWant {
				if err := h.editor.WaitFor(ctx, "the unaskedDenied notice", func(ms []testkit.Message) bool {
					for _, m := range ms {
						if m.Method == acp.MethodSessionUpdate && strings.Contains(string(m.Params), `"notice":"unaskedDenied"`) {
							return true
						}
					}
					return false
				}); err != nil {
					t.Fatal(err)
				}
			}
			recs := unaskedRecords(aud, sid)
			if len(recs) != 1 || recs[0].Would != tc.would || recs[0].ToolCallID == "" || !strings.Contains(recs[0].Specifier, "touch made.txt") {
				b, _ := json.Marshal(recs)
				t.Fatalf("unasked records %s, want one for Bash(touch made.txt) that would %s", b, tc.would)
			}
			notice := false
			for _, m := range h.editor.Messages() {
				if m.Method == acp.MethodSessionUpdate && strings.Contains(string(m.Params), `"notice":"unaskedDenied"`) {
					notice = true
				}
			}
			if notice != tc.noticeWant {
				t.Errorf("unaskedDenied notice shown: %v, want %v", notice, tc.noticeWant)
			}
		})
	}
}

// A call the agent asked about is not audited as unasked when it finishes.
func TestAskedToolCallIsNotUnasked(t *testing.T) {
	aud := &memAudit{}
	h := start(t, "defaultAgent: c\npermissions: {allow: [\"Bash(touch *)\"]}\nagents:\n"+testkit.FakeAgentYAML("c", "--modes=claude")+"    family: claude\n", func(o *Options) { o.Audit = aud })
	h.init(false)
	sid := h.session("")
	if _, err := h.editor.Prompt(tctx(t), sid, "run touch asked.txt"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(h.ws, "asked.txt")); err != nil {
		t.Fatalf("the allowed call did not run: %v", err)
	}
	for _, r := range aud.all() {
		if r.Decision == "unasked" {
			t.Fatalf("an asked call was audited as unasked: %+v", r)
		}
	}
}
