package permission

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"go.uber.org/zap"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/internal/audit"
	"github.com/acp-bridge/acp-bridge/policy"
	"github.com/acp-bridge/acp-bridge/wire"
)

// ResolvedNotice is the params of _acp-bridge/approval/resolved (declared
// once in wire).
type ResolvedNotice = wire.ApprovalResolvedParams

// Record logs a decision made without a card: an audit line, and a quiet
// resolved notice for the chat. Every decision is recorded exactly once,
// here or in finish (a card's), before the child's answer is queued.
func (f *Flow) Record(s Session, call policy.Call, d Decision, toolCallID, approvalID, outcome, optionID, by string, latency time.Duration) {
	if approvalID == "" {
		approvalID = newID()
	}
	f.audit(s, call, d, toolCallID, approvalID, outcome, optionID, by, d.Verdict.Rule, latency)
	f.Editor.Notify(acp.MethodApprovalResolved, ResolvedNotice{
		ApprovalID: approvalID, SessionID: s.ID(), Agent: s.Agent().Name(), ToolCallID: toolCallID,
		Decision: outcome, AgentOptionID: optionID, By: by, Rule: d.Verdict.Rule, Specifier: d.Verdict.Specifier, Reason: d.Verdict.Reason,
	})
	if outcome == "deny" && f.Config != nil && f.Config().TellAgentDenials {
		s.NoteDenial(denialLine(d.Verdict.Specifier, "acp-bridge's policy denied it: "+d.Verdict.Reason))
	}
}

// maxDenialText bounds one line noted for the agent's model.
const maxDenialText = 600

// maxDenialSpec bounds the call's specifier in a line noted for the model.
const maxDenialSpec = 200

// denialLine is one call denied, and why, in words for the agent's model.
// The specifier is the agent's own text (a command it wrote): one that
// could read as more than a call (a line break, a control character, the
// words this line and the denial block are made of, or a long one) is
// quoted and cut, so that no agent text reads as another denial line or
// as the person's words (red team 8).
func denialLine(spec, why string) string {
	why = strings.Join(strings.Fields(why), " ")
	if len(why) > maxDenialText {
		why = cutUTF8(why, maxDenialText) + "…"
	}
	return quoteSpec(spec) + " was denied: " + why
}

// quoteSpec is spec as it goes into a denial line: as it is when it is
// plain, else Go-quoted (escapes for every control character) and cut.
func quoteSpec(spec string) string {
	plain := len(spec) <= maxDenialSpec && utf8.ValidString(spec)
	for _, r := range spec {
		if !plain {
			break
		}
		plain = unicode.IsPrint(r)
	}
	low := strings.ToLower(spec)
	for _, w := range []string{"was denied", "person", "acp-bridge", "refused"} {
		if strings.Contains(low, w) {
			plain = false
		}
	}
	if plain {
		return spec
	}
	if len(spec) > maxDenialSpec {
		spec = cutUTF8(spec, maxDenialSpec) + "…"
	}
	return strconv.Quote(spec)
}

// cutUTF8 is s cut to at most n bytes, never inside a character.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// deniedBy says who denied a call that went to a card, for the model: the
// person only when the person answered (a timeout, a cancel or a bridge
// shutdown is nobody's deny).
func deniedBy(by policy.Source, reason string) string {
	switch by {
	case policy.SourceUser:
		return "the person denied it (" + reason + ")"
	case policy.SourceTimeout:
		return "nobody answered in time, so acp-bridge denied it (" + reason + ")"
	default:
		return "acp-bridge denied it (" + string(by) + "; " + reason + ")"
	}
}

// finish records an approval a person was asked about.
func (f *Flow) finish(s Session, call policy.Call, d Decision, fwd *Forwarded, res Resolution, outcome, answered string) {
	by := string(res.By)
	rule := ""
	if res.By == policy.SourceUser && (res.OptionID == OptAllowAlways || res.OptionID == OptRejectAlways || res.OptionID == OptAllowSession) {
		rule = res.Rule
		if rule == "" && len(fwd.Meta.SuggestedRules) > 0 {
			rule = fwd.Meta.SuggestedRules[0]
		}
		if res.OptionID == OptAllowSession {
			rule = strings.Join(f.sessionGrantRules(res, call, d), " ")
		}
	}
	if outcome == "deny" && res.By == policy.SourceUser && strings.TrimSpace(res.Reason) != "" {
		// The person's own words go to the agent's model, always: the card
		// said so ("Deny with a reason…").
		s.NoteDenial(denialLine(d.Verdict.Specifier, "the person said: "+res.Reason))
	} else if outcome == "deny" && f.Config != nil && f.Config().TellAgentDenials {
		s.NoteDenial(denialLine(d.Verdict.Specifier, deniedBy(res.By, d.Verdict.Reason)))
	}
	d2 := d
	if strings.TrimSpace(res.Reason) != "" && outcome == "deny" {
		d2.Verdict.Reason += "; the person said: " + res.Reason
	}
	f.audit(s, call, d2, fwd.Meta.ToolCallID, fwd.Meta.ApprovalID, outcome, answered, by, rule, res.At.Sub(fwd.created))
	chosen := ""
	if res.By == policy.SourceUser {
		chosen = res.OptionID
	}
	f.Editor.Notify(acp.MethodApprovalResolved, ResolvedNotice{
		ApprovalID: fwd.Meta.ApprovalID, SessionID: s.ID(), Agent: s.Agent().Name(), ToolCallID: fwd.Meta.ToolCallID,
		Decision: outcome, OptionID: chosen, AgentOptionID: answered, By: by, Rule: rule, Specifier: d.Verdict.Specifier, Reason: d.Verdict.Reason,
	})
}

// audit is the one builder of a decision's audit record.
func (f *Flow) audit(s Session, call policy.Call, d Decision, toolCallID, approvalID, outcome, optionID, by, rule string, latency time.Duration) {
	var tier, file string
	if rule == d.Verdict.Rule {
		// The verdict's own rule (not a card's new one): where it was read.
		tier, file = ruleWhere(d.Verdict)
	}
	f.appendAudit(audit.Record{
		Time: time.Now().UTC(), Agent: s.Agent().Name(), SessionID: s.ID(), ToolCallID: toolCallID, ApprovalID: approvalID,
		Specifier: d.Verdict.Specifier, Decision: outcome, Source: by, Rule: rule,
		Reason: d.Verdict.Reason, OptionID: optionID, LatencyMS: float64(latency.Microseconds()) / 1000,
		Sandbox: d.Sandbox, AskedBy: askedBy(by, d.Verdict),
		RuleTier: tier, RuleFile: file, OPADecisionID: d.OPADecisionID, Traceparent: s.Traceparent(),
	}, call)
}

// ruleWhere is the settings layer and file of the rule that decided v.
func ruleWhere(v policy.Verdict) (tier, file string) {
	if v.Rule == "" || v.RuleOrigin == nil {
		return "", ""
	}
	return v.RuleOrigin.Layer, v.RuleOrigin.File
}

// askedBy is the source of the verdict that put a call before a person,
// for a decision the verdict did not make itself.
func askedBy(by string, v policy.Verdict) string {
	if v.Decision != policy.Ask || by == string(v.Source) {
		return ""
	}
	return string(v.Source)
}

func (f *Flow) appendAudit(r audit.Record, call policy.Call) {
	if f.Audit == nil {
		return
	}
	r.Call, _ = json.Marshal(call)
	if err := f.Audit.Append(r); err != nil {
		// The decision stands; the failure is reported.
		f.log().Error("audit log write failed; the decision still applies", zap.Error(err))
	}
}
