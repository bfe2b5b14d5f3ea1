package testkit

import (
	"bytes"
	"context"
	"strings"
	"sync"
)

// SyncBuffer is a bytes.Buffer safe for concurrent writes and reads (a
// process's stderr while a test reads it). WaitFor waits, without polling,
// until what was written holds a string.
type SyncBuffer struct {
	mu      sync.Mutex
	b       bytes.Buffer
	changed chan struct{} // closed and replaced at every write
}

// Write implements io.Writer.
func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, err := s.b.Write(p)
	if s.changed != nil {
		close(s.changed)
		s.changed = nil
	}
	return n, err
}

// String returns everything written so far.
func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// WaitFor returns nil once what was written contains sub, or ctx's error.
func (s *SyncBuffer) WaitFor(ctx context.Context, sub string) error {
	for {
		s.mu.Lock()
		if strings.Contains(s.b.String(), sub) {
			s.mu.Unlock()
			return nil
		}
		if s.changed == nil {
			s.changed = make(chan struct{})
		}
		ch := s.changed
		s.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
