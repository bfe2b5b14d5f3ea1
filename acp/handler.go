package acp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/acp-bridge/acp-bridge/internal/jsonscan"
)

// Peer is the side of a connection a handler can talk back to.
type Peer interface {
	// Call sends a request and waits for its response. If ctx ends first, a
	// $/cancel_request is sent to the peer and ctx.Err() is returned.
	Call(ctx context.Context, method string, params, result any) error
	// Notify sends a notification. It returns once the message is written.
	Notify(ctx context.Context, method string, params any) error
}

// Handler receives one connection's inbound messages.
type Handler interface {
	// HandleNotification runs inline on the read loop, in arrival order. It
	// may write (Notify) but must never wait for a response.
	HandleNotification(ctx context.Context, method string, params json.RawMessage)
	// HandleRequest runs in its own goroutine. ctx is cancelled by the peer's
	// $/cancel_request for this request or when the connection closes. The
	// result is marshalled as is (json.RawMessage passes through untouched);
	// the error is mapped by ToRPCError.
	HandleRequest(ctx context.Context, method string, params json.RawMessage) (any, error)
}

// SessionUpdateHandler is optionally implemented by a Handler. A
// session/update notification that the stream could read in its one pass
// over the line (see ScanSessionUpdate) goes to HandleSessionUpdate
// instead of HandleNotification, so the handler need not scan its params
// again. Same rules as HandleNotification: inline on the read loop, in
// arrival order, never waiting for a response. u's slices are the
// handler's to keep.
type SessionUpdateHandler interface {
	HandleSessionUpdate(ctx context.Context, u SessionUpdate)
}

// Preparer is optionally implemented by a Handler. PrepareRequest runs inline
// on the read loop, in arrival order, before the request's goroutine starts,
// so state a later notification depends on (e.g. a turn that session/cancel
// must find) exists by then. It must not block. The returned context becomes
// the request's context (return ctx unchanged if there is nothing to add).
type Preparer interface {
	PrepareRequest(ctx context.Context, method string, params json.RawMessage) context.Context
}

// Conn is one JSON-RPC connection with ACP's dispatch rules.
type Conn struct {
	rpc *jsonrpc2.Conn

	nextID atomic.Uint64   // ids of our outgoing requests
	ready  chan struct{}   // closed once rpc is set
	gate   <-chan struct{} // ConnOptions.Gate

	fast   *ndjsonStream // the stream, when it is ours: notifications bypass jsonrpc2
	onSend func(*jsonrpc2.Request, *jsonrpc2.Response)

	mu       sync.Mutex
	inflight map[jsonrpc2.ID]context.CancelFunc // requests being handled, for $/cancel_request
	active   int                                // request goroutines running
	idle     chan struct{}                      // closed while active == 0
	closed   bool                               // Close was called: no new request goroutines
	calls    map[uint64]*outCall                // our calls awaiting an answer (fast path)
	gone     bool                               // the connection ended: calls fail at once
}

// outCall is one of our requests sent on the fast path.
type outCall struct {
	done   chan struct{} // closed once answered or failed
	result json.RawMessage
	errObj json.RawMessage // the peer's error object
	err    error           // the connection ended first (or jsonrpc2's error, off our stream)
	// fin and then are guarded by the Conn's mu: fin is set when the call
	// is taken to be finished (done is then closed at once), then runs
	// after done is closed (Pending.OnDone).
	fin  bool
	then func()
}

// finish closes call.done after its result is set, then runs what
// Pending.OnDone left, if anything. Only the one who set call.fin (under
// c.mu) calls it.
func (call *outCall) finish(then func()) {
	close(call.done)
	if then != nil {
		then()
	}
}

// ConnOptions configures NewConn.
type ConnOptions struct {
	// Logf receives jsonrpc2's own diagnostics (responses to unknown ids,
	// protocol errors). nil discards them.
	Logf func(format string, args ...any)
	// OnRecv and OnSend, when set, see every message in each direction
	// (acp's own view of it: no jsonrpc2 type leaves this package).
	OnRecv func(TraceMessage)
	OnSend func(TraceMessage)
	// Gate, when set, holds back every inbound message until it is closed,
	// so the caller can finish wiring (e.g. store the *Conn where its
	// handler will look for it) before the handler first runs.
	Gate <-chan struct{}
}

// TraceMessage is one message as ConnOptions.OnRecv and OnSend see it.
type TraceMessage struct {
	Method       string // "" for a response to a call whose method is not known here
	ID           string // "" for a notification
	Notification bool
	Response     bool
	Error        bool // a response carrying an error
}

// traceAdapter turns an acp trace function into jsonrpc2's shape.
func traceAdapter(f func(TraceMessage)) func(*jsonrpc2.Request, *jsonrpc2.Response) {
	if f == nil {
		return nil
	}
	return func(req *jsonrpc2.Request, resp *jsonrpc2.Response) {
		var m TraceMessage
		if req != nil {
			m.Method, m.Notification = req.Method, req.Notif
			if !req.Notif {
				m.ID = req.ID.String()
			}
		}
		if resp != nil {
			m.Response, m.ID, m.Error = true, resp.ID.String(), resp.Error != nil
		}
		f(m)
	}
}

type logfLogger func(format string, args ...any)

func (l logfLogger) Printf(format string, v ...any) { l(format, v...) }

// NewConn starts serving stream with h. It returns at once; the read loop
// runs until the stream fails or Close is called.
func NewConn(ctx context.Context, stream jsonrpc2.ObjectStream, h Handler, opts ConnOptions) *Conn {
	c := &Conn{inflight: map[jsonrpc2.ID]context.CancelFunc{}, ready: make(chan struct{}), gate: opts.Gate, idle: make(chan struct{}),
		calls: map[uint64]*outCall{}}
	close(c.idle)
	logf := opts.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	copts := []jsonrpc2.ConnOpt{jsonrpc2.SetLogger(logfLogger(logf))}
	recvJ, sendJ := traceAdapter(opts.OnRecv), traceAdapter(opts.OnSend)
	if recvJ != nil {
		copts = append(copts, jsonrpc2.OnRecv(recvJ))
	}
	if sendJ != nil {
		copts = append(copts, jsonrpc2.OnSend(sendJ))
	}
	d := &dispatcher{c: c, h: h}
	var endNotif context.CancelFunc
	if s, ok := stream.(*ndjsonStream); ok {
		// Plain messages (session/update above all) are read and written
		// without jsonrpc2's decode/encode round trips: notifications are
		// handled inline on the one read loop, so order is kept; requests
		// go to the same dispatcher as jsonrpc2's; responses are matched
		// to our own calls (Start). Their ctx ends with the connection, as
		// jsonrpc2's handler ctx does. Whatever is not plain still goes
		// through jsonrpc2.
		c.fast, c.onSend = s, sendJ
		onRecv := recvJ
		var nctx context.Context
		nctx, endNotif = context.WithCancel(ctx)
		// The connection's end (either side) ends the handlers' ctx and
		// fails our calls still waiting.
		s.onClose = func() {
			endNotif()
			c.failCalls()
		}
		s.onLongAnswer = func(id jsonrpc2.ID, msg string) {
			// The answer to one of our calls was too long to read: fail
			// the call instead of leaving it waiting forever.
			if id.IsString {
				return
			}
			errObj, _ := json.Marshal(jsonrpc2.Error{Code: CodeInternalError, Message: msg})
			c.deliver(&plainMsg{id: id, hasID: true, errObj: errObj}, onRecv)
		}
		s.onMsg = func(m plainMsg) bool {
			switch {
			case !m.hasID:
				if onRecv != nil {
					onRecv(notifRequest(m.method, m.params), nil)
				}
				if m.scanned {
					d.sessionUpdate(nctx, m.update)
				} else {
					d.notification(nctx, m.method, m.params)
				}
				return true
			case m.method != "":
				req := &jsonrpc2.Request{Method: m.method, ID: m.id}
				if m.params != nil {
					params := m.params
					req.Params = &params
				}
				if onRecv != nil {
					onRecv(req, nil)
				}
				<-c.ready // c.rpc is set
				d.Handle(nctx, c.rpc, req)
				return true
			default:
				return c.deliver(&m, onRecv)
			}
		}
	}
	c.rpc = jsonrpc2.NewConn(ctx, stream, d, copts...)
	close(c.ready)
	return c
}

// Done is closed when the connection is closed, by either side.
func (c *Conn) Done() <-chan struct{} { return c.rpc.DisconnectNotify() }

// OnClose arranges for f to run once the connection is closed, by either
// side: with no goroutine waiting for it on the bridge's own streams (on
// the goroutine that closes it, often the read loop: f must not block),
// before the running handlers' ctx ends; else on a goroutine waiting for
// Done. At once if it is closed.
func (c *Conn) OnClose(f func()) {
	if c.fast != nil {
		c.fast.then(f)
		return
	}
	go func() {
		<-c.Done()
		f()
	}()
}

// Close closes the connection. Pending calls fail with jsonrpc2.ErrClosed,
// running handlers see their ctx end, and a request the read loop had
// already taken but not yet dispatched is dropped (it could not be answered),
// so after Close, WaitHandlers covers every handler that will ever run.
func (c *Conn) Close() error {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	return c.rpc.Close()
}

// Wait blocks until every request goroutine has returned (after Close).
func (c *Conn) Wait() { _ = c.WaitHandlers(context.Background()) }

// WaitHandlers waits until no request goroutine is running, or ctx ends.
func (c *Conn) WaitHandlers(ctx context.Context) error {
	c.mu.Lock()
	idle := c.idle
	c.mu.Unlock()
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("requests still being handled: %w", ctx.Err())
	}
}

// begin registers a request goroutine; false once the connection is closed.
func (c *Conn) begin(id jsonrpc2.ID, cancel context.CancelFunc) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return false
	}
	select {
	case <-c.rpc.DisconnectNotify():
		return false
	default:
	}
	if c.active == 0 {
		c.idle = make(chan struct{})
	}
	c.active++
	c.inflight[id] = cancel
	return true
}

// end unregisters a request goroutine.
func (c *Conn) end(id jsonrpc2.ID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.inflight, id)
	c.active--
	if c.active == 0 {
		close(c.idle)
	}
}

// Call implements Peer.
func (c *Conn) Call(ctx context.Context, method string, params, result any) error {
	p, err := c.Start(ctx, method, params)
	if err != nil {
		return err
	}
	return p.Wait(ctx, result)
}

// Pending is a call that was sent and not yet answered.
type Pending struct {
	c      *Conn
	method string
	id     jsonrpc2.ID
	call   *outCall
}

// Start sends a request and returns without waiting for the answer.
func (c *Conn) Start(ctx context.Context, method string, params any) (*Pending, error) {
	// Ids start at 1: sourcegraph/jsonrpc2 treats a zero id as unset and
	// substitutes its own counter, which can collide with an id already
	// picked by a concurrent call.
	id := jsonrpc2.ID{Num: c.nextID.Add(1)}
	if c.fast != nil {
		return c.startFast(method, id, params)
	}
	// A stream that is not ours: jsonrpc2 sends the call and matches its
	// answer; a goroutine turns that into the same outCall.
	w, err := c.rpc.DispatchCall(ctx, method, params, jsonrpc2.PickID(id))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	call := &outCall{done: make(chan struct{})}
	go func() {
		var raw json.RawMessage
		if err := w.Wait(context.Background(), &raw); err != nil {
			call.err = err
		} else {
			call.result = raw
		}
		c.mu.Lock()
		call.fin = true
		then := call.then
		c.mu.Unlock()
		call.finish(then)
	}()
	return &Pending{c: c, method: method, id: id, call: call}, nil
}

// startFast sends a request on our own stream: params written as they are
// (json.RawMessage is checked, and compacted if it spans lines), the call
// registered for deliver.
func (c *Conn) startFast(method string, id jsonrpc2.ID, params any) (*Pending, error) {
	var b []byte
	b, raw := params.(json.RawMessage)
	if !raw {
		var err error
		if b, err = json.Marshal(params); err != nil {
			return nil, fmt.Errorf("%s: encode params: %w", method, err)
		}
	}
	if raw && !lineSafe([][]byte{b}, false) {
		var buf bytes.Buffer
		if err := json.Compact(&buf, b); err != nil {
			return nil, fmt.Errorf("%s: params are not valid JSON: %w", method, err)
		}
		b = buf.Bytes()
	}
	call := &outCall{done: make(chan struct{})}
	c.mu.Lock()
	if c.gone || c.closed {
		c.mu.Unlock()
		return nil, fmt.Errorf("%s: %w", method, jsonrpc2.ErrClosed)
	}
	c.calls[id.Num] = call
	c.mu.Unlock()
	if c.onSend != nil {
		raw := json.RawMessage(b)
		c.onSend(&jsonrpc2.Request{Method: method, ID: id, Params: &raw}, nil)
	}
	if err := c.fast.writeRequest(id.Num, method, b); err != nil {
		c.forget(id.Num)
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	return &Pending{c: c, method: method, id: id, call: call}, nil
}

// deliver hands a response read on the fast path to its call; false if no
// call of ours waits for that id (jsonrpc2 then reports it).
func (c *Conn) deliver(m *plainMsg, onRecv func(*jsonrpc2.Request, *jsonrpc2.Response)) bool {
	if m.id.IsString {
		return false
	}
	c.mu.Lock()
	call := c.calls[m.id.Num]
	delete(c.calls, m.id.Num)
	var then func()
	if call != nil {
		call.fin = true
		then = call.then
	}
	c.mu.Unlock()
	if call == nil {
		return false
	}
	if onRecv != nil {
		resp := &jsonrpc2.Response{ID: m.id}
		if m.result != nil {
			result := m.result
			resp.Result = &result
		} else {
			resp.Error = decodeRPCError(m.errObj)
		}
		onRecv(nil, resp)
	}
	call.result, call.errObj = m.result, m.errObj
	call.finish(then)
	return true
}

// forget drops a call nobody waits for any more.
func (c *Conn) forget(id uint64) {
	c.mu.Lock()
	delete(c.calls, id)
	c.mu.Unlock()
}

// failCalls fails every call still waiting: the connection ended.
func (c *Conn) failCalls() {
	c.mu.Lock()
	c.gone = true
	calls := c.calls
	c.calls = map[uint64]*outCall{}
	thens := make(map[*outCall]func(), len(calls))
	for _, call := range calls {
		call.fin = true
		thens[call] = call.then
	}
	c.mu.Unlock()
	for _, call := range calls {
		call.err = jsonrpc2.ErrClosed
		call.finish(thens[call])
	}
}

func decodeRPCError(raw json.RawMessage) *jsonrpc2.Error {
	e := &jsonrpc2.Error{}
	if err := json.Unmarshal(raw, e); err != nil {
		return &jsonrpc2.Error{Code: CodeInternalError, Message: "unreadable error object: " + string(raw)}
	}
	return e
}

// Done is closed once the answer is in (or the connection ended).
func (p *Pending) Done() <-chan struct{} { return p.call.done }

// OnDone arranges for f to run once Done is closed, without a goroutine
// waiting for it: on the goroutine that delivers the answer (the
// connection's read loop, so f must not block: hand anything longer to
// another goroutine), or at once on the caller's if the answer is in. A
// second OnDone replaces the first. f never runs for a call Wait gave up on
// (its ctx ended first).
func (p *Pending) OnDone(f func()) {
	c, call := p.c, p.call
	c.mu.Lock()
	if !call.fin {
		call.then = f
		c.mu.Unlock()
		return
	}
	c.mu.Unlock()
	<-call.done // closed right after fin was set
	f()
}

// Wait waits for the answer; see Conn.Call. If ctx ends first, the peer is
// sent $/cancel_request and ctx.Err() is returned.
func (p *Pending) Wait(ctx context.Context, result any) error {
	select {
	case <-p.call.done:
	case <-ctx.Done():
		select {
		case <-p.call.done: // answered meanwhile: take the answer
		default:
			p.c.forget(p.id.Num)
			// Tell the peer; it must still answer, but nobody waits any more.
			p.c.CancelRequest(p.id)
			return ctx.Err()
		}
	}
	switch {
	case p.call.err != nil:
		return fmt.Errorf("%s: %w", p.method, FromRPCError(p.call.err))
	case p.call.errObj != nil:
		return fmt.Errorf("%s: %w", p.method, FromRPCError(decodeRPCError(p.call.errObj)))
	case result == nil:
		return nil
	}
	if raw, ok := result.(*json.RawMessage); ok {
		*raw = p.call.result
		return nil
	}
	if err := json.Unmarshal(p.call.result, result); err != nil {
		return fmt.Errorf("%s: decode result: %w", p.method, err)
	}
	return nil
}

// CancelRequest sends $/cancel_request for one of our requests. Best effort.
func (c *Conn) CancelRequest(id jsonrpc2.ID) {
	_ = c.rpc.Notify(context.Background(), MethodCancelRequest, map[string]any{"requestId": id})
}

// ID is the JSON-RPC id of the request on the wire.
func (p *Pending) ID() jsonrpc2.ID { return p.id }

// Notify implements Peer.
func (c *Conn) Notify(ctx context.Context, method string, params any) error {
	switch v := params.(type) {
	case ValidParts:
		return c.notify(ctx, method, v, true, false)
	case json.RawMessage:
		return c.notify(ctx, method, [][]byte{v}, false, false)
	}
	if c.fast != nil {
		// Encoded once, here, and written as it is: json.Marshal's output
		// is one line of valid JSON (it compacts what Marshalers and
		// RawMessages give it). jsonrpc2's Notify would encode the params,
		// then the whole message again around them.
		b, err := json.Marshal(params)
		if err != nil {
			return fmt.Errorf("%s: encode params: %w", method, err)
		}
		return c.notify(ctx, method, [][]byte{b}, true, false)
	}
	if err := c.rpc.Notify(ctx, method, params); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	return nil
}

// NotifyParts is Notify for params already in pieces of one line of valid
// JSON; unlike Notify it does not box them in an interface (no allocation
// on the forwarding path).
func (c *Conn) NotifyParts(ctx context.Context, method string, params ValidParts) error {
	return c.notify(ctx, method, params, true, false)
}

// NotifyPartsDeferred is NotifyParts for a caller that is reading a batch
// of lines (a child's read loop): when the stream writes through a
// QueueWriter, the line may wait there until Flush, so the whole batch
// goes out in one write(2) from the caller's goroutine
// (QueueWriter.WritePartsDeferred). The caller must call Flush before it
// waits for anything.
func (c *Conn) NotifyPartsDeferred(ctx context.Context, method string, params ValidParts) error {
	return c.notify(ctx, method, params, true, true)
}

// Flush starts writing what NotifyPartsDeferred left queued; it never
// waits for the peer (QueueWriter.Flush).
func (c *Conn) Flush() {
	if c.fast != nil {
		c.fast.flush()
	}
}

// notify writes raw params on our stream, or hands them to jsonrpc2 on
// another one (or when they do not fit on one line).
func (c *Conn) notify(ctx context.Context, method string, parts [][]byte, trusted, deferred bool) error {
	if c.fast != nil {
		select {
		case <-c.rpc.DisconnectNotify():
			return fmt.Errorf("%s: %w", method, jsonrpc2.ErrClosed)
		default:
		}
		if c.onSend != nil {
			c.onSend(notifRequest(method, bytes.Join(parts, nil)), nil)
		}
		if done, err := c.fast.writeNotification(method, parts, trusted, deferred); done {
			if err != nil {
				return fmt.Errorf("%s: %w", method, err)
			}
			return nil
		}
	}
	// The general path takes one value.
	if err := c.rpc.Notify(ctx, method, json.RawMessage(bytes.Join(parts, nil))); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	return nil
}

// AfterReply may be returned by HandleRequest: Result is sent as the reply,
// then Then runs (on the request's goroutine), so a follow-up message is
// ordered after the reply on the wire.
type AfterReply struct {
	Result any
	Then   func()
}

type dispatcher struct {
	c *Conn
	h Handler
}

func params(req *jsonrpc2.Request) json.RawMessage {
	if req.Params == nil {
		return nil
	}
	return *req.Params
}

func notifRequest(method string, params json.RawMessage) *jsonrpc2.Request {
	return &jsonrpc2.Request{Method: method, Params: &params, Notif: true}
}

// wait holds the read loop until NewConn has finished and the gate opened.
func (d *dispatcher) wait(ctx context.Context) bool {
	<-d.c.ready
	if d.c.gate != nil {
		select {
		case <-d.c.gate:
		case <-ctx.Done():
			return false
		}
	}
	return true
}

// notification handles one notification inline, on the read loop.
func (d *dispatcher) notification(ctx context.Context, method string, params json.RawMessage) {
	if !d.wait(ctx) {
		return
	}
	if method == MethodCancelRequest {
		d.cancelRequest(params)
		return
	}
	d.h.HandleNotification(ctx, method, params)
}

// sessionUpdate handles a session/update the stream has already read.
func (d *dispatcher) sessionUpdate(ctx context.Context, u SessionUpdate) {
	h, ok := d.h.(SessionUpdateHandler)
	if !ok {
		d.notification(ctx, MethodSessionUpdate, u.Params)
		return
	}
	if !d.wait(ctx) {
		return
	}
	h.HandleSessionUpdate(ctx, u)
}

func (d *dispatcher) Handle(ctx context.Context, rpc *jsonrpc2.Conn, req *jsonrpc2.Request) {
	if req.Notif {
		d.notification(ctx, req.Method, params(req))
		return
	}
	if !d.wait(ctx) {
		return
	}
	if p, ok := d.h.(Preparer); ok {
		ctx = p.PrepareRequest(ctx, req.Method, params(req))
	}
	rctx, cancel := context.WithCancel(ctx)
	c := d.c
	if !c.begin(req.ID, cancel) {
		// The connection is closed: nobody can receive an answer.
		cancel()
		return
	}
	// The answer goes out once: when the handler returns, or, if it
	// returned Later, through the Reply it took (later.go).
	dfr := &deferral{}
	var answered atomic.Bool
	dfr.send = func(res any, err error) {
		if !answered.CompareAndSwap(false, true) {
			return
		}
		defer func() {
			c.end(req.ID)
			cancel()
		}()
		c.answer(rctx, rpc, req.ID, res, err)
	}
	rctx = context.WithValue(rctx, deferKey{}, dfr)
	go func() {
		res, err := d.safeHandle(rctx, req)
		if err == nil && res == Later {
			if dfr.taken.Load() {
				return // answered through the Reply, now or later
			}
			err = Errorf(CodeInternalError, "internal error: the handler of %s answered later without taking its reply", req.Method)
		}
		dfr.send(res, err)
	}()
}

// answer sends a handler's result or error as the answer to request id.
func (c *Conn) answer(ctx context.Context, rpc *jsonrpc2.Conn, id jsonrpc2.ID, res any, err error) {
	// Replies go out on a context that outlives the request's.
	rep := context.WithoutCancel(ctx)
	if err != nil {
		c.replyError(rep, rpc, id, ToRPCError(err))
		return
	}
	if ar, ok := res.(AfterReply); ok {
		if ar.Then != nil {
			defer ar.Then()
		}
		res = ar.Result
	}
	if res == nil {
		res = json.RawMessage("{}")
	}
	c.reply(rep, rpc, id, res)
}

// reply answers request id with res: on the fast path when the stream is
// ours (res marshalled once), else through jsonrpc2.
func (c *Conn) reply(ctx context.Context, rpc *jsonrpc2.Conn, id jsonrpc2.ID, res any) {
	if c.fast == nil {
		if err := rpc.Reply(ctx, id, res); err != nil {
			_ = rpc.ReplyWithError(ctx, id, ToRPCError(fmt.Errorf("encode result: %w", err)))
		}
		return
	}
	var b []byte
	if v, ok := res.(json.RawMessage); ok && jsonscan.Valid(v) {
		b = v
	}
	if b == nil || bytes.IndexByte(b, '\n') >= 0 {
		var err error
		if b, err = json.Marshal(res); err != nil {
			c.replyError(ctx, rpc, id, ToRPCError(fmt.Errorf("encode result: %w", err)))
			return
		}
	}
	if c.onSend != nil {
		raw := json.RawMessage(b)
		c.onSend(nil, &jsonrpc2.Response{ID: id, Result: &raw})
	}
	_ = c.fast.writeResponse(id, b, nil)
}

// replyError answers request id with an error.
func (c *Conn) replyError(ctx context.Context, rpc *jsonrpc2.Conn, id jsonrpc2.ID, e *jsonrpc2.Error) {
	if c.fast == nil {
		_ = rpc.ReplyWithError(ctx, id, e)
		return
	}
	b, err := json.Marshal(e)
	if err != nil {
		b = []byte(`{"code":-32603,"message":"unencodable error"}`)
	}
	if c.onSend != nil {
		c.onSend(nil, &jsonrpc2.Response{ID: id, Error: e})
	}
	_ = c.fast.writeResponse(id, nil, b)
}

func (d *dispatcher) safeHandle(ctx context.Context, req *jsonrpc2.Request) (res any, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = Errorf(CodeInternalError, "internal error handling %s: %v", req.Method, r)
		}
	}()
	return d.h.HandleRequest(ctx, req.Method, params(req))
}

func (d *dispatcher) cancelRequest(raw json.RawMessage) {
	var p struct {
		RequestID jsonrpc2.ID `json:"requestId"`
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return // unknown or malformed: ignore, as ACP says
	}
	d.c.mu.Lock()
	cancel := d.c.inflight[p.RequestID]
	d.c.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}
