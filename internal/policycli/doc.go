// Package policycli implements the command-line face of the policy engine:
// `acp-bridge policy eval` (JSON lines in, one verdict line out per input;
// see Eval and docs/policy.md) and the human-readable explanation printed
// by `acp-bridge policy explain` (Explain). The lead wires both into
// cmd/acp-bridge and settings; this package reads no settings itself.
//
// Everything here runs on the caller's goroutine; nothing is shared.
package policycli
