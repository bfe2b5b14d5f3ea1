package audit

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync"
	"time"

	"go.uber.org/zap"
)

// DefaultMaxSize is the rotation bound used when Open gets maxSizeBytes <= 0
// (design.md: audit.maxSizeMB defaults to 50).
const DefaultMaxSize int64 = 50 << 20

// Generations is how many rotated files are kept: path.1 (newest) to path.3.
const Generations = 3

// ErrClosed is returned by Append after Close.
var ErrClosed = errors.New("audit: log closed")

// writeLine is writeOnce; tests make it fail.
var writeLine = writeOnce

// Record is one decision, as one line of the log.
type Record struct {
	Time       time.Time       `json:"time"`
	Agent      string          `json:"agent"`
	SessionID  string          `json:"sessionId"`
	ToolCallID string          `json:"toolCallId,omitempty"`
	ApprovalID string          `json:"approvalId,omitempty"`
	Call       json.RawMessage `json:"call,omitempty"` // the canonical call (policy.Call)
	Specifier  string          `json:"specifier,omitempty"`
	Decision   string          `json:"decision"`
	// Would is, for decision "unasked" (a tool call the agent ran without
	// asking), what the policy would have decided: allow, ask or deny.
	Would     string  `json:"would,omitempty"`
	Source    string  `json:"source"`
	Rule      string  `json:"rule,omitempty"`
	Reason    string  `json:"reason,omitempty"`
	OptionID  string  `json:"optionId,omitempty"`
	LatencyMS float64 `json:"latencyMs"`
	// Sandbox says what the OS sandbox still blocked of an allowed call.
	Sandbox string `json:"sandbox,omitempty"`
}

// Log appends Records to a size-bounded, rotated JSONL file.
type Log struct {
	path string
	max  int64
	log  *zap.Logger

	mu          sync.Mutex
	f           *os.File // the open log; nil before a (re)open and after a failure
	needNewline bool     // the file ends inside a line: start the next record on a fresh one
	closed      bool
}

// Open opens (creating it, 0600, and its directories, 0700) the log at path.
// maxSizeBytes bounds the file before it rotates; <= 0 means DefaultMaxSize.
// A nil logger discards the Log's own messages.
func Open(path string, maxSizeBytes int64, log *zap.Logger) (*Log, error) {
	if path == "" {
		return nil, errors.New("audit: empty log path")
	}
	if maxSizeBytes <= 0 {
		maxSizeBytes = DefaultMaxSize
	}
	if log == nil {
		log = zap.NewNop()
	}
	l := &Log{path: path, max: maxSizeBytes, log: log.With(zap.String("audit", path))}
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.open(); err != nil {
		return nil, err
	}
	return l, nil
}

// Path is the file the Log writes.
func (l *Log) Path() string { return l.path }

// Append writes r as one line. A zero r.Time is set to now. The line goes
// out in one write(2); past the size bound the file is rotated first. An
// error (the record could not be encoded, or not be written) leaves the Log
// usable: the next Append reopens the file.
func (l *Log) Append(r Record) error {
	if r.Time.IsZero() {
		r.Time = time.Now()
	}
	line, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("audit: encode record: %w", err)
	}
	line = append(line, '\n')

	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return ErrClosed
	}
	if err := l.ensureOpen(); err != nil {
		return err
	}
	st, err := l.f.Stat()
	if err != nil {
		l.drop()
		return fmt.Errorf("audit: stat %s: %w", l.path, err)
	}
	if size := st.Size(); size > 0 && size+int64(len(line)) > l.max {
		if err := l.rotate(); err != nil {
			return err
		}
	}
	if l.needNewline {
		line = append([]byte{'\n'}, line...)
	}
	n, err := writeLine(l.f, line)
	if err == nil && n != len(line) {
		err = io.ErrShortWrite
	}
	if err != nil {
		// Part of the line may be in the file: reopening checks the last
		// byte and starts the next record on a fresh line.
		l.drop()
		return fmt.Errorf("audit: append to %s: %w", l.path, err)
	}
	l.needNewline = false
	return nil
}

// Close closes the file. Later Appends return ErrClosed.
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil
	}
	l.closed = true
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	if err != nil {
		return fmt.Errorf("audit: close %s: %w", l.path, err)
	}
	return nil
}

// ensureOpen makes l.f the file now at l.path: after a failure, or when
// the file was moved or removed behind the Log's back, it reopens.
// l.mu must be held.
func (l *Log) ensureOpen() error {
	if l.f != nil {
		onDisk, err1 := os.Stat(l.path)
		open, err2 := l.f.Stat()
		if err1 == nil && err2 == nil && os.SameFile(onDisk, open) {
			return nil
		}
		l.drop()
	}
	return l.open()
}

// open opens l.path for appending: a new file, or an existing audit log
// (OpenOwned: never a symlink, a device, or a file holding anything else,
// such as a shell rc file). l.mu must be held.
func (l *Log) open() error {
	f, err := OpenOwned(l.path, looksLikeAuditLog)
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("audit: stat %s: %w", l.path, err)
	}
	if st.Mode().Perm()&0o077 != 0 {
		// The log holds commands and paths: keep it to its owner.
		if err := f.Chmod(0o600); err != nil {
			l.log.Warn("audit: cannot restrict log permissions", zap.Error(err))
		}
	}
	l.f = f
	l.needNewline = st.Size() > 0 && !endsWithNewline(l.path, st.Size())
	return nil
}

// endsWithNewline reports whether the file's last byte is '\n'. When it
// cannot tell, it says no: an extra blank line is harmless, a record glued
// to a torn one is lost.
func endsWithNewline(path string, size int64) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var b [1]byte
	if _, err := f.ReadAt(b[:], size-1); err != nil {
		return false
	}
	return b[0] == '\n'
}

// drop forgets the open file after a failure. l.mu must be held.
func (l *Log) drop() {
	if l.f != nil {
		l.f.Close()
		l.f = nil
	}
}

// rotate shifts path.2 -> path.3, path.1 -> path.2, path -> path.1 (the
// oldest generation is overwritten) and opens a fresh path. A rename that
// fails is logged and skipped: the log keeps growing rather than stopping.
// l.mu must be held.
func (l *Log) rotate() error {
	l.drop()
	for i := Generations - 1; i >= 1; i-- {
		from, to := generation(l.path, i), generation(l.path, i+1)
		if err := os.Rename(from, to); err != nil && !errors.Is(err, fs.ErrNotExist) {
			l.log.Warn("audit: rotate", zap.String("from", from), zap.String("to", to), zap.Error(err))
		}
	}
	if err := os.Rename(l.path, generation(l.path, 1)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		l.log.Warn("audit: rotate", zap.String("from", l.path), zap.Error(err))
	} else {
		l.log.Info("audit: rotated", zap.Int64("maxBytes", l.max))
	}
	return l.open()
}

// generation names rotated file i (1 = newest).
func generation(path string, i int) string { return fmt.Sprintf("%s.%d", path, i) }
