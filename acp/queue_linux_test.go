package acp_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/acp-bridge/acp-bridge/acp"
)

// unread is how many bytes wait in the pipe whose read end is r (FIONREAD).
func unread(t *testing.T, r *os.File) int {
	t.Helper()
	rc, err := r.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var n int32
	var errno syscall.Errno
	if err := rc.Control(func(fd uintptr) {
		_, _, errno = syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCINQ, uintptr(unsafe.Pointer(&n)))
	}); err != nil || errno != 0 {
		t.Fatalf("FIONREAD: %v %v", err, errno)
	}
	return int(n)
}

// On a non-blocking descriptor (os.Pipe's), Flush writes on the calling
// goroutine: the bytes are in the pipe when it returns, with no hand-off.
func TestQueueWriterFlushWritesInline(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	q := acp.NewBoundedQueueWriter(w, w, 1<<20)
	defer func() { q.Close(); <-q.Done() }()
	for i := range 3 {
		line := fmt.Sprintf("batch line %d\n", i)
		if err := q.WritePartsDeferred([]byte(line)); err != nil {
			t.Fatal(err)
		}
	}
	want := len("batch line 0\n") * 3
	if n := unread(t, r); n != 0 {
		t.Fatalf("%d bytes in the pipe before Flush", n)
	}
	q.Flush()
	if n := unread(t, r); n != want {
		t.Fatalf("%d bytes in the pipe right after Flush, want %d written by Flush itself", n, want)
	}
	if n := q.Queued(); n != 0 {
		t.Fatalf("%d bytes still queued", n)
	}
}

// When the pipe takes only part of the batch, Flush returns at once and
// the writer goroutine writes the rest, first, once the reader makes room;
// deferred and plain writes from many goroutines keep their lines whole
// and in each writer's order.
func TestQueueWriterFlushOnFullPipeKeepsOrder(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	q := acp.NewBoundedQueueWriter(w, w, 256<<10)

	// A first batch larger than the pipe (64 KiB by default): Flush must
	// not wait for the reader, who has not started yet.
	big := append(bytes.Repeat([]byte("b"), 100<<10), '\n')
	if err := q.WritePartsDeferred(big); err != nil {
		t.Fatal(err)
	}
	flushed := make(chan struct{})
	go func() { q.Flush(); close(flushed) }()
	select {
	case <-flushed:
	case <-time.After(30 * time.Second):
		t.Fatal("Flush waited for the reader")
	}

	var out bytes.Buffer
	readDone := make(chan error, 1)
	go func() {
		_, err := io.Copy(&out, r)
		readDone <- err
	}()
	const writers, lines = 4, 3000
	var wg sync.WaitGroup
	for wr := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range lines {
				line := writerLine(wr, i)
				var err error
				if wr%2 == 0 {
					err = q.WritePartsDeferred(line...)
					if i%7 == 6 {
						q.Flush()
					}
				} else {
					err = q.WriteParts(line...)
				}
				if err != nil {
					t.Error(err)
					return
				}
			}
			q.Flush()
		}()
	}
	wg.Wait()
	q.Close()
	select {
	case <-q.Done():
	case <-time.After(30 * time.Second):
		t.Fatal("the queue did not drain")
	}
	if err := <-readDone; err != nil {
		t.Fatal(err)
	}
	got := out.String()
	if !strings.HasPrefix(got, string(big)) {
		t.Fatalf("the first batch is not first and whole (%d bytes read)", len(got))
	}
	checkWriterLines(t, got[len(big):], writers, lines)
}
