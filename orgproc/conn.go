package orgproc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"sync/atomic"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/internal/audit"
)

// conn is one running companion: acp's engine (NewConn) over its stdin
// and stdout. Requests (Start/Call) are written on the caller's goroutine
// into the stdin queue (an acp.QueueWriter: never waits on the pipe);
// records go through the bounded records channel, drained by one
// goroutine (writeRecords) that hands the next record to the engine only
// once everything before it has reached the pipe (meter). So a request
// waits behind at most the one record being written, never behind the
// queued ones, and the records a companion did not take stay countable
// in the channel.
type conn struct {
	cmd     *exec.Cmd
	rpc     *acp.Conn
	q       *acp.QueueWriter // the companion's stdin
	m       *meter
	records chan audit.Record
	// lost counts a record the writer could not send (its line over
	// MaxLine, or the connection gone).
	lost func(n uint64, why string)
	// handed counts the records handed to the engine (tests).
	handed atomic.Uint64

	wg       sync.WaitGroup // its goroutines
	quit     chan struct{}  // stop writing (stdin closed after the records)
	quitOnce sync.Once
	dead     chan struct{} // the process is gone; err says why
	err      error
	killOnce sync.Once
}

// TooLongError is a message the bridge does not send: its line would be
// longer than the companion reads (MaxLine).
type TooLongError struct{ Bytes int }

func (e *TooLongError) Error() string {
	return fmt.Sprintf("the message is %d bytes, over the %d the companion reads: not sent", e.Bytes, MaxLine)
}

// start sends a request without waiting for its answer: params encoded
// once, a line over MaxLine never sent.
func (cn *conn) start(method string, params any) (*acp.Pending, error) {
	raw, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("orgproc: %s: %w", method, err)
	}
	if n := lineBytes(method, len(raw)); n > MaxLine {
		return nil, fmt.Errorf("orgproc: %s: %w", method, &TooLongError{Bytes: n})
	}
	p, err := cn.rpc.Start(context.Background(), method, json.RawMessage(raw))
	if err != nil {
		return nil, fmt.Errorf("orgproc: %w", err)
	}
	return p, nil
}

// call sends a request and waits for its answer (decoded into result),
// the companion's end (acp fails every call still waiting when its output
// ends) or ctx (acp sends $/cancel_request).
func (cn *conn) call(ctx context.Context, method string, params, result any) error {
	p, err := cn.start(method, params)
	if err != nil {
		return err
	}
	if err := p.Wait(ctx, result); err != nil {
		if errors.Is(err, acp.ErrClosed) {
			return fmt.Errorf("orgproc: %w (%s's output ended)", err, Name)
		}
		return fmt.Errorf("orgproc: %w", err)
	}
	return nil
}

// writeRecords is the one goroutine that hands records to the engine,
// each once the pipe has taken everything before it; at quit, the records
// still queued, then stdin is closed.
func (cn *conn) writeRecords() {
	for {
		if !cn.awaitWritten() {
			return
		}
		select {
		case r := <-cn.records:
			cn.sendRecord(r)
		case <-cn.quit:
			// The records queued so far go first: the companion flushes
			// its sink when its stdin ends.
			for {
				select {
				case r := <-cn.records:
					if !cn.awaitWritten() {
						return
					}
					cn.sendRecord(r)
					continue
				default:
				}
				break
			}
			_ = cn.q.Close() // closes stdin once the queue is written
			return
		case <-cn.dead:
			return
		}
	}
}

// awaitWritten waits until the pipe has taken every byte queued for it;
// false once the companion is gone.
func (cn *conn) awaitWritten() bool {
	for {
		wrote := cn.m.pending()
		if wrote == nil {
			return true
		}
		select {
		case <-wrote:
		case <-cn.dead:
			return false
		}
	}
}

func (cn *conn) sendRecord(r audit.Record) {
	raw := cn.recordLine(r)
	if raw == nil {
		return
	}
	if err := cn.rpc.Notify(context.Background(), MethodTelemetryRecord, raw); err != nil {
		cn.lost(1, err.Error())
		return
	}
	cn.handed.Add(1)
}

// recordLine is r's telemetry.record params; nil (the record counted as
// lost) when it cannot be encoded or its line is longer than the
// companion reads.
func (cn *conn) recordLine(r audit.Record) json.RawMessage {
	raw, err := json.Marshal(r)
	switch {
	case err != nil:
		cn.lost(1, "it cannot be encoded: "+err.Error())
	case lineBytes(MethodTelemetryRecord, len(raw)) > MaxLine:
		cn.lost(1, (&TooLongError{Bytes: lineBytes(MethodTelemetryRecord, len(raw))}).Error())
	default:
		return raw
	}
	return nil
}

func (cn *conn) closeInput() { cn.quitOnce.Do(func() { close(cn.quit) }) }

func (cn *conn) kill() {
	cn.killOnce.Do(func() { _ = cn.cmd.Process.Kill() })
}

func (cn *conn) finish(err error) {
	cn.err = err
	close(cn.dead)
	cn.closeInput()
}

// meter counts the bytes queued for the companion's stdin (in) and those
// its pipe has taken (out): equal, nothing waits in the queue.
type meter struct {
	mu      sync.Mutex
	in, out int
	wrote   chan struct{} // closed and replaced at every write to the pipe
}

func newMeter() *meter { return &meter{wrote: make(chan struct{})} }

// pending is nil when the pipe has taken all that was queued, else a
// channel closed at the pipe's next write.
func (m *meter) pending() <-chan struct{} {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.in == m.out {
		return nil
	}
	return m.wrote
}

// meterIn is what the engine writes to: the queue, counted.
type meterIn struct {
	m *meter
	q *acp.QueueWriter
}

func (w meterIn) Write(p []byte) (int, error) {
	w.m.mu.Lock()
	w.m.in += len(p)
	w.m.mu.Unlock()
	return w.q.Write(p)
}

// meterOut is what the queue writes to: the pipe, counted.
type meterOut struct {
	m *meter
	w io.Writer
}

func (w meterOut) Write(p []byte) (int, error) {
	n, err := w.w.Write(p)
	w.m.mu.Lock()
	w.m.out += n
	close(w.m.wrote)
	w.m.wrote = make(chan struct{})
	w.m.mu.Unlock()
	return n, err
}
