package acp

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/acp-bridge/acp-bridge/wire"
)

// Codes of the attach socket and relay (internal/attach); the table is wire.Errors.
const (
	CodeAlreadyAttached = wire.CodeAlreadyAttached
	CodeBadToken        = wire.CodeBadToken
	// CodeTooManyPending answers a request past a bound on what waits for
	// an answer.
	CodeTooManyPending = wire.CodeTooManyRequests
)

// Message is one JSON-RPC message as the engine read it, for a relay that
// passes messages on rather than handling them (internal/attach). Exactly
// one of three shapes: a request (Method and ID), a notification (Method,
// no ID) or a response (ID, and Result or Error); a method read as ""
// still makes a request or a notification. The raw members are
// copies, valid JSON; ID is the id as the engine reads it (a number or a
// string; "null" only for a response to a line whose id was unreadable).
type Message struct {
	Method string
	ID     json.RawMessage
	Params json.RawMessage // nil if absent
	Result json.RawMessage // responses: nil if absent
	Error  json.RawMessage // responses: the error object; nil if absent

	// emptyMethod: a request or notification whose method is "" (which a
	// Conn passes to its handler like any other method).
	emptyMethod bool
}

// IsRequest, IsNotification and IsResponse tell the three shapes apart.
func (m *Message) IsRequest() bool      { return !m.IsResponse() && m.ID != nil }
func (m *Message) IsNotification() bool { return !m.IsResponse() && m.ID == nil }
func (m *Message) IsResponse() bool     { return m.Method == "" && !m.emptyMethod }

// Line is m as one JSON-RPC 2.0 line (with its newline), with the members
// in the order the engine writes them.
func (m *Message) Line() []byte {
	var b bytes.Buffer
	b.Grow(len(m.Params) + len(m.Result) + len(m.Error) + len(m.Method) + 64)
	switch {
	case m.IsResponse():
		b.Write(respHead)
		b.Write(m.ID)
		if m.Error != nil {
			b.Write(respError)
			b.Write(m.Error)
		} else {
			b.Write(respResult)
			if m.Result != nil {
				b.Write(m.Result)
			} else {
				b.WriteString("null")
			}
		}
		b.Write(respTail)
		return b.Bytes()
	case m.IsRequest():
		b.Write(reqHead)
		b.Write(m.ID)
		b.Write(reqMethod)
	default:
		b.Write(notifHead)
	}
	q, ok := quoteMethod(m.Method)
	if !ok {
		q = []byte(`""`)
	}
	b.Write(q)
	if m.Params != nil {
		b.Write(notifParams)
		b.Write(m.Params)
	}
	b.Write(msgTail)
	return b.Bytes()
}

// ErrorLine is the line answering id (nil or empty: null) with an error,
// byte for byte what a Conn's stream writes when it answers a bad line.
func ErrorLine(id json.RawMessage, code int64, msg string) []byte {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	errObj, _ := json.Marshal(jsonrpc2.Error{Code: code, Message: msg})
	out := make([]byte, 0, len(respHead)+len(id)+len(respError)+len(errObj)+len(respTail))
	for _, p := range [][]byte{respHead, id, respError, errObj, respTail} {
		out = append(out, p...)
	}
	return out
}

// LineReader reads a stream of JSON-RPC lines with the engine's framing
// and validation (the same reader as NewStream's): the line bound, an
// over-long line skipped and, when its head shows a request with an id,
// answered with -32600; with ReplyToBadLines a non-JSON line answered
// with -32700 and a non-message with -32600; every skipped line reported
// through OnDrop. Answers go to reply, which should be a QueueWriter
// (its WriteParts keeps each answer whole among the relay's own writes;
// any other writer is written under the reader's own mutex only).
//
// Messages the fast reader does not take (odd ids, case-variant or
// repeated member names, batches) are read as sourcegraph/jsonrpc2 reads
// them, so a relay sees each line as the Conn behind it will.
type LineReader struct {
	s *ndjsonStream
	// OnLongAnswer, if set, is called with the id of a response whose
	// line was too long to read (its head showed the id), so a relay can
	// fail the request it answered instead of leaving it waiting.
	OnLongAnswer func(id json.RawMessage, msg string)
}

// NewLineReader reads r; reply receives the answers to bad lines.
func NewLineReader(r io.Reader, reply io.Writer, opts StreamOptions) *LineReader {
	if opts.MaxLineBytes <= 0 {
		opts.MaxLineBytes = DefaultMaxLineBytes
	}
	if reply == nil {
		reply = io.Discard
	}
	l := &LineReader{s: newNDJSONStream(r, reply, nil, opts)}
	l.s.onLongAnswer = func(id jsonrpc2.ID, msg string) {
		if l.OnLongAnswer != nil {
			raw, _ := id.MarshalJSON()
			l.OnLongAnswer(raw, msg)
		}
	}
	return l
}

// Run reads until the reader fails (io.EOF at the end) and hands each
// message to deliver, in the order of the lines, on the calling goroutine.
func (l *LineReader) Run(deliver func(Message)) error {
	l.s.onMsg = func(m plainMsg) bool {
		deliver(fromPlain(&m))
		return true
	}
	for {
		var a anyLine
		if err := l.s.ReadObject(&a); err != nil {
			if errors.Is(err, io.EOF) {
				return io.EOF
			}
			return err
		}
		deliver(a.msg)
	}
}

func fromPlain(m *plainMsg) Message {
	out := Message{Method: m.method, Params: m.params, Result: m.result, Error: m.errObj}
	if m.hasID {
		out.ID, _ = m.id.MarshalJSON()
	}
	return out
}

// anyLine reads a message the fast reader declined, as jsonrpc2's
// connection does (its anyMessage): a request when it has a method, a
// response when it has a result or an error, never both; then the
// message is decoded by jsonrpc2.Request or jsonrpc2.Response. A batch
// is refused: jsonrpc2 cannot decode one into a message either.
type anyLine struct{ msg Message }

type resultPresence struct{ present bool }

func (r *resultPresence) UnmarshalJSON([]byte) error { r.present = true; return nil }

// msg is named as jsonrpc2's probe is, so a type error reads the same
// ("... Go struct field msg.method of type string").
type msg struct {
	ID     any             `json:"id"`
	Method *string         `json:"method"`
	Result *resultPresence `json:"result"`
	Error  any             `json:"error"`
}

// probe classifies one message as jsonrpc2's anyMessage does, with the
// same error texts.
func probe(data []byte) (isReq, isResp bool, err error) {
	switch data[0] {
	case '{', 'n':
	case '"':
		return false, false, errors.New("json: cannot unmarshal string into Go value of type jsonrpc2.msg")
	case 't', 'f':
		return false, false, errors.New("json: cannot unmarshal bool into Go value of type jsonrpc2.msg")
	case '[':
		return false, false, errors.New("json: cannot unmarshal array into Go value of type jsonrpc2.msg")
	default:
		return false, false, errors.New("json: cannot unmarshal number into Go value of type jsonrpc2.msg")
	}
	p := msg{Result: &resultPresence{}}
	if err := json.Unmarshal(data, &p); err != nil {
		return false, false, err
	}
	// "result": null leaves the pointer nil; absent leaves it unset.
	hasResult := p.Result == nil || p.Result.present
	isReq, isResp = p.Method != nil, hasResult || p.Error != nil
	if isReq == isResp {
		return false, false, errors.New("jsonrpc2: unable to determine message type (request or response)")
	}
	return isReq, isResp, nil
}

func (a *anyLine) UnmarshalJSON(data []byte) error {
	if len(data) > 0 && data[0] == '[' {
		// jsonrpc2 checks a batch, then fails to decode it as one message.
		var batch []json.RawMessage
		if err := json.Unmarshal(data, &batch); err != nil {
			return err
		}
		if len(batch) == 0 {
			return errors.New("jsonrpc2: invalid empty batch")
		}
		var anyReq, anyResp bool
		for _, e := range batch {
			isReq, isResp, err := probe(e)
			if err != nil {
				return err
			}
			if (isReq && anyResp) || (isResp && anyReq) {
				return errors.New("jsonrpc2: batch message type mismatch (must be all requests or all responses)")
			}
			anyReq, anyResp = isReq, isResp
		}
		if anyReq {
			var r jsonrpc2.Request
			if err := json.Unmarshal(data, &r); err != nil {
				return err
			}
		} else {
			var r jsonrpc2.Response
			if err := json.Unmarshal(data, &r); err != nil {
				return err
			}
		}
		return errors.New("jsonrpc2: batches are not supported")
	}
	isReq, _, err := probe(data)
	if err != nil {
		return err
	}
	if isReq {
		var r jsonrpc2.Request
		if err := json.Unmarshal(data, &r); err != nil {
			return err
		}
		a.msg = Message{Method: r.Method, emptyMethod: r.Method == ""}
		if r.Params != nil {
			a.msg.Params = append(json.RawMessage(nil), *r.Params...)
		}
		if !r.Notif {
			a.msg.ID, _ = r.ID.MarshalJSON()
		}
		return nil
	}
	var r jsonrpc2.Response
	if err := json.Unmarshal(data, &r); err != nil {
		return err
	}
	var idOnly struct {
		ID json.RawMessage `json:"id"`
	}
	_ = json.Unmarshal(data, &idOnly)
	switch {
	case len(idOnly.ID) == 0 || string(idOnly.ID) == "null":
		a.msg.ID = json.RawMessage("null")
	default:
		a.msg.ID, _ = r.ID.MarshalJSON()
	}
	if r.Error != nil {
		a.msg.Error, _ = json.Marshal(r.Error)
	} else if r.Result != nil {
		a.msg.Result = append(json.RawMessage(nil), *r.Result...)
	}
	return nil
}

// SetMaxLineBytes changes the line bound from the next line on (0 =
// DefaultMaxLineBytes). Call it from the goroutine that runs Run (inside
// deliver), e.g. to raise a handshake's bound once the peer is known.
func (l *LineReader) SetMaxLineBytes(n int) {
	if n <= 0 {
		n = DefaultMaxLineBytes
	}
	l.s.opts.MaxLineBytes = n
}

// CanonicalID is a JSON-RPC id as the engine reads and writes it (the form
// Message.ID has), e.g. to match a $/cancel_request's requestId against
// the ids of requests read before; ok is false when raw is no id.
func CanonicalID(raw json.RawMessage) (json.RawMessage, bool) {
	var id jsonrpc2.ID
	if len(raw) == 0 || json.Unmarshal(raw, &id) != nil {
		return nil, false
	}
	out, err := id.MarshalJSON()
	return out, err == nil
}
