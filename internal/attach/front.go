package attach

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/acp-bridge/acp-bridge/wire"
)

// Methods and codes of the attach protocol (docs/extension-surface.md, "Re-attaching").
const (
	// MethodAttach is the first request on the socket: {token} -> the state.
	MethodAttach = wire.Attach
	// MethodTurnEnded (notification, bridge -> editor): a session/prompt whose
	// editor went away ended; {sessionId, stopReason?, error?}.
	MethodTurnEnded = wire.TurnEnded
	// methodSessionsLive is asked of the bridge at each attach (bridge.MethodSessionsLive).
	methodSessionsLive = wire.SessionsLive

	// CodeBadToken: the attach token is wrong (or missing). Not -32001,
	// which is a refused fs/terminal request (wire.Errors).
	CodeBadToken = wire.CodeBadToken
	// CodeAlreadyAttached: another editor is attached; one at a time.
	CodeAlreadyAttached = wire.CodeAlreadyAttached
	// CodeTooManyPending answers, to the bridge, a request of its past the
	// bound on what the front keeps unanswered (Options.PendingRequests, PendingBytes).
	CodeTooManyPending = wire.CodeTooManyRequests

	// DefaultGrace is how long a bridge with no editor keeps running.
	DefaultGrace = 2 * time.Minute
	// DefaultBufferBytes bounds what is kept for the next editor while none is attached.
	DefaultBufferBytes = 4 << 20
	// DefaultPendingRequests and DefaultPendingBytes bound the bridge's
	// requests kept unanswered (to send again to a re-attached editor).
	DefaultPendingRequests = 1024
	DefaultPendingBytes    = 32 << 20
	// maxAttachLine bounds the first line of an unauthenticated socket client.
	maxAttachLine = 64 << 10
	// maxLine bounds any line of an attached client.
	maxLine = 64 << 20
)

// Options configure a Front.
type Options struct {
	// Dir is the socket's directory: created 0700 if missing; if it exists
	// it must be a directory (not a link) owned by this user with no access
	// for group or others.
	Dir string
	// Grace is how long the bridge lives with no editor attached (0 = DefaultGrace).
	Grace time.Duration
	// BufferBytes bounds the updates kept while detached (0 = DefaultBufferBytes).
	BufferBytes int
	// PendingRequests and PendingBytes bound the bridge's unanswered
	// requests the front keeps (0 = DefaultPendingRequests, DefaultPendingBytes).
	// Past either, a request other than session/request_permission is
	// answered to the bridge with CodeTooManyPending instead of being kept
	// (a permission request is always kept: the bridge bounds how many each
	// agent has in flight, and its card must survive a reload).
	PendingRequests int
	PendingBytes    int
	// Token is the attach token; "" = 32 random bytes, hex.
	Token  string
	Logger *zap.Logger
	// Now is the clock (tests); nil = time.Now.
	Now func() time.Time
}

// Front sits between the bridge (an ACP agent on a pair of pipes) and at
// most one editor at a time: the one that started the bridge (stdio), then
// any editor that re-attaches over the Unix socket with the token. See doc.go.
type Front struct {
	opts     Options
	log      *zap.Logger
	token    string
	sockPath string
	ln       *net.UnixListener

	toBridge   io.WriteCloser
	fromBridge io.Reader

	mu         sync.Mutex
	cur        *client // the attached editor; nil while detached
	attaching  bool    // an attach is between its checks and its answer
	nextID     int64
	inflight   map[int64]*fwdReq     // editor requests at the bridge, by our id
	internal   map[int64]chan rpcMsg // our own requests at the bridge
	pending    []pendingReq          // bridge requests the editor has not answered, oldest first
	pendBytes  int                   // the bytes of their lines
	buf        [][]byte              // notifications kept while detached
	bufBytes   int
	dropped    map[string]int  // session/update dropped past the bound, by session
	initResult json.RawMessage // the bridge's initialize answer (for a re-attached editor)
	detachedAt time.Time
	grace      *time.Timer
	expired    chan struct{} // closed when the grace period ran out
	expireOnce sync.Once
	closed     bool
}

type client struct {
	name string
	wmu  sync.Mutex
	w    io.Writer
	stop func()
}

func (c *client) write(line []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if len(line) == 0 || line[len(line)-1] != '\n' {
		line = append(line[:len(line):len(line)], '\n')
	}
	_, err := c.w.Write(line)
	return err
}

type fwdReq struct {
	c         *client
	id        json.RawMessage // the editor's id
	method    string
	sessionID string
	initDone  bool
}

type pendingReq struct {
	key  string // the bridge's id, as JSON
	line []byte
}

// rpcMsg is what the front reads of a JSON-RPC message.
type rpcMsg struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
}

func (m *rpcMsg) hasID() bool { return len(m.ID) > 0 && string(m.ID) != "null" }

// New makes the socket directory and the listening socket. toBridge and
// fromBridge are the bridge's input and output (Bridge.Serve's in and out).
func New(opts Options, toBridge io.WriteCloser, fromBridge io.Reader) (*Front, error) {
	if opts.Grace <= 0 {
		opts.Grace = DefaultGrace
	}
	if opts.BufferBytes <= 0 {
		opts.BufferBytes = DefaultBufferBytes
	}
	if opts.PendingRequests <= 0 {
		opts.PendingRequests = DefaultPendingRequests
	}
	if opts.PendingBytes <= 0 {
		opts.PendingBytes = DefaultPendingBytes
	}
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Token == "" {
		b := make([]byte, 32)
		if _, err := rand.Read(b); err != nil {
			return nil, fmt.Errorf("attach token: %w", err)
		}
		opts.Token = hex.EncodeToString(b)
	}
	if err := secureDir(opts.Dir); err != nil {
		return nil, err
	}
	sock := filepath.Join(opts.Dir, "bridge-"+strconv.Itoa(os.Getpid())+".sock")
	_ = os.Remove(sock) // a stale socket of a dead process with our pid
	ln, err := listenUnix(sock)
	if err != nil {
		return nil, err
	}
	return &Front{
		opts: opts, log: opts.Logger, token: opts.Token, sockPath: sock, ln: ln,
		toBridge: toBridge, fromBridge: fromBridge,
		inflight: map[int64]*fwdReq{}, internal: map[int64]chan rpcMsg{}, dropped: map[string]int{},
		expired: make(chan struct{}),
	}, nil
}

// SocketPath is the socket editors re-attach to.
func (f *Front) SocketPath() string { return f.sockPath }

// Token is the attach token (handed to the first editor in initialize's answer).
func (f *Front) Token() string { return f.token }

// Expired is closed when the bridge has had no editor for the grace period.
func (f *Front) Expired() <-chan struct{} { return f.expired }

// secureDir makes dir 0700, or checks an existing one is a directory of
// ours that no one else can enter.
func secureDir(dir string) error {
	if dir == "" || !filepath.IsAbs(dir) {
		return fmt.Errorf("attach directory must be an absolute path, got %q", dir)
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return fmt.Errorf("attach directory: %w", err)
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("attach directory: %w", err)
	}
	return checkDir(dir)
}

// Serve runs the front: the bridge's output loop, the socket, and the first
// editor on first (stdio). It returns when the bridge's output ends.
func (f *Front) Serve(ctx context.Context, firstIn io.Reader, firstOut io.Writer) {
	go f.acceptLoop()
	if firstIn != nil {
		c := &client{name: "stdio", w: firstOut, stop: func() {}}
		f.mu.Lock()
		f.cur = c
		f.mu.Unlock()
		go f.readClient(c, bufio.NewReaderSize(firstIn, 64<<10))
	} else {
		f.mu.Lock()
		f.startGraceLocked()
		f.mu.Unlock()
	}
	go func() {
		select {
		case <-ctx.Done():
			f.Close()
		case <-f.expired:
		}
	}()
	f.readBridge()
	f.Close()
}

// Close stops listening, removes the socket and ends the bridge's input.
func (f *Front) Close() {
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return
	}
	f.closed = true
	if f.grace != nil {
		f.grace.Stop()
	}
	cur := f.cur
	f.mu.Unlock()
	_ = f.ln.Close()
	_ = os.Remove(f.sockPath)
	_ = f.toBridge.Close()
	if cur != nil {
		cur.stop()
	}
}

func (f *Front) startGraceLocked() {
	f.detachedAt = f.opts.Now()
	if f.grace != nil {
		f.grace.Stop()
	}
	f.grace = time.AfterFunc(f.opts.Grace, func() {
		f.mu.Lock()
		if f.cur != nil || f.attaching || f.closed {
			f.mu.Unlock()
			return
		}
		f.mu.Unlock()
		f.log.Info("no editor re-attached within the grace period; stopping the bridge", zap.Duration("grace", f.opts.Grace))
		f.expireOnce.Do(func() { close(f.expired) })
		f.Close()
	})
}

// ---- the bridge's side ------------------------------------------------------

func (f *Front) writeBridge(line []byte) {
	if len(line) == 0 || line[len(line)-1] != '\n' {
		line = append(line[:len(line):len(line)], '\n')
	}
	if _, err := f.toBridge.Write(line); err != nil {
		f.log.Debug("write to the bridge failed", zap.Error(err))
	}
}

func (f *Front) readBridge() {
	r := bufio.NewReaderSize(f.fromBridge, 64<<10)
	for {
		line, err := r.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			f.fromBridgeLine(line)
		}
		if err != nil {
			return
		}
	}
}

func (f *Front) fromBridgeLine(line []byte) {
	var m rpcMsg
	if err := json.Unmarshal(line, &m); err != nil {
		f.log.Warn("unreadable line from the bridge", zap.Error(err))
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case m.Method == "" && len(m.ID) > 0: // a response
		n, err := strconv.ParseInt(string(m.ID), 10, 64)
		if err != nil { // null id (a bad line's error): to whoever is there
			if f.cur != nil {
				_ = f.cur.write(line)
			}
			return
		}
		if ch, ok := f.internal[n]; ok {
			delete(f.internal, n)
			ch <- m
			return
		}
		req, ok := f.inflight[n]
		if !ok {
			return
		}
		delete(f.inflight, n)
		if req.method == "initialize" && len(m.Result) > 0 {
			f.initResult = append(json.RawMessage(nil), m.Result...)
		}
		if req.c == f.cur && f.cur != nil {
			if req.method == "initialize" && len(m.Result) > 0 {
				m.Result = f.withAttachMeta(m.Result)
			}
			m.ID = req.id
			out, _ := json.Marshal(withVersion(m))
			_ = f.cur.write(out)
			return
		}
		if req.method == "session/prompt" {
			// The turn ended with no one to hear it: tell the next editor.
			p := map[string]any{"sessionId": req.sessionID}
			var res struct {
				StopReason string `json:"stopReason"`
			}
			if len(m.Result) > 0 && json.Unmarshal(m.Result, &res) == nil && res.StopReason != "" {
				p["stopReason"] = res.StopReason
			}
			if len(m.Error) > 0 {
				p["error"] = json.RawMessage(m.Error)
			}
			out, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": MethodTurnEnded, "params": p})
			f.sendLocked(out, true) // MethodTurnEnded is one of the bridge's own notices
		}
	case m.Method != "" && m.hasID(): // a request to the editor
		if m.Method != "session/request_permission" &&
			(len(f.pending) >= f.opts.PendingRequests || f.pendBytes+len(line) > f.opts.PendingBytes) {
			f.refuseLocked(m, len(line))
			return
		}
		f.pending = append(f.pending, pendingReq{key: string(m.ID), line: append([]byte(nil), line...)})
		f.pendBytes += len(line)
		if f.cur != nil {
			_ = f.cur.write(line)
		}
	case m.Method == "$/cancel_request":
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		_ = json.Unmarshal(m.Params, &p)
		f.dropPendingLocked(string(p.RequestID))
		if f.cur != nil {
			_ = f.cur.write(line)
		}
	case m.Method != "":
		f.sendLocked(line, strings.HasPrefix(m.Method, bridgeNotice))
	}
}

// bridgeNotice prefixes the methods of the bridge's own notifications
// (agents' extension methods never use it: the bridge does not pass them).
const bridgeNotice = wire.Prefix

// refuseLocked answers the bridge's request m (of size bytes) with
// CodeTooManyPending: the front keeps no more. The answer is written off
// this goroutine (the bridge's output loop), which must not wait on the
// bridge's input.
func (f *Front) refuseLocked(m rpcMsg, size int) {
	f.log.Warn("too many of the bridge's requests waiting for an editor; refused",
		zap.String("method", m.Method), zap.Int("pending", len(f.pending)), zap.Int("pendingBytes", f.pendBytes), zap.Int("size", size))
	state := "the editor has not answered them"
	if f.cur == nil {
		state = "no editor is attached"
	}
	msg := fmt.Sprintf("%s: too many requests waiting for the editor (at most %d, or %d MiB; %s): refused",
		m.Method, f.opts.PendingRequests, f.opts.PendingBytes>>20, state)
	out := errorLine(m.ID, CodeTooManyPending, msg)
	go f.writeBridge(out)
}

// sendLocked sends a notification to the editor, or keeps it while none is
// attached. own marks the bridge's own notices (_acp-bridge/*); everything
// else (session/update, whatever an agent originated) is dropped past
// BufferBytes, counted per session and reported at attach; the bridge's
// own notices are kept up to twice the bound.
func (f *Front) sendLocked(line []byte, own bool) {
	if f.cur != nil {
		_ = f.cur.write(line)
		return
	}
	limit := f.opts.BufferBytes
	if own {
		limit *= 2
	}
	if f.bufBytes+len(line) > limit {
		sid := "?"
		var m rpcMsg
		if json.Unmarshal(line, &m) == nil {
			var p struct {
				SessionID string `json:"sessionId"`
			}
			_ = json.Unmarshal(m.Params, &p)
			if p.SessionID != "" {
				sid = p.SessionID
			}
		}
		f.dropped[sid]++
		return
	}
	f.buf = append(f.buf, append([]byte(nil), line...))
	f.bufBytes += len(line)
}

func (f *Front) dropPendingLocked(key string) {
	for i, p := range f.pending {
		if p.key == key {
			f.pendBytes -= len(p.line)
			f.pending = append(f.pending[:i:i], f.pending[i+1:]...)
			return
		}
	}
}

// withAttachMeta adds {socket, token} under _meta["acp-bridge"].attach of the
// initialize answer the stdio editor gets (and only it: the token never
// reaches a socket client, which already has it).
func (f *Front) withAttachMeta(res json.RawMessage) json.RawMessage {
	var o map[string]json.RawMessage
	if json.Unmarshal(res, &o) != nil {
		return res
	}
	var meta map[string]json.RawMessage
	_ = json.Unmarshal(o["_meta"], &meta)
	if meta == nil {
		meta = map[string]json.RawMessage{}
	}
	var ab map[string]json.RawMessage
	_ = json.Unmarshal(meta["acp-bridge"], &ab)
	if ab == nil {
		ab = map[string]json.RawMessage{}
	}
	if f.cur != nil && f.cur.name == "stdio" {
		ab["attach"], _ = json.Marshal(map[string]any{"socket": f.sockPath, "token": f.token, "pid": os.Getpid(), "graceSeconds": int(f.opts.Grace / time.Second)})
	} else {
		ab["attached"] = json.RawMessage("true")
	}
	meta["acp-bridge"], _ = json.Marshal(ab)
	o["_meta"], _ = json.Marshal(meta)
	out, err := json.Marshal(o)
	if err != nil {
		return res
	}
	return out
}

func withVersion(m rpcMsg) map[string]any {
	out := map[string]any{"jsonrpc": "2.0"}
	if len(m.ID) > 0 {
		out["id"] = m.ID
	}
	if m.Method != "" {
		out["method"] = m.Method
	}
	if len(m.Params) > 0 {
		out["params"] = m.Params
	}
	if len(m.Result) > 0 {
		out["result"] = m.Result
	}
	if len(m.Error) > 0 {
		out["error"] = m.Error
	}
	return out
}

// ---- the editor's side ------------------------------------------------------

func (f *Front) readClient(c *client, r *bufio.Reader) {
	defer f.detach(c)
	for {
		line, err := readLine(r, maxLine)
		if len(bytes.TrimSpace(line)) > 0 {
			f.fromClientLine(c, line)
		}
		if err != nil {
			return
		}
	}
}

// readLine reads one line of at most max bytes.
func readLine(r *bufio.Reader, max int) ([]byte, error) {
	var out []byte
	for {
		chunk, err := r.ReadSlice('\n')
		out = append(out, chunk...)
		if len(out) > max {
			return nil, fmt.Errorf("line longer than %d bytes", max)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return out, err
	}
}

func (f *Front) detach(c *client) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.cur != c {
		return
	}
	f.cur = nil
	c.stop()
	if f.closed {
		return
	}
	f.log.Info("editor detached; the bridge keeps its sessions for the grace period", zap.String("editor", c.name), zap.Duration("grace", f.opts.Grace))
	f.startGraceLocked()
}

func (f *Front) fromClientLine(c *client, line []byte) {
	var m rpcMsg
	if err := json.Unmarshal(line, &m); err != nil {
		f.writeBridge(line) // the bridge answers -32700
		return
	}
	f.mu.Lock()
	if f.cur != c { // a detached client's late line
		f.mu.Unlock()
		return
	}
	switch {
	case m.Method != "" && m.hasID():
		if m.Method == MethodAttach {
			f.mu.Unlock()
			_ = c.write(errorLine(m.ID, CodeAlreadyAttached, "this connection is already attached"))
			return
		}
		if m.Method == "initialize" && f.initResult != nil {
			res := f.withAttachMeta(f.initResult)
			f.mu.Unlock()
			out, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": res})
			_ = c.write(out)
			return
		}
		f.nextID++
		n := f.nextID
		var p struct {
			SessionID string `json:"sessionId"`
		}
		_ = json.Unmarshal(m.Params, &p)
		f.inflight[n] = &fwdReq{c: c, id: append(json.RawMessage(nil), m.ID...), method: m.Method, sessionID: p.SessionID}
		m.ID = json.RawMessage(strconv.FormatInt(n, 10))
		out, _ := json.Marshal(withVersion(m))
		f.mu.Unlock()
		f.writeBridge(out)
	case m.Method != "": // a notification
		f.mu.Unlock()
		f.writeBridge(line)
	default: // an answer to one of the bridge's requests
		key := string(m.ID)
		found := false
		for _, p := range f.pending {
			if p.key == key {
				found = true
				break
			}
		}
		f.dropPendingLocked(key)
		f.mu.Unlock()
		if found {
			f.writeBridge(line)
		} else {
			f.log.Debug("answer to no pending request dropped", zap.String("id", key))
		}
	}
}

func errorLine(id json.RawMessage, code int, msg string) []byte {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	out, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}})
	return out
}

// ---- the socket ---------------------------------------------------------------

func (f *Front) acceptLoop() {
	for {
		conn, err := f.ln.AcceptUnix()
		if err != nil {
			return
		}
		go f.handshake(conn)
	}
}

// handshake checks the peer's uid and the token, then attaches.
func (f *Front) handshake(conn *net.UnixConn) {
	if err := checkPeer(conn); err != nil {
		f.log.Warn("attach refused", zap.Error(err))
		_ = conn.Close()
		return
	}
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	r := bufio.NewReaderSize(conn, 64<<10)
	line, err := readLine(r, maxAttachLine)
	if err != nil && len(line) == 0 {
		_ = conn.Close()
		return
	}
	_ = conn.SetReadDeadline(time.Time{})
	var m rpcMsg
	if json.Unmarshal(line, &m) != nil || m.Method != MethodAttach || !m.hasID() {
		_, _ = conn.Write(append(errorLine(m.ID, -32600, "the first message must be the "+MethodAttach+" request"), '\n'))
		_ = conn.Close()
		return
	}
	var p struct {
		Token string `json:"token"`
	}
	_ = json.Unmarshal(m.Params, &p)
	if subtle.ConstantTimeCompare([]byte(p.Token), []byte(f.token)) != 1 {
		f.log.Warn("attach refused: wrong token")
		_, _ = conn.Write(append(errorLine(m.ID, CodeBadToken, "attach refused: wrong token"), '\n'))
		_ = conn.Close()
		return
	}
	f.mu.Lock()
	if f.cur != nil || f.attaching || f.closed {
		who := "another editor is attaching"
		if f.cur != nil {
			who = "another editor (" + f.cur.name + ") is attached"
		}
		f.mu.Unlock()
		f.log.Warn("attach refused: " + who)
		_, _ = conn.Write(append(errorLine(m.ID, CodeAlreadyAttached, "attach refused: "+who+"; only one editor at a time"), '\n'))
		_ = conn.Close()
		return
	}
	f.attaching = true
	f.mu.Unlock()

	sessions, err := f.call(methodSessionsLive, 10*time.Second)
	c := &client{name: "socket", w: conn, stop: func() { _ = conn.Close() }}

	f.mu.Lock()
	f.attaching = false
	if f.closed {
		f.mu.Unlock()
		_, _ = conn.Write(append(errorLine(m.ID, -32603, "the bridge is stopping"), '\n'))
		_ = conn.Close()
		return
	}
	if f.grace != nil {
		f.grace.Stop()
	}
	res := map[string]any{
		"initialized":      f.initResult != nil,
		"buffered":         len(f.buf),
		"pendingRequests":  len(f.pending),
		"detachedSeconds":  int(f.opts.Now().Sub(f.detachedAt) / time.Second),
		"droppedBySession": f.dropped,
		"sessions":         []any{},
	}
	if err == nil && len(sessions.Result) > 0 {
		var s struct {
			Sessions json.RawMessage `json:"sessions"`
		}
		if json.Unmarshal(sessions.Result, &s) == nil && len(s.Sessions) > 0 {
			res["sessions"] = s.Sessions
		}
	}
	out, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": res})
	werr := c.write(out)
	// What was kept, then every unanswered request again, with the same ids.
	for _, l := range f.buf {
		if werr == nil {
			werr = c.write(l)
		}
	}
	for _, p := range f.pending {
		if werr == nil {
			werr = c.write(p.line)
		}
	}
	if werr != nil {
		f.startGraceLocked()
		f.mu.Unlock()
		_ = conn.Close()
		return
	}
	f.log.Info("editor re-attached", zap.Int("buffered", len(f.buf)), zap.Int("pendingRequests", len(f.pending)))
	f.buf, f.bufBytes, f.dropped = nil, 0, map[string]int{}
	f.cur = c
	f.mu.Unlock()
	f.readClient(c, r)
}

// call sends a request of the front's own to the bridge and waits for its answer.
func (f *Front) call(method string, timeout time.Duration) (rpcMsg, error) {
	f.mu.Lock()
	f.nextID++
	n := f.nextID
	ch := make(chan rpcMsg, 1)
	f.internal[n] = ch
	f.mu.Unlock()
	out, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": n, "method": method, "params": map[string]any{}})
	f.writeBridge(out)
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case m := <-ch:
		if len(m.Error) > 0 {
			return m, fmt.Errorf("%s: %s", method, m.Error)
		}
		return m, nil
	case <-t.C:
		f.mu.Lock()
		delete(f.internal, n)
		f.mu.Unlock()
		return rpcMsg{}, fmt.Errorf("%s: no answer within %s", method, timeout)
	}
}
