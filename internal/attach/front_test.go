package attach

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeBridge reads what the front sends the bridge, answers
// sessions/live, and lets the test write lines as the bridge.
type fakeBridge struct {
	t        *testing.T
	toFront  *io.PipeWriter
	mu       sync.Mutex
	got      []map[string]json.RawMessage
	changed  chan struct{}
	inputEOF chan struct{}
}

func newFront(t *testing.T, opts Options) (*Front, *fakeBridge, *io.PipeWriter) {
	t.Helper()
	inR, inW := io.Pipe()   // front -> bridge
	outR, outW := io.Pipe() // bridge -> front
	if opts.Dir == "" {
		opts.Dir = filepath.Join(t.TempDir(), "attach")
	}
	f, err := New(opts, inW, outR)
	if err != nil {
		t.Fatal(err)
	}
	fb := &fakeBridge{t: t, toFront: outW, changed: make(chan struct{}), inputEOF: make(chan struct{})}
	go func() {
		r := bufio.NewReader(inR)
		for {
			line, err := r.ReadBytes('\n')
			if err != nil {
				close(fb.inputEOF)
				return
			}
			var m map[string]json.RawMessage
			if json.Unmarshal(line, &m) != nil {
				continue
			}
			if string(m["method"]) == `"`+methodSessionsLive+`"` {
				fb.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"sessions":[{"sessionId":"s1","agent":"demo","turnRunning":true,"pendingApprovals":1}]}}`, m["id"]))
				continue
			}
			fb.mu.Lock()
			fb.got = append(fb.got, m)
			close(fb.changed)
			fb.changed = make(chan struct{})
			fb.mu.Unlock()
		}
	}()
	stdinR, stdinW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		f.Serve(ctx, stdinR, io.Discard)
		close(done)
	}()
	t.Cleanup(func() {
		cancel()
		_ = outW.Close()
		<-done
	})
	for { // Serve has taken the stdio editor
		f.mu.Lock()
		c := f.cur
		f.mu.Unlock()
		if c != nil {
			break
		}
		time.Sleep(time.Millisecond)
	}
	return f, fb, stdinW
}

func (fb *fakeBridge) send(line string) {
	if _, err := fb.toFront.Write([]byte(line + "\n")); err != nil {
		fb.t.Errorf("bridge write: %v", err)
	}
}

// waitGot waits until the bridge received a message matching match.
func (fb *fakeBridge) waitGot(match func(map[string]json.RawMessage) bool) map[string]json.RawMessage {
	fb.t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		fb.mu.Lock()
		for _, m := range fb.got {
			if match(m) {
				fb.mu.Unlock()
				return m
			}
		}
		ch := fb.changed
		fb.mu.Unlock()
		select {
		case <-ch:
		case <-deadline:
			fb.t.Fatal("the bridge never got the expected message")
		}
	}
}

// detached waits until the front counts no editor as attached.
func detached(t *testing.T, f *Front) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		f.mu.Lock()
		gone := f.cur == nil
		f.mu.Unlock()
		if gone {
			return
		}
	}
	t.Fatal("still attached")
}

// flushed waits until the front has read everything written to it by the bridge so far.
func flushed(t *testing.T, f *Front, fb *fakeBridge) {
	t.Helper()
	// A request of the front's own goes after the lines already written; its
	// answer comes back only once the front has read them.
	if _, err := f.call(methodSessionsLive, 10*time.Second); err != nil {
		t.Fatal(err)
	}
}

type attached struct {
	conn   net.Conn
	r      *bufio.Reader
	result map[string]json.RawMessage
	err    json.RawMessage
}

func attachTo(t *testing.T, f *Front, token string) *attached {
	t.Helper()
	conn, err := net.Dial("unix", f.SocketPath())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	fmt.Fprintf(conn, `{"jsonrpc":"2.0","id":1,"method":%q,"params":{"token":%q}}`+"\n", MethodAttach, token)
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	r := bufio.NewReader(conn)
	line, err := r.ReadBytes('\n')
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Result map[string]json.RawMessage `json:"result"`
		Error  json.RawMessage            `json:"error"`
	}
	if err := json.Unmarshal(line, &m); err != nil {
		t.Fatal(err)
	}
	return &attached{conn: conn, r: r, result: m.Result, err: m.Error}
}

func (a *attached) next(t *testing.T) string {
	t.Helper()
	line, err := a.r.ReadBytes('\n')
	if err != nil {
		t.Fatalf("reading from the front: %v", err)
	}
	return strings.TrimSpace(string(line))
}

func update(sid string, i int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":%q,"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"chunk %03d %s"}}}}`, sid, i, strings.Repeat("x", 40))
}

// While detached, updates are kept up to the bound; past it session/update
// is dropped and counted per session, the bridge's own notices are still
// kept, requests are re-sent after the kept notifications, and a withdrawn
// request is not.
func TestBufferBoundAndOrder(t *testing.T) {
	one := len(update("s1", 0)) + 1
	f, fb, stdin := newFront(t, Options{BufferBytes: 5 * one, Token: "tok"})
	_ = stdin.Close()
	detached(t, f)
	for i := 0; i < 8; i++ {
		fb.send(update("s1", i))
	}
	fb.send(`{"jsonrpc":"2.0","method":"_acp-bridge/approval/resolved","params":{"approvalId":"a0","by":"timeout"}}`)
	fb.send(`{"jsonrpc":"2.0","id":41,"method":"session/request_permission","params":{"sessionId":"s1","_meta":{"acp-bridge":{"approvalId":"a1"}}}}`)
	fb.send(`{"jsonrpc":"2.0","id":42,"method":"session/request_permission","params":{"sessionId":"s1","_meta":{"acp-bridge":{"approvalId":"a2"}}}}`)
	fb.send(`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":41}}`)
	flushed(t, f, fb)

	a := attachTo(t, f, "tok")
	if a.err != nil {
		t.Fatalf("attach: %s", a.err)
	}
	if string(a.result["buffered"]) != "6" || string(a.result["pendingRequests"]) != "1" || string(a.result["droppedBySession"]) != `{"s1":3}` {
		t.Fatalf("attach result: buffered %s pending %s dropped %s", a.result["buffered"], a.result["pendingRequests"], a.result["droppedBySession"])
	}
	if !strings.Contains(string(a.result["sessions"]), `"turnRunning":true`) {
		t.Fatalf("sessions: %s", a.result["sessions"])
	}
	for i := 0; i < 5; i++ {
		if got := a.next(t); got != update("s1", i) {
			t.Fatalf("kept update %d: %s", i, got)
		}
	}
	if got := a.next(t); !strings.Contains(got, "approval/resolved") {
		t.Fatalf("the bridge's notice past the update bound: %s", got)
	}
	if got := a.next(t); !strings.Contains(got, `"id":42`) || !strings.Contains(got, `"a2"`) {
		t.Fatalf("re-sent request: %s", got)
	}
	// Its answer goes to the bridge with the bridge's id; a second answer does not.
	fmt.Fprintln(a.conn, `{"jsonrpc":"2.0","id":42,"result":{"outcome":{"outcome":"selected","optionId":"acp-bridge:allow_once"}}}`)
	fmt.Fprintln(a.conn, `{"jsonrpc":"2.0","id":42,"result":{"outcome":{"outcome":"selected","optionId":"acp-bridge:reject_once"}}}`)
	fmt.Fprintln(a.conn, `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s1"}}`)
	fb.waitGot(func(m map[string]json.RawMessage) bool { return string(m["method"]) == `"session/cancel"` })
	n := 0
	fb.mu.Lock()
	for _, m := range fb.got {
		if string(m["id"]) == "42" {
			n++
			if !strings.Contains(string(m["result"]), "allow_once") {
				t.Errorf("answer reaching the bridge: %s", m["result"])
			}
		}
	}
	fb.mu.Unlock()
	if n != 1 {
		t.Fatalf("%d answers to request 42 reached the bridge, want 1", n)
	}
}

// A prompt whose editor went away: its answer becomes turn/ended for the
// next editor. Editor ids are renumbered on the way to the bridge and
// restored on the way back.
func TestPromptAnsweredWhileDetached(t *testing.T) {
	f, fb, stdin := newFront(t, Options{Token: "tok"})
	fmt.Fprintln(stdin, `{"jsonrpc":"2.0","id":"p-1","method":"session/prompt","params":{"sessionId":"s1","prompt":[]}}`)
	got := fb.waitGot(func(m map[string]json.RawMessage) bool { return string(m["method"]) == `"session/prompt"` })
	if string(got["id"]) == `"p-1"` {
		t.Fatal("the editor's id reached the bridge as it was")
	}
	_ = stdin.Close()
	detached(t, f)
	fb.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"stopReason":"end_turn"}}`, got["id"]))
	flushed(t, f, fb)
	a := attachTo(t, f, "tok")
	if line := a.next(t); !strings.Contains(line, MethodTurnEnded) || !strings.Contains(line, `"sessionId":"s1"`) || !strings.Contains(line, `"stopReason":"end_turn"`) {
		t.Fatalf("turn/ended: %s", line)
	}
	// A request of the new editor round-trips with its own id.
	fmt.Fprintln(a.conn, `{"jsonrpc":"2.0","id":7,"method":"_acp-bridge/agents/list","params":{}}`)
	got = fb.waitGot(func(m map[string]json.RawMessage) bool { return string(m["method"]) == `"_acp-bridge/agents/list"` })
	fb.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"agents":[]}}`, got["id"]))
	if line := a.next(t); !strings.Contains(line, `"id":7`) || !strings.Contains(line, `"agents"`) {
		t.Fatalf("answer to the new editor: %s", line)
	}
}

// Nobody for the grace period: Expired closes and the bridge's input ends
// (the bridge then shuts down as editor-gone); the socket is gone.
func TestGraceExpiry(t *testing.T) {
	f, fb, stdin := newFront(t, Options{Grace: 50 * time.Millisecond, Token: "tok"})
	_ = stdin.Close()
	select {
	case <-f.Expired():
	case <-time.After(10 * time.Second):
		t.Fatal("grace never expired")
	}
	select {
	case <-fb.inputEOF:
	case <-time.After(10 * time.Second):
		t.Fatal("the bridge's input stayed open after the grace period")
	}
	if _, err := os.Stat(f.SocketPath()); !os.IsNotExist(err) {
		t.Fatalf("socket after expiry: %v", err)
	}
}

// A re-attach within the grace period stops the clock.
func TestAttachStopsGrace(t *testing.T) {
	f, _, stdin := newFront(t, Options{Grace: 300 * time.Millisecond, Token: "tok"})
	_ = stdin.Close()
	detached(t, f)
	a := attachTo(t, f, "tok")
	if a.err != nil {
		t.Fatal(string(a.err))
	}
	select {
	case <-f.Expired():
		t.Fatal("expired although an editor is attached")
	case <-time.After(600 * time.Millisecond):
	}
}

func TestSocketDirChecks(t *testing.T) {
	base := t.TempDir()
	open := filepath.Join(base, "open")
	if err := os.Mkdir(open, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(base, "link")
	if err := os.Symlink(t.TempDir(), link); err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct{ dir, want string }{
		"open to others": {open, "0700"},
		"a symlink":      {link, "not a directory"},
		"relative":       {"rel/attach", "absolute"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := New(Options{Dir: tc.dir}, nopCloser{}, strings.NewReader(""))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one saying %q", err, tc.want)
			}
		})
	}
	f, _, _ := newFront(t, Options{})
	fi, err := os.Stat(f.SocketPath())
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket %v %v, want 0600", fi.Mode(), err)
	}
	if len(f.Token()) != 64 {
		t.Fatalf("token %q: want 32 random bytes in hex", f.Token())
	}
}

type nopCloser struct{}

func (nopCloser) Write(p []byte) (int, error) { return len(p), nil }
func (nopCloser) Close() error                { return nil }
