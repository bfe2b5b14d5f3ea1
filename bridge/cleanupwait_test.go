package bridge

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/acp-bridge/acp-bridge/policy"
)

// shutdown returns only once the agents' sandbox cleanups are done (the
// cleanup below finishes after shutdown began waiting: without the wait,
// shutdown returns before it), and a cleanup that never ends holds it no
// longer than the stop timeout plus cleanupGrace.
func TestShutdownWaitsForCleanups(t *testing.T) {
	cases := []struct {
		name    string
		release bool
	}{
		{"cleanup finishes", true},
		{"cleanup never finishes", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := New(Options{StopTimeout: 100 * time.Millisecond})
			var finished atomic.Bool
			started := make(chan struct{})
			never := make(chan struct{})
			defer close(never)
			b.cleanups.add()
			go func() {
				<-started
				if !c.release {
					<-never
				}
				finished.Store(true)
				b.cleanups.done()
			}()
			begin := time.Now()
			close(started)
			b.shutdown(policy.SourceShutdown)
			took := time.Since(begin)
			if c.release && !finished.Load() {
				t.Errorf("shutdown returned before the cleanup finished")
			}
			if !c.release {
				if finished.Load() {
					t.Errorf("the cleanup that never finishes finished")
				}
				if max := 100*time.Millisecond + cleanupGrace + time.Second; took > max {
					t.Errorf("shutdown took %s with a stuck cleanup, want at most %s", took, max)
				}
				if took < 100*time.Millisecond {
					t.Errorf("shutdown took %s: it did not wait for the cleanup at all", took)
				}
			}
		})
	}
}

// pending: more may be added while a wait is under way; wait's channel
// closes only when the count is back to zero.
func TestPendingCount(t *testing.T) {
	var p pending
	select {
	case <-p.wait():
	default:
		t.Fatal("wait with nothing pending did not return at once")
	}
	p.add()
	w := p.wait()
	p.add()
	p.done()
	select {
	case <-w:
		t.Fatal("wait returned with one still pending")
	default:
	}
	p.done()
	select {
	case <-w:
	default:
		t.Fatal("wait did not return once none was pending")
	}
}
