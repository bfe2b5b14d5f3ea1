// Package approvals decides every permission request of every agent, and
// holds the requests the policy leaves to a person.
//
// It has two parts:
//
//   - The policy engine (this package's rules*.go, bash*.go, shell.go,
//     paths.go, env.go, evaluate*.go, suggest.go, mode.go). It is pure: no
//     I/O, no clock, no logging; the only outside access is symlink
//     resolution through the FS interface in Env (OSFS in production, MapFS
//     in tests and `acp-bridge policy eval`). Compile turns the allow / ask /
//     deny rule texts of every settings layer (Claude Code's grammar) into an
//     immutable *Policy that is safe for concurrent use; Evaluate decides one
//     canonical Call under a Mode and returns a Verdict (allow / ask / deny,
//     the source, the matching rule and its origin, the circuit breaker, a
//     human reason, the sub-commands of a shell command, the rendered
//     specifier). Shell commands are split with mvdan.cc/sh/v3/syntax; see
//     docs/policy.md for the grammar and the matching semantics.
//     Evaluate may be called from any goroutine; each call works on its own
//     data (a sync.Pool of shell parsers is shared).
//
//   - The broker (broker*.go, owned separately): pending approvals keyed by
//     a uuid approvalId, resolved exactly once by the person's answer, a
//     timeout, session cancel, agent exit, editor disconnect or shutdown.
//
// Tool-call normalisation (normalize*.go) turns each agent family's
// request into the canonical Call defined in types.go.
//
// The package imports no protocol code (acp, jsonrpc2) and no viper.
package approvals
