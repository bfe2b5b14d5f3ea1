// Package orgpolicy owns the organisation's policy engine stage: an
// embedded Open Policy Agent (github.com/open-policy-agent/opa, the SDK)
// that the managed tier points at a bundle service, with signatures always
// verified, and a decision-log service (docs/org.md, "OPA").
//
// Where it runs: in the bridge's companion process (cmd/acp-bridge-org,
// the only importer), so that bridges whose tier names no OPA carry none
// of the SDK. The OPA-free half (Input, Result, Config, the sources and
// PermissionStage, the one mapping of an answer onto the verdict) is
// package opastage, which the bridge uses with orgproc.Client as the
// Decider; this package aliases those names.
//
// Why OPA and not our own: organisations already write their policy in
// Rego, serve it as signed bundles and collect OPA decision logs; the SDK
// brings bundle polling with ETags, signature verification, persistence of
// the last good bundle for offline starts, and decision logs with OPA's own
// decision ids. acp-bridge only maps a decision to OPA's input document and
// OPA's result back to allow, ask or deny.
//
// Fails closed: until a verified bundle is active, and whenever the query
// is undefined, errs or exceeds its time budget, the stage says no-verdict,
// which asks the person (denies where the mode never asks). A tampered or
// unsigned bundle is refused by OPA; the previous verified one stays.
//
// Goroutines: OPA's plugin manager runs its own (bundle polling, decision
// log upload). Decide runs on the caller's goroutine, bounded by its
// context and Stage.Timeout, and may be called concurrently.
package orgpolicy
