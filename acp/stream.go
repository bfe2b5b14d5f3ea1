package acp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
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
	// Reply says how the sender was answered ("" = not at all), e.g.
	// "error -32600 to id 7" or "error -32700 to id null".
	Reply string
}

// StreamOptions configures an NDJSON stream.
type StreamOptions struct {
	// MaxLineBytes bounds a line; 0 means DefaultMaxLineBytes. An over-long
	// line is discarded through its newline and reported; the stream goes on.
	MaxLineBytes int
	// OnDrop is called (on the read goroutine) for every dropped line.
	OnDrop func(StreamEvent)
	// ReplyToBadLines makes the stream answer, as JSON-RPC 2.0 asks of a
	// server, a line that is not JSON with a parse error (-32700, id null)
	// and a JSON value that is not a message with an invalid request
	// (-32600, its id when one is readable and it is not a response, else
	// null). Off, such lines are only reported (OnDrop). Whatever this
	// says, an over-long line whose beginning shows a request with an id
	// is answered with -32600 to that id, and one that shows a response to
	// a call of ours fails that call (see NewConn).
	ReplyToBadLines bool
}

// NewStream returns a jsonrpc2.ObjectStream speaking newline-delimited JSON
// over rwc. Unlike jsonrpc2's plain stream it survives bad input: a line that
// is not JSON, not a JSON-RPC message, not UTF-8 or longer than the bound is
// reported through OnDrop and skipped. Only an I/O error (EOF included) ends it.
func NewStream(r io.Reader, w io.Writer, c io.Closer, opts StreamOptions) jsonrpc2.ObjectStream {
	if opts.MaxLineBytes <= 0 {
		opts.MaxLineBytes = DefaultMaxLineBytes
	}
	return newNDJSONStream(r, w, c, opts)
}

func newNDJSONStream(r io.Reader, w io.Writer, c io.Closer, opts StreamOptions) *ndjsonStream {
	s := &ndjsonStream{src: r, w: w, c: c, opts: opts}
	s.fw = &fillWatch{r: r}
	s.r = bufio.NewReaderSize(s.fw, smallReadBuf)
	return s
}

// fillWatch notes a read that filled all the room it was given: more was
// waiting than the small buffer holds (a stream under way, not a few
// lines now and then), and the stream grows.
type fillWatch struct {
	r    io.Reader
	full bool
}

func (f *fillWatch) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if n == len(p) && n > 0 {
		f.full = true
	}
	return n, err
}

// A stream reads through a small buffer until a line does not fit in it
// or a read fills it (more was waiting: a stream under way), then through
// a large one, in which a long line (a 64 KiB diff) is validated where
// read(2) put it, without a copy, and a burst of small lines is taken in
// few reads. Most agents send small
// lines, and one bridge reads many agents: 20 idle agents held 5 MiB of
// 256 KiB buffers (docs/benchmarks.md, "Where the time goes").
const (
	smallReadBuf = 16 << 10
	largeReadBuf = 256 << 10
)

// grow moves the stream to the large buffer: what the small one holds
// unread is read first (read goroutine only).
func (s *ndjsonStream) grow() {
	s.grown = true
	if s.src == nil || s.r.Size() >= largeReadBuf {
		return
	}
	held, _ := s.r.Peek(s.r.Buffered())
	s.r = bufio.NewReaderSize(io.MultiReader(bytes.NewReader(bytes.Clone(held)), s.src), largeReadBuf)
}

type ndjsonStream struct {
	r     *bufio.Reader // read goroutine only
	src   io.Reader     // what r reads (grow)
	fw    *fillWatch    // the small buffer's source: src, watched
	grown bool          // read goroutine only: r is the large buffer
	// growNext: a line did not fit in the small buffer; grow before the
	// next (read goroutine only).
	growNext bool
	line     []byte     // read goroutine only: reused line buffer
	lr       lineReader // read goroutine only
	opts     StreamOptions

	wmu  sync.Mutex // guards w and wbuf
	w    io.Writer
	wbuf bytes.Buffer

	c io.Closer

	// onLongAnswer, set by NewConn, fails our call id whose answer was
	// an over-long line (dropped): read goroutine.
	onLongAnswer func(id jsonrpc2.ID, msg string)

	// onMsg, set by NewConn before the first read, receives plain
	// messages on the read goroutine, in wire order, without the round
	// trip through jsonrpc2's decoder (which decodes params into
	// interface{} values and encodes them again). It returns false to
	// hand a message to jsonrpc2 after all (a response to an id it does
	// not know, so jsonrpc2 reports it). m is passed by value so that it
	// lives on the read loop's stack: no allocation, no write barriers.
	onMsg func(m plainMsg) bool

	// onClose, set by NewConn before the first read, runs once, after the
	// stream is closed: jsonrpc2 closes its stream exactly once when the
	// connection ends, by either side (conn.close), so the end is known
	// without a goroutine waiting on DisconnectNotify.
	onClose   func()
	closeOnce sync.Once
	closeMu   sync.Mutex
	closed    bool     // the stream was closed (under closeMu)
	thens     []func() // Conn.OnClose's, run after onClose
}

// maxRetainedLine bounds the line buffer kept between reads.
const maxRetainedLine = 1 << 20

// headBytes is how much of an over-long line is kept: enough for the log's
// prefix and for reading whether it is a request with an id (readHead).
const headBytes = 4 << 10

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
	if s.growNext || (!s.grown && s.fw != nil && s.fw.full) {
		s.growNext = false
		s.grow()
	}
	for {
		frag, err := s.r.ReadSlice('\n')
		if err == nil && len(s.line) == 0 && len(frag) <= s.opts.MaxLineBytes+1 {
			// The whole line is in the reader's buffer: no copy (it is
			// valid until the next read, as documented).
			return bytes.TrimRight(frag, "\r\n"), nil
		}
		total += len(frag)
		if !tooLong {
			if len(s.line)+len(frag) > s.opts.MaxLineBytes+1 { // +1: the newline
				tooLong = true
				// keep the line's head for the report and the reply
				if len(s.line) < headBytes {
					n := min(headBytes-len(s.line), len(frag))
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
			// This line is copied; the next ones get the large buffer.
			s.growNext = !s.grown
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
			s.drop(StreamEvent{Kind: "line-too-long", Prefix: prefix(line), Err: err, Reply: s.answerLong(line, err)})
			continue
		}
		if err != nil {
			return err
		}
		trimmed := bytes.TrimSpace(line)
		if len(trimmed) == 0 {
			continue
		}
		if s.onMsg != nil {
			var m plainMsg
			if s.lr.read(trimmed, &m) && s.onMsg(m) {
				continue
			}
		}
		if !jsonscan.Valid(trimmed) {
			ev := StreamEvent{Kind: "invalid-json", Bytes: len(line), Prefix: prefix(line), Err: errors.New("not a JSON value")}
			if s.opts.ReplyToBadLines {
				ev.Reply = s.replyError(jsonrpc2.ID{}, false, CodeParseError, "parse error: the line is not a JSON value")
			}
			s.drop(ev)
			continue
		}
		if err := json.Unmarshal(trimmed, v); err != nil {
			ev := StreamEvent{Kind: "not-a-message", Bytes: len(line), Prefix: prefix(line), Err: err}
			if s.opts.ReplyToBadLines {
				h := readHead(trimmed)
				ev.Reply = s.replyError(h.id, h.hasID && !h.response, CodeInvalidRequest, "invalid request: not a JSON-RPC 2.0 message: "+err.Error())
			}
			s.drop(ev)
			continue
		}
		return nil
	}
}

// answerLong answers the sender of an over-long line, when its head shows
// a request with an id (-32600 to that id), or fails our call when it
// shows the answer to one; it says what it did, for the log.
func (s *ndjsonStream) answerLong(head []byte, err error) string {
	h := readHead(head)
	switch {
	case !h.hasID:
		return ""
	case h.method && !h.response:
		return s.replyError(h.id, true, CodeInvalidRequest,
			fmt.Sprintf("invalid request: %v bytes (maxLineBytes); the request was dropped", err))
	case !h.method && s.onLongAnswer != nil:
		s.onLongAnswer(h.id, fmt.Sprintf("the answer was dropped: %v bytes (maxLineBytes)", err))
		return "failed our call " + h.id.String()
	}
	return ""
}

// replyError writes an error response to id (null unless hasID) and says
// what it wrote, for the log.
func (s *ndjsonStream) replyError(id jsonrpc2.ID, hasID bool, code int64, msg string) string {
	errObj, _ := json.Marshal(jsonrpc2.Error{Code: code, Message: msg})
	idJSON := []byte("null")
	if hasID {
		if b, err := id.MarshalJSON(); err == nil {
			idJSON = b
		}
	}
	if err := s.writeParts(respHead, idJSON, respError, errObj, respTail); err != nil {
		return fmt.Sprintf("error %d to id %s not written: %v", code, idJSON, err)
	}
	return fmt.Sprintf("error %d to id %s", code, idJSON)
}

// lineHead is what the beginning of a line shows of a JSON-RPC message.
type lineHead struct {
	id       jsonrpc2.ID
	hasID    bool // a plain id (see plainID), not null
	method   bool // a string "method" member
	response bool // a "result" or "error" member
}

// readHead reads the top-level members that are whole in head (the
// beginning of a line, perhaps cut anywhere): a member is counted only if
// its value is known to be whole (a number or literal at the very end may
// go on; a string, object or array ends with its closing character).
func readHead(head []byte) lineHead {
	var h lineHead
	i := 0
	for i < len(head) && (head[i] == ' ' || head[i] == '\t' || head[i] == '\r') {
		i++
	}
	_, _ = jsonscan.EachMemberAt(head, i, func(name []byte, start, end int) bool {
		if end >= len(head) && head[start] != '"' && head[start] != '{' && head[start] != '[' {
			return false // a number or literal at the cut may go on
		}
		switch string(name) {
		case "id":
			h.id, h.hasID = plainID(head[start:end])
		case "method":
			h.method = head[start] == '"'
		case "result", "error":
			h.response = true
		}
		return true
	})
	return h
}

// plainMsg is a JSON-RPC message read without jsonrpc2's decoder.
type plainMsg struct {
	method string          // notifications and requests
	id     jsonrpc2.ID     // requests and responses
	hasID  bool            // a request or a response
	params json.RawMessage // a copy; nil if absent
	result json.RawMessage // responses: a copy; nil if absent
	errObj json.RawMessage // responses: the error member, a copy; nil if absent

	// update is set for a session/update notification whose params the
	// same pass could read (ScanSessionUpdate's rules); its slices share
	// params.
	update  SessionUpdate
	scanned bool
}

// lineReader keeps what reading one line leaves for the next: scratch
// space for the scan and the last session id read, which a stream of
// updates repeats (reused instead of allocated again). Read goroutine only.
type lineReader struct {
	fields    []jsonscan.Field
	sessionID string
}

// read recognises a JSON-RPC notification, request or response
// that jsonrpc2 would read the same way: a UTF-8 object with a string
// "method" and no "result"/"error" (a notification when "id" is absent or
// null, else a request), or an "id" and exactly one of "result" and
// "error" and no "method" (a response). Ids must be plain: a non-negative
// integer or a string without escapes. Every member name must be spelled
// exactly (encoding/json matches struct fields case-insensitively; jsonrpc2
// does not). Anything else (batches, odd ids, invalid UTF-8, which jsonrpc2
// repairs) is left to jsonrpc2. The raw members are copies.
//
// One pass (jsonscan.ScanNamed) validates the line and finds its members, those
// of its params and those of a session/update's update, and whether any
// member anywhere is named "_meta" (SessionUpdate.NoMeta). m is overwritten;
// it is meaningful only when read reports true.
func (r *lineReader) read(line []byte, m *plainMsg) bool {
	*m = plainMsg{}
	if len(line) == 0 || line[0] != '{' || !utf8.Valid(line) {
		return false
	}
	fs, valid, named := jsonscan.ScanNamed(line, 3, r.fields[:0], metaMember)
	r.fields = fs
	if !valid {
		return false
	}
	var methodRaw, idRaw, params, result, errObj []byte
	paramsField := -1
	for i, f := range fs {
		if f.Parent != -1 {
			continue
		}
		if f.Escaped {
			return false // an escaped name could spell anything: leave it to jsonrpc2
		}
		var dst *[]byte
		name := f.Name(line)
		switch string(name) { // compared in place, not converted
		case "method":
			dst = &methodRaw
		case "params":
			dst, paramsField = &params, i
		case "id":
			dst = &idRaw
		case "result":
			dst = &result
		case "error":
			dst = &errObj
		case "jsonrpc":
		default:
			switch strings.ToLower(string(name)) {
			case "id", "method", "params", "result", "error", "jsonrpc":
				return false // jsonrpc2 reads these names case-insensitively; leave it to it
			}
		}
		if dst != nil {
			if *dst != nil {
				return false // a repeated member: leave it to jsonrpc2
			}
			*dst = f.Value(line)
		}
	}
	if idRaw != nil && string(idRaw) != "null" {
		id, ok := plainID(idRaw)
		if !ok {
			return false
		}
		m.id, m.hasID = id, true
	}
	switch {
	case methodRaw != nil && result == nil && errObj == nil:
		if methodRaw[0] != '"' {
			return false
		}
		if body := methodRaw[1 : len(methodRaw)-1]; string(body) == MethodSessionUpdate {
			m.method = MethodSessionUpdate // nearly every notification: no allocation
		} else if bytes.IndexByte(body, '\\') < 0 {
			m.method = string(body) // valid JSON, no escapes: the bytes are the string
		} else {
			var method string // decoded apart: &m.method would move all of m to the heap
			if json.Unmarshal(methodRaw, &method) != nil {
				return false
			}
			m.method = method
		}
		if m.method == "" {
			return false
		}
		if params != nil {
			m.params = append(json.RawMessage(nil), params...) // the line buffer is reused
			if m.method == MethodSessionUpdate && !m.hasID && params[0] == '{' {
				base := fs[paramsField].Start
				m.update, m.scanned = sessionUpdateFrom(m.params, fs, paramsField, base, r.sessionID)
				if m.scanned {
					r.sessionID = m.update.SessionID
					m.update.NoMeta = !named // the whole line was asked, params included
				}
			}
		}
	case methodRaw == nil && params == nil && m.hasID && (result == nil) != (errObj == nil):
		if result != nil {
			m.result = append(json.RawMessage(nil), result...)
		} else {
			if errObj[0] != '{' {
				return false
			}
			m.errObj = append(json.RawMessage(nil), errObj...)
		}
	default:
		return false
	}
	return true
}

// plainID reads a JSON-RPC id that is a non-negative integer or a string
// without escapes.
func plainID(raw []byte) (jsonrpc2.ID, bool) {
	switch {
	case len(raw) == 0:
		// A member cut off by the line's end (readHead reads the first
		// bytes of an over-long line): no id.
		return jsonrpc2.ID{}, false
	case raw[0] == '"':
		if len(raw) < 2 || raw[len(raw)-1] != '"' {
			return jsonrpc2.ID{}, false
		}
		body := raw[1 : len(raw)-1]
		if bytes.IndexByte(body, '\\') >= 0 {
			return jsonrpc2.ID{}, false
		}
		return jsonrpc2.ID{Str: string(body), IsString: true}, true
	case raw[0] >= '0' && raw[0] <= '9':
		n, err := strconv.ParseUint(string(raw), 10, 64)
		if err != nil {
			return jsonrpc2.ID{}, false
		}
		return jsonrpc2.ID{Num: n}, true
	}
	return jsonrpc2.ID{}, false
}

// writeNotification writes a notification whose params are already JSON,
// skipping jsonrpc2's encoding chain (which re-encodes params several
// times). It reports false, having written nothing, when params is not a
// single compact-safe JSON value; the caller then takes the general path.
// deferred, the line may wait in the queue for Flush (WritePartsDeferred).
func (s *ndjsonStream) writeNotification(method string, parts [][]byte, trusted, deferred bool) (bool, error) {
	if !lineSafe(parts, trusted) {
		return false, nil
	}
	m, ok := quoteMethod(method)
	if !ok {
		return false, nil
	}
	var arr [8][]byte
	line := append(arr[:0], notifHead, m, notifParams)
	line = append(line, parts...)
	line = append(line, msgTail)
	if q, ok := s.w.(*QueueWriter); ok && deferred {
		return true, q.WritePartsDeferred(line...)
	}
	return true, s.writeParts(line...)
}

// flush starts writing what deferred writes left queued.
func (s *ndjsonStream) flush() {
	if q, ok := s.w.(*QueueWriter); ok {
		q.Flush()
	}
}

// writeRequest writes a request whose params are one line of valid JSON
// (Conn.startFast makes sure).
func (s *ndjsonStream) writeRequest(id uint64, method string, params []byte) error {
	m, ok := quoteMethod(method)
	if !ok {
		return fmt.Errorf("method %q cannot be encoded", method)
	}
	var idBuf [24]byte
	return s.writeParts(reqHead, strconv.AppendUint(idBuf[:0], id, 10), reqMethod, m, notifParams, params, msgTail)
}

// writeResponse writes the answer to request id: result (JSON) or, when
// errObj is set, the error object (JSON).
func (s *ndjsonStream) writeResponse(id jsonrpc2.ID, result, errObj []byte) error {
	idJSON, err := id.MarshalJSON()
	if err != nil {
		return err
	}
	member, value := respResult, result
	if errObj != nil {
		member, value = respError, errObj
	}
	return s.writeParts(respHead, idJSON, member, value, respTail)
}

// writeParts writes one line made of parts: through the queue's own
// atomic WriteParts (one copy) when the writer is a QueueWriter, else
// joined under the write mutex and written with one Write.
//
// Through a queue, the line is written on the caller's goroutine when the
// descriptor takes it at once (QueueWriter.Flush, non-blocking), so an
// answer or a request does not wait for the writer goroutine to be woken
// and scheduled: a hand-off per message on the prompt's and the approval's
// round trips (docs/benchmarks.md, "Where the time goes").
func (s *ndjsonStream) writeParts(parts ...[]byte) error {
	if q, ok := s.w.(*QueueWriter); ok {
		if err := q.WritePartsDeferred(parts...); err != nil {
			return err
		}
		q.Flush()
		return nil
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.wbuf.Reset()
	for _, p := range parts {
		s.wbuf.Write(p)
	}
	_, err := s.w.Write(s.wbuf.Bytes())
	return err
}

// lineSafe reports whether parts joined are one JSON value that can go on
// one line. Trusted parts (ValidParts) are that by contract; others must
// be a single valid value without a newline.
func lineSafe(parts [][]byte, trusted bool) bool {
	if len(parts) > 5 {
		return false
	}
	if trusted {
		return true
	}
	return len(parts) == 1 && bytes.IndexByte(parts[0], '\n') < 0 && jsonscan.Valid(parts[0])
}

// quoteMethod is method as a JSON string.
func quoteMethod(method string) ([]byte, bool) {
	if method == MethodSessionUpdate {
		return quotedSessionUpdate, true
	}
	if q, ok := quotePlain(method); ok {
		return q, true
	}
	m, err := json.Marshal(method)
	return m, err == nil
}

var (
	quotedSessionUpdate = []byte(`"` + MethodSessionUpdate + `"`)
	notifHead           = []byte(`{"jsonrpc":"2.0","method":`)
	notifParams         = []byte(`,"params":`)
	// Requests and responses keep the member order sourcegraph/jsonrpc2
	// writes, so transcripts read the same on either path.
	reqHead    = []byte(`{"id":`)
	reqMethod  = []byte(`,"jsonrpc":"2.0","method":`)
	respHead   = []byte(`{"id":`)
	respTail   = []byte(`,"jsonrpc":"2.0"}` + "\n")
	respResult = []byte(`,"result":`)
	respError  = []byte(`,"error":`)
	msgTail    = []byte("}\n")
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
			return s.writeParts(b, lineEnd)
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
	var err error
	if s.c != nil {
		err = s.c.Close()
	}
	s.closeOnce.Do(func() {
		// Conn.OnClose's callbacks first, then the handlers' ctx ends:
		// an owner that settles its own state at the end (the bridge
		// resolves its cards as the editor's going) does so before the
		// handlers see their ctx end and settle it their way.
		s.closeMu.Lock()
		s.closed = true
		thens := s.thens
		s.thens = nil
		s.closeMu.Unlock()
		for _, f := range thens {
			f()
		}
		if s.onClose != nil {
			s.onClose()
		}
	})
	return err
}

// then arranges for f to run once the stream is closed (at once if it is).
func (s *ndjsonStream) then(f func()) {
	s.closeMu.Lock()
	if !s.closed {
		s.thens = append(s.thens, f)
		s.closeMu.Unlock()
		return
	}
	s.closeMu.Unlock()
	f()
}
