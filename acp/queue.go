package acp

import (
	"io"
	"sync"
)

// QueueWriter is an io.WriteCloser whose Write never blocks on the underlying
// writer: data is queued in order and written by one goroutine. It is what the
// bridge writes a child's stdin through, so a child that stops reading can
// never stall the editor's read loop. Once the underlying writer fails, later
// writes return that error.
//
// With a bound (NewBoundedQueueWriter), Write blocks while more than that
// many bytes wait, so a reader that falls behind slows the writers down
// instead of growing memory. The writer goroutine writes everything queued
// in one write(2), which is what makes it worth putting in front of stdout.
type QueueWriter struct {
	w   io.Writer
	c   io.Closer
	max int // 0 = unbounded

	mu      sync.Mutex
	cond    *sync.Cond
	pend    []byte // queued bytes, in order, appended by Write
	spare   []byte // the buffer last written, handed back for reuse
	err     error
	closing bool
	done    chan struct{}
}

// maxSpare bounds the buffer kept for reuse after a large burst.
const maxSpare = 1 << 20

// NewQueueWriter starts the writer goroutine. Close closes c after the queue drains.
func NewQueueWriter(w io.Writer, c io.Closer) *QueueWriter {
	return NewBoundedQueueWriter(w, c, 0)
}

// NewBoundedQueueWriter is NewQueueWriter whose Write blocks while more than
// max bytes are queued (max <= 0: unbounded).
func NewBoundedQueueWriter(w io.Writer, c io.Closer, max int) *QueueWriter {
	q := &QueueWriter{w: w, c: c, max: max, done: make(chan struct{})}
	q.cond = sync.NewCond(&q.mu)
	go q.run()
	return q
}

// Write implements io.Writer. p is copied.
func (q *QueueWriter) Write(p []byte) (int, error) {
	if err := q.WriteParts(p); err != nil {
		return 0, err
	}
	return len(p), nil
}

// WriteParts queues the concatenation of parts as one write: nothing else
// is queued between them. Each part is copied once, into the queue.
func (q *QueueWriter) WriteParts(parts ...[]byte) error {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.err != nil {
		return q.err
	}
	if q.closing {
		return io.ErrClosedPipe
	}
	for q.max > 0 && len(q.pend) > q.max && q.err == nil && !q.closing {
		q.cond.Wait() // back-pressure: the writer goroutine signals as it drains
	}
	if q.err != nil {
		return q.err
	}
	wake := len(q.pend) == 0 // the writer goroutine waits only on an empty queue
	for _, p := range parts {
		q.pend = append(q.pend, p...)
	}
	if wake && n > 0 {
		q.cond.Broadcast()
	}
	return nil
}

// Queued is the number of bytes waiting to be written.
func (q *QueueWriter) Queued() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.pend)
}

func (q *QueueWriter) run() {
	defer close(q.done)
	for {
		q.mu.Lock()
		for len(q.pend) == 0 && !q.closing && q.err == nil {
			q.cond.Wait()
		}
		if q.err != nil || len(q.pend) == 0 { // failed, or closing with nothing left
			q.mu.Unlock()
			if q.c != nil {
				_ = q.c.Close()
			}
			return
		}
		// Everything queued goes out in one write; writers go on filling
		// the other buffer meanwhile.
		buf := q.pend
		q.pend, q.spare = q.spare[:0], nil
		q.cond.Broadcast() // writers blocked on the bound may go on
		q.mu.Unlock()
		_, err := q.w.Write(buf)
		q.mu.Lock()
		if err != nil {
			q.err = err
			q.pend = nil
			q.cond.Broadcast()
		} else if cap(buf) <= maxSpare {
			q.spare = buf
		}
		q.mu.Unlock()
	}
}

// Close stops accepting writes, lets the queue drain, then closes the
// underlying closer. It does not wait; Done reports the end.
func (q *QueueWriter) Close() error {
	q.mu.Lock()
	q.closing = true
	q.cond.Broadcast()
	q.mu.Unlock()
	return nil
}

// Abort drops whatever is queued and closes the underlying closer now.
func (q *QueueWriter) Abort() {
	q.mu.Lock()
	if q.err == nil {
		q.err = io.ErrClosedPipe
	}
	q.pend = nil
	q.cond.Broadcast()
	q.mu.Unlock()
	if q.c != nil {
		_ = q.c.Close() // unblocks a Write stuck on a full pipe
	}
}

// Done is closed when the writer goroutine has finished.
func (q *QueueWriter) Done() <-chan struct{} { return q.done }
