//go:build linux

package pipesize

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

func TestGrow(t *testing.T) {
	for _, tc := range []struct {
		name    string
		end     string // which end to grow: "r" or "w"
		want    int
		atLeast int // expected size after Grow; 0 = an error is expected
	}{
		{"read end to 1 MiB", "r", Default, Default},
		{"write end to 256 KiB", "w", 256 << 10, 256 << 10},
		{"an odd size is rounded up to pages", "r", 200 << 10, 200 << 10},
		{"the default size is not a growth", "r", 64 << 10, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			defer w.Close()
			f := r
			if tc.end == "w" {
				f = w
			}
			got, err := Grow(f, tc.want)
			if tc.atLeast == 0 {
				if err == nil {
					t.Fatalf("Grow(%d) = %d, want an error", tc.want, got)
				}
				return
			}
			if err != nil {
				t.Fatalf("Grow(%d): %v", tc.want, err)
			}
			if got < tc.atLeast {
				t.Fatalf("Grow(%d) = %d, want at least %d", tc.want, got, tc.atLeast)
			}
			// Both ends see the same buffer.
			for _, end := range []*os.File{r, w} {
				if size, err := Size(end); err != nil || size != got {
					t.Fatalf("Size = %d, %v; want %d", size, err, got)
				}
			}
		})
	}
}

// TestGrownPipeHoldsMoreAndStaysPollable checks what Grow is for: a writer
// can put more than 64 KiB in the pipe with nobody reading, and the ends
// are still non-blocking files of Go's poller, so a deadline still ends a
// blocked Read (an agent's stdout must never pin the bridge's read loop).
func TestGrownPipeHoldsMoreAndStaysPollable(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if _, err := Grow(r, Default); err != nil {
		t.Fatal(err)
	}
	// With the default 64 KiB buffer this write would block; the deadline
	// turns that into a failure instead of a hang.
	if err := w.SetWriteDeadline(time.Now().Add(10 * time.Second)); err != nil {
		t.Fatalf("write end is not pollable after Grow: %v", err)
	}
	big := make([]byte, 512<<10)
	if n, err := w.Write(big); err != nil || n != len(big) {
		t.Fatalf("writing 512 KiB into a grown pipe with no reader: %d, %v", n, err)
	}
	buf := make([]byte, len(big))
	total := 0
	for total < len(big) {
		n, err := r.Read(buf[total:])
		if err != nil {
			t.Fatal(err)
		}
		total += n
	}
	if err := r.SetReadDeadline(time.Now().Add(50 * time.Millisecond)); err != nil {
		t.Fatalf("read end is not pollable after Grow: %v", err)
	}
	if _, err := r.Read(buf); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("Read on an empty pipe past its deadline: %v, want os.ErrDeadlineExceeded", err)
	}
}

func TestGrowNotAPipe(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "file"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	_, err = Grow(f, Default)
	if !errors.Is(err, syscall.EBADF) {
		t.Fatalf("Grow on a regular file: %v, want EBADF", err)
	}
	if _, err := Size(f); !errors.Is(err, syscall.EBADF) {
		t.Fatalf("Size on a regular file: %v, want EBADF", err)
	}
}
