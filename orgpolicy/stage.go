package orgpolicy

import (
	"context"
	"fmt"

	"github.com/acp-bridge/acp-bridge/hooks"
	"github.com/acp-bridge/acp-bridge/permission"
	"github.com/acp-bridge/acp-bridge/policy"
)

// Sources of verdicts the OPA stage made, and of its asks when OPA gave
// none (no verified bundle yet, an undefined query, an error, the budget).
const (
	SourceOPA          policy.Source = "opa"
	SourceOPANoVerdict policy.Source = "opa-no-verdict"
)

// PermissionStage is OPA as one stage of the permission flow, after the
// policy and the hooks: its answer is folded in as a hook's is
// (hooks.Combine: stricter always wins; it never loosens a deny, a breaker
// or a managed rule; no verdict asks).
type PermissionStage struct {
	OPA       *Stage
	Workspace string
	// Broken, when OPA could not start, is why: every call then gets no
	// verdict (asks).
	Broken string
}

// Name implements permission.Stage.
func (PermissionStage) Name() string { return "opa" }

// Decide implements permission.Stage.
func (p PermissionStage) Decide(ctx context.Context, r *permission.Request) (policy.Verdict, bool) {
	if r.Verdict.Decision == policy.Deny || (p.OPA == nil && p.Broken == "") {
		return r.Verdict, false
	}
	var res Result
	if p.OPA == nil {
		res.Result = hooks.Result{Hook: "opa", Outcome: hooks.OutcomeNoVerdict, Reason: "OPA: cannot start: " + p.Broken}
	} else {
		res = p.OPA.Decide(ctx, Input{Call: r.Call, Agent: r.Session.Agent().Name(), SessionID: r.Session.ID(),
			Mode: string(r.Mode), Workspace: p.Workspace, Earlier: hooks.EarlierOf(r.Verdict)})
	}
	v := hooks.CombineFirm(r.Verdict, res.Result, r.Mode, r.Firm)
	switch v.Source {
	case hooks.SourceHook:
		v.Source = SourceOPA
		v.Reason = fmt.Sprintf("OPA says %s (decision %s, bundle %s)", v.Decision, res.DecisionID, res.Revision)
		r.OPADecisionID = res.DecisionID
		if res.Reason != "" {
			v.Reason += ": " + res.Reason
		}
	case hooks.SourceNoVerdict:
		v.Source = SourceOPANoVerdict
	}
	return v, true
}
