// Package opastage is the organisation's OPA as one stage of the
// permission flow, without the OPA SDK: the input document a decision is
// asked with (Input), OPA's answer (Result), the Sources of the verdicts
// the stage makes, the managed tier's OPA configuration (Config), and the
// one mapping of an answer onto the verdict so far (PermissionStage, with
// hooks.CombineFirm: stricter always wins).
//
// Who answers is a Decider: orgpolicy.Stage (the embedded SDK, in the
// companion process cmd/acp-bridge-org) or orgproc.Client (the bridge's
// side of that companion). The bridge imports this package and orgproc,
// never orgpolicy, so its binary carries no OPA (docs/org.md, "OPA").
package opastage
