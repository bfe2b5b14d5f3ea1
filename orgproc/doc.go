// Package orgproc is the bridge's side of its companion process,
// acp-bridge-org (cmd/acp-bridge-org), which runs the organisation's
// engines: the embedded OPA (orgpolicy) and the OpenTelemetry sink
// (telemetry), and AuthZEN hooks' HTTP requests. It imports neither
// engine, and no HTTP client: a bridge whose settings name none of them
// never starts the companion and carries neither SDK; no bridge links
// net/http's client, TLS or x509 verification (docs/org.md "The
// companion").
//
// Where: the companion is Name in the directory of the bridge's own
// executable (Beside), nothing else; no PATH lookup, no variable.
//
// Protocol (protocol.go, declared once for both sides): JSON-RPC 2.0
// through the project's one engine, package acp (NewConn over acp.NewStream
// and acp.NewConn, on the companion's stdin/stdout): requests with ids
// (hello, opa.start, opa.decide, telemetry.start, telemetry.flush,
// authzen.evaluate, shutdown) answered by acp's dispatcher, notifications (telemetry.record;
// opa.status from the companion), errors from acp's table (acp/errors.go:
// a refused configuration is -32602, a StartError here), cancellation by
// $/cancel_request when a caller's bound ends its wait, and every call
// still waiting failed by acp (acp.ErrClosed) when the companion's output
// ends. Neither side frames lines of its own (TestNoOwnFraming). No line
// is longer than MaxLine: the bridge cuts records (audit.CutRecord) and
// sends no longer line (TooLongError: an opa.decide that asks); either
// side's stream drops a longer one and goes on, answering -32600 to the
// request id its beginning shows, or failing the call whose answer it
// was. The companion logs zap JSON to stderr; the Client writes each line
// into the bridge's log, at most at error (relay.go).
//
// Requests before records: a request is written on its caller's
// goroutine into the companion's stdin queue (an acp.QueueWriter, which
// never waits on the pipe); records wait in a bounded channel drained by
// one goroutine (conn.writeRecords) that hands the next record to the
// engine only once the pipe has taken every byte queued before it
// (meter). So a request is queued behind at most the one record being
// written, and the records the companion has not taken stay in the
// channel, where they are counted at its death.
//
// Fails closed: Client.Decide (an opastage.Decider) gives no verdict, so
// the call asks, when the companion is missing, of another version
// (refused at hello), crashed, or does not answer within OPA's budget
// plus a margin; one that misses it twice is killed. The supervisor
// restarts a companion that is gone with backoff and starts OPA and the
// sink in it again. Client.AuthZEN (a hooks.Post) starts the companion
// when it is not running yet (as Begin, which the bridge calls when its
// settings name a URL hook) and errs, so the hook gives no verdict and
// the call asks, when the companion is missing, refused, crashed,
// restarting or past the hook's budget. Client.Record never waits: records the companion
// cannot take are counted (Lost) and logged; the audit log has them.
//
// Goroutines: one supervisor per Client (from the first Start*, Begin or
// AuthZEN until Close); per running companion the record writer, the QueueWriter's
// writer of its stdin, acp's reader of its stdout (jsonrpc2's read loop),
// a reader of its stderr and one that reaps it. Close stops them all: it closes the
// companion's stdin after the queued records (it flushes and exits),
// kills it past the bound, and waits.
package orgproc
