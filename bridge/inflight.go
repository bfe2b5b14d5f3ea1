package bridge

import (
	"sync"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/wire"
)

// Requests an agent has in flight at the bridge are bounded (per agent
// process), so an agent cannot grow the bridge's memory by sending requests
// faster than they are answered: each one is handled in its own goroutine
// holding its params until it is answered, and a child's read loop never
// waits for a request to finish (it must keep reading the agent's updates
// and answers). Past the bound a request is answered at once with
// CodeTooManyRequests: never held, never dropped, so every request still
// gets exactly one answer, and no read loop blocks. Permission requests and
// the other kinds (fs/*, terminal/*, elicitation/create, extension
// requests) have separate budgets, so a flood of one kind never refuses the
// other.
const (
	// CodeTooManyRequests answers a child's request past its agent's bound.
	CodeTooManyRequests = wire.CodeTooManyRequests
	// maxChildInFlight bounds the requests of one kind one agent has at the bridge.
	maxChildInFlight = 64
	// maxChildInFlightBytes bounds their params' bytes (a request larger
	// than this alone is taken when none of its kind is in flight: the
	// stream already bounds one line).
	maxChildInFlightBytes = 16 << 20
)

// inflight counts one kind of request of one agent process.
type inflight struct {
	mu      sync.Mutex
	n       int
	bytes   int
	refused int // since the count last went down to zero (for the log)
}

// acquire takes a slot for a request of size bytes; false when the bound
// is reached. The returned release must be called once the request is answered.
func (f *inflight) acquire(size int) (release func(), refused int, ok bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n >= maxChildInFlight || (f.n > 0 && f.bytes+size > maxChildInFlightBytes) {
		f.refused++
		return nil, f.refused, false
	}
	f.n++
	f.bytes += size
	var once sync.Once
	return func() {
		once.Do(func() {
			f.mu.Lock()
			f.n--
			f.bytes -= size
			if f.n == 0 {
				f.refused = 0
			}
			f.mu.Unlock()
		})
	}, 0, true
}

// tooMany is the answer to a request of method past the bound of its kind.
func tooMany(method, kind string) error {
	return acp.Errorf(CodeTooManyRequests,
		"%s: too many %s in flight for the editor: %d (or %d MiB of params); acp-bridge refuses more of this agent's until some are answered",
		method, kind, maxChildInFlight, maxChildInFlightBytes>>20)
}
