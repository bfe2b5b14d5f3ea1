package chat

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/acp-bridge/acp-bridge/acp"
)

// AutoAnswer values.
const (
	AutoNone  = ""      // ask the person
	AutoAllow = "allow" // the first allow_once option (else allow_always, else a reject)
	AutoDeny  = "deny"  // the first reject_once option (else reject_always, else cancelled)
	AutoFirst = "first" // whatever option comes first
)

// maxGone bounds the memory of approvals resolved before their card existed.
const maxGone = 256

// setupTimeout bounds initialize and session/new (an npx agent can be slow).
var setupTimeout = 2 * time.Minute

// eofGrace is how long Run waits for a turn cancelled by the end of input.
var eofGrace = 5 * time.Second

// Options configures Run.
type Options struct {
	// Command and Args launch the agent: the bridge binary itself (no args:
	// serve on stdio) or any ACP agent.
	Command string
	Args    []string
	// Agent, when set, asks the bridge for that agent (session/new
	// _meta["acp-bridge"].agent). A plain agent ignores it.
	Agent string
	// Cwd is the session's working directory; "" means the current one.
	Cwd string
	// In is the person; Out is what they see. nil means os.Stdin / os.Stdout.
	In  io.Reader
	Out io.Writer
	// Logger receives diagnostics and the agent's stderr; nil discards them.
	Logger *zap.Logger
	// AutoAnswer answers permission cards without asking (for scripts and
	// tests): "allow", "deny" or "first". "" asks.
	AutoAnswer string
	// Interrupt delivers one value per Ctrl-C: the first cancels the running
	// turn, the next (or one while idle) ends the chat. nil means Run listens
	// for os.Interrupt itself (then the caller must not also end ctx on it).
	Interrupt <-chan os.Signal
}

// Run spawns the agent, opens a session and chats until the person quits
// (/quit, end of input, Ctrl-C while idle), ctx ends (ctx.Err()) or the agent
// exits (an error). The agent process is stopped before Run returns.
func Run(ctx context.Context, opts Options) error {
	if opts.Command == "" {
		return errors.New("chat: no agent command")
	}
	switch opts.AutoAnswer {
	case AutoNone, AutoAllow, AutoDeny, AutoFirst:
	default:
		return fmt.Errorf("chat: unknown auto-answer %q (want allow, deny or first)", opts.AutoAnswer)
	}
	if opts.In == nil {
		opts.In = os.Stdin
	}
	if opts.Out == nil {
		opts.Out = os.Stdout
	}
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	cwd := opts.Cwd
	if cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			return fmt.Errorf("chat: working directory: %w", err)
		}
		cwd = wd
	}
	cwd, err := filepath.Abs(cwd)
	if err != nil {
		return fmt.Errorf("chat: working directory %q: %w", opts.Cwd, err)
	}
	interrupts := opts.Interrupt
	if interrupts == nil {
		sig := make(chan os.Signal, 2)
		signal.Notify(sig, os.Interrupt)
		defer signal.Stop(sig)
		interrupts = sig
	}
	log := opts.Logger.Named("chat")

	ch, err := startChild(opts.Command, opts.Args, cwd, log.Named("agent"))
	if err != nil {
		return fmt.Errorf("chat: %w", err)
	}
	c := &chat{
		opts:    opts,
		log:     log,
		out:     newPrinter(opts.Out, isTerminal(opts.Out)),
		echo:    !(isTerminal(opts.In) && isTerminal(opts.Out)), // else the terminal echoes
		cwd:     cwd,
		tools:   map[string]*toolInfo{},
		pending: map[*card]struct{}{},
		mine:    map[string]bool{},
		gone:    map[string]string{},
		wake:    make(chan struct{}, 1),
	}
	// The conn outlives ctx so that shutdown can still be graceful.
	connCtx, connCancel := context.WithCancel(context.WithoutCancel(ctx))
	stream := acp.NewStream(ch.stdout, ch.stdin, closeFiles{ch.stdin, ch.stdout}, acp.StreamOptions{
		OnDrop: func(ev acp.StreamEvent) {
			log.Warn("agent wrote a line that is not a message", zap.String("kind", ev.Kind), zap.String("prefix", ev.Prefix))
		},
	})
	c.conn = acp.NewConn(connCtx, stream, c, acp.ConnOptions{
		Logf: func(format string, args ...any) { log.Debug(strings.TrimSpace(fmt.Sprintf(format, args...))) },
	})
	defer func() {
		c.shutdown()
		ch.stop()
		_ = c.conn.Close()
		connCancel()
		c.conn.Wait()
	}()

	lines := make(chan string)
	readerDone := make(chan struct{})
	defer close(readerDone)
	go readLines(opts.In, lines, readerDone)

	if err := c.setup(ctx); err != nil {
		if errors.Is(err, acp.ErrClosed) {
			// The agent left; say how.
			<-c.conn.Done()
			return fmt.Errorf("chat: %w: %w", err, ch.gone())
		}
		return fmt.Errorf("chat: %w", err)
	}
	l := &loop{c: c, lines: lines, linesOpen: true, interrupts: interrupts, child: ch}
	return l.run(ctx)
}

type closeFiles []*os.File

func (fs closeFiles) Close() error {
	for _, f := range fs {
		_ = f.Close()
	}
	return nil
}

// readLines sends In's lines (without line endings) until EOF, then closes out.
func readLines(in io.Reader, out chan<- string, done <-chan struct{}) {
	defer close(out)
	r := bufio.NewReader(in)
	for {
		s, err := r.ReadString('\n')
		if s != "" || err == nil {
			select {
			case out <- strings.TrimRight(s, "\r\n"):
			case <-done:
				return
			}
		}
		if err != nil {
			return
		}
	}
}

func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// chat is the client side of the connection plus what the loop shares with
// the connection's goroutines.
type chat struct {
	opts Options
	log  *zap.Logger
	out  *printer
	echo bool // echo the person's lines into Out (unless a terminal does)
	cwd  string
	conn *acp.Conn

	sessionID string   // set by setup, then read-only
	modeIDs   []string // set by setup, then read-only

	wake chan struct{} // a token after each new card

	mu        sync.Mutex
	tools     map[string]*toolInfo // by toolCallId
	mode      string               // current mode id
	commands  []string             // the agent's slash commands
	queue     []*card              // cards not shown yet, oldest first
	pending   map[*card]struct{}   // every card whose request is unanswered
	mine      map[string]bool      // approval ids answered here
	gone      map[string]string    // approval ids resolved before their request arrived, and how
	goneOrder []string             // gone's keys, oldest first (bounded by maxGone)
	closing   bool                 // shutting down: answer new requests cancelled
}

func (c *chat) setup(ctx context.Context) error {
	sctx, cancel := context.WithTimeout(ctx, setupTimeout)
	defer cancel()
	var init struct {
		ProtocolVersion int                 `json:"protocolVersion"`
		AgentInfo       *acp.Implementation `json:"agentInfo"`
		Meta            json.RawMessage     `json:"_meta"`
	}
	err := c.conn.Call(sctx, acp.MethodInitialize, acp.InitializeRequest{
		ProtocolVersion:    acp.ProtocolVersion,
		ClientCapabilities: acp.ClientCapabilities{},
		ClientInfo:         &acp.Implementation{Name: "acp-bridge-chat", Version: version()},
	}, &init)
	if err != nil {
		return callError(acp.MethodInitialize, err)
	}
	if init.ProtocolVersion != acp.ProtocolVersion {
		return fmt.Errorf("the agent speaks ACP protocol version %d; this chat speaks %d", init.ProtocolVersion, acp.ProtocolVersion)
	}
	name := "unnamed agent"
	if init.AgentInfo != nil {
		name = strings.TrimSpace(init.AgentInfo.Name + " " + init.AgentInfo.Version)
	}
	var bi struct {
		Agents []struct {
			ID string `json:"id"`
		} `json:"agents"`
		DefaultAgent string `json:"defaultAgent"`
	}
	_ = acp.BridgeMeta(acp.Object{"_meta": init.Meta}, &bi)

	params := acp.Object{}
	params.Set("cwd", c.cwd)
	params.Set("mcpServers", []any{})
	if c.opts.Agent != "" {
		acp.SetBridgeMeta(params, map[string]string{"agent": c.opts.Agent})
	}
	var sess struct {
		SessionID string                `json:"sessionId"`
		Modes     *acp.SessionModeState `json:"modes"`
		Meta      json.RawMessage       `json:"_meta"`
	}
	if err := c.conn.Call(sctx, acp.MethodSessionNew, params.Marshal(), &sess); err != nil {
		return callError(acp.MethodSessionNew, err)
	}
	if sess.SessionID == "" {
		return errors.New("session/new: the agent returned no sessionId")
	}
	var sm struct {
		Agent string `json:"agent"`
		Mode  string `json:"mode"`
	}
	_ = acp.BridgeMeta(acp.Object{"_meta": sess.Meta}, &sm)

	c.sessionID = sess.SessionID
	lines := []string{"agent: " + name}
	if len(bi.Agents) > 0 {
		ids := make([]string, len(bi.Agents))
		for i, a := range bi.Agents {
			ids[i] = a.ID
		}
		lines = append(lines, "agents: "+strings.Join(ids, ", "))
	}
	if sm.Agent != "" {
		lines = append(lines, "session agent: "+sm.Agent)
	}
	lines = append(lines, "session: "+sess.SessionID)
	if sess.Modes != nil {
		for _, m := range sess.Modes.AvailableModes {
			c.modeIDs = append(c.modeIDs, m.ID)
		}
		c.mu.Lock()
		c.mode = sess.Modes.CurrentModeID
		c.mu.Unlock()
		lines = append(lines, fmt.Sprintf("mode: %s (available: %s)", sess.Modes.CurrentModeID, strings.Join(c.modeIDs, ", ")))
	}
	if sm.Mode != "" {
		lines = append(lines, "policy mode: "+sm.Mode)
	}
	lines = append(lines, "Type a message; /help lists commands.")
	c.out.lines(styleDim, lines...)
	return nil
}

// callError names the method of a failed call: acp.Conn already does,
// except for an ended context.
func callError(method string, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%s: %w", method, err)
	}
	return err
}

var _ acp.Handler = (*chat)(nil)

// HandleNotification implements acp.Handler. It runs on the read loop.
func (c *chat) HandleNotification(_ context.Context, method string, params json.RawMessage) {
	switch method {
	case acp.MethodSessionUpdate:
		var n acp.SessionNotification
		if err := json.Unmarshal(params, &n); err != nil {
			c.log.Warn("bad session/update", zap.Error(err))
			return
		}
		c.render(n.Update)
	case acp.MethodApprovalResolved:
		c.resolved(params)
	default:
		c.log.Debug("ignoring notification", zap.String("method", method))
	}
}

// HandleRequest implements acp.Handler. Each request runs in its own goroutine.
func (c *chat) HandleRequest(ctx context.Context, method string, params json.RawMessage) (any, error) {
	if method != acp.MethodRequestPermission {
		// fs/* and terminal/* were not offered.
		return nil, acp.MethodNotFound(method)
	}
	var req acp.RequestPermissionRequest
	if err := json.Unmarshal(params, &req); err != nil {
		return nil, acp.InvalidParams(method, err)
	}
	if err := req.Validate(); err != nil {
		return nil, acp.InvalidParams(method, err)
	}
	obj, err := acp.ParseObject(params)
	if err != nil {
		return nil, acp.InvalidParams(method, err)
	}
	cd := &card{req: req, done: make(chan struct{})}
	if err := acp.BridgeMeta(obj, &cd.meta); err != nil {
		c.log.Warn("unreadable _meta in a permission request", zap.Error(err))
	}
	var id struct {
		ToolCallID string `json:"toolCallId"`
	}
	_ = json.Unmarshal(req.ToolCall, &id)
	cd.toolCallID = id.ToolCallID

	c.mu.Lock()
	if c.closing {
		c.mu.Unlock()
		return acp.Cancelled(), nil
	}
	t := toolInfo{}
	if known := c.tools[cd.toolCallID]; known != nil {
		t = *known
	}
	t.merge(req.ToolCall)
	cd.tool = &t
	if _, ok := c.gone[cd.meta.ApprovalID]; ok && cd.meta.ApprovalID != "" {
		// The bridge said it was resolved before the request got here.
		delete(c.gone, cd.meta.ApprovalID)
		c.mu.Unlock()
		return acp.Cancelled(), nil
	}
	c.queue = append(c.queue, cd)
	c.pending[cd] = struct{}{}
	c.mu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}

	select {
	case <-cd.done:
	case <-ctx.Done():
		// The agent withdrew it ($/cancel_request) or the connection closed.
		cd.resolve(acp.Cancelled(), "withdrawn by the agent")
	}
	c.mu.Lock()
	delete(c.pending, cd)
	c.mu.Unlock()
	return cd.resp, nil
}

// card is one permission request waiting for an answer.
type card struct {
	req        acp.RequestPermissionRequest
	meta       bridgeInfo
	toolCallID string
	tool       *toolInfo // the request's toolCall merged over what was seen of it

	once sync.Once
	done chan struct{} // closed when resolved
	resp acp.RequestPermissionResponse
	how  string // how it was resolved, when not by the person here
}

// resolve answers the card; only the first call counts.
func (cd *card) resolve(resp acp.RequestPermissionResponse, how string) bool {
	first := false
	cd.once.Do(func() {
		cd.resp, cd.how = resp, how
		close(cd.done)
		first = true
	})
	return first
}

func (cd *card) resolved() bool {
	select {
	case <-cd.done:
		return true
	default:
		return false
	}
}

// popCard takes the oldest unresolved card off the queue.
func (c *chat) popCard() *card {
	c.mu.Lock()
	defer c.mu.Unlock()
	for len(c.queue) > 0 {
		cd := c.queue[0]
		c.queue = c.queue[1:]
		if !cd.resolved() {
			return cd
		}
	}
	return nil
}

// cancelCards answers every unanswered card "cancelled" (ACP's rule after
// session/cancel).
func (c *chat) cancelCards(how string) {
	c.mu.Lock()
	cards := make([]*card, 0, len(c.pending))
	for cd := range c.pending {
		cards = append(cards, cd)
	}
	c.queue = nil
	c.mu.Unlock()
	for _, cd := range cards {
		cd.resolve(acp.Cancelled(), how)
	}
}

// shutdown answers whatever is pending and refuses what comes next.
func (c *chat) shutdown() {
	c.mu.Lock()
	c.closing = true
	c.mu.Unlock()
	c.cancelCards("chat closed")
}
