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
type QueueWriter struct {
	w io.Writer
	c io.Closer

	mu      sync.Mutex
	cond    *sync.Cond
	queue   [][]byte
	queued  int // bytes queued
	err     error
	closing bool
	done    chan struct{}
}

// NewQueueWriter starts the writer goroutine. Close closes c after the queue drains.
func NewQueueWriter(w io.Writer, c io.Closer) *QueueWriter {
	q := &QueueWriter{w: w, c: c, done: make(chan struct{})}
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
	q.queue = append(q.queue, append([]byte(nil), p...))
	q.queued += len(p)
	q.cond.Signal()
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
		buf := q.queue[0]
		q.queue[0] = nil
		q.queue = q.queue[1:]
		q.queued -= len(buf)
		q.mu.Unlock()
		if _, err := q.w.Write(buf); err != nil {
			q.mu.Lock()
			q.err = err
			q.queue = nil
			q.queued = 0
			q.mu.Unlock()
		}
	}
}

// Close stops accepting writes, lets the queue drain, then closes the
// underlying closer. It does not wait; Done reports the end.
func (q *QueueWriter) Close() error {
	q.mu.Lock()
	q.closing = true
	q.cond.Signal()
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
	q.cond.Signal()
	q.mu.Unlock()
	if q.c != nil {
		_ = q.c.Close() // unblocks a Write stuck on a full pipe
	}
}

// Done is closed when the writer goroutine has finished.
func (q *QueueWriter) Done() <-chan struct{} { return q.done }
