package bridge

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/internal/testkit"
)

// The in-flight bound of one kind of an agent's requests: by count, by
// bytes (a request alone past the bytes bound is taken when none is in
// flight), released once each.
func TestInflightBound(t *testing.T) {
	for _, tc := range []struct {
		name  string
		sizes []int // taken in order, none released
		want  []bool
	}{
		{"count", repeat(maxChildInFlight+2, 10), append(trues(maxChildInFlight), false, false)},
		{"bytes", []int{maxChildInFlightBytes / 2, maxChildInFlightBytes / 2, 1}, []bool{true, true, false}},
		{"one alone past the bytes bound", []int{maxChildInFlightBytes + 1, 1}, []bool{true, false}},
		{"past the bytes bound behind another", []int{1, maxChildInFlightBytes}, []bool{true, false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var f inflight
			var releases []func()
			for i, size := range tc.sizes {
				rel, refused, ok := f.acquire(size)
				if ok != tc.want[i] {
					t.Fatalf("request %d (%d bytes): taken %v, want %v", i, size, ok, tc.want[i])
				}
				if ok {
					releases = append(releases, rel)
				} else if refused < 1 {
					t.Fatalf("request %d refused with count %d", i, refused)
				}
			}
			// Released (twice: the second is a no-op), everything is free again.
			for _, rel := range releases {
				rel()
				rel()
			}
			if f.n != 0 || f.bytes != 0 || f.refused != 0 {
				t.Fatalf("after release: %d in flight, %d bytes, %d refused", f.n, f.bytes, f.refused)
			}
			if _, _, ok := f.acquire(10); !ok {
				t.Fatal("nothing in flight, yet refused")
			}
		})
	}
}

// The answer past the bound is one error, in the -32000 range, naming it.
func TestTooManyAnswer(t *testing.T) {
	err := tooMany("_x/y", "requests")
	var ae *acp.Error
	if !errors.As(err, &ae) || ae.Code != CodeTooManyRequests {
		t.Fatalf("%v: want code %d", err, CodeTooManyRequests)
	}
	if !strings.Contains(ae.Message, "too many requests in flight for the editor: 64") || !strings.Contains(ae.Message, "_x/y") {
		t.Fatalf("message %q names neither the method nor the bound", ae.Message)
	}
}

func repeat(n, v int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = v
	}
	return out
}

func trues(n int) []bool {
	out := make([]bool, n)
	for i := range out {
		out[i] = true
	}
	return out
}

// Through the bridge: with the editor holding an agent's maxChildInFlight
// extension requests, the next is answered at once with the bound's error
// (the agent is not held, and the read loop goes on: its permission
// request, another budget, reaches the editor and is answered); once the
// editor answers, there is room again.
func TestAgentRequestsInFlightAreBounded(t *testing.T) {
	h := start(t, twoAgents())
	block := make(chan struct{})
	var unblock sync.Once
	t.Cleanup(func() { unblock.Do(func() { close(block) }) })
	held := make(chan struct{}, maxChildInFlight+1)
	h.editor.OnRequest = func(method string, params json.RawMessage) (any, error) {
		if method == "_fake/ask" {
			held <- struct{}{}
			<-block
			return map[string]any{}, nil
		}
		return nil, acp.MethodNotFound(method)
	}
	h.init(false)
	sid := h.session("alpha")
	ctx := tctx(t)
	var flood strings.Builder
	for i := 0; i < maxChildInFlight; i++ { // sent without waiting for answers
		fmt.Fprintf(&flood, "raw {\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"_fake/ask\",\"params\":{\"sessionId\":\"$SID\"}}\n", 900000+i)
	}
	if _, err := h.editor.Prompt(ctx, sid, flood.String()); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < maxChildInFlight; i++ {
		select {
		case <-held:
		case <-ctx.Done():
			t.Fatalf("only %d of the agent's requests reached the editor", i)
		}
	}
	last := func() string {
		got := testkit.Texts(h.editor.Messages(), sid)
		return got[len(got)-1]
	}
	if _, err := h.editor.Prompt(ctx, sid, `call _fake/ask {"sessionId":"$SID"}`); err != nil {
		t.Fatal(err)
	}
	if got := last(); !strings.HasPrefix(got, fmt.Sprintf("call=%d:", CodeTooManyRequests)) || !strings.Contains(got, "too many requests in flight for the editor: 64") {
		t.Fatalf("request past the bound: %q, want error %d naming the bound", got, CodeTooManyRequests)
	}
	res := h.promptAsync(sid, "perm p1")
	p, err := h.editor.NextPermission(ctx)
	if err != nil {
		t.Fatal(err)
	}
	p.Answer(acp.RequestPermissionResponse{Outcome: acp.PermissionOutcome{Outcome: acp.OutcomeSelected, OptionID: optAllowOnce}})
	if r := <-res; r.err != nil {
		t.Fatal(r.err)
	}
	if got := last(); !strings.HasPrefix(got, "p1=") || strings.Contains(got, "error") {
		t.Fatalf("permission request while the other budget is full: %q", got)
	}
	unblock.Do(func() { close(block) })
	// The 64 answers are relayed to the agent, and their slots freed, on
	// their own goroutines: a request may still meet the bound until the
	// last is freed. Each try is a whole prompt round trip (no sleep).
	got := ""
	for try := 0; try < 200 && got != "call=ok"; try++ {
		if _, err := h.editor.Prompt(ctx, sid, `call _fake/ask {"sessionId":"$SID"}`); err != nil {
			t.Fatal(err)
		}
		if got = last(); got != "call=ok" && !strings.HasPrefix(got, fmt.Sprintf("call=%d:", CodeTooManyRequests)) {
			break
		}
	}
	if got != "call=ok" {
		t.Fatalf("once the editor answered: %q, want call=ok", got)
	}
}
