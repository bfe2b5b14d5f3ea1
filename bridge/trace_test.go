package bridge

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/internal/audit"
	"github.com/acp-bridge/acp-bridge/internal/testkit"
	"github.com/acp-bridge/acp-bridge/settings"
)

func TestSetTraceKeepsOnlyAWellFormedTraceparent(t *testing.T) {
	const good = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	for _, c := range []struct{ name, meta, want string }{
		{"well formed", `{"traceparent":"` + good + `"}`, good},
		{"no _meta", ``, ""},
		{"no traceparent", `{"other":1}`, ""},
		{"upper case hex", `{"traceparent":"00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01"}`, ""},
		{"zero trace id", `{"traceparent":"00-00000000000000000000000000000000-00f067aa0ba902b7-01"}`, ""},
		{"zero span id", `{"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01"}`, ""},
		{"too long", `{"traceparent":"` + good + `-xx"}`, ""},
		{"not a string", `{"traceparent":7}`, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := &session{}
			s.setTrace(acp.Object{"_meta": json.RawMessage(`{"traceparent":"` + good + `"}`)})
			o := acp.Object{}
			if c.meta != "" {
				o["_meta"] = json.RawMessage(c.meta)
			}
			s.setTrace(o) // a later prompt replaces the earlier one's
			if got := s.traceparent(); got != c.want {
				t.Errorf("traceparent %q, want %q", got, c.want)
			}
		})
	}
}

// TestAuditRecordNamesRuleTierFileAndTrace: a decision by a rule names
// the rule's layer and file, and carries the traceparent of the prompt
// it was made in; a prompt without one leaves it out.
func TestAuditRecordNamesRuleTierFileAndTrace(t *testing.T) {
	const tp = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	aud := &memAudit{}
	h := start(t, "defaultAgent: alpha\npermissions:\n  deny: [\"Bash(touch d1)\", \"Bash(touch d2)\"]\nagents:\n"+testkit.FakeAgentYAML("alpha"),
		func(o *Options) { o.Audit = aud })
	h.init(false)
	sid := h.session("")
	var res acp.PromptResponse
	if err := h.editor.Conn.Call(tctx(t), acp.MethodSessionPrompt, map[string]any{
		"sessionId": sid, "prompt": []map[string]string{{"type": "text", "text": "perm d1"}},
		"_meta": map[string]any{"traceparent": tp},
	}, &res); err != nil {
		t.Fatal(err)
	}
	if _, err := h.editor.Prompt(tctx(t), sid, "perm d2"); err != nil {
		t.Fatal(err)
	}
	find := func(rs []audit.Record, tc string) (audit.Record, bool) {
		for _, r := range rs {
			if r.ToolCallID == tc {
				return r, true
			}
		}
		return audit.Record{}, false
	}
	if err := aud.waitFor(tctx(t), func(rs []audit.Record) bool {
		_, a := find(rs, "d1")
		_, b := find(rs, "d2")
		return a && b
	}); err != nil {
		t.Fatalf("audit %v: %v", aud.all(), err)
	}
	rs := aud.all()
	d1, _ := find(rs, "d1")
	d2, _ := find(rs, "d2")
	for _, r := range []audit.Record{d1, d2} {
		if r.Decision != "deny" || r.Rule == "" || r.RuleTier == "" || r.RuleFile != h.cfg {
			t.Errorf("%s: decision %q rule %q tier %q file %q, want a deny naming its rule, tier and %s", r.ToolCallID, r.Decision, r.Rule, r.RuleTier, r.RuleFile, h.cfg)
		}
	}
	if d1.Traceparent != tp {
		t.Errorf("d1 traceparent %q, want %q", d1.Traceparent, tp)
	}
	if d2.Traceparent != "" {
		t.Errorf("d2 (a prompt without one) traceparent %q", d2.Traceparent)
	}
}

// TestAgentsNameTheManagedCollector: `acp-bridge agents` (PrintManaged)
// says that every decision goes to the organisation's collector when the
// managed tier requires it, and says nothing of it otherwise.
func TestAgentsNameTheManagedCollector(t *testing.T) {
	for _, c := range []struct {
		tl   settings.Telemetry
		want bool
	}{
		{settings.Telemetry{Enabled: true, Managed: true, Endpoint: "https://otel.corp.example:4318"}, true},
		{settings.Telemetry{Enabled: true, Endpoint: "https://otel.corp.example:4318"}, false}, // the user's own choice
	} {
		snap := &settings.Snapshot{Managed: &settings.Managed{Files: []string{"/etc/acp-bridge/managed-settings.yaml"}}}
		snap.Config.Telemetry = c.tl
		var b strings.Builder
		PrintManaged(&b, snap)
		if got := strings.Contains(b.String(), "organisation's collector at https://otel.corp.example:4318"); got != c.want {
			t.Errorf("%+v: output %q", c.tl, b.String())
		}
	}
}
