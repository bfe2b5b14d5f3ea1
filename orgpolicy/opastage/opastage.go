package opastage

import (
	"context"
	"fmt"
	"time"

	"github.com/acp-bridge/acp-bridge/hooks"
	"github.com/acp-bridge/acp-bridge/permission"
	"github.com/acp-bridge/acp-bridge/policy"
)

// DefaultTimeout bounds one OPA decision when the config names none.
const DefaultTimeout = 500 * time.Millisecond

// Config is the managed tier's opa section (settings.OPAConfig mirrors it).
type Config struct {
	// BundleURL is the bundle's full URL (service and resource).
	BundleURL string
	// PollMin and PollMax bound the polling interval.
	PollMin, PollMax time.Duration
	// KeyID, Key and Algorithm verify the bundle's signature (always):
	// a PEM public key for RS*/ES*/PS*, a shared secret for HS*.
	KeyID, Key, Algorithm string
	// Query is the decision's path, e.g. "acp/decision" (data.acp.decision).
	Query string
	// DecisionLogURL, if set, receives OPA's decision logs.
	DecisionLogURL string
	// PersistDir keeps the last verified bundle for offline starts.
	PersistDir string
	// Timeout bounds one decision; 0 = DefaultTimeout.
	Timeout time.Duration
}

// Budget is the time one decision may take.
func (c Config) Budget() time.Duration {
	if c.Timeout <= 0 {
		return DefaultTimeout
	}
	return c.Timeout
}

// Input is OPA's input document for one decision.
type Input struct {
	Call      policy.Call   `json:"call"`
	Agent     string        `json:"agent"`
	SessionID string        `json:"session"`
	Mode      string        `json:"mode"`
	Workspace string        `json:"workspace"`
	Earlier   hooks.Earlier `json:"earlier"`
}

// Result is OPA's answer.
type Result struct {
	hooks.Result
	// DecisionID is OPA's decision id (also in its decision log).
	DecisionID string `json:"decisionId,omitempty"`
	// Revision is the active bundle's revision.
	Revision string `json:"revision,omitempty"`
}

// NoVerdict is the Result of a decision OPA did not make, for why.
func NoVerdict(why string, elapsed time.Duration) Result {
	return Result{Result: hooks.Result{Hook: "opa", Outcome: hooks.OutcomeNoVerdict, Reason: "OPA: " + why, Elapsed: elapsed}}
}

// Decider answers one decision. It never fails: what goes wrong is a
// no-verdict Result naming why. It is bounded by ctx and its own budget.
type Decider interface {
	Decide(ctx context.Context, in Input) Result
}

// Sources of verdicts the OPA stage made, and of its asks when OPA gave
// none (no verified bundle yet, an undefined query, an error, the budget,
// a companion process that is not running).
const (
	SourceOPA          policy.Source = "opa"
	SourceOPANoVerdict policy.Source = "opa-no-verdict"
)

// PermissionStage is OPA as one stage of the permission flow, after the
// policy and the hooks: its answer is folded in as a hook's is
// (hooks.CombineFirm: stricter always wins; it never loosens a deny, a
// breaker or a managed rule; no verdict asks).
type PermissionStage struct {
	OPA       Decider
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
	if p.Broken != "" || p.OPA == nil {
		res = NoVerdict("cannot start: "+p.Broken, 0)
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
