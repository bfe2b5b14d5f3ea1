package acp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is an io.Writer tests read while a connection writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// recorder is a Handler that notes what it is handed and answers every
// request with true.
type recorder struct {
	mu   sync.Mutex
	got  []string
	next chan struct{} // closed at the "next" notification
}

func (r *recorder) HandleNotification(_ context.Context, method string, params json.RawMessage) {
	if method == "next" {
		close(r.next)
		return
	}
	r.mu.Lock()
	r.got = append(r.got, "notification "+method+" "+compact(params))
	r.mu.Unlock()
}

func (r *recorder) HandleRequest(_ context.Context, method string, params json.RawMessage) (any, error) {
	r.mu.Lock()
	r.got = append(r.got, "request "+method+" "+compact(params))
	r.mu.Unlock()
	return json.RawMessage("true"), nil
}

func compact(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "-"
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return "invalid " + string(raw)
	}
	return b.String()
}

func sortedLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	sort.Strings(out)
	return out
}

// A relay reading lines with LineReader sees each line as a Conn over
// NewStream does (the bridge's editor connection: ReplyToBadLines, the
// same bound): the same answers to bad lines, byte for byte, and the same
// requests and notifications, whether the fast reader takes the line or
// jsonrpc2 reads it (case-variant names, repeated members, odd ids,
// batches). The relay here answers each request it reads with true, as
// the Conn's handler does, so the two outputs must be equal.
func TestLineReaderReadsAsTheConnDoes(t *testing.T) {
	lines := []string{
		`this is not json`,
		`{"jsonrpc":"2.0","id":3,"method":"x"`,
		"\xff\xfe{broken",
		`{}`,
		`[]`,
		`[{"jsonrpc":"2.0","method":"a"}]`,
		`null`,
		`42`,
		`"str"`,
		`true`,
		`[1,2]`,
		`[null]`,
		`[{"jsonrpc":"2.0","id":1,"result":1}]`,
		`[{"jsonrpc":"2.0","method":"a"},{"jsonrpc":"2.0","id":1,"result":2}]`,
		`[{"jsonrpc":"2.0","method":7}]`,
		`{"jsonrpc":"2.0","id":5}`,
		`{"jsonrpc":"2.0","id":7,"params":{}}`,
		`{"jsonrpc":"2.0","id":3,"method":"x","result":1}`,
		`{"jsonrpc":"2.0","method":1}`,
		`{"jsonrpc":"2.0","id":1.5,"method":"x"}`,
		`{"jsonrpc":"2.0","id":{"a":1},"method":"x"}`,
		`{"jsonrpc":"2.0","id":8,"method":"fs/read_text_file","params":{"path":"` + strings.Repeat("x", 5000) + `"}}`,
		`{"id":"req-1","jsonrpc":"2.0","method":"x","params":"` + strings.Repeat("y", 5000) + `"}`,
		`{"jsonrpc":"2.0","method":"session/update","params":"` + strings.Repeat("z", 5000) + `"}`,
		// Taken by the fast reader.
		`{"jsonrpc":"2.0","id":11,"method":"session/new","params":{"cwd":"/w"}}`,
		`{"jsonrpc":"2.0","id":"s-12","method":"session/new","params":{"cwd":"/w"}}`,
		`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s1"}}`,
		`{"jsonrpc":"2.0","id":null,"method":"session/cancel","params":{"sessionId":"s2"}}`,
		// Left to jsonrpc2.
		`{"jsonrpc":"2.0","ID":13,"Method":"session/new","params":{"cwd":"/w"}}`,
		`{"jsonrpc":"2.0","id":14,"method":"session/new","method":"session/load","params":{}}`,
		`{"jsonrpc":"2.0","id":"a\"b","method":"x","params":[1,2.50,"\u00e9"]}`,
		`{"jsonrpc":"2.0","id":-3,"method":"x"}`,
		`{"jsonrpc":"2.0","method":""}`,
		`{"jsonrpc":"2.0","id":4,"method":"","params":{}}`,
		`{"jsonrpc":"2.0","method":"n\u0031","params":{"a":1}}`,
		`{"jsonrpc":"2.0","id":15,"method":"x","params":{"s":"caf` + "\xe9" + `"}}`,
	}
	for i, line := range lines {
		t.Run(fmt.Sprint(i), func(t *testing.T) { sameReading(t, line) })
	}
}

// FuzzLineReaderReadsAsTheConnDoes: any line, the same reading and answers.
func FuzzLineReaderReadsAsTheConnDoes(f *testing.F) {
	for _, l := range []string{`{"jsonrpc":"2.0","id":1,"method":"x","params":{}}`, `{"ID":1,"method":"x"}`, `[{"method":"a"}]`, `{"id":"a","result":1}`, `nope`} {
		f.Add(l)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if strings.ContainsAny(line, "\n\r") || strings.Contains(line, `"next"`) || strings.Contains(line, "cancel_request") {
			t.Skip()
		}
		sameReading(t, line)
	})
}

// sameReading runs line through a Conn and a LineReader, as above.
func sameReading(t *testing.T, line string) {
	t.Helper()
	const max = 4096
	input := line + "\n" + `{"jsonrpc":"2.0","method":"next"}` + "\n"
	opts := func(drops *int) StreamOptions {
		return StreamOptions{MaxLineBytes: max, ReplyToBadLines: true, OnDrop: func(StreamEvent) { *drops++ }}
	}

	// The bridge's way: a Conn.
	var connOut lockedBuffer
	var connDrops int
	inR, inW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rec := &recorder{next: make(chan struct{})}
	c := NewConn(ctx, NewStream(inR, &connOut, inR, opts(&connDrops)), rec, ConnOptions{})
	defer c.Close()
	go func() { _, _ = io.WriteString(inW, input) }()
	select {
	case <-rec.next:
	case <-time.After(10 * time.Second):
		t.Fatal("the conn never read the next line")
	}
	wctx, wcancel := context.WithTimeout(ctx, 10*time.Second)
	defer wcancel()
	if err := c.WaitHandlers(wctx); err != nil {
		t.Fatal(err)
	}

	// The relay's way: a LineReader.
	var lrOut lockedBuffer
	var lrDrops int
	var lrGot []string
	lr := NewLineReader(strings.NewReader(input), &lrOut, opts(&lrDrops))
	err := lr.Run(func(m Message) {
		switch {
		case m.Method == "next":
		case m.IsRequest():
			lrGot = append(lrGot, "request "+m.Method+" "+compact(m.Params))
			ans := Message{ID: m.ID, Result: json.RawMessage("true")}
			_, _ = lrOut.Write(ans.Line())
		case m.IsNotification():
			lrGot = append(lrGot, "notification "+m.Method+" "+compact(m.Params))
		default: // a response to an id nobody asked: the Conn ignores it
		}
	})
	if err != io.EOF {
		t.Fatalf("Run: %v, want io.EOF", err)
	}

	rec.mu.Lock()
	connGot := append([]string(nil), rec.got...)
	rec.mu.Unlock()
	if fmt.Sprint(lrGot) != fmt.Sprint(connGot) {
		t.Errorf("line %.80q\nrelay read %q\nconn read  %q", line, lrGot, connGot)
	}
	if a, b := sortedLines(lrOut.String()), sortedLines(connOut.String()); fmt.Sprint(a) != fmt.Sprint(b) {
		t.Errorf("line %.80q\nrelay wrote %q\nconn wrote  %q", line, a, b)
	}
	if lrDrops != connDrops {
		t.Errorf("line %.80q: relay dropped %d lines, conn %d", line, lrDrops, connDrops)
	}
}

// ErrorLine is the stream's own answer to a bad line, byte for byte.
func TestErrorLineIsTheStreamsAnswer(t *testing.T) {
	long := `{"jsonrpc":"2.0","id":"r-1","method":"x","params":"` + strings.Repeat("p", 200) + `"}`
	var out bytes.Buffer
	var ev StreamEvent
	lr := NewLineReader(strings.NewReader(long+"\n"), &out, StreamOptions{MaxLineBytes: 100, OnDrop: func(e StreamEvent) { ev = e }})
	if err := lr.Run(func(m Message) { t.Errorf("delivered %+v", m) }); err != io.EOF {
		t.Fatalf("Run: %v", err)
	}
	msg := fmt.Sprintf("invalid request: %v bytes (maxLineBytes); the request was dropped", ev.Err)
	if want := string(ErrorLine(json.RawMessage(`"r-1"`), CodeInvalidRequest, msg)); out.String() != want {
		t.Fatalf("stream wrote %q\nErrorLine    %q", out.String(), want)
	}
	if got := string(ErrorLine(nil, CodeParseError, "x")); got != `{"id":null,"error":{"code":-32700,"message":"x"},"jsonrpc":"2.0"}`+"\n" {
		t.Fatalf("ErrorLine(nil) = %q", got)
	}
}
