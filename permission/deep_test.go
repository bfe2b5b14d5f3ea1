package permission

import (
	"sync"
	"testing"
	"time"
)

// burst runs n deep parts at once, each blocked until all n have started
// (a pool that queued them would hang), and returns when all are done.
func burst(n int) {
	var started sync.WaitGroup
	started.Add(n)
	all := make(chan struct{})
	go func() { started.Wait(); close(all) }()
	var done sync.WaitGroup
	for i := 0; i < n; i++ {
		done.Add(1)
		go func() {
			defer done.Done()
			shallow(func() { started.Done(); <-all })
		}()
	}
	done.Wait()
}

// Deep parts never wait for each other: n of them that each block until
// all n have started all finish (a pool that queued them would hang).
func TestShallowNeverQueues(t *testing.T) {
	for _, n := range []int{1, 2, 64} {
		burst(n)
	}
}

// What fn does is done before shallow returns, and its panic is raised in
// the caller, on a worker that then serves the next part.
func TestShallowRunsAndPanicsInCaller(t *testing.T) {
	for _, tc := range []struct {
		name  string
		panic any
	}{{"value", "boom"}, {"error", errTest{}}, {"none", nil}} {
		t.Run(tc.name, func(t *testing.T) {
			var got any
			ran := false
			func() {
				defer func() { got = recover() }()
				shallow(func() {
					ran = true
					if tc.panic != nil {
						panic(tc.panic)
					}
				})
			}()
			if !ran || got != tc.panic {
				t.Fatalf("ran %v, recovered %v, want %v", ran, got, tc.panic)
			}
			x := 0
			shallow(func() { x = 42 })
			if x != 42 {
				t.Fatalf("the next part did not run: %d", x)
			}
		})
	}
}

type errTest struct{}

func (errTest) Error() string { return "test" }

// After a burst, at most maxIdleDeep workers stay to wait for the next
// deep part; the others end (their stacks are not kept).
func TestShallowKeepsFewIdleWorkers(t *testing.T) {
	const n = 64
	burst(n)
	// every worker has answered; each then either waits or ends
	deadline := time.Now().Add(10 * time.Second)
	for g := idleDeep.Load(); (g > maxIdleDeep || g < 1) && time.Now().Before(deadline); g = idleDeep.Load() {
		time.Sleep(time.Millisecond)
	}
	if got := idleDeep.Load(); got > maxIdleDeep || got < 1 {
		t.Fatalf("%d idle workers after a burst of %d, want 1..%d", got, n, maxIdleDeep)
	}
}
