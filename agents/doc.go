// Package agents runs the child agent processes of acp-bridge: one OS
// process per configured agent, with its stdin and stdout as pipes for the
// caller (the bridge speaks ACP over them; this package speaks no protocol),
// its stderr logged line by line under the agent's name, a graceful stop that
// escalates to signals, and a bounded Backoff for restarts. Linux only. The
// stdout pipe is grown to 1 MiB (internal/pipesize) so a chatty agent can
// run ahead of the bridge's reads.
//
// Each child runs in its own process group (Setpgid), so signals reach what
// it spawned (npx -> node). When the child exits, on its own or by Stop, the
// rest of its group is killed before it is reaped; a process that left the
// group (setsid) is out of reach.
//
// Goroutines, per Process (all end once Done is closed):
//
//   - stderr reader: reads the stderr pipe to EOF, writes each line to the
//     logger (Warn if it looks like an error, else Info) and to the tail ring
//     (lineRing, behind its own mutex). Closes stderrDone when it returns.
//   - waiter: the only goroutine that waits for the child. waitid(WNOWAIT)
//     until it exits, SIGKILLs the rest of the group while the zombie still
//     pins the group id, marks the process reaped (under sigMu, so no signal
//     is sent after that), calls cmd.Wait, waits for stderrDone (at most 1 s,
//     then closes the pipe), writes exitErr, closes done, and ends the
//     lifetime watch.
//   - lifetime watch (no goroutine while it waits: context.AfterFunc on the
//     ctx given to Start): if ctx ends before done, it calls Stop, on the
//     goroutine the runtime starts for it.
//   - stopper: started by the first Stop; closes stdin, then after
//     StopGrace sends SIGTERM and after KillGrace SIGKILL to the group,
//     returning as soon as done closes. Later Stop calls only wait (and
//     SIGKILL the group if their ctx ends first).
//
// The caller owns reading Stdout and writing Stdin, from any goroutines it
// likes; Stdin's Close is idempotent. Stdout releases its descriptor at EOF.
// exitErr is written once, before done closes, and read only after.
package agents
