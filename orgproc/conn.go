package orgproc

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sync"

	"github.com/acp-bridge/acp-bridge/internal/audit"
)

// conn is one running companion.
type conn struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	reqs    chan []byte
	records chan audit.Record
	// lost counts a record the writer could not send (its line over
	// MaxLine).
	lost func(n uint64, why string)

	mu      sync.Mutex
	nextID  uint64
	pending map[uint64]chan Message
	closed  bool

	wg       sync.WaitGroup // its goroutines
	quit     chan struct{}  // stop writing (stdin closed)
	quitOnce sync.Once
	dead     chan struct{} // the process is gone; err says why
	err      error
	killOnce sync.Once
}

var errDown = errors.New(Name + " is not running")

// TooLongError is a message the bridge does not send: its line would be
// longer than the companion reads (MaxLine).
type TooLongError struct{ Bytes int }

func (e *TooLongError) Error() string {
	return fmt.Sprintf("the message is %d bytes, over the %d the companion reads: not sent", e.Bytes, MaxLine)
}

// send queues a request; the answer arrives on the channel.
func (cn *conn) send(method string, params any) (<-chan Message, func(), error) {
	raw, err := json.Marshal(params)
	if err != nil {
		return nil, nil, fmt.Errorf("orgproc: %s: %w", method, err)
	}
	cn.mu.Lock()
	if cn.closed {
		cn.mu.Unlock()
		return nil, nil, errDown
	}
	cn.nextID++
	id := cn.nextID
	ch := make(chan Message, 1)
	cn.pending[id] = ch
	cn.mu.Unlock()
	cancel := func() {
		cn.mu.Lock()
		delete(cn.pending, id)
		cn.mu.Unlock()
	}
	line, err := json.Marshal(Message{ID: id, Method: method, Params: raw})
	if err != nil {
		cancel()
		return nil, nil, fmt.Errorf("orgproc: %s: %w", method, err)
	}
	if len(line) > MaxLine {
		// The companion reads no longer line: never sent.
		cancel()
		return nil, nil, fmt.Errorf("orgproc: %s: %w", method, &TooLongError{Bytes: len(line)})
	}
	select {
	case cn.reqs <- line:
	default:
		cancel()
		return nil, nil, fmt.Errorf("orgproc: %s: the companion's input is full", method)
	}
	return ch, cancel, nil
}

// call sends a request and waits for its answer, the companion's end or ctx.
func (cn *conn) call(ctx context.Context, method string, params any) (Message, error) {
	ch, cancel, err := cn.send(method, params)
	if err != nil {
		return Message{}, err
	}
	defer cancel()
	select {
	case m := <-ch:
		return m, nil
	case <-cn.dead:
		return Message{}, fmt.Errorf("orgproc: %s: %w", method, cn.err)
	case <-ctx.Done():
		return Message{}, fmt.Errorf("orgproc: %s: %w", method, ctx.Err())
	}
}

// write is the only writer of the companion's stdin: requests first.
func (cn *conn) write() {
	w := bufio.NewWriter(cn.stdin)
	put := func(line []byte) bool {
		if _, err := w.Write(append(line, '\n')); err != nil {
			return false
		}
		return w.Flush() == nil
	}
	for {
		select {
		case line := <-cn.reqs:
			if !put(line) {
				return
			}
			continue
		default:
		}
		select {
		case line := <-cn.reqs:
			if !put(line) {
				return
			}
		case r := <-cn.records:
			if line := cn.recordLine(r); line != nil && !put(line) {
				return
			}
		case <-cn.quit:
			// The records queued so far go first: the companion flushes
			// its sink when its stdin ends.
			for {
				select {
				case r := <-cn.records:
					if line := cn.recordLine(r); line != nil && !put(line) {
						return
					}
					continue
				default:
				}
				break
			}
			_ = cn.stdin.Close()
			return
		case <-cn.dead:
			return
		}
	}
}

// recordLine is r's telemetry.record line; nil (the record counted as
// lost) when it cannot be encoded or is longer than the companion reads.
func (cn *conn) recordLine(r audit.Record) []byte {
	raw, err := json.Marshal(r)
	if err == nil {
		raw, err = json.Marshal(Message{Method: MethodTelemetryRecord, Params: raw})
	}
	switch {
	case err != nil:
		cn.lost(1, "it cannot be encoded: "+err.Error())
	case len(raw) > MaxLine:
		cn.lost(1, (&TooLongError{Bytes: len(raw)}).Error())
	default:
		return raw
	}
	return nil
}

// read dispatches the companion's answers and notifications until EOF.
func (cn *conn) read(r io.Reader, notify func(Message)) {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := ReadLine(br)
		if isLong(err) {
			continue // its caller's bound ends its wait
		}
		if err != nil {
			return
		}
		var m Message
		if json.Unmarshal(line, &m) != nil {
			continue
		}
		if m.Method != "" {
			notify(m)
			continue
		}
		cn.mu.Lock()
		ch := cn.pending[m.ID]
		delete(cn.pending, m.ID)
		cn.mu.Unlock()
		if ch != nil {
			ch <- m
		}
	}
}

func (cn *conn) closeInput() { cn.quitOnce.Do(func() { close(cn.quit) }) }

func (cn *conn) kill() {
	cn.killOnce.Do(func() { _ = cn.cmd.Process.Kill() })
}

func (cn *conn) finish(err error) {
	cn.mu.Lock()
	cn.closed = true
	cn.pending = map[uint64]chan Message{}
	cn.mu.Unlock()
	cn.err = err
	close(cn.dead)
	cn.closeInput()
}
