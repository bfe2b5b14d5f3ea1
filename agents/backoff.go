package agents

import "time"

// Default bounds of a zero Backoff.
const (
	DefaultBackoffMin = 500 * time.Millisecond
	DefaultBackoffMax = 30 * time.Second
)

// Backoff is a bounded exponential delay between restarts of a crashed
// agent: Min, then doubling each crash up to Max, until Reset after a healthy
// run. The zero value uses DefaultBackoffMin and DefaultBackoffMax. A Backoff
// belongs to one supervising goroutine; it has no lock.
type Backoff struct {
	Min, Max time.Duration

	next     time.Duration // delay the next call to Next returns; 0 = Min
	attempts int           // calls to Next since the last Reset
}

func (b *Backoff) bounds() (lo, hi time.Duration) {
	lo, hi = b.Min, b.Max
	if lo <= 0 {
		lo = DefaultBackoffMin
	}
	if hi <= 0 {
		hi = DefaultBackoffMax
	}
	return lo, max(lo, hi)
}

// Next records a crash and returns how long to wait before the next start.
func (b *Backoff) Next() time.Duration {
	lo, hi := b.bounds()
	d := min(max(b.next, lo), hi)
	b.attempts++
	if d > hi/2 { // doubling would pass hi (and could overflow)
		b.next = hi
	} else {
		b.next = d * 2
	}
	return d
}

// Attempts is the number of Next calls since the last Reset: the crash count
// a supervisor can cap.
func (b *Backoff) Attempts() int { return b.attempts }

// Reset starts over from Min, after a run long enough to count as healthy.
func (b *Backoff) Reset() {
	b.next = 0
	b.attempts = 0
}
