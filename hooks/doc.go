// Package hooks owns decision hooks (docs/org.md, "Decision hooks"): a
// person's or an organisation's own program or service, consulted on every
// decision after the built-in rules and circuit breakers.
//
// A hook is a command (the request as JSON on stdin, the verdict as JSON on
// stdout) or an HTTP endpoint speaking the AuthZEN 1.0 Access Evaluation
// API. Each consultation has a time budget (Hook.Timeout, default 2 s):
// a timeout, a crash, a non-zero exit, malformed or missing output is
// "no-verdict", which asks the person (denies where the mode never asks),
// never allows. Combine folds a hook's result into the built-in verdict: a
// hook can make any decision stricter; it can loosen only an ask that no
// managed rule and no circuit breaker decided, and never a deny.
//
// The package does no HTTP itself and imports no net/http: an AuthZEN
// hook's request goes through its Hook.Post, which in the bridge is
// orgproc.Client.AuthZEN, the request carried out by the companion
// (acp-bridge-org), so that the bridge links no HTTP client, TLS or x509
// (its start-up memory; docs/org.md, "The companion"). The mapping stays
// here: the request's JSON, the answer's parsing, its bound (MaxAnswer),
// a status other than 200 as no verdict. A URL hook without a Post, or
// whose Post fails (the companion missing, of another version, crashed,
// past the budget), gives no verdict: the call asks.
//
// Goroutines: Consult runs on the caller's goroutine (the permission flow's
// decision, never a JSON-RPC read loop) and starts one process or one
// AuthZEN request (Post) per hook, bounded by the context and the budget.
// The package holds no state between calls.
package hooks
