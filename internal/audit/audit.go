package audit

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
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
	Would  string `json:"would,omitempty"`
	Source string `json:"source"`
	// AskedBy is, for a decision a person (or a timeout, a cancel) made on
	// a card, the source of the verdict that asked: a rule, a breaker, a
	// hook, hook-no-verdict, the mode's default.
	AskedBy string `json:"askedBy,omitempty"`
	Rule    string `json:"rule,omitempty"`
	// RuleTier and RuleFile say where the deciding rule was read: its
	// settings layer (managed, user, workspace, editor, agent:<id>,
	// session, ...) and file, when a rule decided.
	RuleTier string `json:"ruleTier,omitempty"`
	RuleFile string `json:"ruleFile,omitempty"`
	// OPADecisionID is OPA's own decision id, when an OPA stage decided.
	OPADecisionID string `json:"opaDecisionId,omitempty"`
	// Traceparent is the W3C trace context the editor sent with the
	// session's latest prompt (or session/new): _meta.traceparent.
	Traceparent string  `json:"traceparent,omitempty"`
	Reason      string  `json:"reason,omitempty"`
	OptionID    string  `json:"optionId,omitempty"`
	LatencyMS   float64 `json:"latencyMs"`
	// Sandbox says what the OS sandbox still blocked of an allowed call.
	Sandbox string `json:"sandbox,omitempty"`
	// Cut says which fields were too long to keep whole: what was kept is a
	// prefix; the original's size and sha256 are here.
	Cut []Cut `json:"cut,omitempty"`
	// Summary is set on a line that stands for records past the rate of
	// their key: they were counted, not written (streams.go).
	Summary *Summary `json:"summary,omitempty"`
}

// Log appends Records to four JSONL files, one per kind of record
// (streams.go): the policy's allows at path, unasked records at
// path+UnaskedSuffix, denies at path+DeniesSuffix, a person's decisions
// (and every other record) at path+PersonSuffix. The first two rotate,
// each on its own budget, and are rate-limited per agent, session and
// tool, so what an agent can produce at will (requests the policy allows,
// tool calls it reports as done without asking) never rotates a deny or a
// person's decision away: those two files are never rotated.
type Log struct {
	path string
	max  int64
	log  *zap.Logger

	// rate and interval bound the records of one key (limiter.go) written
	// in full; tests lower them.
	rate     int
	interval time.Duration
	// single writes every record to the decision file, unlimited and
	// uncut: the behaviour before streams, for the flood test's control.
	single bool
	// now is the clock of the rate windows; tests set it.
	now func() time.Time

	mu      sync.Mutex
	streams [nStreams]*stream
	watch   *idWatch // which open file was moved or removed (nil: stat each path)
	// dirID is what stat(2) said of the files' directory (they all live in
	// path's) when last checked: a directory above them renamed or
	// replaced, or a symlinked one retargeted, moves every path without an
	// event on the files' inodes.
	dirID      os.FileInfo
	noDirCheck bool // tests: the control that skips the directory's check
	lim        limiter
	timer      *time.Timer // flushes the summaries of ended windows
	closed     bool
}

// Open opens (creating it, 0600, and its directories, 0700) the log at path.
// maxSizeBytes bounds the decision file, and the unasked file, before each
// rotates; <= 0 means DefaultMaxSize. The deny and person files never
// rotate (their growth is bounded by the rate limit, streams.go). A nil logger discards
// the Log's own messages.
func Open(path string, maxSizeBytes int64, log *zap.Logger) (*Log, error) {
	return open(path, maxSizeBytes, log, DefaultRate, DefaultInterval, false)
}

func open(path string, maxSizeBytes int64, log *zap.Logger, rate int, interval time.Duration, single bool) (*Log, error) {
	if path == "" {
		return nil, errors.New("audit: empty log path")
	}
	if maxSizeBytes <= 0 {
		maxSizeBytes = DefaultMaxSize
	}
	if log == nil {
		log = zap.NewNop()
	}
	l := &Log{path: path, max: maxSizeBytes, log: log.With(zap.String("audit", path)), rate: rate, interval: interval, single: single, now: time.Now}
	l.watch = newIDWatch()
	for k := range l.streams {
		max := maxSizeBytes
		if protected(streamKind(k)) {
			max = 0 // never rotated
		}
		l.streams[k] = &stream{path: streamPath(path, streamKind(k)), max: max, log: l.log, watch: l.watch, wd: -1}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.watch != nil {
		l.dirID, _ = os.Stat(filepath.Dir(path))
	}
	// Every file that already exists must be the writer's own; the
	// decision file is created now, the others on their first record.
	for _, s := range l.streams {
		if s.kind(path) != streamDecisions {
			if _, err := os.Lstat(s.path); errors.Is(err, fs.ErrNotExist) {
				continue
			}
		}
		if err := s.open(); err != nil {
			l.closeStreams()
			l.watch.close()
			return nil, err
		}
	}
	return l, nil
}

// Path is the file the Log writes decisions to.
func (l *Log) Path() string { return l.path }

// Append writes r as one line of the file of its kind. A zero r.Time is set
// to now. Long fields are cut (their sha256 and size kept, streams.go); past
// the rate of its key, r is only counted, and a summary line says how many
// were. The line goes out in one write(2); past the size bound the file is
// rotated first. An error (the record could not be encoded, or not be
// written) leaves the Log usable: the next Append reopens the file.
func (l *Log) Append(r Record) error {
	if r.Time.IsZero() {
		r.Time = time.Now()
	}
	kind := streamDecisions
	if !l.single {
		CutRecord(&r)
		kind = kindOf(r)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return ErrClosed
	}
	var errs []error
	if !l.single {
		summaries, write := l.lim.admit(kind, r, l.now(), l.rate, l.interval)
		for _, s := range summaries {
			errs = append(errs, l.writeLocked(s.kind, s.rec))
		}
		l.armLocked()
		if !write {
			return errors.Join(errs...)
		}
	}
	errs = append(errs, l.writeLocked(kind, r))
	return errors.Join(errs...)
}

// writeLocked encodes r and appends it to the stream of kind k. l.mu held.
func (l *Log) writeLocked(k streamKind, r Record) error {
	line, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("audit: encode record: %w", err)
	}
	line = append(line, '\n')
	l.checkMovedLocked()
	err = l.streams[k].append(line)
	if protected(k) {
		// A copy in the decision file, for readers that tail it alone
		// (the editor's audit view); Read skips it there.
		err = errors.Join(err, l.streams[streamDecisions].append(line))
	}
	return err
}

// checkMovedLocked drops each open file that may no longer be the one at
// its path, so that the next write reopens the file at its path: every file
// when the files' directory is not the one it was (one stat(2) per record:
// a rename above it, a symlinked directory retargeted, a mount), and each
// file the kernel said was renamed, unlinked or changed in its links or
// attributes since the last record (idWatch). l.mu held.
func (l *Log) checkMovedLocked() {
	if l.watch == nil {
		return
	}
	if l.noDirCheck {
		// a test's control: the directory is taken as unchanged
	} else if st, err := os.Stat(filepath.Dir(l.path)); err != nil || l.dirID == nil || !os.SameFile(st, l.dirID) {
		for _, s := range l.streams {
			if s.wd >= 0 {
				s.drop()
			}
		}
		l.dirID = st // nil when it is gone: checked again at the next record
	}
	l.watch.moved(func(wd int32) {
		for _, s := range l.streams {
			if s.f != nil && s.wd >= 0 && (wd < 0 || s.wd == wd) {
				s.drop()
			}
		}
	})
}

// Flush writes the summaries of every window that has ended by now.
func (l *Log) Flush() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.flushLocked(l.now(), false)
}

// flushLocked writes the summaries of windows ended at now (all of them
// with all). l.mu held.
func (l *Log) flushLocked(now time.Time, all bool) error {
	var errs []error
	for _, s := range l.lim.due(now, l.interval, all) {
		errs = append(errs, l.writeLocked(s.kind, s.rec))
	}
	return errors.Join(errs...)
}

// armLocked makes sure a timer flushes the pending summaries once their
// window ends, so a flood followed by silence is still summarised. l.mu held.
func (l *Log) armLocked() {
	end, ok := l.lim.nextEnd(l.interval)
	if !ok || l.timer != nil {
		return
	}
	l.timer = time.AfterFunc(max(end.Sub(l.now()), time.Millisecond), func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.timer = nil
		if l.closed {
			return
		}
		if err := l.flushLocked(l.now(), false); err != nil {
			l.log.Error("audit: write summary", zap.Error(err))
		}
		l.armLocked()
	})
}

// Close writes the pending summaries and closes the files. Later Appends
// return ErrClosed.
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil
	}
	var errs []error
	if !l.single {
		errs = append(errs, l.flushLocked(time.Time{}, true))
	}
	l.closed = true
	if l.timer != nil {
		l.timer.Stop()
		l.timer = nil
	}
	errs = append(errs, l.closeStreams())
	l.watch.close()
	return errors.Join(errs...)
}

func (l *Log) closeStreams() error {
	var errs []error
	for _, s := range l.streams {
		if s != nil {
			errs = append(errs, s.close())
		}
	}
	return errors.Join(errs...)
}

// stream is one size-bounded, rotated file.
type stream struct {
	path string
	max  int64 // rotation bound; 0: never rotated
	log  *zap.Logger

	f           *os.File    // the open file; nil before a (re)open and after a failure
	id          os.FileInfo // f's fstat(2) when opened: its identity (os.SameFile)
	needNewline bool        // the file ends inside a line: start the next record on a fresh one

	// watch and wd: the Log's idWatch and f's watch in it (-1: none, so
	// each record stats s.path). size is the file's size as last read plus
	// what this stream wrote since; sinceStat counts the records since it
	// was read (fstat(2) every statEvery records: another process writing
	// the same file grows it too).
	watch     *idWatch
	wd        int32
	size      int64
	sinceStat int
}

// statEvery: how many records a watched stream writes between two reads of
// its file's size.
const statEvery = 16

func (s *stream) kind(base string) streamKind {
	for k := range nStreams {
		if streamPath(base, streamKind(k)) == s.path {
			return streamKind(k)
		}
	}
	return streamDecisions
}

// append writes line (newline included) with one write(2), rotating first
// past the bound.
func (s *stream) append(line []byte) error {
	size, err := s.ensureOpen()
	if err != nil {
		return err
	}
	if s.max > 0 && size > 0 && size+int64(len(line)) > s.max {
		if err := s.rotate(); err != nil {
			return err
		}
	}
	if s.needNewline {
		line = append([]byte{'\n'}, line...)
	}
	n, err := writeLine(s.f, line)
	if err == nil && n != len(line) {
		err = io.ErrShortWrite
	}
	if err != nil {
		// Part of the line may be in the file: reopening checks the last
		// byte and starts the next record on a fresh line.
		s.drop()
		return fmt.Errorf("audit: append to %s: %w", s.path, err)
	}
	s.size += int64(n)
	s.needNewline = false
	return nil
}

func (s *stream) close() error {
	if s.f == nil {
		return nil
	}
	s.watch.remove(s.wd)
	s.wd = -1
	err := s.f.Close()
	s.f = nil
	if err != nil {
		return fmt.Errorf("audit: close %s: %w", s.path, err)
	}
	return nil
}

// ensureOpen makes s.f the file now at s.path: after a failure, or when
// the file was moved or removed behind the Log's back, it reopens. It
// returns the file's size (it decides rotation). A watched file is the one
// at s.path until the Log's idWatch says otherwise (Log.checkMovedLocked
// ran for this record), and its size is what this stream knows, read again
// every statEvery records; an unwatched one costs a stat(2) of s.path per
// record (the open file's identity, s.id, does not change).
func (s *stream) ensureOpen() (int64, error) {
	if s.f != nil {
		if s.wd >= 0 {
			if s.sinceStat < statEvery {
				s.sinceStat++
				return s.size, nil
			}
			if st, err := s.f.Stat(); err == nil {
				s.size, s.sinceStat = st.Size(), 0
				return s.size, nil
			}
		} else if onDisk, err := os.Stat(s.path); err == nil && os.SameFile(onDisk, s.id) {
			s.size = onDisk.Size()
			return s.size, nil
		}
		s.drop()
	}
	if err := s.open(); err != nil {
		return 0, err
	}
	return s.size, nil
}

// open opens s.path for appending: a new file, or an existing audit log
// (OpenOwned: never a symlink, a device, or a file holding anything else,
// such as a shell rc file).
func (s *stream) open() error {
	f, err := OpenOwned(s.path, looksLikeAuditLog)
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("audit: stat %s: %w", s.path, err)
	}
	if st.Mode().Perm()&0o077 != 0 {
		// The log holds commands and paths: keep it to its owner.
		if err := f.Chmod(0o600); err != nil {
			s.log.Warn("audit: cannot restrict log permissions", zap.Error(err))
		}
	}
	s.f, s.id, s.size, s.sinceStat = f, st, st.Size(), 0
	if rc, err := f.SyscallConn(); err == nil {
		_ = rc.Control(func(fd uintptr) { s.wd = s.watch.add(fd) })
	}
	s.needNewline = st.Size() > 0 && !endsWithNewline(s.path, st.Size())
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

// drop forgets the open file (after a failure, or when it was moved).
func (s *stream) drop() {
	if s.f != nil {
		s.watch.remove(s.wd)
		s.wd = -1
		s.f.Close()
		s.f = nil
	}
}

// rotate shifts path.2 -> path.3, path.1 -> path.2, path -> path.1 (the
// oldest generation is overwritten) and opens a fresh path. A rename that
// fails is logged and skipped: the log keeps growing rather than stopping.
func (s *stream) rotate() error {
	s.drop()
	for i := Generations - 1; i >= 1; i-- {
		from, to := generation(s.path, i), generation(s.path, i+1)
		if err := os.Rename(from, to); err != nil && !errors.Is(err, fs.ErrNotExist) {
			s.log.Warn("audit: rotate", zap.String("from", from), zap.String("to", to), zap.Error(err))
		}
	}
	if err := os.Rename(s.path, generation(s.path, 1)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		s.log.Warn("audit: rotate", zap.String("from", s.path), zap.Error(err))
	} else {
		s.log.Info("audit: rotated", zap.String("file", s.path), zap.Int64("maxBytes", s.max))
	}
	return s.open()
}

// generation names rotated file i (1 = newest).
func generation(path string, i int) string { return fmt.Sprintf("%s.%d", path, i) }
