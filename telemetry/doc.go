// Package telemetry sends one OpenTelemetry log record per permission
// decision (an event named acp_bridge.tool_decision) through the
// OpenTelemetry Go SDK and an OTLP exporter (http/protobuf or gRPC) to
// an organisation's collector (docs/org.md "The collector").
//
// It is fed the very records the audit log gets: the bridge's Auditor is
// wrapped (orgproc.Tee) so every audit.Record appended is also handed to
// the Sink, in one place, whatever decided it. The Sink runs in the
// bridge's companion process (cmd/acp-bridge-org, the only importer of
// this package), which gets the records over a pipe; Tee here is the same
// wrapping for a Sink in the same process (tests). Handing a record over never blocks a
// decision: the SDK's batch processor queues it (MaxQueueSize records;
// past that the oldest are dropped and the SDK reports it) and a
// goroutine of its own exports batches, retrying a collector that is down
// (RetryFor) before it gives a batch up. The JSONL audit log is written
// first and does not depend on the collector at all.
//
// Configuration: settings' telemetry section (settings.Telemetry), and
// the standard OTEL_* variables where the settings leave a choice open:
// OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_LOGS_ENDPOINT,
// OTEL_EXPORTER_OTLP_HEADERS (and _LOGS_ variants), OTEL_EXPORTER_OTLP_PROTOCOL
// and OTEL_EXPORTER_OTLP_LOGS_PROTOCOL, OTEL_SERVICE_NAME and
// OTEL_RESOURCE_ATTRIBUTES. When the managed tier requires the events
// (settings.Telemetry.Managed), the endpoint, protocol and headers are the
// tier's and no variable moves them.
//
// Attribute names follow Claude Code's tool_decision event where they
// mean the same (event.name, event.timestamp, session.id, tool_name,
// decision, source, tool_input); the rest are acp_bridge.* (attrs.go).
package telemetry
