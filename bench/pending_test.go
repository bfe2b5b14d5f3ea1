package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"sync/atomic"
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
	agent := buildAgent(t)
	var arrived atomic.Int64
	all := make(chan struct{})
	release := make(chan struct{})
	c, sid := inProcessBridge(t, agent, func(c *Client) {
		c.OnRequest = func(method string, params json.RawMessage) (any, *RPCError) {
			if arrived.Add(1) == pending {
				close(all)
			}
			<-release
			return AllowOnce(params)
		}
	})
	done := make(chan error, 1)
	go func() {
		_, err := c.Prompt(context.Background(), sid, fmt.Sprintf("permc %d", pending))
		done <- err
	}()
	select {
	case <-all:
	case err := <-done:
		t.Fatalf("the prompt ended with %d of %d approvals pending: %v", arrived.Load(), pending, err)
	}
	waiting := goroutinesIn("acp-bridge/bridge.(*childHandler)", "acp-bridge/permission.(*Flow)", "acp-bridge/permission.(*waiting)")
	clients := goroutinesIn("acp-bridge/bench.TestPendingApprovalsHoldNoGoroutine.func1")
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
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
