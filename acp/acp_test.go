package acp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"
)

// funcHandler adapts functions to Handler.
type funcHandler struct {
	notif func(ctx context.Context, method string, params json.RawMessage)
	req   func(ctx context.Context, method string, params json.RawMessage) (any, error)
}

func (h funcHandler) HandleNotification(ctx context.Context, m string, p json.RawMessage) {
	if h.notif != nil {
		h.notif(ctx, m, p)
	}
}

func (h funcHandler) HandleRequest(ctx context.Context, m string, p json.RawMessage) (any, error) {
	if h.req != nil {
		return h.req(ctx, m, p)
	}
	return nil, MethodNotFound(m)
}

// pair connects two Conns over net.Pipe.
func pair(t *testing.T, a, b Handler) (*Conn, *Conn) {
	t.Helper()
	ca, cb := net.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	x := NewConn(ctx, NewStream(ca, ca, ca, StreamOptions{}), a, ConnOptions{})
	y := NewConn(ctx, NewStream(cb, cb, cb, StreamOptions{}), b, ConnOptions{})
	t.Cleanup(func() { x.Close(); y.Close() })
	return x, y
}

func tctx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// Many concurrent first calls: every one gets its own answer (regression:
// jsonrpc2 replaced a picked id 0 with its counter, colliding ids).
func TestConcurrentFirstCalls(t *testing.T) {
	for round := range 20 {
		server := funcHandler{req: func(_ context.Context, _ string, p json.RawMessage) (any, error) {
			return p, nil // echo
		}}
		client, _ := pair(t, funcHandler{}, server)
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for i := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var got map[string]int
				if err := client.Call(tctx(t), "echo", map[string]int{"n": i}, &got); err != nil {
					errs <- err
					return
				}
				if got["n"] != i {
					errs <- fmt.Errorf("round %d: call %d got the answer of %d", round, i, got["n"])
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
	}
}

func TestNotificationsInOrderRequestsConcurrent(t *testing.T) {
	var mu sync.Mutex
	var got []int
	release := make(chan struct{})
	server := funcHandler{
		notif: func(_ context.Context, _ string, p json.RawMessage) {
			var n int
			_ = json.Unmarshal(p, &n)
			mu.Lock()
			got = append(got, n)
			mu.Unlock()
		},
		req: func(ctx context.Context, m string, _ json.RawMessage) (any, error) {
			if m == "block" {
				select { // a blocked request must not stop later messages
				case <-release:
				case <-ctx.Done():
				}
			}
			mu.Lock()
			defer mu.Unlock()
			return len(got), nil
		},
	}
	client, _ := pair(t, funcHandler{}, server)
	blocked := make(chan error, 1)
	go func() { blocked <- client.Call(tctx(t), "block", nil, nil) }()
	for i := range 1000 {
		if err := client.Notify(tctx(t), "n", i); err != nil {
			t.Fatal(err)
		}
	}
	var count int
	if err := client.Call(tctx(t), "count", nil, &count); err != nil {
		t.Fatal(err)
	}
	if count != 1000 {
		t.Fatalf("request after 1000 notifications saw %d of them", count)
	}
	for i, n := range got {
		if n != i {
			t.Fatalf("notification %d arrived as %d: out of order", i, n)
		}
	}
	close(release)
	if err := <-blocked; err != nil {
		t.Fatal(err)
	}
}

func TestCancelRequestCancelsHandlerContext(t *testing.T) {
	started := make(chan struct{})
	server := funcHandler{req: func(ctx context.Context, _ string, _ json.RawMessage) (any, error) {
		close(started)
		<-ctx.Done()
		return nil, ctx.Err()
	}}
	client, _ := pair(t, funcHandler{}, server)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- client.Call(ctx, "slow", nil, nil) }()
	<-started
	cancel() // sends $/cancel_request
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Call = %v, want context.Canceled", err)
	}
}

func TestErrorsKeepTheirCode(t *testing.T) {
	cases := []struct {
		err  error
		code int64
	}{
		{fmt.Errorf("wrapped: %w", InvalidParams("x", errors.New("bad"))), CodeInvalidParams},
		{MethodNotFound("nope"), CodeMethodNotFound},
		{context.Canceled, CodeRequestCancelled},
		{fmt.Errorf("x: %w", context.Canceled), CodeRequestCancelled},
		{errors.New("plain"), CodeInternalError},
		{fmt.Errorf("w: %w", &jsonrpc2.Error{Code: 0, Message: "zero"}), CodeInternalError},
		{&jsonrpc2.Error{Code: -32002, Message: "nf"}, -32002},
	}
	for _, c := range cases {
		if got := ToRPCError(c.err); got.Code != c.code || got.Message == "" {
			t.Errorf("ToRPCError(%v) = %d %q, want %d", c.err, got.Code, got.Message, c.code)
		}
	}
	// Over the wire: code and message survive; a panic becomes -32603.
	server := funcHandler{req: func(_ context.Context, m string, _ json.RawMessage) (any, error) {
		if m == "panic" {
			panic("boom")
		}
		return nil, Errorf(CodeResourceNotFound, "no session %q", "s1")
	}}
	client, _ := pair(t, funcHandler{}, server)
	err := client.Call(tctx(t), "x", nil, nil)
	var ae *Error
	if !errors.As(err, &ae) || ae.Code != CodeResourceNotFound || !strings.Contains(ae.Message, `no session "s1"`) {
		t.Fatalf("got %v", err)
	}
	err = client.Call(tctx(t), "panic", nil, nil)
	if !errors.As(err, &ae) || ae.Code != CodeInternalError || !strings.Contains(ae.Message, "boom") {
		t.Fatalf("panic: %v", err)
	}
}

func TestStreamSkipsBadLines(t *testing.T) {
	long := strings.Repeat("x", 10000)
	input := strings.Join([]string{
		`not json`,
		``,
		`{"jsonrpc":"2.0"}`, // JSON, not a message
		long,
		"\xff\xfe{broken",
		"{\"jsonrpc\":\"2.0\",\"method\":\"ok\",\"params\":{\"s\":\"caf\xc3\xa9 \xff\"}}", // invalid UTF-8 inside a string is tolerated
		`{"jsonrpc":"2.0","method":"last"}`,                                               // no trailing newline: still delivered at EOF
	}, "\n")
	var drops []StreamEvent
	s := NewStream(strings.NewReader(input), io.Discard, nil, StreamOptions{MaxLineBytes: 4096, OnDrop: func(e StreamEvent) { drops = append(drops, e) }})
	var methods []string
	for {
		var req jsonrpc2.Request
		err := s.ReadObject(&req)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		methods = append(methods, req.Method)
	}
	if strings.Join(methods, ",") != "ok,last" {
		t.Fatalf("delivered %v", methods)
	}
	kinds := map[string]int{}
	for _, d := range drops {
		kinds[d.Kind]++
		if len(d.Prefix) > 120 {
			t.Fatalf("prefix too long: %d", len(d.Prefix))
		}
	}
	if kinds["invalid-json"] != 2 || kinds["not-a-message"] != 1 || kinds["line-too-long"] != 1 {
		t.Fatalf("drops %v", kinds)
	}
}

func TestStreamWritesOneLinePerMessage(t *testing.T) {
	var buf bytes.Buffer
	s := NewStream(strings.NewReader(""), &buf, nil, StreamOptions{})
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = s.WriteObject(map[string]any{"i": i, "html": "<&>"})
		}()
	}
	wg.Wait()
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != 50 {
		t.Fatalf("%d lines, want 50", len(lines))
	}
	for _, l := range lines {
		if !json.Valid([]byte(l)) || !strings.Contains(l, "<&>") {
			t.Fatalf("bad line %q", l)
		}
	}
}

type slowWriter struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	release chan struct{}
}

func (w *slowWriter) Write(p []byte) (int, error) {
	<-w.release
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}

func TestQueueWriterNeverBlocksAndKeepsOrder(t *testing.T) {
	w := &slowWriter{release: make(chan struct{})}
	closed := make(chan struct{})
	q := NewQueueWriter(w, closerFunc(func() error { close(closed); return nil }))
	for i := range 100 { // the underlying writer is stuck: these must not block
		if _, err := fmt.Fprintf(q, "%d\n", i); err != nil {
			t.Fatal(err)
		}
	}
	if q.Queued() == 0 {
		t.Fatal("nothing queued")
	}
	close(w.release)
	q.Close()
	<-q.Done()
	<-closed
	lines := strings.Fields(w.buf.String())
	for i, l := range lines {
		if l != fmt.Sprint(i) {
			t.Fatalf("line %d = %s", i, l)
		}
	}
	if len(lines) != 100 {
		t.Fatalf("%d lines written, want 100", len(lines))
	}
	if _, err := q.Write([]byte("late")); err == nil {
		t.Fatal("write after Close succeeded")
	}
}

type closerFunc func() error

func (f closerFunc) Close() error { return f() }

func TestObjectRewriteKeepsUnknownFields(t *testing.T) {
	raw := json.RawMessage(`{"sessionId":"child","update":{"sessionUpdate":"future_variant","x":[1,2]},"_meta":{"other":{"k":1}},"extra":true}`)
	o, err := ParseObject(raw)
	if err != nil {
		t.Fatal(err)
	}
	o.Set("sessionId", "bridge")
	SetBridgeMeta(o, map[string]string{"agent": "a"})
	out := string(o.Marshal())
	for _, want := range []string{`"sessionId":"bridge"`, `"future_variant"`, `"x":[1,2]`, `"other":{"k":1}`, `"acp-bridge":{"agent":"a"}`, `"extra":true`} {
		if !strings.Contains(out, want) {
			t.Fatalf("%s lacks %s", out, want)
		}
	}
	var m struct{ Agent string }
	if err := BridgeMeta(o, &m); err != nil || m.Agent != "a" {
		t.Fatalf("BridgeMeta: %v %+v", err, m)
	}
	if UpdateKind(o["update"]) != "future_variant" {
		t.Fatal("UpdateKind")
	}
}

// A bounded queue blocks writers past its bound (back-pressure) and still
// delivers everything, in order, batched.
func TestBoundedQueueWriterBackPressure(t *testing.T) {
	w := &slowWriter{release: make(chan struct{})}
	q := NewBoundedQueueWriter(w, nil, 64)
	wrote := make(chan int, 1)
	go func() {
		n := 0
		for i := range 100 {
			if _, err := fmt.Fprintf(q, "%03d\n", i); err != nil {
				break
			}
			n++
		}
		wrote <- n
	}()
	// The underlying writer is stuck: the producer must block near the bound.
	for q.Queued() <= 64 {
		runtime.Gosched()
	}
	select {
	case n := <-wrote:
		t.Fatalf("all %d writes returned while the reader was stuck: no back-pressure", n)
	default:
	}
	close(w.release)
	if n := <-wrote; n != 100 {
		t.Fatalf("%d writes", n)
	}
	q.Close()
	<-q.Done()
	lines := strings.Fields(w.buf.String())
	if len(lines) != 100 {
		t.Fatalf("%d lines delivered", len(lines))
	}
	for i, l := range lines {
		if l != fmt.Sprintf("%03d", i) {
			t.Fatalf("line %d = %s", i, l)
		}
	}
}
