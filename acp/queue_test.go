package acp_test

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/internal/testkit"
)

// writerLine is line i of writer w in the ordering tests, in four parts:
// "w<w> <i> <pad> end\n", the pad i%97+1 bytes long.
func writerLine(w, i int) [][]byte {
	return [][]byte{[]byte(fmt.Sprintf("w%d", w)), []byte(fmt.Sprintf(" %d ", i)), bytes.Repeat([]byte("p"), i%97+1), []byte(" end\n")}
}

// checkWriterLines checks that text is exactly writers × lines writerLines,
// none torn, each writer's in its order.
func checkWriterLines(t *testing.T, text string, writers, lines int) {
	t.Helper()
	got := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if len(got) != writers*lines {
		t.Fatalf("%d lines, want %d", len(got), writers*lines)
	}
	next := make([]int, writers)
	for _, l := range got {
		var w, i int
		var pad, end string
		if n, err := fmt.Sscanf(l, "w%d %d %s %s", &w, &i, &pad, &end); n != 4 || err != nil || end != "end" || len(pad) != i%97+1 || w < 0 || w >= writers {
			t.Fatalf("torn line %q", l)
		}
		if i != next[w] {
			t.Fatalf("writer %d: line %d after %d", w, i, next[w]-1)
		}
		next[w]++
	}
}

// Concurrent WriteParts calls never interleave their parts, and each
// writer's lines arrive in its order, while the writer goroutine swaps
// buffers under them.
func TestQueueWriterPartsStayWhole(t *testing.T) {
	var out testkit.SyncBuffer
	q := acp.NewBoundedQueueWriter(&out, nil, 512)
	const writers, lines = 4, 2000
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range lines {
				if err := q.WriteParts(writerLine(w, i)...); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	q.Close()
	<-q.Done()
	checkWriterLines(t, out.String(), writers, lines)
}

// A deferred write waits in the queue, unwritten, until Flush; Close
// still writes what a deferred write left.
func TestQueueWriterDeferredWaitsForFlush(t *testing.T) {
	for _, tc := range []struct {
		name  string
		flush bool
	}{{"flushed", true}, {"closed without a flush", false}} {
		t.Run(tc.name, func(t *testing.T) {
			var out testkit.SyncBuffer
			q := acp.NewBoundedQueueWriter(&out, nil, 1<<20)
			if err := q.WritePartsDeferred([]byte("one "), []byte("line\n")); err != nil {
				t.Fatal(err)
			}
			if err := q.WritePartsDeferred([]byte("two\n")); err != nil {
				t.Fatal(err)
			}
			// Nothing woke the writer goroutine: the bytes are still queued.
			if n := q.Queued(); n != len("one line\ntwo\n") {
				t.Fatalf("queued %d bytes before Flush, want all %d", n, len("one line\ntwo\n"))
			}
			if tc.flush {
				q.Flush()
			}
			q.Close()
			<-q.Done()
			if got := out.String(); got != "one line\ntwo\n" {
				t.Fatalf("wrote %q", got)
			}
		})
	}
}

// Past deferredWake (128 KiB) a deferred write wakes the writer goroutine
// itself: a long burst is never held back waiting for its reader's Flush,
// and a bound smaller than the burst cannot deadlock it.
func TestQueueWriterDeferredBurstIsWrittenWithoutFlush(t *testing.T) {
	pr, pw := io.Pipe()
	q := acp.NewBoundedQueueWriter(pw, pw, 64<<10)
	line := append(bytes.Repeat([]byte("x"), 1023), '\n')
	const lines = 1024 // 1 MiB, sixteen times the bound
	got := make(chan int, 1)
	go func() {
		n, _ := io.Copy(io.Discard, pr)
		got <- int(n)
	}()
	for range lines {
		if err := q.WritePartsDeferred(line); err != nil {
			t.Fatal(err)
		}
	}
	q.Close() // no Flush: the writer goroutine alone drained the queue
	select {
	case n := <-got:
		if n != lines*len(line) {
			t.Fatalf("read %d bytes, want %d", n, lines*len(line))
		}
	case <-time.After(30 * time.Second):
		t.Fatal("a deferred burst never reached the reader")
	}
}
