package permission

import (
	"strings"

	"go.uber.org/zap"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/policy"
)

// applyResolution turns the person's (or the broker's) resolution of a
// child's session/request_permission into the child's answer, applying
// grants on the way; "Deny and stop the turn" cancels the turn after the
// reply (acp.AfterReply).
func (f *Flow) applyResolution(s Session, call policy.Call, d Decision, fwd *Forwarded,
	res Resolution, agentOpts []acp.PermissionOption) (any, error) {
	allow := func() acp.RequestPermissionResponse {
		if id := pickOption(agentOpts, acp.KindAllowOnce); id != "" {
			return acp.Selected(id)
		}
		if id := pickOption(agentOpts, acp.KindAllowAlways); id != "" {
			return acp.Selected(id) // the person allowed; the agent offers nothing narrower
		}
		return acp.Cancelled()
	}
	reject := func() acp.RequestPermissionResponse {
		if id := pickOption(agentOpts, acp.KindRejectOnce); id != "" {
			return acp.Selected(id)
		}
		return acp.Cancelled()
	}
	out, outcome := f.resolveToAnswer(s, call, d, fwd, res, allow, reject)
	f.finish(s, call, d, fwd, res, outcome, out.Outcome.OptionID)
	if res.OptionID == OptRejectStop && res.By == policy.SourceUser {
		return acp.AfterReply{Result: out, Then: func() { s.CancelTurn("deny and stop the turn") }}, nil
	}
	return out, nil
}

// resolveToAnswer maps a resolution to an answer and applies grants.
// outcome is "allow", "deny" or "cancelled".
func (f *Flow) resolveToAnswer(s Session, call policy.Call, d Decision, fwd *Forwarded, res Resolution,
	allow, reject func() acp.RequestPermissionResponse) (acp.RequestPermissionResponse, string) {
	if res.Outcome != acp.OutcomeSelected {
		return acp.Cancelled(), "cancelled"
	}
	if why := f.config().BypassDisabled; why != "" && res.OptionID == OptBypass {
		f.log().Warn("the editor chose bypass, which is disabled; treated as cancelled", zap.String("why", why))
		return acp.Cancelled(), "cancelled"
	}
	if !fwd.Offers(res.OptionID) {
		f.log().Warn("the editor chose an option that was not offered; treated as cancelled", zap.String("optionId", res.OptionID))
		return acp.Cancelled(), "cancelled"
	}
	rule := res.Rule
	if rule == "" && len(fwd.Meta.SuggestedRules) > 0 {
		rule = fwd.Meta.SuggestedRules[0]
	}
	agent := s.Agent().Name()
	switch res.OptionID {
	case OptAllowOnce:
		return allow(), "allow"
	case OptAllowSession:
		for _, r := range f.sessionGrantRules(res, call, d) {
			if err := s.Grant(r); err != nil {
				f.log().Warn("session grant refused; allowed once only", zap.String("rule", r), zap.Error(err))
			}
		}
		return allow(), "allow"
	case OptAllowAlways:
		f.always(agent, "allow", rule, res.Scope)
		return allow(), "allow"
	case OptRejectOnce, OptRejectStop:
		return reject(), "deny"
	case OptRejectAlways:
		f.always(agent, "deny", rule, res.Scope)
		return reject(), "deny"
	case OptBypass:
		if f.Grants != nil {
			f.Grants.Bypass(agent, scopeOr(res.Scope))
		}
		return allow(), "allow"
	}
	if agentOpt, ok := strings.CutPrefix(res.OptionID, AgentOptPrefix); ok && agentOpt != "" {
		kind := ""
		for _, o := range fwd.Options {
			if o.OptionID == res.OptionID {
				kind = o.Kind
			}
		}
		outcome := "deny"
		if kind == acp.KindAllowOnce || kind == acp.KindAllowAlways {
			outcome = "allow"
		}
		return acp.Selected(agentOpt), outcome
	}
	return acp.Cancelled(), "cancelled"
}

func scopeOr(scope string) string {
	if scope == "" {
		return "user"
	}
	return scope
}

// always applies an "Always allow/deny" rule (Grants.Always).
func (f *Flow) always(agent, list, rule, scope string) {
	if rule == "" {
		f.log().Warn("always-" + list + " chosen with no rule to store; applied once only")
		return
	}
	if f.Grants != nil {
		f.Grants.Always(agent, list, rule, scopeOr(scope))
	}
}

// sessionGrantRules are the rules an "Allow for this session" grants: the
// rule the person edited on the card, else the call as it was asked
// (policy.SessionGrantRules: for `echo hi > out.txt`, Bash(echo hi) and an
// Edit rule for that one file, so the identical command is allowed next
// time and a redirect elsewhere still asks; a quoted * stays a literal \*).
// When the call cannot be named exactly (a part the reader cannot check),
// nothing is granted beyond this once: no suggestion stands in for it, so
// a grant never covers more than the person saw (docs/policy.md, "Grants
// keep quoting").
func (f *Flow) sessionGrantRules(res Resolution, call policy.Call, d Decision) []string {
	if res.Rule != "" {
		return []string{res.Rule}
	}
	if d.Rules != nil {
		return d.Rules.SessionGrant // read with the verdict (policy.Decide)
	}
	return policy.SessionGrantRules(call, d.Env)
}

// pickOption returns the first option of a kind, or "".
func pickOption(opts []acp.PermissionOption, kind string) string {
	for _, o := range opts {
		if o.Kind == kind {
			return o.OptionID
		}
	}
	return ""
}
