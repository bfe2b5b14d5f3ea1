package telemetry

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"time"

	"go.opentelemetry.io/otel/attribute"
	otellog "go.opentelemetry.io/otel/log"
	"go.opentelemetry.io/otel/propagation"

	"github.com/acp-bridge/acp-bridge/internal/audit"
)

// EventName is the log record's event name (and body).
const EventName = "acp_bridge.tool_decision"

// Attribute names. The first group is Claude Code's tool_decision event's
// (and tool_input its tool_result event's), for the same meaning; the
// rest are acp-bridge's own. docs/org.md "The collector" lists them.
const (
	AttrEventName      = "event.name"      // "tool_decision"
	AttrEventTimestamp = "event.timestamp" // RFC 3339, the decision's time
	AttrSessionID      = "session.id"
	AttrToolName       = "tool_name"
	AttrDecision       = "decision"
	AttrSource         = "source"
	AttrToolInput      = "tool_input" // only with telemetry.logInput

	AttrAgent         = "acp_bridge.agent"
	AttrApprovalID    = "acp_bridge.approval_id"
	AttrToolCallID    = "acp_bridge.tool_call_id"
	AttrRule          = "acp_bridge.rule"
	AttrRuleTier      = "acp_bridge.rule.tier"
	AttrRuleFile      = "acp_bridge.rule.file"
	AttrOPADecisionID = "acp_bridge.opa.decision_id"
	AttrInputSHA256   = "acp_bridge.input.sha256"
	AttrSpecifier     = "acp_bridge.specifier"
	AttrReason        = "acp_bridge.reason"
	AttrWould         = "acp_bridge.would"
	AttrOptionID      = "acp_bridge.option_id"
	AttrSandbox       = "acp_bridge.sandbox"
	AttrLatencyMS     = "acp_bridge.latency_ms"
)

// Source names who decided, in the words: the audit log's
// "rule" becomes "managed" when the rule is the managed tier's, and its
// "user" (a person answered the card) becomes "person"; every other
// source (mode, breaker, bypass, session-grant, timeout, cancel, hook,
// opa, ...) is kept as the audit log says it.
func Source(r audit.Record) string {
	switch {
	case r.Source == "rule" && r.RuleTier == "managed":
		return "managed"
	case r.Source == "user":
		return "person"
	}
	return r.Source
}

// InputDigest is the hex sha256 of the record's canonical call, the same
// bytes the JSONL audit's "call" holds (and its "cut" digest when cut).
func InputDigest(r audit.Record) string {
	if len(r.Call) == 0 {
		return ""
	}
	sum := sha256.Sum256(r.Call)
	return hex.EncodeToString(sum[:])
}

// logRecord builds the log record of r and the context carrying r's trace
// context (the SDK copies its trace and span id into the record).
func logRecord(r audit.Record, logInput bool) (otellog.Record, context.Context) {
	var rec otellog.Record
	rec.SetEventName(EventName)
	rec.SetTimestamp(r.Time)
	rec.SetObservedTimestamp(time.Now())
	sev, text := otellog.SeverityInfo, "INFO"
	if r.Decision == "deny" || r.Would == "deny" {
		sev, text = otellog.SeverityWarn, "WARN"
	}
	rec.SetSeverity(sev)
	rec.SetSeverityText(text)
	rec.SetBody(attribute.StringValue(EventName))
	attrs := []attribute.KeyValue{
		attribute.String(AttrEventName, "tool_decision"),
		attribute.String(AttrEventTimestamp, r.Time.UTC().Format(time.RFC3339Nano)),
		attribute.String(AttrDecision, r.Decision),
		attribute.String(AttrSource, Source(r)),
		attribute.Float64(AttrLatencyMS, r.LatencyMS),
	}
	str := func(k, v string) {
		if v != "" {
			attrs = append(attrs, attribute.String(k, v))
		}
	}
	str(AttrSessionID, r.SessionID)
	str(AttrToolName, toolName(r.Call))
	str(AttrAgent, r.Agent)
	str(AttrApprovalID, r.ApprovalID)
	str(AttrToolCallID, r.ToolCallID)
	str(AttrRule, r.Rule)
	str(AttrRuleTier, r.RuleTier)
	str(AttrRuleFile, r.RuleFile)
	str(AttrOPADecisionID, r.OPADecisionID)
	str(AttrInputSHA256, InputDigest(r))
	str(AttrSpecifier, r.Specifier)
	str(AttrReason, r.Reason)
	str(AttrWould, r.Would)
	str(AttrOptionID, r.OptionID)
	str(AttrSandbox, r.Sandbox)
	if logInput {
		str(AttrToolInput, string(r.Call))
	}
	rec.AddAttributes(attrs...)
	ctx := context.Background()
	if r.Traceparent != "" {
		ctx = propagation.TraceContext{}.Extract(ctx, propagation.MapCarrier{"traceparent": r.Traceparent})
	}
	return rec, ctx
}

// toolName is the canonical call's tool ("" when there is no call).
func toolName(call json.RawMessage) string {
	if len(call) == 0 {
		return ""
	}
	var c struct {
		Tool string `json:"tool"`
	}
	if json.Unmarshal(call, &c) != nil {
		return ""
	}
	return c.Tool
}
