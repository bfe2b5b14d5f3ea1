package bench

import (
	"bytes"
	"runtime"
	"testing"
)

// A pending approval holds no goroutine in the bridge: with 60 cards open
// at once, no goroutine of the bridge is inside a child's request handler
// or the permission flow (each used to wait there, on a stack of at least
// 8 KiB, for as long as its card was open). The control: while the client
// is still being asked, the same count taken inside its OnRequest sees the
// client's own 60 waiting goroutines, so the count can see goroutines.
func TestPendingApprovalsHoldNoGoroutine(t *testing.T) {
	const pending = 60
	var waiting, clients int
	holdPending(t, buildAgent(t), pending, func() {}, func() {
		waiting = goroutinesIn("acp-bridge/bridge.(*childHandler)", "acp-bridge/permission.(*Flow)", "acp-bridge/permission.(*waiting)")
		clients = goroutinesIn("acp-bridge/bench.holdPending.func1")
	})
	if clients < pending {
		t.Fatalf("control: the count saw %d of the client's %d waiting goroutines", clients, pending)
	}
	if waiting != 0 {
		t.Fatalf("%d goroutines of the bridge wait with %d approvals pending; want none", waiting, pending)
	}
}

// goroutinesIn counts the goroutines with a frame whose function name
// contains any of names.
func goroutinesIn(names ...string) int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	count := 0
	for _, g := range bytes.Split(buf, []byte("\n\n")) {
		for _, name := range names {
			if bytes.Contains(g, []byte(name)) {
				count++
				break
			}
		}
	}
	return count
}

// An idle agent holds no goroutine that only waits for its end: the
// lifetime watch, the crash watcher and the connection's end are
// callbacks (agents.Process.OnDone, acp.Conn.OnClose, context.AfterFunc).
// The control: the one goroutine that must wait, the process's waiter, is
// seen by the same count.
func TestIdleAgentHoldsNoWatcher(t *testing.T) {
	inProcessBridge(t, buildAgent(t), nil)
	waiters := goroutinesIn("acp-bridge/agents.(*Process).wait")
	watchers := goroutinesIn("acp-bridge/agents.(*Process).watch", "acp-bridge/bridge.(*agentRT).watch", "acp-bridge/acp.NewConn.func")
	if waiters < 1 {
		t.Fatalf("control: the count saw %d of the agent's process waiter", waiters)
	}
	if watchers != 0 {
		t.Fatalf("%d goroutines wait for an idle agent's end; want none", watchers)
	}
}
