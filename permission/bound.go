package permission

import (
	"context"
	"fmt"
	"time"

	"github.com/acp-bridge/acp-bridge/policy"
)

// Every decision is bounded in time. A stage that reads the call's text
// (the policy's shell and language readers, a hook, a policy service) is
// given stageBudget for a call larger than inlineCallBytes: past it the
// call is an engine failure (ask; deny in dontAsk) and the stage's result,
// whenever it comes, is dropped, with its context cancelled. A smaller
// call is decided inline: no reader's cost grows fast enough for a call
// under 1 KiB to take long (docs/policy.md, "Every decision is bounded in
// time"), and the hand-off would cost every ordinary decision a few
// microseconds.
var stageBudget = 2 * time.Second

// inlineCallBytes: a call whose text (command, paths, URLs, rawInput) is at
// most this long is decided without the hand-off.
const inlineCallBytes = 1 << 10

// callBytes is the length of the text a stage may read from c.
func callBytes(c policy.Call) int {
	n := len(c.Command) + len(c.URL) + len(c.Query) + len(c.Input) + len(c.Cwd)
	for _, p := range c.Paths {
		n += len(p)
	}
	for _, u := range c.URLs {
		n += len(u)
	}
	return n
}

// runStageBounded runs st on a deep worker, on a copy of r (copied back
// when it answers in time, so a stage left running never touches r), and
// waits at most stageBudget.
func (f *Flow) runStageBounded(ctx context.Context, st Stage, r *Request) (policy.Verdict, bool) {
	type result struct {
		v  policy.Verdict
		ok bool
		r  Request
	}
	rc := *r
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ch := make(chan result, 1)
	deepGo(func() {
		v, ok := f.runStageInline(sctx, st, &rc)
		ch <- result{v, ok, rc}
	})
	t := time.NewTimer(stageBudget)
	defer t.Stop()
	select {
	case res := <-ch:
		*r = res.r
		return res.v, res.ok
	case <-t.C:
		return f.engineFailed(r, fmt.Sprintf("the %s stage took longer than %v to decide a call of %d bytes", st.Name(), stageBudget, callBytes(r.Call)), nil), true
	}
}
