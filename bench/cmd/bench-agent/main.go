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
