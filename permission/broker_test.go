package permission

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/acp-bridge/acp-bridge/policy"
)

func open(t *testing.T, b *Broker, id, session, agent string, timeout time.Duration) *Approval {
	t.Helper()
	a, err := b.Open(Ticket{ID: id, SessionID: session, Agent: agent, Timeout: timeout})
	if err != nil {
		t.Fatalf("Open(%s): %v", id, err)
	}
	return a
}

func TestBrokerResolutionPaths(t *testing.T) {
	tests := []struct {
		name    string
		resolve func(b *Broker) int
		wantBy  policy.Source
		wantOut string
	}{
		{"user", func(b *Broker) int {
			if err := b.Resolve("a1", Resolution{Outcome: "selected", OptionID: "x", By: policy.SourceUser}); err != nil {
				return 0
			}
			return 1
		}, policy.SourceUser, "selected"},
		{"session cancel", func(b *Broker) int {
			return b.ResolveSession("s1", Resolution{Outcome: "cancelled", By: policy.SourceCancel})
		}, policy.SourceCancel, "cancelled"},
		{"agent exit", func(b *Broker) int {
			return b.ResolveAgent("demo", Resolution{Outcome: "cancelled", By: policy.SourceAgentExit})
		}, policy.SourceAgentExit, "cancelled"},
		{"editor gone", func(b *Broker) int {
			return b.ResolveAll(Resolution{Outcome: "cancelled", By: policy.SourceEditorGone})
		}, policy.SourceEditorGone, "cancelled"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := NewBroker(nil)
			a := open(t, b, "a1", "s1", "demo", 0)
			other := open(t, b, "a2", "s2", "other", 0)
			if n := tc.resolve(b); n < 1 {
				t.Fatalf("resolved %d approvals, want at least 1", n)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			r, err := a.Wait(ctx)
			if err != nil {
				t.Fatalf("Wait: %v", err)
			}
			if r.By != tc.wantBy || r.Outcome != tc.wantOut {
				t.Fatalf("resolution = %+v, want by %s outcome %s", r, tc.wantBy, tc.wantOut)
			}
			if tc.wantBy != policy.SourceEditorGone {
				select {
				case <-other.Done():
					t.Fatalf("unrelated approval was resolved: %+v", other.Resolution())
				default:
				}
			}
		})
	}
}

func TestBrokerTimeout(t *testing.T) {
	b := NewBroker(nil)
	a, err := b.Open(Ticket{ID: "t1", SessionID: "s", Agent: "a", Timeout: 10 * time.Millisecond,
		TimeoutResolution: Resolution{Outcome: "selected", OptionID: "reject"}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	r, err := a.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if r.By != policy.SourceTimeout || r.OptionID != "reject" {
		t.Fatalf("got %+v, want timeout with option reject", r)
	}
	if a.Expires.IsZero() {
		t.Fatal("Expires not set")
	}
	err = b.Resolve("t1", Resolution{Outcome: "selected", OptionID: "allow", By: policy.SourceUser})
	if !errors.Is(err, ErrAlreadyResolved) || !strings.Contains(err.Error(), "by timeout") {
		t.Fatalf("late answer error = %v, want ErrAlreadyResolved naming the timeout", err)
	}
}

func TestBrokerSecondAnswer(t *testing.T) {
	b := NewBroker(nil)
	open(t, b, "a", "s", "x", 0)
	if err := b.Resolve("a", Resolution{Outcome: "selected", OptionID: "allow", By: policy.SourceUser}); err != nil {
		t.Fatal(err)
	}
	err := b.Resolve("a", Resolution{Outcome: "selected", OptionID: "deny", By: policy.SourceUser})
	if !errors.Is(err, ErrAlreadyResolved) || !strings.Contains(err.Error(), "option allow") {
		t.Fatalf("second answer: %v", err)
	}
	err = b.Resolve("nope", Resolution{By: policy.SourceUser})
	if !errors.Is(err, ErrNotPending) || errors.Is(err, ErrAlreadyResolved) || !strings.Contains(err.Error(), "unknown") {
		t.Fatalf("unknown id: %v", err)
	}
	if _, err := b.Open(Ticket{}); err == nil {
		t.Fatal("Open without id succeeded")
	}
}

// Every racer tries to resolve the same approvals at once: exactly one wins each.
func TestBrokerRaces(t *testing.T) {
	const n = 200
	b := NewBroker(nil)
	var as []*Approval
	for i := range n {
		a, err := b.Open(Ticket{ID: fmt.Sprint(i), SessionID: "s", Agent: "a", Timeout: time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		as = append(as, a)
	}
	var wins atomic.Int64
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(2)
		go func() {
			defer wg.Done()
			if b.Resolve(fmt.Sprint(i), Resolution{Outcome: "selected", OptionID: "allow", By: policy.SourceUser}) == nil {
				wins.Add(1)
			}
		}()
		go func() {
			defer wg.Done()
			wins.Add(int64(b.ResolveSession("s", Resolution{Outcome: "cancelled", By: policy.SourceCancel})))
		}()
	}
	wg.Wait()
	timeouts := 0
	for _, a := range as {
		r := a.Resolution()
		if r.By == policy.SourceTimeout {
			timeouts++
		}
	}
	if got := int(wins.Load()) + timeouts; got != n {
		t.Fatalf("resolutions won = %d (+%d timeouts), want exactly %d", wins.Load(), timeouts, n)
	}
	if b.Len() != 0 {
		t.Fatalf("%d approvals left pending", b.Len())
	}
}

func TestBrokerList(t *testing.T) {
	now := time.Unix(1000, 0)
	b := NewBroker(func() time.Time { now = now.Add(time.Second); return now })
	open(t, b, "z", "s", "a", 0)
	open(t, b, "y", "s", "a", 0)
	l := b.List()
	if len(l) != 2 || l[0].ID != "z" || l[1].ID != "y" {
		t.Fatalf("List order: %v %v", l[0].ID, l[1].ID)
	}
}
