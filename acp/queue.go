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
	queue   [][]byte
	queued  int    // bytes queued
	batch   []byte // reused by the writer goroutine to join the queue
	err     error
	closing bool
	done    chan struct{}
}

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
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.err != nil {
		return 0, q.err
	}
	if q.closing {
		return 0, io.ErrClosedPipe
	}
	for q.max > 0 && q.queued > q.max && q.err == nil && !q.closing {
		q.cond.Wait() // back-pressure: the writer goroutine signals as it drains
	}
	if q.err != nil {
		return 0, q.err
	}
	q.queue = append(q.queue, append([]byte(nil), p...))
	q.queued += len(p)
	q.cond.Broadcast()
	return len(p), nil
}

// Queued is the number of bytes waiting to be written.
func (q *QueueWriter) Queued() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.queued
}

func (q *QueueWriter) run() {
	defer close(q.done)
	for {
		q.mu.Lock()
		for len(q.queue) == 0 && !q.closing && q.err == nil {
			q.cond.Wait()
		}
		if q.err != nil || len(q.queue) == 0 { // failed, or closing with nothing left
			q.mu.Unlock()
			if q.c != nil {
				_ = q.c.Close()
			}
			return
		}
		// Everything queued goes out in one write.
		var buf []byte
		if len(q.queue) == 1 {
			buf = q.queue[0]
		} else {
			q.batch = q.batch[:0]
			for _, b := range q.queue {
				q.batch = append(q.batch, b...)
			}
			buf = q.batch
		}
		clear(q.queue)
		q.queue = q.queue[:0]
		q.queued = 0
		q.cond.Broadcast() // writers blocked on the bound may go on
		q.mu.Unlock()
		if _, err := q.w.Write(buf); err != nil {
			q.mu.Lock()
			q.err = err
			q.queue = nil
			q.queued = 0
			q.cond.Broadcast()
			q.mu.Unlock()
		}
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
	q.queue = nil
	q.queued = 0
	q.cond.Broadcast()
	q.mu.Unlock()
	if q.c != nil {
		_ = q.c.Close() // unblocks a Write stuck on a full pipe
	}
}

// Done is closed when the writer goroutine has finished.
func (q *QueueWriter) Done() <-chan struct{} { return q.done }
