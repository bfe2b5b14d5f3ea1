package permission

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/acp-bridge/acp-bridge/policy"
)

// Errors of the broker, for errors.Is.
var (
	// ErrNotPending: no approval of that id is waiting (unknown, or already resolved).
	ErrNotPending = errors.New("approval is not pending")
	// ErrAlreadyResolved: a second answer for an approval that was answered; wraps ErrNotPending.
	ErrAlreadyResolved = fmt.Errorf("%w: already resolved", ErrNotPending)
)

// Resolution is how one approval ended. Exactly one is recorded per approval.
type Resolution struct {
	// Outcome is "selected" (OptionID chosen) or "cancelled".
	Outcome  string
	OptionID string
	// By is who resolved it: policy.SourceUser, policy.SourceTimeout, policy.SourceCancel,
	// policy.SourceAgentExit, policy.SourceEditorGone or SourceShutdown.
	By policy.Source
	// Rule and Scope carry an "Always allow/deny" rule as the person edited it.
	Rule  string
	Scope string
	// Reason is the person's own words with a deny (the card's "Deny with a
	// reason…"), for the agent's model.
	Reason string
	At     time.Time
}

// Ticket is what the bridge knows of an approval when it opens it.
type Ticket struct {
	ID        string // uuid, chosen by the caller
	SessionID string // the bridge's session id
	Agent     string
	Timeout   time.Duration // <= 0: no timeout
	// TimeoutResolution is recorded when the timeout fires (By is forced to policy.SourceTimeout).
	TimeoutResolution Resolution
	// Data is opaque to the broker (the forwarded request, for approvals/list).
	Data any
}

// Approval is one pending (or resolved) approval.
type Approval struct {
	Ticket
	Created time.Time
	Expires time.Time // zero when there is no timeout

	done  chan struct{} // closed once res is set
	res   Resolution
	timer *time.Timer
	then  func() // Broker.Then's, run once resolved
}

// Done is closed when the approval is resolved.
func (a *Approval) Done() <-chan struct{} { return a.done }

// Resolution returns how it ended; valid after Done is closed.
func (a *Approval) Resolution() Resolution {
	<-a.done
	return a.res
}

// Wait blocks until the approval is resolved or ctx ends. ctx ending does not
// resolve the approval: the caller decides what that means and calls Resolve.
func (a *Approval) Wait(ctx context.Context) (Resolution, error) {
	select {
	case <-a.done:
		return a.res, nil
	case <-ctx.Done():
		return Resolution{}, ctx.Err()
	}
}

// Broker keeps pending approvals by id. It is safe for concurrent use; every
// method returns without waiting on anything but its own mutex.
type Broker struct {
	now func() time.Time

	mu       sync.Mutex
	pending  map[string]*Approval
	resolved map[string]Resolution // recent resolutions, to explain a late answer
	order    []string              // ids of resolved, oldest first, bounded
}

const keepResolved = 4096

// NewBroker returns an empty broker. now may be nil (time.Now).
func NewBroker(now func() time.Time) *Broker {
	if now == nil {
		now = time.Now
	}
	return &Broker{now: now, pending: map[string]*Approval{}, resolved: map[string]Resolution{}}
}

// Open registers a pending approval and starts its timeout.
func (b *Broker) Open(t Ticket) (*Approval, error) {
	if t.ID == "" {
		return nil, errors.New("approval id is required")
	}
	now := b.now()
	a := &Approval{Ticket: t, Created: now, done: make(chan struct{})}
	if t.Timeout > 0 {
		a.Expires = now.Add(t.Timeout)
	}
	b.mu.Lock()
	if _, dup := b.pending[t.ID]; dup {
		b.mu.Unlock()
		return nil, fmt.Errorf("approval %s is already pending", t.ID)
	}
	b.pending[t.ID] = a
	if t.Timeout > 0 {
		res := t.TimeoutResolution
		res.By = policy.SourceTimeout
		if res.Outcome == "" {
			res.Outcome = "cancelled"
		}
		// Set under b.mu: Resolve reads a.timer under the same lock.
		a.timer = time.AfterFunc(t.Timeout, func() { _ = b.Resolve(t.ID, res) })
	}
	b.mu.Unlock()
	return a, nil
}

// Resolve records r for approval id. The first resolution wins; a later one
// gets an error wrapping ErrAlreadyResolved that says who answered first and when.
func (b *Broker) Resolve(id string, r Resolution) error {
	if r.At.IsZero() {
		r.At = b.now()
	}
	b.mu.Lock()
	a, ok := b.pending[id]
	if !ok {
		prev, was := b.resolved[id]
		b.mu.Unlock()
		if was {
			return fmt.Errorf("approval %s: %w by %s at %s (outcome %s%s)", id, ErrAlreadyResolved, prev.By,
				prev.At.UTC().Format(time.RFC3339Nano), prev.Outcome, optSuffix(prev.OptionID))
		}
		return fmt.Errorf("approval %s: %w (unknown id)", id, ErrNotPending)
	}
	delete(b.pending, id)
	b.resolved[id] = r
	b.order = append(b.order, id)
	if len(b.order) > keepResolved {
		delete(b.resolved, b.order[0])
		b.order = b.order[1:]
	}
	a.res = r
	close(a.done)
	timer, then := a.timer, a.then
	a.then = nil
	b.mu.Unlock()
	if timer != nil {
		timer.Stop()
	}
	if then != nil {
		then()
	}
	return nil
}

// Then arranges for f to run once a is resolved, with no goroutine waiting
// for it: on the goroutine that resolves it (an answer's, the timeout's
// timer, a cancel's), after the broker's mutex is released, or at once on
// the caller's if a is already resolved. f must be quick (hand the work to
// another goroutine): Resolve returns after it. A second Then replaces the
// first.
func (b *Broker) Then(a *Approval, f func()) {
	b.mu.Lock()
	if p, ok := b.pending[a.ID]; ok && p == a {
		a.then = f
		b.mu.Unlock()
		return
	}
	b.mu.Unlock()
	<-a.done // closed under b.mu before a left pending
	f()
}

func optSuffix(opt string) string {
	if opt == "" {
		return ""
	}
	return ", option " + opt
}

// resolveWhere resolves every pending approval for which match is true.
func (b *Broker) resolveWhere(match func(*Approval) bool, r Resolution) int {
	b.mu.Lock()
	var ids []string
	for id, a := range b.pending {
		if match(a) {
			ids = append(ids, id)
		}
	}
	b.mu.Unlock()
	n := 0
	for _, id := range ids {
		if b.Resolve(id, r) == nil {
			n++
		}
	}
	return n
}

// ResolveSession resolves every pending approval of a session (session/cancel).
func (b *Broker) ResolveSession(sessionID string, r Resolution) int {
	return b.resolveWhere(func(a *Approval) bool { return a.SessionID == sessionID }, r)
}

// ResolveAgent resolves every pending approval of an agent (the agent exited).
func (b *Broker) ResolveAgent(agent string, r Resolution) int {
	return b.resolveWhere(func(a *Approval) bool { return a.Agent == agent }, r)
}

// ResolveAll resolves every pending approval (editor gone, shutdown).
func (b *Broker) ResolveAll(r Resolution) int {
	return b.resolveWhere(func(*Approval) bool { return true }, r)
}

// Get returns a pending approval.
func (b *Broker) Get(id string) (*Approval, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	a, ok := b.pending[id]
	return a, ok
}

// List returns the pending approvals, oldest first.
func (b *Broker) List() []*Approval {
	b.mu.Lock()
	out := make([]*Approval, 0, len(b.pending))
	for _, a := range b.pending {
		out = append(out, a)
	}
	b.mu.Unlock()
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Created.Equal(out[j].Created) {
			return out[i].Created.Before(out[j].Created)
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// Len is the number of pending approvals.
func (b *Broker) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.pending)
}
