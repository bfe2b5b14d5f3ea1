package hooks

import (
	"context"

	"github.com/acp-bridge/acp-bridge/permission"
	"github.com/acp-bridge/acp-bridge/policy"
)

// Stage is the decision hooks as one stage of the permission flow, after
// the policy's: each hook in order is consulted and folded in by Combine.
// A call already denied is not sent to any hook (nothing can loosen it).
type Stage struct {
	// Hooks returns the hooks in force (the settings of the moment).
	Hooks func() []Hook
	// Workspace is the project root hooks are told of.
	Workspace string
}

// Name implements permission.Stage.
func (Stage) Name() string { return "hooks" }

// Decide implements permission.Stage.
func (s Stage) Decide(ctx context.Context, r *permission.Request) (policy.Verdict, bool) {
	if s.Hooks == nil {
		return r.Verdict, false
	}
	hs := s.Hooks()
	if len(hs) == 0 || r.Verdict.Decision == policy.Deny {
		return r.Verdict, false
	}
	v := r.Verdict
	for _, h := range hs {
		if v.Decision == policy.Deny {
			break
		}
		req := Request{Call: r.Call, Agent: r.Session.Agent().Name(), SessionID: r.Session.ID(), Mode: string(r.Mode),
			Workspace: s.Workspace, Earlier: EarlierOf(v)}
		v = CombineFirm(v, Consult(ctx, h, req), r.Mode, r.Firm)
	}
	return v, true
}

// EarlierOf is what a hook (or OPA) is told of the verdict so far.
func EarlierOf(v policy.Verdict) Earlier {
	e := Earlier{Decision: string(v.Decision), Source: string(v.Source), Rule: v.Rule, Reason: v.Reason}
	if v.RuleOrigin != nil {
		e.Tier = v.RuleOrigin.Layer
	}
	return e
}
