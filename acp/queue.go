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

	// try writes what fits without waiting (a non-blocking descriptor);
	// nil when w is not one, and then Flush only wakes the writer goroutine.
	try func([]byte) (int, error)

	mu      sync.Mutex
	cond    *sync.Cond
	pend    []byte // queued bytes, in order, appended by Write
	spare   []byte // the buffer last written, handed back for reuse
	writing bool   // a taken buffer is being written (by the writer goroutine or Flush): one at a time, so order holds
	woken   bool   // the writer goroutine has been signalled for what pend holds; until then it leaves deferred bytes alone
	err     error
	closing bool
	done    chan struct{}
}

// deferredWake is how much deferred data (WritePartsDeferred) may wait for
// a Flush before the writer goroutine is woken anyway, so a long burst
// still streams while it is being read.
const deferredWake = 128 << 10

// maxSpare bounds the buffer kept for reuse after a large burst.
const maxSpare = 1 << 20

// NewQueueWriter starts the writer goroutine. Close closes c after the queue drains.
func NewQueueWriter(w io.Writer, c io.Closer) *QueueWriter {
	return NewBoundedQueueWriter(w, c, 0)
}

// NewBoundedQueueWriter is NewQueueWriter whose Write blocks while more than
// max bytes are queued (max <= 0: unbounded).
func NewBoundedQueueWriter(w io.Writer, c io.Closer, max int) *QueueWriter {
	q := &QueueWriter{w: w, c: c, max: max, try: tryWriter(w), done: make(chan struct{})}
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
	return q.writeParts(false, parts)
}

// WritePartsDeferred is WriteParts that does not wake the writer goroutine
// for a small amount of data: the caller, a read loop with more lines in
// hand, promises to call Flush before it waits for anything (before its
// next read(2)). Lines from one read go out in one write(2), written by
// the read loop itself when the descriptor takes them at once, without a
// hand-off to another thread. Past 128 KiB the writer goroutine is woken
// as for WriteParts.
func (q *QueueWriter) WritePartsDeferred(parts ...[]byte) error {
	return q.writeParts(true, parts)
}

func (q *QueueWriter) writeParts(deferred bool, parts [][]byte) error {
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
		q.wake()      // deferred data may have filled the queue without a wake-up
		q.cond.Wait() // back-pressure: the writer goroutine signals as it drains
	}
	if q.err != nil {
		return q.err
	}
	for _, p := range parts {
		q.pend = append(q.pend, p...)
	}
	if n > 0 && (!deferred || len(q.pend) >= deferredWake) {
		q.wake()
	}
	return nil
}

// wake signals the writer goroutine, once for what pend holds. Called with
// mu held.
func (q *QueueWriter) wake() {
	if !q.woken {
		q.woken = true
		q.cond.Broadcast()
	}
}

// Flush starts writing whatever is queued. When no write is in progress and
// the descriptor is non-blocking, Flush writes on the calling goroutine as
// much as the descriptor takes at once; the rest, if any, is left to the
// writer goroutine. Flush never waits for the reader on the other end.
func (q *QueueWriter) Flush() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.pend) == 0 || q.err != nil {
		return
	}
	if q.writing || q.try == nil {
		q.wake() // the writer goroutine takes it (after the write in progress)
		return
	}
	buf := q.take()
	q.mu.Unlock()
	n, err := q.try(buf)
	q.mu.Lock()
	q.writing, q.woken = false, false
	switch {
	case q.err != nil:
		return // aborted meanwhile: nothing is kept
	case err != nil:
		q.fail(err)
		return
	case n < len(buf):
		// The descriptor is full: what is left goes first, written by the
		// writer goroutine, which may wait.
		rest := copy(buf, buf[n:])
		buf = append(buf[:rest], q.pend...)
		q.pend, q.spare = buf, q.pend[:0]
	case cap(buf) <= maxSpare:
		q.spare = buf
	}
	if len(q.pend) > 0 {
		q.wake() // what was queued meanwhile, or the rest
	} else if q.closing {
		q.cond.Broadcast() // the writer goroutine waits for this write to end before closing
	}
}

// take hands what is queued to a write (by the writer goroutine or Flush)
// and gives the writers the spare buffer. Called with mu held.
func (q *QueueWriter) take() []byte {
	buf := q.pend
	q.pend, q.spare, q.writing, q.woken = q.spare[:0], nil, true, false
	if q.max > 0 && len(buf) > q.max {
		// Writers blocked on the bound may go on. Only then: the writer
		// goroutine waits on the same condition, and a wake-up it cannot
		// use is what Flush is there to save.
		q.cond.Broadcast()
	}
	return buf
}

// fail records the writer's error and drops what is queued. Called with mu
// held.
func (q *QueueWriter) fail(err error) {
	q.err = err
	q.pend = nil
	q.cond.Broadcast()
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
		// Deferred bytes wait for a Flush or a wake-up: they are taken only
		// when signalled for, or when closing.
		for q.err == nil && (q.writing || ((len(q.pend) == 0 || !q.woken) && !q.closing)) {
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
		buf := q.take()
		q.mu.Unlock()
		_, err := q.w.Write(buf)
		q.mu.Lock()
		q.writing = false
		if err != nil {
			q.fail(err)
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
