package permission

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/acp-bridge/acp-bridge/internal/audit"
	"github.com/acp-bridge/acp-bridge/policy"
)

// The audit record of a decision says where the deciding rule was read
// (tier, file), carries the session's trace context, and OPA's decision id
// only when the OPA stage's verdict is the one that stands: for a decision
// made without a card (Record) and for a call run unasked (Unasked) alike.
func TestAuditRecordNamesRuleOriginTraceAndOPADecision(t *testing.T) {
	const tp = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	managedDeny := func(*Request) (policy.Verdict, bool) {
		return policy.Verdict{Decision: policy.Deny, Source: policy.SourceRule, Rule: "Bash(rm:*)", Specifier: "Bash(rm -rf x)",
			RuleOrigin: &policy.Origin{Layer: "managed", File: "/etc/acp-bridge/managed-settings.yaml"}, Reason: "denied by a rule"}, true
	}
	allow := func(*Request) (policy.Verdict, bool) {
		return policy.Verdict{Decision: policy.Allow, Source: policy.SourceDefault, Specifier: "Bash(rm -rf x)", Reason: "no rule"}, true
	}
	// opa sets its decision id and has a say (or, with say false, sets it
	// and leaves the verdict as it is: a stage without a say leaves no id).
	opa := func(say bool) func(*Request) (policy.Verdict, bool) {
		return func(r *Request) (policy.Verdict, bool) {
			r.OPADecisionID = "opa-dec-42"
			return policy.Verdict{Decision: policy.Deny, Source: "opa", Specifier: r.Verdict.Specifier, Reason: "OPA says deny"}, say
		}
	}
	cases := []struct {
		name                  string
		stages                []func(*Request) (policy.Verdict, bool)
		trace                 string
		decision              string
		tier, file, rule, opa string
	}{
		{name: "a managed rule decides", stages: []func(*Request) (policy.Verdict, bool){managedDeny}, trace: tp,
			decision: "deny", rule: "Bash(rm:*)", tier: "managed", file: "/etc/acp-bridge/managed-settings.yaml"},
		{name: "no trace context", stages: []func(*Request) (policy.Verdict, bool){managedDeny},
			decision: "deny", rule: "Bash(rm:*)", tier: "managed", file: "/etc/acp-bridge/managed-settings.yaml"},
		{name: "no rule: no tier or file", stages: []func(*Request) (policy.Verdict, bool){allow}, trace: tp, decision: "allow"},
		{name: "OPA decides", stages: []func(*Request) (policy.Verdict, bool){allow, opa(true)}, trace: tp, decision: "deny", opa: "opa-dec-42"},
		{name: "OPA without a say", stages: []func(*Request) (policy.Verdict, bool){allow, opa(false)}, trace: tp, decision: "allow"},
		{name: "a later stage replaces OPA's verdict", stages: []func(*Request) (policy.Verdict, bool){allow, opa(true), managedDeny}, trace: tp,
			decision: "deny", rule: "Bash(rm:*)", tier: "managed", file: "/etc/acp-bridge/managed-settings.yaml"},
	}
	check := func(t *testing.T, what string, r audit.Record, decision string, c struct {
		tier, file, rule, opa, trace string
	}) {
		t.Helper()
		if r.Decision != decision || r.Rule != c.rule || r.RuleTier != c.tier || r.RuleFile != c.file || r.OPADecisionID != c.opa || r.Traceparent != c.trace {
			t.Errorf("%s: decision %q rule %q tier %q file %q opa %q trace %q; want %q %q %q %q %q %q", what,
				r.Decision, r.Rule, r.RuleTier, r.RuleFile, r.OPADecisionID, r.Traceparent, decision, c.rule, c.tier, c.file, c.opa, c.trace)
		}
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var trace []string
			var stages []Stage
			for i, fn := range c.stages {
				stages = append(stages, stageFunc{string(rune('a' + i)), &trace, fn})
			}
			want := struct{ tier, file, rule, opa, trace string }{c.tier, c.file, c.rule, c.opa, c.trace}

			// Decided without a card.
			r := newRig(stages, policy.ModeDefault)
			r.session.traceparent = c.trace
			if out := <-run(r, context.Background(), permReq("rm -rf x")); out.err != nil {
				t.Fatal(out.err)
			}
			recs := r.audit.records()
			if len(recs) != 1 {
				t.Fatalf("records %+v", recs)
			}
			check(t, "request", recs[0], c.decision, want)

			// Run unasked: the same fields.
			r = newRig(stages, policy.ModeDefault)
			r.session.traceparent = c.trace
			r.flow.Unasked(context.Background(), r.session, "tc-9", json.RawMessage(`{"command":"rm -rf x"}`))
			recs = r.audit.records()
			if len(recs) != 1 {
				t.Fatalf("unasked records %+v", recs)
			}
			check(t, "unasked", recs[0], "unasked", want)
		})
	}
}
