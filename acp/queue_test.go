package acp_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/internal/testkit"
)

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
				if err := q.WriteParts([]byte(fmt.Sprintf("w%d", w)), []byte(" "), []byte(fmt.Sprint(i)), []byte(" end\n")); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	q.Close()
	<-q.Done()
	next := make([]int, writers)
	got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(got) != writers*lines {
		t.Fatalf("%d lines, want %d", len(got), writers*lines)
	}
	for _, l := range got {
		var w, i int
		var end string
		if n, err := fmt.Sscanf(l, "w%d %d %s", &w, &i, &end); n != 3 || err != nil || end != "end" || w < 0 || w >= writers {
			t.Fatalf("torn line %q", l)
		}
		if i != next[w] {
			t.Fatalf("writer %d: line %d after %d", w, i, next[w]-1)
		}
		next[w]++
	}
}
