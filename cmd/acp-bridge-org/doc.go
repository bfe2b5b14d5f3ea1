// Command acp-bridge-org is the bridge's companion for the organisation's
// engines: the embedded Open Policy Agent (orgpolicy) and the
// OpenTelemetry sink (telemetry), and the HTTP requests of AuthZEN hooks
// (authzen.go: its own http.Client, the proxy from the environment, no
// redirect followed, http and https only, the answer bounded). A bridge
// starts it, from its own directory only, when its managed tier names OPA,
// its settings enable telemetry or name an AuthZEN hook (orgproc); every
// other bridge carries neither SDK, and no bridge links an HTTP client
// (docs/org.md).
//
// It speaks JSON-RPC 2.0 on stdin/stdout with the bridge through acp's
// engine (orgproc.NewConn; orgproc's protocol: hello, opa.start,
// opa.decide, opa.status, telemetry.start, telemetry.record,
// telemetry.flush, authzen.evaluate, shutdown) and logs
// through zap, as JSON, to stderr, which the bridge relays into its own
// log. It never writes anything else to stdout. A closed stdin (the
// bridge is gone) flushes the sink and stops OPA, bounded, then exits.
//
// Goroutines: acp's read loop, one per request in flight (acp's
// dispatcher; what arrives after a start waits for it: PrepareRequest),
// one that forwards OPA's bundle statuses, and main waiting for the end.
package main
