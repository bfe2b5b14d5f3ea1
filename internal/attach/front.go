package attach

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/acp-bridge/acp-bridge/acp"
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
	CodeBadToken = acp.CodeBadToken
	// CodeAlreadyAttached: another editor is attached; one at a time.
	CodeAlreadyAttached = acp.CodeAlreadyAttached
	// CodeTooManyPending answers, to the bridge, a request of its past the
	// bound on what the front keeps unanswered (Options.PendingRequests, PendingBytes).
	CodeTooManyPending = acp.CodeTooManyPending

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
	// bridgeLineSlack is how much longer than MaxLineBytes a line of the
	// bridge may be: what it relays from an agent (bounded by the same
	// MaxLineBytes) with the bridge's own envelope and _meta around it.
	bridgeLineSlack = 1 << 20
	// queueBytes bounds what waits to be written to the bridge or to an
	// editor: past it the writer waits (back-pressure, as a pipe would).
	queueBytes = 4 << 20
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
	// MaxLineBytes bounds a line of an editor, as the bridge's own stdio
	// does (settings' maxLineBytes; 0 = acp.DefaultMaxLineBytes). An
	// editor's line past it is answered exactly as the bridge's stdio
	// answers it (acp.LineReader).
	MaxLineBytes int
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

	toBridge   *acp.QueueWriter // the bridge's input, in order (closing it ends the bridge)
	fromBridge io.Reader

	mu         sync.Mutex
	cur        *client // the attached editor; nil while detached
	attaching  bool    // an attach is between its checks and its answer
	nextID     int64
	inflight   map[int64]*fwdReq          // editor requests at the bridge, by our id
	internal   map[int64]chan acp.Message // our own requests at the bridge
	pending    []pendingReq               // bridge requests the editor has not answered, oldest first
	pendBytes  int                        // the bytes of their lines
	buf        [][]byte                   // notifications kept while detached
	bufBytes   int
	dropped    map[string]int  // session/update dropped past the bound, by session
	initResult json.RawMessage // the bridge's initialize answer (for a re-attached editor)
	detachedAt time.Time
	grace      *time.Timer
	expired    chan struct{} // closed when the grace period ran out
	expireOnce sync.Once
	closed     bool
}

// client is one attached (or attaching) editor. Its lines are written
// through one acp.QueueWriter, in the order they are handed to it, and the
// answers the engine gives its bad lines go through the same queue.
type client struct {
	name string
	q    *acp.QueueWriter
	stop func()
}

func (c *client) write(line []byte) error {
	if len(line) == 0 || line[len(line)-1] != '\n' {
		line = append(line[:len(line):len(line)], '\n')
	}
	_, err := c.q.Write(line)
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
	if opts.MaxLineBytes <= 0 {
		opts.MaxLineBytes = acp.DefaultMaxLineBytes
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
		toBridge: acp.NewBoundedQueueWriter(toBridge, toBridge, queueBytes), fromBridge: fromBridge,
		inflight: map[int64]*fwdReq{}, internal: map[int64]chan acp.Message{}, dropped: map[string]int{},
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
	var stdio *client
	if firstIn != nil {
		q := acp.NewBoundedQueueWriter(firstOut, nil, queueBytes)
		stdio = &client{name: "stdio", q: q, stop: func() { _ = q.Close() }}
		f.mu.Lock()
		f.cur = stdio
		f.mu.Unlock()
		go f.readClient(stdio, f.editorReader(firstIn, stdio, nil))
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
	if stdio != nil {
		// What was queued for the first editor (the bridge's last words)
		// goes out before Serve returns and the process exits.
		_ = stdio.q.Close()
		t := time.NewTimer(5 * time.Second)
		defer t.Stop()
		select {
		case <-stdio.q.Done():
		case <-t.C:
			stdio.q.Abort()
		}
	}
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
	// What is queued for the bridge goes first, then its input ends; a
	// bridge that stopped reading gets its input closed all the same.
	_ = f.toBridge.Close()
	go func() {
		t := time.NewTimer(5 * time.Second)
		defer t.Stop()
		select {
		case <-f.toBridge.Done():
		case <-t.C:
			f.toBridge.Abort()
		}
	}()
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
