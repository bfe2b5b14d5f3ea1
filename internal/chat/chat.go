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
	"slices"
	"strconv"
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

// render prints one session update. Unknown kinds are ignored.
func (c *chat) render(update json.RawMessage) {
	kind := acp.UpdateKind(update)
	switch kind {
	case "agent_message_chunk", "agent_thought_chunk":
		var u struct {
			Content struct {
				Type string `json:"type"`
				Text string `json:"text"`
				URI  string `json:"uri"`
			} `json:"content"`
		}
		if json.Unmarshal(update, &u) != nil {
			return
		}
		text := u.Content.Text
		if u.Content.Type != "text" {
			text = "[" + u.Content.Type + " " + u.Content.URI + "]"
		}
		if kind == "agent_thought_chunk" {
			c.out.chunk("thought", text)
		} else {
			c.out.chunk("message", text)
		}
	case "tool_call", "tool_call_update":
		c.renderTool(kind, update)
	case "plan":
		c.out.lines(styleNone, planLines(update)...)
	case "current_mode_update":
		var u struct {
			CurrentModeID string `json:"currentModeId"`
		}
		_ = json.Unmarshal(update, &u)
		c.mu.Lock()
		c.mode = u.CurrentModeID
		c.mu.Unlock()
		c.out.lines(styleDim, "[mode] "+u.CurrentModeID)
	case "available_commands_update":
		var u struct {
			AvailableCommands []struct {
				Name string `json:"name"`
			} `json:"availableCommands"`
		}
		_ = json.Unmarshal(update, &u)
		var names []string
		for _, cmd := range u.AvailableCommands {
			names = append(names, cmd.Name)
		}
		c.mu.Lock()
		c.commands = names
		c.mu.Unlock()
	case "session_info_update":
		var u struct {
			Title *string `json:"title"`
		}
		if json.Unmarshal(update, &u) == nil && u.Title != nil && *u.Title != "" {
			c.out.lines(styleDim, "[title] "+*u.Title)
		}
	case "notice":
		var u struct {
			Severity    string `json:"severity"`
			Title       string `json:"title"`
			Description string `json:"description"`
		}
		_ = json.Unmarshal(update, &u)
		c.out.lines(styleDim, strings.TrimSpace("[notice] "+u.Title+" "+u.Description))
	default:
		c.log.Debug("ignoring session update", zap.String("sessionUpdate", kind))
	}
}

func (c *chat) renderTool(kind string, update json.RawMessage) {
	var id struct {
		ToolCallID string `json:"toolCallId"`
		Status     string `json:"status"`
		Content    json.RawMessage
	}
	if json.Unmarshal(update, &id) != nil || id.ToolCallID == "" {
		return
	}
	c.mu.Lock()
	t := c.tools[id.ToolCallID]
	fresh := t == nil
	if fresh {
		t = &toolInfo{}
		c.tools[id.ToolCallID] = t
	}
	before := t.Status
	t.merge(update)
	title, status := t.Title, t.Status
	c.mu.Unlock()
	if status == "" {
		status = "pending"
	}
	if title == "" {
		title = id.ToolCallID
	}
	var ls []string
	head := styleNone
	// A tool_call is an upsert (Claude sends two): print it once, then
	// only status changes.
	if fresh || (id.Status != "" && status != before) {
		ls = append(ls, fmt.Sprintf("[tool] %s (%s)", title, status))
		head = styleTool
	}
	if kind == "tool_call_update" && len(id.Content) > 0 {
		ls = append(ls, contentLines(id.Content, "    ")...)
	}
	if len(ls) > 0 {
		c.out.block(head, styleNone, ls...)
	}
}

// resolved handles _acp-bridge/approval/resolved: a quiet line, and a card
// that was resolved elsewhere closes.
func (c *chat) resolved(params json.RawMessage) {
	var r struct {
		ApprovalID string `json:"approvalId"`
		Decision   string `json:"decision"`
		By         string `json:"by"`
		Rule       string `json:"rule"`
		Specifier  string `json:"specifier"`
		Reason     string `json:"reason"`
	}
	if err := json.Unmarshal(params, &r); err != nil {
		c.log.Warn("bad approval/resolved", zap.Error(err))
		return
	}
	verb := map[string]string{"allow": "allowed", "deny": "denied", "cancelled": "cancelled"}[r.Decision]
	if verb == "" {
		verb = r.Decision
	}
	how := verb
	switch {
	case r.By == "rule" && r.Rule != "":
		how += " by rule " + r.Rule
	case r.By != "":
		how += " by " + r.By
	}
	c.mu.Lock()
	mine := c.mine[r.ApprovalID]
	delete(c.mine, r.ApprovalID)
	var cards []*card
	for cd := range c.pending {
		if r.ApprovalID != "" && cd.meta.ApprovalID == r.ApprovalID {
			cards = append(cards, cd)
		}
	}
	if len(cards) == 0 && r.ApprovalID != "" && !mine {
		// Its request may still be on its way (it runs in another goroutine).
		if len(c.goneOrder) >= maxGone {
			delete(c.gone, c.goneOrder[0])
			c.goneOrder = c.goneOrder[1:]
		}
		c.gone[r.ApprovalID] = how
		c.goneOrder = append(c.goneOrder, r.ApprovalID)
	}
	c.mu.Unlock()
	for _, cd := range cards {
		// Our answer no longer matters; the request still gets one.
		cd.resolve(acp.Cancelled(), how)
	}
	if mine {
		return // the person just answered it here
	}
	line := "· " + how
	if r.Specifier != "" {
		line += ": " + r.Specifier
	}
	if r.Reason != "" && r.By != "user" {
		line += " (" + r.Reason + ")"
	}
	c.out.lines(styleDim, line)
}

// markMine records that the person answered approvalID here.
func (c *chat) markMine(approvalID string) {
	if approvalID == "" {
		return
	}
	c.mu.Lock()
	c.mine[approvalID] = true
	c.mu.Unlock()
}

// autoOption picks the option AutoAnswer asks for; ok false means "cancelled".
func autoOption(mode string, opts []acp.PermissionOption) (acp.PermissionOption, bool) {
	byKind := func(kinds ...string) (acp.PermissionOption, bool) {
		for _, k := range kinds {
			for _, o := range opts {
				if o.Kind == k {
					return o, true
				}
			}
		}
		return acp.PermissionOption{}, false
	}
	switch mode {
	case AutoFirst:
		if len(opts) > 0 {
			return opts[0], true
		}
	case AutoAllow:
		return byKind(acp.KindAllowOnce, acp.KindAllowAlways, acp.KindRejectOnce, acp.KindRejectAlways)
	case AutoDeny:
		return byKind(acp.KindRejectOnce, acp.KindRejectAlways)
	}
	return acp.PermissionOption{}, false
}

// choose maps what the person typed at a card to an option: a number, y/n,
// or an optionId.
func choose(s string, opts []acp.PermissionOption) (acp.PermissionOption, bool) {
	s = strings.TrimSpace(s)
	if n, err := strconv.Atoi(s); err == nil {
		if n >= 1 && n <= len(opts) {
			return opts[n-1], true
		}
		return acp.PermissionOption{}, false
	}
	var kinds []string
	switch strings.ToLower(s) {
	case "y", "yes", "a", "allow":
		kinds = []string{acp.KindAllowOnce, acp.KindAllowAlways}
	case "n", "no", "d", "deny", "r", "reject":
		kinds = []string{acp.KindRejectOnce, acp.KindRejectAlways}
	}
	for _, k := range kinds {
		for _, o := range opts {
			if o.Kind == k {
				return o, true
			}
		}
	}
	for _, o := range opts {
		if s != "" && o.OptionID == s {
			return o, true
		}
	}
	return acp.PermissionOption{}, false
}

// loop is Run's goroutine: prompts, cards, turns.
type loop struct {
	c          *chat
	child      *child
	lines      <-chan string
	linesOpen  bool
	interrupts <-chan os.Signal

	current *card      // the card on screen, if any
	turn    *turnState // the running turn, if any
	quit    bool       // leave once the turn ends
}

type turnState struct {
	done       chan turnResult
	cancelSent bool
	giveUp     <-chan time.Time // set when waiting for a cancelled turn should end
}

type turnResult struct {
	stop string
	err  error
}

const helpText = `Commands:
  /mode NAME   switch the session's mode (/mode alone lists them)
  /quit        leave (also end of input, or Ctrl-C when no turn runs)
  /help        this text
Ctrl-C during a turn cancels it; a second Ctrl-C leaves.
At a permission card, type the option's number, y (allow) or n (deny).`

func (l *loop) run(ctx context.Context) error {
	c := l.c
	l.idlePrompt()
	for {
		var lineCh <-chan string
		if l.linesOpen && (l.current != nil || l.turn == nil) {
			lineCh = l.lines
		}
		var wake <-chan struct{}
		var shown <-chan struct{}
		if l.current == nil {
			wake = c.wake
		} else {
			shown = l.current.done
		}
		var turnDone <-chan turnResult
		var giveUp <-chan time.Time
		if l.turn != nil {
			turnDone, giveUp = l.turn.done, l.turn.giveUp
		}

		select {
		case <-ctx.Done():
			l.cancelTurn("chat ended")
			return ctx.Err()
		case <-c.conn.Done():
			c.out.lines(styleError, "the agent closed the connection")
			return l.child.gone()
		case line, ok := <-lineCh:
			if !ok {
				l.linesOpen = false
				if l.endOfInput() {
					return nil
				}
				continue
			}
			if l.current != nil {
				if l.answer(line) {
					return nil
				}
				continue
			}
			if l.command(ctx, line) {
				return nil
			}
		case <-wake:
			l.nextCard()
		case <-shown:
			cd := l.current
			l.current = nil
			c.out.lines(styleDim, "(card closed: "+cd.how+")")
			l.nextCard()
			l.idlePrompt()
		case r := <-turnDone:
			l.endTurn(r)
			if l.quit {
				return nil
			}
			l.nextCard()
			l.idlePrompt()
		case <-giveUp:
			c.out.lines(styleError, "the agent did not end the cancelled turn; leaving")
			return nil
		case <-l.interrupts:
			if l.turn != nil && !l.turn.cancelSent {
				l.cancelTurn("interrupted")
				continue
			}
			c.out.lines(styleDim, "bye")
			return nil
		}
	}
}

// idlePrompt shows "> " when the chat waits for a message.
func (l *loop) idlePrompt() {
	if l.turn == nil && l.current == nil && l.linesOpen {
		l.c.out.ask("> ")
	}
}

// endOfInput handles EOF on In; true means leave now.
func (l *loop) endOfInput() bool {
	c := l.c
	if l.current != nil {
		l.current.resolve(acp.Cancelled(), "input closed")
		l.current = nil
		c.out.answered("", c.echo)
	}
	if l.turn == nil {
		return true
	}
	l.quit = true
	l.cancelTurn("input closed")
	l.turn.giveUp = time.After(eofGrace)
	return false
}

// cancelTurn sends session/cancel and answers every pending card cancelled.
func (l *loop) cancelTurn(why string) {
	if l.turn == nil || l.turn.cancelSent {
		return
	}
	c := l.c
	l.turn.cancelSent = true
	l.current = nil
	c.cancelCards("turn cancelled")
	err := c.conn.Notify(context.Background(), acp.MethodSessionCancel, acp.SessionIDParams{SessionID: c.sessionID})
	if err != nil {
		c.log.Warn("send session/cancel", zap.Error(err))
	}
	c.out.lines(styleDim, "(cancelling: "+why+")")
}

func (l *loop) endTurn(r turnResult) {
	c := l.c
	cancelled := l.turn.cancelSent
	l.turn = nil
	switch {
	case r.err != nil:
		c.out.lines(styleError, "[error] "+r.err.Error())
	case r.stop == acp.StopEndTurn && cancelled:
		// Some agents say end_turn after a cancel (ACP pitfall); we asked.
		c.out.lines(styleDim, "[stop: cancelled (the agent said end_turn)]")
	default:
		c.out.lines(styleDim, "[stop: "+r.stop+"]")
	}
	// Anything still asking belonged to the finished turn.
	if cancelled {
		c.cancelCards("turn cancelled")
	}
}

// nextCard shows the oldest waiting card, or answers it when no person is
// asked (auto answers, a cancelled turn).
func (l *loop) nextCard() {
	c := l.c
	for l.current == nil {
		cd := c.popCard()
		if cd == nil {
			return
		}
		if l.turn != nil && l.turn.cancelSent {
			cd.resolve(acp.Cancelled(), "turn cancelled")
			continue
		}
		c.out.block(styleCard, styleNone, c.out.cardLines(cd)...)
		if c.opts.AutoAnswer != AutoNone {
			o, ok := autoOption(c.opts.AutoAnswer, cd.req.Options)
			if !ok {
				c.out.lines(styleDim, "auto: cancelled (no suitable option)")
				cd.resolve(acp.Cancelled(), "no option to auto-answer")
				continue
			}
			c.markMine(cd.meta.ApprovalID)
			c.out.lines(styleDim, "auto: "+o.Name)
			if !cd.resolve(acp.Selected(o.OptionID), "") {
				c.out.lines(styleDim, "(too late: it was already "+cd.how+")")
			}
			continue
		}
		l.current = cd
		c.out.ask(fmt.Sprintf("choose 1-%d (y/n): ", len(cd.req.Options)))
	}
}

// answer applies a line typed at the current card; true means leave.
func (l *loop) answer(line string) bool {
	c := l.c
	cd := l.current
	c.out.answered(line, c.echo)
	switch strings.TrimSpace(line) {
	case "/quit", "/exit":
		return true
	}
	o, ok := choose(line, cd.req.Options)
	if !ok {
		c.out.ask(fmt.Sprintf("choose 1-%d (y/n): ", len(cd.req.Options)))
		return false
	}
	l.current = nil
	c.markMine(cd.meta.ApprovalID)
	// Print first: once answered, the agent's next updates race this line.
	c.out.lines(styleOK, "-> "+o.Name)
	if !cd.resolve(acp.Selected(o.OptionID), "") {
		c.out.lines(styleDim, "(too late: it was already "+cd.how+")")
	}
	l.nextCard()
	l.idlePrompt()
	return false
}

// command handles a line typed at the idle prompt; true means leave.
func (l *loop) command(ctx context.Context, line string) bool {
	c := l.c
	c.out.answered(line, c.echo)
	text := strings.TrimSpace(line)
	switch {
	case text == "":
	case text == "/quit" || text == "/exit":
		return true
	case text == "/help":
		c.out.lines(styleNone, strings.Split(helpText, "\n")...)
	case text == "/mode" || strings.HasPrefix(text, "/mode "):
		l.setMode(ctx, strings.TrimSpace(strings.TrimPrefix(text, "/mode")))
	case strings.HasPrefix(text, "//"):
		l.prompt(ctx, text[1:])
		return false
	case strings.HasPrefix(text, "/"):
		name := strings.Fields(text[1:])[0]
		c.mu.Lock()
		agentCmd := slices.Contains(c.commands, name)
		c.mu.Unlock()
		if agentCmd {
			l.prompt(ctx, text)
			return false
		}
		c.out.lines(styleError, "unknown command /"+name+" (/help lists them; // sends a line starting with /)")
	default:
		l.prompt(ctx, text)
		return false
	}
	l.idlePrompt()
	return false
}

func (l *loop) setMode(ctx context.Context, mode string) {
	c := l.c
	c.mu.Lock()
	current := c.mode
	c.mu.Unlock()
	if mode == "" {
		c.out.lines(styleNone, fmt.Sprintf("mode: %s (available: %s)", current, strings.Join(c.modeIDs, ", ")))
		return
	}
	mctx, cancel := context.WithTimeout(ctx, setupTimeout)
	defer cancel()
	err := c.conn.Call(mctx, acp.MethodSessionSetMode, map[string]string{"sessionId": c.sessionID, "modeId": mode}, nil)
	if err != nil {
		c.out.lines(styleError, "[error] "+err.Error())
		return
	}
	c.mu.Lock()
	updated := c.mode == mode
	c.mode = mode
	c.mu.Unlock()
	if !updated { // the agent sent no current_mode_update
		c.out.lines(styleDim, "[mode] "+mode)
	}
}

// prompt starts a turn.
func (l *loop) prompt(ctx context.Context, text string) {
	c := l.c
	p, err := c.conn.Start(ctx, acp.MethodSessionPrompt, map[string]any{
		"sessionId": c.sessionID,
		"prompt":    []any{map[string]string{"type": "text", "text": text}},
	})
	if err != nil {
		c.out.lines(styleError, "[error] "+err.Error())
		l.idlePrompt()
		return
	}
	t := &turnState{done: make(chan turnResult, 1)}
	l.turn = t
	go func() {
		var r acp.PromptResponse
		err := p.Wait(ctx, &r)
		t.done <- turnResult{stop: r.StopReason, err: err}
	}()
}
