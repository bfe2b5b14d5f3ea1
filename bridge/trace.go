package bridge

import (
	"encoding/json"
	"regexp"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/wire"
)

// traceparentRE is a W3C trace context traceparent header value.
var traceparentRE = regexp.MustCompile(`^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$`)

// setTrace keeps the _meta.traceparent of a session/new or session/prompt
// (o): the audit records (and the OpenTelemetry decision events) of the
// decisions that follow carry it. A prompt without one (or with a
// malformed one) clears it: its decisions belong to no trace of the
// editor's.
func (s *session) setTrace(o acp.Object) {
	var meta struct {
		Traceparent string `json:"traceparent"`
	}
	tp := ""
	if raw, ok := o["_meta"]; ok && json.Unmarshal(raw, &meta) == nil && traceparentRE.MatchString(meta.Traceparent) &&
		meta.Traceparent[3:35] != "00000000000000000000000000000000" && meta.Traceparent[36:52] != "0000000000000000" {
		tp = meta.Traceparent
	}
	s.trace.Store(&tp)
}

// traceparent is the trace context of the session's latest prompt, "" if none.
func (s *session) traceparent() string {
	if p := s.trace.Load(); p != nil {
		return *p
	}
	return ""
}

// Traceparent implements permission.Session.
func (s *session) Traceparent() string { return s.traceparent() }

// telemetryStatus is _meta["acp-bridge"].telemetry of initialize:
// {enabled: false}, or where the decision events go.
func (b *Bridge) telemetryStatus() wire.TelemetryStatus {
	if b.opts.Telemetry == nil {
		return wire.TelemetryStatus{}
	}
	return *b.opts.Telemetry
}
