package bridge

import (
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/sourcegraph/jsonrpc2"
	"go.uber.org/zap"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/approvals"
	"github.com/acp-bridge/acp-bridge/internal/audit"
	"github.com/acp-bridge/acp-bridge/policy"
	"github.com/acp-bridge/acp-bridge/wire"
)

const timeFormat = time.RFC3339Nano

func newID() string { return uuid.NewString() }

func isClosed(err error) bool {
	return errors.Is(err, jsonrpc2.ErrClosed) || (err != nil && strings.Contains(err.Error(), "connection is closed"))
}

type (
	jsonrpc2Request  = jsonrpc2.Request
	jsonrpc2Response = jsonrpc2.Response
)

func traceMsg(log *zap.Logger, dir string, req *jsonrpc2.Request, resp *jsonrpc2.Response) {
	switch {
	case req != nil && resp == nil:
		log.Debug(dir, zap.String("method", req.Method), zap.String("id", req.ID.String()), zap.Bool("notification", req.Notif))
	case resp != nil:
		m := ""
		if req != nil {
			m = req.Method
		}
		log.Debug(dir+" response", zap.String("id", resp.ID.String()), zap.String("method", m), zap.Bool("error", resp.Error != nil))
	}
}

// resolvedNotice is the params of _acp-bridge/approval/resolved.
type resolvedNotice = wire.ApprovalResolvedParams

// record logs a decision made without a card: audit line and a quiet
// resolved notification for the chat.
func (b *Bridge) record(s *session, call policy.Call, d decision, toolCallID, approvalID, outcome, optionID, by string, latency time.Duration) {
	if approvalID == "" {
		approvalID = newID()
	}
	b.audit(s, call, d, toolCallID, approvalID, outcome, optionID, by, d.verdict.Rule, latency)
	b.notifyEditor(acp.MethodApprovalResolved, resolvedNotice{
		ApprovalID: approvalID, SessionID: s.id, Agent: s.agent.name, ToolCallID: toolCallID,
		Decision: outcome, AgentOptionID: optionID, By: by, Rule: d.verdict.Rule, Specifier: d.verdict.Specifier, Reason: d.verdict.Reason,
	})
}

// finish logs an approval the person was asked about.
func (b *Bridge) finish(s *session, call policy.Call, d decision, fwd *forwarded, res approvals.Resolution, outcome, answered string) {
	by := string(res.By)
	rule := ""
	if res.By == policy.SourceUser && (res.OptionID == optAllowAlways || res.OptionID == optRejectAlways || res.OptionID == optAllowSession) {
		rule = res.Rule
		if rule == "" && len(fwd.Meta.SuggestedRules) > 0 {
			rule = fwd.Meta.SuggestedRules[0]
		}
		if res.OptionID == optAllowSession {
			rule = strings.Join(sessionGrantRules(res, call, d, fwd), " ")
		}
	}
	b.audit(s, call, d, fwd.Meta.ToolCallID, fwd.Meta.ApprovalID, outcome, answered, by, rule, res.At.Sub(fwd.created))
	chosen := ""
	if res.By == policy.SourceUser {
		chosen = res.OptionID
	}
	b.notifyEditor(acp.MethodApprovalResolved, resolvedNotice{
		ApprovalID: fwd.Meta.ApprovalID, SessionID: s.id, Agent: s.agent.name, ToolCallID: fwd.Meta.ToolCallID,
		Decision: outcome, OptionID: chosen, AgentOptionID: answered, By: by, Rule: rule, Specifier: d.verdict.Specifier, Reason: d.verdict.Reason,
	})
}

func (b *Bridge) audit(s *session, call policy.Call, d decision, toolCallID, approvalID, outcome, optionID, by, rule string, latency time.Duration) {
	if b.opts.Audit == nil {
		return
	}
	callJSON, _ := json.Marshal(call)
	err := b.opts.Audit.Append(audit.Record{
		Time: time.Now().UTC(), Agent: s.agent.name, SessionID: s.id, ToolCallID: toolCallID, ApprovalID: approvalID,
		Call: callJSON, Specifier: d.verdict.Specifier, Decision: outcome, Source: by, Rule: rule,
		Reason: d.verdict.Reason, OptionID: optionID, LatencyMS: float64(latency.Microseconds()) / 1000,
		Sandbox: d.sandbox,
	})
	if err != nil {
		// The decision stands; the failure is reported.
		b.log.Error("audit log write failed; the decision still applies", zap.Error(err))
	}
}
