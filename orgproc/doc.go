// Package orgproc is the bridge's side of its companion process,
// acp-bridge-org (cmd/acp-bridge-org), which runs the organisation's
// engines: the embedded OPA (orgpolicy) and the OpenTelemetry sink
// (telemetry). It imports neither: a bridge whose settings name neither
// never starts the companion and carries neither SDK (docs/org.md "The
// companion").
//
// Where: the companion is Name in the directory of the bridge's own
// executable (Beside), nothing else; no PATH lookup, no variable.
//
// Protocol (protocol.go): newline-delimited JSON on the companion's
// stdin/stdout, requests with ids (hello, opa.start, opa.decide,
// telemetry.start, telemetry.flush, shutdown), notifications without
// (telemetry.record; opa.status from the companion). No line is longer
// than MaxLine: the bridge cuts records (audit.CutRecord) and sends no
// longer line (TooLongError: an opa.decide that asks); either side skips
// a longer one (ReadLine). The companion logs zap JSON to stderr; the
// Client writes each line into the bridge's log, at most at error.
//
// Fails closed: Client.Decide (an opastage.Decider) gives no verdict, so
// the call asks, when the companion is missing, of another version
// (refused at hello), crashed, or does not answer within OPA's budget
// plus a margin; one that misses it twice is killed. The supervisor
// restarts a companion that is gone with backoff and starts OPA and the
// sink in it again. Client.Record never waits: records the companion
// cannot take are counted (Lost) and logged; the audit log has them.
//
// Goroutines: one supervisor per Client (from the first Start* until
// Close); per running companion a writer (the only writer of its stdin,
// requests before records), a reader of its stdout, a reader of its
// stderr and one that reaps it. Close stops them all: it closes the
// companion's stdin after the queued records (it flushes and exits),
// kills it past the bound, and waits.
package orgproc
