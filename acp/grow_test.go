package acp

import (
	"fmt"
	"io"
	"math/rand"
	"strings"
	"testing"
)

// chunkReader hands out its data in pieces of random sizes up to max, as
// a pipe does.
type chunkReader struct {
	data string
	rng  *rand.Rand
	max  int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := min(len(p), len(c.data), 1+c.rng.Intn(c.max))
	copy(p, c.data[:n])
	c.data = c.data[n:]
	return n, nil
}

// Every line comes out whole and in order whatever the mix of small lines
// and lines longer than the small buffer, and whatever the small buffer
// held unread when the stream moved to the large one; fed a little at a
// time (no read fills the buffer), the stream moves once, at the first
// line that does not fit, and never for small lines.
func TestStreamGrowsAtFirstLongLine(t *testing.T) {
	for seed := int64(1); seed <= 40; seed++ {
		rng := rand.New(rand.NewSource(seed))
		var lines []string
		longAt := -1
		for i := 0; i < 200; i++ {
			n := 10 + rng.Intn(300)
			if rng.Intn(25) == 0 {
				n = smallReadBuf + rng.Intn(3*smallReadBuf)
				if longAt < 0 {
					longAt = i
				}
			}
			lines = append(lines, fmt.Sprintf(`{"i":%d,"p":"%s"}`, i, strings.Repeat("x", n)))
		}
		in := strings.Join(lines, "\n") + "\n"
		s := NewStream(&chunkReader{data: in, rng: rng, max: 512}, io.Discard, nil, StreamOptions{}).(*ndjsonStream)
		for i, want := range lines {
			got, err := s.readLine()
			if err != nil {
				t.Fatalf("seed %d line %d: %v", seed, i, err)
			}
			if string(got) != want {
				t.Fatalf("seed %d line %d: got %d bytes %.40q, want %d bytes %.40q", seed, i, len(got), got, len(want), want)
			}
			wantLarge := longAt >= 0 && i > longAt
			if large := s.r.Size() == largeReadBuf; large != wantLarge {
				t.Fatalf("seed %d after line %d (first long line %d): large buffer %v, want %v", seed, i, longAt, large, wantLarge)
			}
		}
		if _, err := s.readLine(); err != io.EOF {
			t.Fatalf("seed %d: after the last line: %v, want EOF", seed, err)
		}
	}
}

// A read that fills the small buffer (more was waiting: a stream under
// way) moves the stream to the large buffer at the next line, with every
// line whole and in order; a trickle of small lines never does.
func TestStreamGrowsWhenAReadFillsIt(t *testing.T) {
	var lines []string
	for i := 0; i < 2000; i++ {
		lines = append(lines, fmt.Sprintf(`{"i":%d,"p":"%s"}`, i, strings.Repeat("y", 100)))
	}
	in := strings.Join(lines, "\n") + "\n"
	for _, tc := range []struct {
		name      string
		max       int
		wantLarge bool
	}{{"burst", 1 << 20, true}, {"trickle", 64, false}} {
		s := NewStream(&chunkReader{data: in, rng: rand.New(rand.NewSource(1)), max: tc.max}, io.Discard, nil, StreamOptions{}).(*ndjsonStream)
		for i, want := range lines {
			got, err := s.readLine()
			if err != nil || string(got) != want {
				t.Fatalf("%s line %d: %.40q, %v", tc.name, i, got, err)
			}
		}
		if large := s.r.Size() == largeReadBuf; large != tc.wantLarge {
			t.Fatalf("%s: large buffer %v, want %v", tc.name, large, tc.wantLarge)
		}
	}
}
