// Command bench-agent is the scripted ACP agent of acp-bench (see
// bench.ServeAgent): no model, it streams, paces and asks permission exactly
// as its prompt text says, on stdio.
package main
