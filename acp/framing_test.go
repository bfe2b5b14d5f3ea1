package acp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"strings"
	"testing"

	"github.com/sourcegraph/jsonrpc2"
)

// pairWith is pair with the stream options of each side.
func pairWith(t *testing.T, a, b Handler, oa, ob StreamOptions) (*Conn, *Conn) {
	t.Helper()
	ca, cb := net.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	x := NewConn(ctx, NewStream(ca, ca, ca, oa), a, ConnOptions{})
	y := NewConn(ctx, NewStream(cb, cb, cb, ob), b, ConnOptions{})
	t.Cleanup(func() { x.Close(); y.Close() })
	return x, y
}

// The replies a stream writes for the bad lines it reads, with and without
// ReplyToBadLines; an over-long request with an id is answered either way.
func TestStreamAnswersBadLines(t *testing.T) {
	long := `{"jsonrpc":"2.0","id":7,"method":"fs/read_text_file","params":{"path":"` + strings.Repeat("x", 5000) + `"}}`
	longStrID := `{"id":"req-1","jsonrpc":"2.0","method":"x","params":"` + strings.Repeat("y", 5000) + `"}`
	longNotif := `{"jsonrpc":"2.0","method":"session/update","params":"` + strings.Repeat("z", 5000) + `"}`
	longIDLate := `{"jsonrpc":"2.0","method":"x","params":"` + strings.Repeat("z", 5000) + `","id":9}`
	longResp := `{"jsonrpc":"2.0","id":8,"result":"` + strings.Repeat("r", 5000) + `"}`
	type reply struct {
		ID   any
		Code int64
	}
	cases := []struct {
		name  string
		line  string
		reply bool // ReplyToBadLines
		want  []reply
	}{
		{"not json, replying", `this is not json`, true, []reply{{nil, CodeParseError}}},
		{"truncated json, replying", `{"jsonrpc":"2.0","id":3,"method":"x"`, true, []reply{{nil, CodeParseError}}},
		{"invalid utf-8, replying", "\xff\xfe{broken", true, []reply{{nil, CodeParseError}}},
		{"not json, quiet", `this is not json`, false, nil},
		{"empty object, replying", `{}`, true, []reply{{nil, CodeInvalidRequest}}},
		{"empty batch, replying", `[]`, true, []reply{{nil, CodeInvalidRequest}}},
		{"null, replying", `null`, true, []reply{{nil, CodeInvalidRequest}}},
		{"id without method, replying", `{"jsonrpc":"2.0","id":5}`, true, []reply{{float64(5), CodeInvalidRequest}}},
		{"empty object, quiet", `{}`, false, nil},
		{"long request, quiet", long, false, []reply{{float64(7), CodeInvalidRequest}}},
		{"long request, replying", long, true, []reply{{float64(7), CodeInvalidRequest}}},
		{"long request, string id", longStrID, false, []reply{{"req-1", CodeInvalidRequest}}},
		{"long notification", longNotif, true, nil},
		{"long request, id past the cut", longIDLate, true, nil},
		{"long response", longResp, true, nil},
		{"blank line", `   `, true, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			var drops []StreamEvent
			s := NewStream(strings.NewReader(c.line+"\n"+`{"jsonrpc":"2.0","method":"next"}`+"\n"), &out, nil,
				StreamOptions{MaxLineBytes: 4096, ReplyToBadLines: c.reply, OnDrop: func(e StreamEvent) { drops = append(drops, e) }})
			var req jsonrpc2.Request
			if err := s.ReadObject(&req); err != nil || req.Method != "next" {
				t.Fatalf("the stream did not go on to the next line: %v %q", err, req.Method)
			}
			var got []reply
			for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
				if l == "" {
					continue
				}
				var r struct {
					JSONRPC string `json:"jsonrpc"`
					ID      any    `json:"id"`
					Error   struct {
						Code    int64  `json:"code"`
						Message string `json:"message"`
					} `json:"error"`
				}
				if err := json.Unmarshal([]byte(l), &r); err != nil || r.JSONRPC != "2.0" {
					t.Fatalf("reply %q: %v", l, err)
				}
				if r.Error.Code == CodeInvalidRequest && strings.Contains(c.name, "long") && !strings.Contains(r.Error.Message, "exceeds the limit of 4096 bytes (maxLineBytes)") {
					t.Fatalf("reply to a long line does not name the limit: %q", r.Error.Message)
				}
				got = append(got, reply{r.ID, r.Error.Code})
			}
			if len(got) != len(c.want) {
				t.Fatalf("replies %v, want %v (wire %q)", got, c.want, out.String())
			}
			for i := range got {
				if got[i] != c.want[i] {
					t.Fatalf("reply %d = %v, want %v", i, got[i], c.want[i])
				}
			}
			if len(c.want) > 0 && (len(drops) != 1 || drops[0].Reply == "") {
				t.Fatalf("the drop report does not say it was answered: %+v", drops)
			}
		})
	}
}

// readHead counts a member only when its value is whole before the cut.
func TestReadHead(t *testing.T) {
	cases := []struct {
		head                      string
		id                        string
		hasID, method, isResponse bool
	}{
		{`{"id":12,"method":"x","params":{"a":`, "12", true, true, false},
		{`{"id":12`, "", false, false, false}, // the number may go on
		{`{"id":12,`, "12", true, false, false},
		{`  {"jsonrpc":"2.0","id":"a","method":"m"`, `"a"`, true, true, false},
		{`{"id":3,"result":{"x":1},"method":"m"}`, "3", true, true, true},
		{`{"id":3,"result":"abc`, "3", true, false, false},
		{`{"id":null,"method":"m",`, "", false, true, false},
		{`{"id":"a\"b","method":"m",`, "", false, true, false}, // escaped ids are not plain
		{`[{"id":1,"method":"m"}`, "", false, false, false},
		{`not json`, "", false, false, false},
	}
	for _, c := range cases {
		h := readHead([]byte(c.head))
		id := ""
		if h.hasID {
			b, _ := h.id.MarshalJSON()
			id = string(b)
		}
		if h.hasID != c.hasID || id != c.id || h.method != c.method || h.response != c.isResponse {
			t.Errorf("readHead(%q) = %+v (id %s), want id %q hasID %v method %v response %v", c.head, h, id, c.id, c.hasID, c.method, c.isResponse)
		}
	}
}

// Over a connection: a request too long for the peer gets an error back
// (not silence), the connection goes on, and a call whose answer is too
// long for us fails instead of waiting forever.
func TestOverLongLinesOverAConnection(t *testing.T) {
	small := StreamOptions{MaxLineBytes: 4096}
	x, y := pairWith(t, funcHandler{}, funcHandler{req: func(_ context.Context, m string, p json.RawMessage) (any, error) {
		if m == "big-answer" {
			return map[string]string{"data": strings.Repeat("a", 10000)}, nil
		}
		return map[string]string{"echo": m}, nil
	}}, small, small)
	ctx := tctx(t)
	err := x.Call(ctx, "big-params", map[string]string{"data": strings.Repeat("p", 10000)}, nil)
	var ae *Error
	if !errors.As(err, &ae) || ae.Code != CodeInvalidRequest || !strings.Contains(ae.Message, "maxLineBytes") {
		t.Fatalf("over-long request: err = %v, want -32600 naming maxLineBytes", err)
	}
	var res map[string]string
	if err := x.Call(ctx, "after", nil, &res); err != nil || res["echo"] != "after" {
		t.Fatalf("the connection did not go on: %v %v", res, err)
	}
	err = x.Call(ctx, "big-answer", nil, &res)
	if !errors.As(err, &ae) || ae.Code != CodeInternalError || !strings.Contains(ae.Message, "maxLineBytes") {
		t.Fatalf("over-long answer: err = %v, want a failed call naming maxLineBytes", err)
	}
	if err := x.Call(ctx, "after2", nil, &res); err != nil || res["echo"] != "after2" {
		t.Fatalf("the connection did not go on: %v %v", res, err)
	}
	_ = y
}

var _ = io.EOF
