package attach

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/acp-bridge/acp-bridge/acp"
)

// An attached editor's lines are read with the engine's bound and answers
// (acp.LineReader): an over-long request gets -32600 to its own id and the
// connection goes on; an over-long answer to a request of the bridge's
// fails that request at the bridge (-32603) and frees its room; a line with
// an id and no method is refused (-32600), never taken for an answer; a
// line with case-variant member names is read as jsonrpc2 reads it. The control for each is a well-formed line of the same
// kind, relayed.
func TestEditorLinesReadByTheEngine(t *testing.T) {
	f, fb, stdin := newFront(t, Options{Token: "tok", MaxLineBytes: 4096})
	_ = stdin.Close()
	detached(t, f)
	fb.send(permissionRequest(30))
	fb.send(permissionRequest(31))
	flushed(t, f, fb)
	a := attachTo(t, f, "tok")
	if a.err != nil {
		t.Fatalf("attach: %s", a.err)
	}
	for _, id := range []string{"30", "31"} {
		if l := a.next(t); !strings.Contains(l, `"id":`+id+`,`) {
			t.Fatalf("re-sent %.80s, want request %s", l, id)
		}
	}
	pad := strings.Repeat("x", 5000)
	errOf := func(line string) (id string, code int64) {
		t.Helper()
		var m struct {
			ID    json.RawMessage `json:"id"`
			Error struct {
				Code int64 `json:"code"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		return string(m.ID), m.Error.Code
	}

	// An over-long request: answered by the front, never relayed.
	fmt.Fprintf(a.conn, `{"jsonrpc":"2.0","id":"big","method":"_x/long","params":{"pad":%q}}`+"\n", pad)
	if id, code := errOf(a.next(t)); id != `"big"` || code != acp.CodeInvalidRequest {
		t.Fatalf("over-long request answered to %s with %d, want \"big\" and %d", id, code, acp.CodeInvalidRequest)
	}
	// A line with an id and no method: an invalid request, not an answer to 31.
	fmt.Fprintln(a.conn, `{"jsonrpc":"2.0","id":31,"params":{}}`)
	if id, code := errOf(a.next(t)); id != "31" || code != acp.CodeInvalidRequest {
		t.Fatalf("id without method answered to %s with %d, want 31 and %d", id, code, acp.CodeInvalidRequest)
	}
	// An over-long answer to 30: the bridge's request fails.
	fmt.Fprintf(a.conn, `{"jsonrpc":"2.0","id":30,"result":{"pad":%q}}`+"\n", pad)
	got := fb.waitGot(func(m map[string]json.RawMessage) bool { return string(m["id"]) == "30" })
	var e struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	}
	if err := json.Unmarshal(got["error"], &e); err != nil || e.Code != acp.CodeInternalError || !strings.Contains(e.Message, "maxLineBytes") {
		t.Fatalf("the bridge got %s for request 30, want error %d naming the bound", got["error"], acp.CodeInternalError)
	}
	// Case-variant names, read as jsonrpc2 reads them: "ID" is not the id
	// (a notification, no id invented), "METHOD" is no method (refused).
	fmt.Fprintln(a.conn, `{"jsonrpc":"2.0","ID":"v-1","METHOD":"_x/variant","params":{}}`)
	if id, code := errOf(a.next(t)); id != "null" || code != acp.CodeInvalidRequest {
		t.Fatalf("METHOD answered to %s with %d, want null and %d", id, code, acp.CodeInvalidRequest)
	}
	fmt.Fprintln(a.conn, `{"jsonrpc":"2.0","ID":"v-2","method":"_x/variant","params":{}}`)
	fwd := fb.waitGot(func(m map[string]json.RawMessage) bool { return string(m["method"]) == `"_x/variant"` })
	if _, hasID := fwd["id"]; hasID {
		t.Fatalf("the variant line reached the bridge with id %s, want a notification as jsonrpc2 reads it", fwd["id"])
	}
	// The control: a plain answer to 31 is relayed; nothing is left pending.
	fmt.Fprintln(a.conn, `{"jsonrpc":"2.0","id":31,"result":{}}`)
	fb.waitGot(func(m map[string]json.RawMessage) bool { return string(m["id"]) == "31" && len(m["result"]) > 0 })
	f.mu.Lock()
	left := len(f.pending)
	f.mu.Unlock()
	if left != 0 {
		t.Fatalf("%d requests still pending after both were answered", left)
	}
}

// Before the attach, a socket client's first line that is no message gets
// the engine's answer and the connection closes; no editor is attached and
// the bridge hears nothing of it. The control: the attach after it works.
func TestSocketBadFirstLineAnsweredAndClosed(t *testing.T) {
	for _, tc := range []struct{ name, line string }{
		{"not JSON", "not json"},
		{"over the first line's bound", `{"jsonrpc":"2.0","id":1,"method":"_acp-bridge/attach","params":{"token":"` + strings.Repeat("t", maxAttachLine) + `"}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, fb, stdin := newFront(t, Options{Token: "tok"})
			_ = stdin.Close()
			detached(t, f)
			conn, err := net.Dial("unix", f.SocketPath())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
			fmt.Fprintln(conn, tc.line)
			all, err := io.ReadAll(conn)
			if err != nil {
				t.Fatalf("the connection was not closed: %v", err)
			}
			var m struct {
				Error struct {
					Code int64 `json:"code"`
				} `json:"error"`
			}
			if json.Unmarshal(all, &m) != nil || m.Error.Code == 0 || strings.Count(string(all), "\n") != 1 {
				t.Fatalf("answer %q, want one error line", all)
			}
			f.mu.Lock()
			cur := f.cur
			f.mu.Unlock()
			if cur != nil {
				t.Fatal("a client attached without the attach request")
			}
			fb.mu.Lock()
			n := len(fb.got)
			fb.mu.Unlock()
			if n != 0 {
				t.Fatalf("the bridge heard %d messages of it", n)
			}
			if a := attachTo(t, f, "tok"); a.err != nil {
				t.Fatalf("attach after it: %s", a.err)
			}
		})
	}
}

// An editor cancels its request by its own id; the bridge knows it by the
// front's: the cancel reaches the bridge naming the front's id. A cancel
// naming no request of this editor's (here the id the front gave the
// first request, which the editor never saw) is not passed on: it could
// cancel another request at the bridge.
func TestCancelRequestRenumbered(t *testing.T) {
	f, fb, stdin := newFront(t, Options{Token: "tok"})
	_ = stdin.Close()
	detached(t, f)
	a := attachTo(t, f, "tok")
	if a.err != nil {
		t.Fatalf("attach: %s", a.err)
	}
	fmt.Fprintln(a.conn, `{"jsonrpc":"2.0","id":"p-9","method":"session/prompt","params":{"sessionId":"s1","prompt":[]}}`)
	got := fb.waitGot(func(m map[string]json.RawMessage) bool { return string(m["method"]) == `"session/prompt"` })
	ours := string(got["id"])
	if ours == `"p-9"` {
		t.Fatal("the editor's id reached the bridge as it was")
	}
	fmt.Fprintf(a.conn, `{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":%s}}`+"\n", ours)
	fmt.Fprintln(a.conn, `{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":"p-9"}}`)
	fmt.Fprintln(a.conn, `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s1"}}`)
	fb.waitGot(func(m map[string]json.RawMessage) bool { return string(m["method"]) == `"session/cancel"` })
	var cancels []string
	fb.mu.Lock()
	for _, m := range fb.got {
		if string(m["method"]) == `"$/cancel_request"` {
			cancels = append(cancels, string(m["params"]))
		}
	}
	fb.mu.Unlock()
	if want := `{"requestId":` + ours + `}`; len(cancels) != 1 || cancels[0] != want {
		t.Fatalf("cancels at the bridge %q, want only %s", cancels, want)
	}
}
