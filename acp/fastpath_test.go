package acp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/acp-bridge/acp-bridge/internal/jsonscan"
)

func TestPlainNotification(t *testing.T) {
	cases := []struct {
		line   string
		ok     bool
		method string
		params string
	}{
		{`{"jsonrpc":"2.0","method":"session/update","params":{"b":1,"a":2.50}}`, true, "session/update", `{"b":1,"a":2.50}`},
		{`{"method":"m"}`, true, "m", ``},
		{`{"method":"m","params":null}`, true, "m", `null`},
		{`{"method":"m","id":null,"params":[1]}`, true, "m", `[1]`},
		{`{"method":"m","id":1}`, false, "", ""},          // a request
		{`{"method":"m","id":"x"}`, false, "", ""},        // a request
		{`{"id":1,"result":{}}`, false, "", ""},           // a response
		{`{"method":"m","result":{}}`, false, "", ""},     // neither: jsonrpc2 rejects it
		{`{"method":"m","error":{}}`, false, "", ""},      // neither
		{`{"Method":"m"}`, false, "", ""},                 // jsonrpc2 matches names exactly
		{`{"method":"m","ID":1}`, false, "", ""},          // ditto
		{`{"method":1}`, false, "", ""},                   // not a string
		{`[{"method":"m"}]`, false, "", ""},               // a batch
		{`{"method":"m","params":"\xff"}`, false, "", ""}, // invalid UTF-8: jsonrpc2 repairs it
		{`{"method":"m"`, false, "", ""},                  // truncated
		{`"method"`, false, "", ""},
	}
	for _, c := range cases {
		m, p, ok := plainNotification([]byte(c.line))
		if ok != c.ok || m != c.method || string(p) != c.params {
			t.Errorf("%s: got (%q, %q, %v), want (%q, %q, %v)", c.line, m, p, ok, c.method, c.params, c.ok)
		}
	}
}

// Notifications keep their params byte for byte (members in the sender's
// order, numbers as written) and their order relative to requests and
// responses; trace hooks see them. Before the fast path, jsonrpc2 decoded
// params into interface{} values and encoded them again, sorting members.
func TestNotificationsPassThroughExactly(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var mu sync.Mutex
	var got []string
	var traced []string
	h := funcHandler{
		notif: func(_ context.Context, m string, p json.RawMessage) {
			mu.Lock()
			got = append(got, m+" "+string(p))
			mu.Unlock()
		},
		req: func(context.Context, string, json.RawMessage) (any, error) {
			return json.RawMessage(`{"ok":true}`), nil
		},
	}
	prep := func(m string) {
		mu.Lock()
		got = append(got, "request "+m)
		mu.Unlock()
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := NewConn(ctx, NewStream(inR, outW, outW, StreamOptions{}), preparing{h, prep}, ConnOptions{
		OnRecv: func(m TraceMessage) {
			if m.Notification {
				mu.Lock()
				traced = append(traced, "recv "+m.Method)
				mu.Unlock()
			}
		},
		OnSend: func(m TraceMessage) {
			if m.Notification {
				mu.Lock()
				traced = append(traced, "send "+m.Method)
				mu.Unlock()
			}
		},
	})
	defer c.Close()
	lines := make(chan string, 16)
	go func() {
		buf := make([]byte, 0, 4096)
		tmp := make([]byte, 4096)
		for {
			n, err := outR.Read(tmp)
			buf = append(buf, tmp[:n]...)
			for {
				i := bytes.IndexByte(buf, '\n')
				if i < 0 {
					break
				}
				lines <- string(buf[:i])
				buf = buf[i+1:]
			}
			if err != nil {
				close(lines)
				return
			}
		}
	}()
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","method":"n1","params":{"z":1,"a":[1.50,{"y":null,"b":"\u00e9"}]}}`,
		`{"jsonrpc":"2.0","id":7,"method":"r1","params":{}}`,
		`{"jsonrpc":"2.0","method":"n2","params":{"sessionId":"s","update":{"sessionUpdate":"x"}}}`,
	}, "\n") + "\n"
	if _, err := inW.Write([]byte(in)); err != nil {
		t.Fatal(err)
	}
	if l := <-lines; !strings.Contains(l, `"id":7`) || !strings.Contains(l, `"ok":true`) {
		t.Fatalf("reply to the request: %s", l)
	}
	// Writing: params given as json.RawMessage go out as they are; one line
	// each, even when the raw value spans lines.
	if err := c.Notify(tctx(t), "out1", json.RawMessage(`{"z":1,"a":2}`)); err != nil {
		t.Fatal(err)
	}
	if err := c.Notify(tctx(t), "out2", json.RawMessage("{\n  \"k\": [1,\n 2]\n}")); err != nil {
		t.Fatal(err)
	}
	if err := c.Notify(tctx(t), "out3", json.RawMessage(`{"broken"`)); err == nil {
		t.Fatal("a broken raw params was written")
	}
	if l := <-lines; l != `{"jsonrpc":"2.0","method":"out1","params":{"z":1,"a":2}}` {
		t.Fatalf("out1 line: %s", l)
	}
	if l := <-lines; l != `{"jsonrpc":"2.0","method":"out2","params":{"k":[1,2]}}` {
		t.Fatalf("out2 line: %s", l)
	}
	// Go values are encoded once, by json.Marshal, and go out on one line:
	// a line break in a string, HTML characters, an embedded raw value that
	// spans lines, nil.
	type payload struct {
		Text string          `json:"text"`
		Raw  json.RawMessage `json:"raw"`
	}
	for _, v := range []struct {
		params any
		want   string
	}{
		{payload{Text: "a\nb<c>&", Raw: json.RawMessage("{\n \"x\": 1\n}")}, `{"jsonrpc":"2.0","method":"go","params":{"text":"a\nb\u003cc\u003e\u0026","raw":{"x":1}}}`},
		{map[string]int{"b": 2, "a": 1}, `{"jsonrpc":"2.0","method":"go","params":{"a":1,"b":2}}`},
		{nil, `{"jsonrpc":"2.0","method":"go","params":null}`},
	} {
		if err := c.Notify(tctx(t), "go", v.params); err != nil {
			t.Fatal(err)
		}
		if l := <-lines; l != v.want {
			t.Fatalf("notification of %#v: %s, want %s", v.params, l, v.want)
		}
	}
	if err := c.Notify(tctx(t), "bad", map[string]any{"f": func() {}}); err == nil || !strings.Contains(err.Error(), "bad: encode params") {
		t.Fatalf("params that cannot be encoded: %v", err)
	}
	_ = inW.Close()
	<-c.Done()
	mu.Lock()
	defer mu.Unlock()
	want := []string{
		`n1 {"z":1,"a":[1.50,{"y":null,"b":"\u00e9"}]}`,
		`request r1`,
		`n2 {"sessionId":"s","update":{"sessionUpdate":"x"}}`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("handled:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, w := range []string{"recv n1", "recv n2", "send out1", "send out2"} {
		found := false
		for _, x := range traced {
			found = found || x == w
		}
		if !found {
			t.Fatalf("trace lacks %q: %v", w, traced)
		}
	}
}

// preparing records requests inline, in wire order (PrepareRequest).
type preparing struct {
	funcHandler
	prep func(method string)
}

func (p preparing) PrepareRequest(ctx context.Context, method string, _ json.RawMessage) context.Context {
	p.prep(method)
	return ctx
}

// A notification with invalid UTF-8 still arrives (through jsonrpc2, which
// replaces the bad bytes), and a closed connection refuses to write.
func TestNotificationInvalidUTF8AndClosed(t *testing.T) {
	inR, inW := io.Pipe()
	got := make(chan string, 1)
	h := funcHandler{notif: func(_ context.Context, m string, p json.RawMessage) { got <- string(p) }}
	c := NewConn(context.Background(), NewStream(inR, io.Discard, inR, StreamOptions{}), h, ConnOptions{})
	if _, err := inW.Write([]byte("{\"method\":\"n\",\"params\":{\"t\":\"a\xffb\"}}\n")); err != nil {
		t.Fatal(err)
	}
	if p := <-got; p != `{"t":"a`+"\ufffd"+`b"}` {
		t.Fatalf("params %q", p)
	}
	_ = c.Close()
	<-c.Done()
	if err := c.Notify(context.Background(), "n", json.RawMessage(`{}`)); err == nil {
		t.Fatal("Notify on a closed connection succeeded")
	}
}

// A notification's ctx ends when the connection closes (as jsonrpc2's does).
func TestNotificationContextEndsWithConnection(t *testing.T) {
	inR, inW := io.Pipe()
	got := make(chan context.Context, 1)
	h := funcHandler{notif: func(ctx context.Context, _ string, _ json.RawMessage) { got <- ctx }}
	c := NewConn(context.Background(), NewStream(inR, io.Discard, inR, StreamOptions{}), h, ConnOptions{})
	if _, err := inW.Write([]byte(`{"jsonrpc":"2.0","method":"n","params":{}}` + "\n")); err != nil {
		t.Fatal(err)
	}
	ctx := <-got
	_ = c.Close()
	select {
	case <-ctx.Done():
	case <-tctx(t).Done():
		t.Fatal("the notification's ctx outlived the connection")
	}
}

// After a big line (delivered or dropped) the stream does not keep its
// buffer: one 64 MiB line must not pin 64 MiB for the connection's life.
func TestStreamReleasesBigLineBuffer(t *testing.T) {
	big := `{"jsonrpc":"2.0","method":"n","params":{"t":"` + strings.Repeat("x", 4<<20) + `"}}`
	tooLong := strings.Repeat("y", 8<<20)
	in := big + "\n" + tooLong + "\n" + `{"jsonrpc":"2.0","method":"small"}` + "\n"
	s := NewStream(strings.NewReader(in), io.Discard, nil, StreamOptions{MaxLineBytes: 6 << 20}).(*ndjsonStream)
	var msg json.RawMessage
	for range 2 { // the big one, then the small one (the too-long line is dropped between)
		if err := s.ReadObject(&msg); err != nil {
			t.Fatal(err)
		}
	}
	if !strings.Contains(string(msg), `"small"`) {
		t.Fatalf("second message %s", msg)
	}
	if c := cap(s.line); c > maxRetainedLine {
		t.Fatalf("the stream keeps a %d-byte line buffer after small lines", c)
	}
}

// plainMessage reads one line with a fresh lineReader.
func plainMessage(line []byte) (plainMsg, bool) {
	var r lineReader
	var m plainMsg
	ok := r.read(line, &m)
	return m, ok
}

// plainNotification is plainMessage restricted to notifications.
func plainNotification(line []byte) (string, json.RawMessage, bool) {
	m, ok := plainMessage(line)
	if !ok || m.hasID {
		return "", nil, false
	}
	return m.method, m.params, true
}

func TestPlainMessageRequestsAndResponses(t *testing.T) {
	cases := []struct {
		line               string
		ok                 bool
		method, id, member string // member: params, result or error as read
	}{
		{`{"jsonrpc":"2.0","id":7,"method":"session/request_permission","params":{"a":1}}`, true, "session/request_permission", "7", `{"a":1}`},
		{`{"jsonrpc":"2.0","id":"x-1","method":"fs/read_text_file"}`, true, "fs/read_text_file", `"x-1"`, ``},
		{`{"jsonrpc":"2.0","id":3,"result":{"outcome":{"outcome":"cancelled"}}}`, true, "", "3", `{"outcome":{"outcome":"cancelled"}}`},
		{`{"jsonrpc":"2.0","id":3,"result":null}`, true, "", "3", `null`},
		{`{"jsonrpc":"2.0","id":4,"error":{"code":-32601,"message":"nope"}}`, true, "", "4", `{"code":-32601,"message":"nope"}`},
		{`{"id":4,"error":"text"}`, false, "", "", ""},                // an error that is not an object
		{`{"id":4,"result":1,"error":{"code":1}}`, false, "", "", ""}, // both
		{`{"id":4}`, false, "", "", ""},                               // neither
		{`{"id":-1,"result":1}`, false, "", "", ""},                   // a negative id
		{`{"id":1.5,"result":1}`, false, "", "", ""},                  // a fractional id
		{`{"id":"a\"b","result":1}`, false, "", "", ""},               // an escaped string id
		{`{"id":[1],"result":1}`, false, "", "", ""},                  // not an id
		{`{"id":1,"id":2,"result":1}`, false, "", "", ""},             // a repeated member
		{`{"id":1,"method":"m","result":1}`, false, "", "", ""},       // ambiguous
		{`{"id":1,"params":{},"result":1}`, false, "", "", ""},        // a response with params
		{`{"id":1,"method":""}`, false, "", "", ""},                   // an empty method
		{`{"id":1,"Result":1}`, false, "", "", ""},                    // case: jsonrpc2 decides
		{`{"id":99999999999999999999,"result":1}`, false, "", "", ""}, // over uint64
	}
	for _, c := range cases {
		m, ok := plainMessage([]byte(c.line))
		if ok != c.ok {
			t.Errorf("%s: ok = %v, want %v", c.line, ok, c.ok)
			continue
		}
		if !ok {
			continue
		}
		idJSON, _ := m.id.MarshalJSON()
		member := string(m.params)
		if m.result != nil {
			member = string(m.result)
		} else if m.errObj != nil {
			member = string(m.errObj)
		}
		if m.method != c.method || string(idJSON) != c.id || member != c.member || !m.hasID {
			t.Errorf("%s: got method %q id %s member %s", c.line, m.method, idJSON, member)
		}
	}
}

// FuzzPlainMessage checks the fast reader against jsonrpc2's own decoding:
// whatever plainMessage accepts, jsonrpc2 reads as the same kind of
// message, with the same method, id and members.
func FuzzPlainMessage(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":7,"method":"m","params":{"a":[1,"x"]}}`,
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s"}}`,
		`{"jsonrpc":"2.0","id":3,"result":{"k":null}}`,
		`{"jsonrpc":"2.0","id":"s","error":{"code":-1,"message":"m","data":{}}}`,
		`{"method":"m","id":null}`,
		`{"jsonrpc":"2.0","id":2,"method":"m","params":null}`,
		`{"jsonrpc":"2.0","id":2,"result":null}`,
		`{"jsonrpc":"2.0","method":"m","params":{"n":1.50,"big":12345678901234567890,"s":"a&b<c>"}}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		m, ok := plainMessage([]byte(line))
		if !ok {
			return
		}
		// A session/update read in the same pass reads as ScanSessionUpdate
		// (which FuzzScanner checks against encoding/json) reads its params.
		if m.scanned {
			want, wok := ScanSessionUpdate(m.params)
			if !wok || m.update.SessionID != want.SessionID || string(m.update.Update) != string(want.Update) ||
				m.update.Kind != want.Kind || m.update.idStart != want.idStart || m.update.idEnd != want.idEnd ||
				string(m.update.Params) != string(m.params) || !reflect.DeepEqual(m.update.Members, want.Members) {
				t.Fatalf("%s: session/update read in the line's pass as %+v; ScanSessionUpdate(params) = %+v, %v", line, m.update, want, wok)
			}
		} else if m.method == MethodSessionUpdate && !m.hasID {
			if _, wok := ScanSessionUpdate(m.params); wok {
				t.Fatalf("%s: the line's pass declined params that ScanSessionUpdate reads", line)
			}
		}
		switch {
		case m.method != "": // notification or request
			var req jsonrpc2.Request
			if err := json.Unmarshal([]byte(line), &req); err != nil {
				t.Fatalf("plainMessage read %s as a request or notification; jsonrpc2: %v", line, err)
			}
			if req.Method != m.method || req.Notif == m.hasID || (m.hasID && req.ID != m.id) {
				t.Fatalf("%s: plainMessage %+v, jsonrpc2 %+v", line, m, req)
			}
			if (req.Params == nil) != (m.params == nil) || (m.params != nil && !sameJSON(*req.Params, m.params)) {
				t.Fatalf("%s: params %s, jsonrpc2 %v", line, m.params, req.Params)
			}
		default: // response
			var resp jsonrpc2.Response
			if err := json.Unmarshal([]byte(line), &resp); err != nil {
				var e jsonrpc2.Error
				if m.errObj != nil && json.Unmarshal(m.errObj, &e) != nil {
					// jsonrpc2 drops the line and its caller waits on; the
					// fast path fails the call with "unreadable error
					// object" (TestUnreadableErrorFailsTheCall).
					return
				}
				t.Fatalf("plainMessage read %s as a response; jsonrpc2: %v", line, err)
			}
			if resp.ID != m.id {
				t.Fatalf("%s: id %v, jsonrpc2 %v", line, m.id, resp.ID)
			}
			if m.errObj != nil {
				if resp.Error == nil {
					t.Fatalf("%s: an error, jsonrpc2 reads none", line)
				}
			} else if resp.Result == nil || !sameJSON(*resp.Result, m.result) {
				t.Fatalf("%s: result %s, jsonrpc2 %v", line, m.result, resp.Result)
			}
		}
	})
}

// A response whose error object cannot be read still ends the call, with
// an error that says so (jsonrpc2 would drop the line and leave the caller
// waiting).
func TestUnreadableErrorFailsTheCall(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := NewConn(ctx, NewStream(inR, outW, outW, StreamOptions{}), funcHandler{}, ConnOptions{})
	defer c.Close()
	go func() {
		// Read the request, answer it with an error whose code is not a number.
		buf := make([]byte, 4096)
		n, _ := outR.Read(buf)
		if !bytes.Contains(buf[:n], []byte(`"id":1,`)) {
			t.Errorf("request %s", buf[:n])
		}
		_, _ = inW.Write([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":"x","message":7}}` + "\n"))
	}()
	err := c.Call(ctx, "m", map[string]int{"a": 1}, nil)
	if err == nil || !strings.Contains(err.Error(), "unreadable error object") {
		t.Fatalf("Call = %v, want an unreadable error object error", err)
	}
}

// sameJSON compares two JSON values as values: jsonrpc2 re-encodes request
// params through interface{} (escaping & < >, rewriting numbers), which the
// fast path, by design, does not.
func sameJSON(a, b []byte) bool {
	if bytes.Equal(a, b) {
		return true
	}
	// Numbers as written: a valid number such as 1E700 does not fit a
	// float64, and encoding/json would refuse to decode it.
	decode := func(data []byte) (any, error) {
		d := json.NewDecoder(bytes.NewReader(data))
		d.UseNumber()
		var v any
		return v, d.Decode(&v)
	}
	x, errX := decode(a)
	y, errY := decode(b)
	return errX == nil && errY == nil && reflect.DeepEqual(x, y)
}

// Requests read on the fast path are answered with their own id, a string
// id included, in the member order jsonrpc2 writes; an error reply keeps
// the handler's code.
func TestFastRequestsAnsweredWithTheirIDs(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	h := funcHandler{req: func(_ context.Context, m string, p json.RawMessage) (any, error) {
		if m == "fail" {
			return nil, Errorf(CodeInvalidParams, "bad %s", p)
		}
		return map[string]string{"echo": string(p)}, nil
	}}
	c := NewConn(ctx, NewStream(inR, outW, outW, StreamOptions{}), h, ConnOptions{})
	defer c.Close()
	go func() {
		_, _ = inW.Write([]byte(`{"jsonrpc":"2.0","id":"req-a","method":"echo","params":[1]}` + "\n" +
			`{"jsonrpc":"2.0","id":42,"method":"fail","params":{"x":true}}` + "\n"))
	}()
	got := map[string]string{}
	buf := make([]byte, 0, 4096)
	tmp := make([]byte, 4096)
	for len(got) < 2 {
		n, err := outR.Read(tmp)
		if err != nil {
			t.Fatal(err)
		}
		buf = append(buf, tmp[:n]...)
		for {
			i := bytes.IndexByte(buf, '\n')
			if i < 0 {
				break
			}
			line := string(buf[:i])
			buf = buf[i+1:]
			switch {
			case strings.HasPrefix(line, `{"id":"req-a",`):
				got["a"] = line
			case strings.HasPrefix(line, `{"id":42,`):
				got["42"] = line
			default:
				t.Fatalf("unexpected line %s", line)
			}
		}
	}
	if want := `{"id":"req-a","result":{"echo":"[1]"},"jsonrpc":"2.0"}`; got["a"] != want {
		t.Errorf("string id answer %s, want %s", got["a"], want)
	}
	var resp jsonrpc2.Response
	if err := json.Unmarshal([]byte(got["42"]), &resp); err != nil || resp.Error == nil || resp.Error.Code != CodeInvalidParams ||
		!strings.Contains(resp.Error.Message, `bad {"x":true}`) {
		t.Errorf("error answer %s (%v)", got["42"], err)
	}
}

// BenchmarkPlainMessage is the read side of the fast path for one line:
// validation, the members of the message, its params and a
// session/update's update, in one pass.
func BenchmarkPlainMessage(b *testing.B) {
	text := strings.Repeat("abcdefghij", 10)
	diff := strings.Repeat(`func x() {\n\treturn \"y\"\n}\n`, 2500)
	for _, tc := range []struct{ name, line string }{
		{"chunk", `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"3f1c2a9e-5b7d-4e21-9c3a-0d8e6f4b2a17","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"` + text + `"}}}}`},
		{"diff", `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call_update","toolCallId":"t","content":[{"type":"diff","path":"/a/b.go","oldText":null,"newText":"` + diff + `"}]}}}`},
		{"response", `{"jsonrpc":"2.0","id":42,"result":{"outcome":{"outcome":"selected","optionId":"allow-once"}}}`},
	} {
		b.Run(tc.name, func(b *testing.B) {
			line := []byte(tc.line)
			b.SetBytes(int64(len(line)))
			b.ReportAllocs()
			var r lineReader
			var m plainMsg
			for range b.N {
				if !r.read(line, &m) {
					b.Fatal("not read")
				}
			}
		})
	}
}

// updateHandler takes scanned session/updates apart from other notifications.
type updateHandler struct {
	funcHandler
	got chan string
}

func (h updateHandler) HandleSessionUpdate(_ context.Context, u SessionUpdate) {
	h.got <- fmt.Sprintf("scanned %s %s %s members=%d", u.SessionID, u.Kind, u.Params, len(u.Members))
}

// TestSessionUpdateHandler checks the routing of session/update: a handler
// that implements SessionUpdateHandler gets what the line's one pass read,
// in order with the other notifications; one the pass cannot read (an
// escaped name) still arrives through HandleNotification, unchanged; and a
// handler without the method gets every update through HandleNotification.
func TestSessionUpdateHandler(t *testing.T) {
	lines := []string{
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}}`,
		`{"jsonrpc":"2.0","method":"other","params":{"a":1}}`,
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call","toolCallId":"t","rawInput":{"command":"ls"}}}}`,
		`{"jsonrpc":"2.0","method":"session/update","params":{"s\u0065ssionId":"s2","update":{}}}`,
	}
	for _, tc := range []struct {
		name    string
		scanned bool
		want    []string
	}{
		{"with HandleSessionUpdate", true, []string{
			`scanned s1 agent_message_chunk {"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}} members=0`,
			`notification other {"a":1}`,
			`scanned s1 tool_call {"sessionId":"s1","update":{"sessionUpdate":"tool_call","toolCallId":"t","rawInput":{"command":"ls"}}} members=3`,
			`notification session/update {"s\u0065ssionId":"s2","update":{}}`,
		}},
		{"without it", false, []string{
			`notification session/update {"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}`,
			`notification other {"a":1}`,
			`notification session/update {"sessionId":"s1","update":{"sessionUpdate":"tool_call","toolCallId":"t","rawInput":{"command":"ls"}}}`,
			`notification session/update {"s\u0065ssionId":"s2","update":{}}`,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := make(chan string, len(lines))
			fh := funcHandler{notif: func(_ context.Context, m string, p json.RawMessage) { got <- "notification " + m + " " + string(p) }}
			var h Handler = fh
			if tc.scanned {
				h = updateHandler{fh, got}
			}
			inR, inW := io.Pipe()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			c := NewConn(ctx, NewStream(inR, io.Discard, inW, StreamOptions{}), h, ConnOptions{})
			defer c.Close()
			go func() { _, _ = inW.Write([]byte(strings.Join(lines, "\n") + "\n")) }()
			for i, want := range tc.want {
				select {
				case g := <-got:
					if g != want {
						t.Fatalf("message %d:\n got %s\nwant %s", i, g, want)
					}
				case <-time.After(10 * time.Second):
					t.Fatalf("message %d never arrived", i)
				}
			}
		})
	}
}

// TestManyMembersTakeTheSlowPath checks that a message with more members
// than the one pass records (jsonscan.MaxFields) is declined by the fast
// reader, so it costs no Field per member, and still arrives whole through
// jsonrpc2.
func TestManyMembersTakeTheSlowPath(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"sessionId":"s","update":{"sessionUpdate":"x"}`)
	for i := range jsonscan.MaxFields + 10 {
		fmt.Fprintf(&b, `,"k%d":%d`, i, i)
	}
	b.WriteString(`}`)
	params := b.String()
	line := `{"jsonrpc":"2.0","method":"session/update","params":` + params + `}`
	if _, ok := plainMessage([]byte(line)); ok {
		t.Fatal("the fast reader took a message with more members than it records")
	}
	got := make(chan json.RawMessage, 1)
	h := funcHandler{notif: func(_ context.Context, m string, p json.RawMessage) { got <- p }}
	inR, inW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := NewConn(ctx, NewStream(inR, io.Discard, inW, StreamOptions{}), h, ConnOptions{})
	defer c.Close()
	go func() { _, _ = inW.Write([]byte(line + "\n")) }()
	select {
	case p := <-got:
		var a, b any // jsonrpc2 re-encodes: compare values, not bytes
		if json.Unmarshal(p, &a) != nil || json.Unmarshal([]byte(params), &b) != nil || !reflect.DeepEqual(a, b) {
			t.Fatalf("params arrived changed: %.80s...", p)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the message never arrived")
	}
}
