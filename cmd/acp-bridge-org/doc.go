// Command acp-bridge-org is the bridge's companion for the organisation's
// engines: the embedded Open Policy Agent (orgpolicy) and the
// OpenTelemetry sink (telemetry). A bridge starts it, from its own
// directory only, when its managed tier names OPA or its settings enable
// telemetry (orgproc); every other bridge carries neither SDK (docs/org.md).
//
// It speaks JSON-RPC 2.0 on stdin/stdout with the bridge through acp's
// engine (orgproc.NewConn; orgproc's protocol: hello, opa.start,
// opa.decide, opa.status, telemetry.start, telemetry.record,
// telemetry.flush, shutdown) and logs
// through zap, as JSON, to stderr, which the bridge relays into its own
// log. It never writes anything else to stdout. A closed stdin (the
// bridge is gone) flushes the sink and stops OPA, bounded, then exits.
//
// Goroutines: acp's read loop, one per request in flight (acp's
// dispatcher; what arrives after a start waits for it: PrepareRequest),
// one that forwards OPA's bundle statuses, and main waiting for the end.
package main
