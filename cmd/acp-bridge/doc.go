// Command acp-bridge is the ACP bridge: launched by an editor over stdio, it
// speaks ACP to many child agents and decides every permission request in one
// place. See README.md and docs/.
//
// main.go is wiring only: flags, subcommands, signals, logging. The logic
// lives in bridge/, settings/, policy/, profiles/, approvals/, agents/ and internal/.
//
// Goroutines: main runs one subcommand. For serve, bridge.Bridge.Serve runs
// on the main goroutine until stdin closes or SIGINT/SIGTERM arrives (the
// signal context); everything else is owned by the bridge package. Before
// serving, editorStdio grows stdin and stdout when they are pipes
// (internal/pipesize) and, when they are pipes or sockets, serves them from
// Go's poller through non-blocking duplicates (stdio_unix.go), closed when
// Serve returns.
package main
