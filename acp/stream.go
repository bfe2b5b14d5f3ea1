package acp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/acp-bridge/acp-bridge/internal/jsonscan"

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

	// onNotif, set by NewConn before the first read, receives plain
	// notifications on the read goroutine, in wire order, without the
	// round trip through jsonrpc2's decoder (which decodes params into
	// interface{} values and encodes them again).
	onNotif func(method string, params json.RawMessage)
}

// maxRetainedLine bounds the line buffer kept between reads.
const maxRetainedLine = 1 << 20

// errLineTooLong is internal: the line was discarded.
var errLineTooLong = errors.New("line too long")

// readLine returns the next line without its newline. The slice is valid
// until the next call.
func (s *ndjsonStream) readLine() ([]byte, error) {
	if cap(s.line) > maxRetainedLine {
		s.line = nil // let one big line's buffer go; do not pin it for the connection's life
	}
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
		if s.onNotif != nil {
			if method, params, ok := plainNotification(trimmed); ok {
				s.onNotif(method, params)
				continue
			}
		}
		if !jsonscan.Valid(trimmed) {
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

// plainNotification recognises a JSON-RPC notification that jsonrpc2 would
// read the same way: a UTF-8 object with a string "method", no "id" (or a
// null one), no "result" and no "error", every member name spelled exactly
// (encoding/json matches struct fields case-insensitively; jsonrpc2 does
// not). Anything else (requests, responses, batches, invalid UTF-8, which
// jsonrpc2 repairs) is left to jsonrpc2. params is a copy.
func plainNotification(line []byte) (method string, params json.RawMessage, ok bool) {
	if len(line) == 0 || line[0] != '{' || !utf8.Valid(line) || !jsonscan.Valid(line) {
		return "", nil, false
	}
	var methodRaw []byte
	bad := false
	scanned := jsonscan.EachMember(line, func(name []byte, s, e int) bool {
		switch k := string(name); k {
		case "method":
			methodRaw = line[s:e]
		case "params":
			params = line[s:e]
		case "jsonrpc":
		case "id":
			bad = string(line[s:e]) != "null"
		case "result", "error":
			bad = true
		default:
			switch strings.ToLower(k) {
			case "id", "method", "params", "result", "error", "jsonrpc":
				bad = true // jsonrpc2 reads these names case-insensitively; leave it to it
			}
		}
		return !bad
	})
	if !scanned || bad || methodRaw == nil {
		return "", nil, false
	}
	if methodRaw[0] != '"' {
		return "", nil, false
	}
	if body := methodRaw[1 : len(methodRaw)-1]; string(body) == MethodSessionUpdate {
		method = MethodSessionUpdate // nearly every notification: no allocation
	} else if bytes.IndexByte(body, '\\') < 0 {
		method = string(body) // valid JSON, no escapes: the bytes are the string
	} else if json.Unmarshal(methodRaw, &method) != nil {
		return "", nil, false
	}
	if params != nil {
		params = append(json.RawMessage(nil), params...) // the line buffer is reused
	}
	return method, params, true
}

// writeNotification writes a notification whose params are already JSON,
// skipping jsonrpc2's encoding chain (which re-encodes params several
// times). It reports false, having written nothing, when params is not a
// single compact-safe JSON value; the caller then takes the general path.
func (s *ndjsonStream) writeNotification(method string, parts [][]byte, trusted bool) (bool, error) {
	for _, p := range parts {
		if bytes.IndexByte(p, '\n') >= 0 {
			return false, nil
		}
	}
	if !trusted && (len(parts) != 1 || !jsonscan.Valid(parts[0])) {
		return false, nil
	}
	var m []byte
	if method == MethodSessionUpdate {
		m = quotedSessionUpdate
	} else if q, ok := quotePlain(method); ok {
		m = q
	} else {
		var err error
		if m, err = json.Marshal(method); err != nil {
			return false, nil
		}
	}
	if q, ok := s.w.(*QueueWriter); ok && len(parts) <= 5 {
		// One copy, into the queue; the queue keeps the line whole.
		var arr [8][]byte
		line := append(arr[:0], notifHead, m, notifParams)
		line = append(line, parts...)
		return true, q.WriteParts(append(line, notifTail)...)
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.wbuf.Reset()
	s.wbuf.Write(notifHead)
	s.wbuf.Write(m)
	s.wbuf.Write(notifParams)
	for _, p := range parts {
		s.wbuf.Write(p)
	}
	s.wbuf.Write(notifTail)
	_, err := s.w.Write(s.wbuf.Bytes())
	return true, err
}

var (
	quotedSessionUpdate = []byte(`"` + MethodSessionUpdate + `"`)
	notifHead           = []byte(`{"jsonrpc":"2.0","method":`)
	notifParams         = []byte(`,"params":`)
	notifTail           = []byte("}\n")
)

// quotePlain quotes s as a JSON string when it needs no escaping (printable
// ASCII without quotes, backslashes or the characters json.Marshal escapes
// for HTML), as every ACP method name does; ok is false otherwise.
func quotePlain(s string) ([]byte, bool) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return nil, false
		}
	}
	out := make([]byte, 0, len(s)+2)
	out = append(out, '"')
	out = append(out, s...)
	return append(out, '"'), true
}

// WriteObject implements jsonrpc2.ObjectStream: one JSON value and a newline,
// written with a single Write so concurrent writers never interleave.
func (s *ndjsonStream) WriteObject(obj any) error {
	if m, ok := obj.(json.Marshaler); ok {
		// jsonrpc2's messages marshal themselves with json.Marshal, whose
		// output is already compact; an Encoder would check and compact
		// it once more. Write it as it is when it is one clean line.
		b, err := m.MarshalJSON()
		if err != nil {
			return err
		}
		if bytes.IndexByte(b, '\n') < 0 && jsonscan.Valid(b) {
			if q, ok := s.w.(*QueueWriter); ok {
				return q.WriteParts(b, lineEnd)
			}
			s.wmu.Lock()
			defer s.wmu.Unlock()
			s.wbuf.Reset()
			s.wbuf.Write(b)
			s.wbuf.Write(lineEnd)
			_, err := s.w.Write(s.wbuf.Bytes())
			return err
		}
	}
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

var lineEnd = []byte("\n")

// Close implements jsonrpc2.ObjectStream.
func (s *ndjsonStream) Close() error {
	if s.c == nil {
		return nil
	}
	return s.c.Close()
}
