// Command bench-agent is the scripted ACP agent of acp-bench (see
// bench.ServeAgent): no model, it streams, paces and asks permission exactly
// as its prompt text says, on stdio.
package main

import (
	"fmt"
	"os"

	"github.com/acp-bridge/acp-bridge/bench"
)

func main() {
	if err := bench.ServeAgent(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "bench-agent:", err)
		os.Exit(1)
	}
}
