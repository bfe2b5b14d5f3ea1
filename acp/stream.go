package acp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/sourcegraph/jsonrpc2"
)

// DefaultMaxLineBytes bounds one NDJSON line (64 MiB).
const DefaultMaxLineBytes = 64 << 20

// StreamEvent describes a line the stream dropped instead of delivering.
type StreamEvent struct {
	Kind   string // "invalid-json", "not-a-message", "line-too-long"
	Bytes  int    // length of the offending line
	Prefix string // at most 120 bytes of it, for the log
	Err    error
}

// StreamOptions configures an NDJSON stream.
type StreamOptions struct {
	// MaxLineBytes bounds a line; 0 means DefaultMaxLineBytes. An over-long
	// line is discarded through its newline and reported; the stream goes on.
	MaxLineBytes int
	// OnDrop is called (on the read goroutine) for every dropped line.
	OnDrop func(StreamEvent)
}

// NewStream returns a jsonrpc2.ObjectStream speaking newline-delimited JSON
// over rwc. Unlike jsonrpc2's plain stream it survives bad input: a line that
// is not JSON, not a JSON-RPC message, not UTF-8 or longer than the bound is
// reported through OnDrop and skipped. Only an I/O error (EOF included) ends it.
func NewStream(r io.Reader, w io.Writer, c io.Closer, opts StreamOptions) jsonrpc2.ObjectStream {
	if opts.MaxLineBytes <= 0 {
		opts.MaxLineBytes = DefaultMaxLineBytes
	}
	return &ndjsonStream{r: bufio.NewReaderSize(r, 64<<10), w: w, c: c, opts: opts}
}

type ndjsonStream struct {
	r    *bufio.Reader // read goroutine only
	line []byte        // read goroutine only: reused line buffer
	opts StreamOptions

	wmu  sync.Mutex // guards w and wbuf
	w    io.Writer
	wbuf bytes.Buffer

	c io.Closer
}

// errLineTooLong is internal: the line was discarded.
var errLineTooLong = errors.New("line too long")

// readLine returns the next line without its newline. The slice is valid
// until the next call.
func (s *ndjsonStream) readLine() ([]byte, error) {
	s.line = s.line[:0]
	tooLong := false
	total := 0
	for {
		frag, err := s.r.ReadSlice('\n')
		total += len(frag)
		if !tooLong {
			if len(s.line)+len(frag) > s.opts.MaxLineBytes+1 { // +1: the newline
				tooLong = true
				// keep a prefix for the report
				if len(s.line) < 120 {
					n := min(120-len(s.line), len(frag))
					s.line = append(s.line, frag[:n]...)
				}
			} else {
				s.line = append(s.line, frag...)
			}
		}
		switch {
		case err == nil:
			if tooLong {
				return s.line, fmt.Errorf("%w: %d bytes exceeds the limit of %d", errLineTooLong, total, s.opts.MaxLineBytes)
			}
			return bytes.TrimRight(s.line, "\r\n"), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			// EOF with a partial last line: deliver it if it is whole JSON.
			if err == io.EOF && len(s.line) > 0 && !tooLong {
				return bytes.TrimRight(s.line, "\r\n"), nil
			}
			return nil, err
		}
	}
}

func prefix(b []byte) string {
	if len(b) > 120 {
		b = b[:120]
	}
	return string(b)
}

func (s *ndjsonStream) drop(ev StreamEvent) {
	if s.opts.OnDrop != nil {
		s.opts.OnDrop(ev)
	}
}

// ReadObject implements jsonrpc2.ObjectStream.
func (s *ndjsonStream) ReadObject(v any) error {
	for {
		line, err := s.readLine()
		if errors.Is(err, errLineTooLong) {
			s.drop(StreamEvent{Kind: "line-too-long", Prefix: prefix(line), Err: err})
			continue
		}
		if err != nil {
			return err
		}
		trimmed := bytes.TrimSpace(line)
		if len(trimmed) == 0 {
			continue
		}
		if !json.Valid(trimmed) {
			s.drop(StreamEvent{Kind: "invalid-json", Bytes: len(line), Prefix: prefix(line), Err: errors.New("not a JSON value")})
			continue
		}
		if err := json.Unmarshal(trimmed, v); err != nil {
			s.drop(StreamEvent{Kind: "not-a-message", Bytes: len(line), Prefix: prefix(line), Err: err})
			continue
		}
		return nil
	}
}

// WriteObject implements jsonrpc2.ObjectStream: one JSON value and a newline,
// written with a single Write so concurrent writers never interleave.
func (s *ndjsonStream) WriteObject(obj any) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.wbuf.Reset()
	enc := json.NewEncoder(&s.wbuf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(obj); err != nil { // Encode appends '\n'
		return err
	}
	_, err := s.w.Write(s.wbuf.Bytes())
	return err
}

// Close implements jsonrpc2.ObjectStream.
func (s *ndjsonStream) Close() error {
	if s.c == nil {
		return nil
	}
	return s.c.Close()
}
