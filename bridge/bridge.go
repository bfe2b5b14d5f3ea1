package bridge

import (
	"context"
	"fmt"
	"io"
	"os"
	"sort"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/hooks"
	"github.com/acp-bridge/acp-bridge/internal/audit"
	"github.com/acp-bridge/acp-bridge/permission"
	"github.com/acp-bridge/acp-bridge/policy"
	"github.com/acp-bridge/acp-bridge/sandbox"
	"github.com/acp-bridge/acp-bridge/settings"
	"github.com/acp-bridge/acp-bridge/wire"
)

// Auditor records decisions. *audit.Log implements it.
type Auditor interface {
	Append(audit.Record) error
}

// Options configures a Bridge.
type Options struct {
	Settings *settings.Store
	Logger   *zap.Logger
	Version  string
	// WorkspaceDir is the project root (the editor starts the bridge there).
	WorkspaceDir string
	// Audit may be nil.
	Audit Auditor
	// AuditPath is the audit log's file; AuditError, when not "", why the
	// audit log is off (initialize reports both).
	AuditPath, AuditError string
	// Telemetry, when not nil, is _meta["acp-bridge"].telemetry of
	// initialize: where the decision events go (cmd/acp-bridge/telemetry.go).
	Telemetry *wire.TelemetryStatus
	// Decider overrides the policy (tests); nil = the policy engine over Settings.
	Decider Decider
	// InitTimeout bounds a child's initialize answer (default 30 s).
	InitTimeout time.Duration
	// StopTimeout bounds stopping all children at shutdown (default 10 s).
	StopTimeout time.Duration
	// PersistTimeout bounds the editor's answer to settings/persist (default 10 min:
	// an editor that cannot write its settings asks the person where to store the grant).
	PersistTimeout time.Duration
	// TraceWire logs every message at debug level.
	TraceWire bool
	// HiddenDirs are masked in every agent's OS sandbox whatever the policy
	// says (the attach socket directory, internal/attach).
	HiddenDirs []string
	// Programs are files that run outside every sandbox with the bridge's
	// rights: its own executable and its companion (cmd/acp-bridge sets
	// them). They are protected places that run code: the policy asks
	// before a write to one, and every sandbox keeps them read-only, or
	// blocked where missing, so that no agent plants one.
	Programs []string
	// TelemetryDown, when set, says why the exporter of decision events is
	// not running now ("" while it runs): while the managed tier requires
	// the events, no agent starts meanwhile, as at start-up (red team 11:
	// the companion could die and agents kept starting).
	TelemetryDown func() string
	// Stages are more stages of deciding, after the policy and the hooks
	// (the organisation's OPA, which cmd starts: package orgpolicy).
	Stages []permission.Stage
	// AuthZEN carries the AuthZEN hooks' requests (hooks.Hook.Post):
	// cmd/acp-bridge's goes through the companion (orgproc.Client.AuthZEN),
	// so that the bridge links no HTTP client. nil: a URL hook gives no
	// verdict, and the call asks.
	AuthZEN hooks.Post
}

// editorQueueBytes bounds what may wait to be written to the editor.
const editorQueueBytes = 256 << 10

// Bridge is one editor connection and its child agents. Serve runs it.
type Bridge struct {
	opts    Options
	log     *zap.Logger
	broker  *permission.Broker
	flow    *permission.Flow // one permission request end to end (permission.go)
	decider Decider
	store   *settings.Store
	home    string
	edSet   editorSettings // editorsettings.go

	editor     *acp.Conn       // set in Serve before any handler runs
	lifetime   context.Context // Serve's context; the children's lifetime
	editorGone chan struct{}   // closed when the editor connection ends

	mu         sync.Mutex
	editorCaps acp.ClientCapabilities
	// editorOpenDocs: the editor said (initialize
	// _meta["acp-bridge"].openDocumentFs) that it honours openDocumentOnly
	// (our extension): only then are fs/* forwarded to it (clientops.go).
	editorOpenDocs bool
	agents         map[string]*agentRT
	sessions       map[string]*session // by bridge session id
	// runtimeRules are "always" grants made since the last settings change,
	// so they apply at once, before the persisted copy comes back as settings.
	runtimeRules []policy.RuleText
	// runtimeBypass: agents switched to bypass by a card since the last settings change.
	runtimeBypass map[string]bool
	// ownWrites: protected files a workspace-scope persist may be creating
	// for a person's grant, with the number of such persists in flight (created.go).
	ownWrites   map[string]int
	initialized bool // the editor has its initialize answer
	// cleanups: the agents' sandbox cleanups under way (shutdown waits).
	cleanups pending
	// trustSent is the last _acp-bridge/workspace/trust sent (JSON),
	// trustLogged the last one logged.
	trustSent, trustLogged string
}

// New returns a bridge; Serve starts it.
func New(opts Options) *Bridge {
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	if opts.InitTimeout <= 0 {
		opts.InitTimeout = 30 * time.Second
	}
	if opts.StopTimeout <= 0 {
		opts.StopTimeout = 10 * time.Second
	}
	if opts.PersistTimeout <= 0 {
		opts.PersistTimeout = 10 * time.Minute
	}
	home, _ := os.UserHomeDir()
	b := &Bridge{
		opts:          opts,
		log:           opts.Logger,
		broker:        permission.NewBroker(nil),
		store:         opts.Settings,
		home:          home,
		agents:        map[string]*agentRT{},
		sessions:      map[string]*session{},
		runtimeBypass: map[string]bool{},
		editorGone:    make(chan struct{}),
	}
	b.decider = opts.Decider
	if b.decider == nil {
		b.decider = newPolicyDecider(b)
	}
	b.flow = newFlow(b)
	if b.store != nil {
		b.store.OnChange(func(*settings.Snapshot) { b.settingsChanged() })
	}
	return b
}

// Serve speaks ACP to the editor over in/out until the editor closes its end
// or ctx ends. On return every pending approval has been resolved and every
// child agent has been stopped.
func (b *Bridge) Serve(ctx context.Context, in io.Reader, out io.Writer) error {
	// The connections and children outlive ctx until shutdown has answered
	// every pending request and stopped every child in order.
	life, endLife := context.WithCancel(context.WithoutCancel(ctx))
	defer endLife()
	b.lifetime = life
	sweepOnce.Do(func() {
		// Before any sandbox is computed: what bridges killed before
		// they could clean up left (sandbox.Sweep).
		if n := sandbox.Sweep(); n > 0 {
			b.log.Info("removed the sandbox directories of bridges that are gone", zap.Int("count", n))
		}
	})
	snap := b.snapshot()
	// Writes to the editor are queued and written in batches by one
	// goroutine, so a child's read loop never waits on write(2); the bound
	// keeps a slow editor back-pressuring the children.
	outQ := acp.NewBoundedQueueWriter(out, nil, editorQueueBytes)
	defer func() {
		outQ.Close() // flush what is queued (the last resolved notices) before returning
		t := time.NewTimer(5 * time.Second)
		defer t.Stop()
		select {
		case <-outQ.Done():
		case <-t.C:
			outQ.Abort()
		}
	}()
	stream := acp.NewStream(in, outQ, nil, acp.StreamOptions{
		MaxLineBytes: snap.Config.MaxLineBytes,
		// JSON-RPC 2.0: the editor hears of a line that is not JSON (-32700)
		// or not a message (-32600); children are only logged (architecture.md).
		ReplyToBadLines: true,
		OnDrop: func(ev acp.StreamEvent) {
			b.log.Warn("dropped a line from the editor", zap.String("kind", ev.Kind), zap.Error(ev.Err),
				zap.String("prefix", ev.Prefix), zap.String("reply", ev.Reply))
		},
	})
	gate := make(chan struct{})
	opts := b.connOptions("editor")
	opts.Gate = gate
	b.editor = acp.NewConn(life, stream, &editorHandler{b: b}, opts)
	// The editor's end resolves every card as the editor's going, before
	// the editor's requests see their ctx end (a prompt's end would cancel
	// its turn's cards otherwise): shutdown below finds them resolved.
	b.editor.OnClose(func() {
		b.broker.ResolveAll(permission.Resolution{Outcome: acp.OutcomeCancelled, By: policy.SourceEditorGone})
	})
	close(gate) // handlers may use b.editor from here on
	b.reportRuleProblems(true, false)
	b.reportTrust(false)
	var reason policy.Source
	select {
	case <-b.editor.Done():
		reason = policy.SourceEditorGone
		b.log.Info("editor disconnected")
	case <-ctx.Done():
		reason = policy.SourceShutdown
		b.log.Info("shutting down")
	}
	close(b.editorGone)
	b.shutdown(reason)
	_ = b.editor.Close()
	endLife()
	b.editor.Wait()
	return nil
}

func (b *Bridge) connOptions(peer string) acp.ConnOptions {
	log := b.log.With(zap.String("peer", peer))
	o := acp.ConnOptions{Logf: func(format string, args ...any) { log.Warn(fmt.Sprintf(format, args...)) }}
	if b.opts.TraceWire {
		o.OnRecv = func(m acp.TraceMessage) { traceMsg(log, "recv", m) }
		o.OnSend = func(m acp.TraceMessage) { traceMsg(log, "send", m) }
	}
	return o
}

// shutdown resolves every approval, then stops every child.
func (b *Bridge) shutdown(reason policy.Source) {
	n := b.broker.ResolveAll(permission.Resolution{Outcome: acp.OutcomeCancelled, By: reason})
	if n > 0 {
		b.log.Info("resolved pending approvals at shutdown", zap.Int("count", n), zap.String("by", string(reason)))
	}
	b.mu.Lock()
	agents := make([]*agentRT, 0, len(b.agents))
	for _, a := range b.agents {
		agents = append(agents, a)
	}
	b.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), b.opts.StopTimeout)
	defer cancel()
	var wg sync.WaitGroup
	for _, a := range agents {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a.stop(ctx)
		}()
	}
	wg.Wait()
	// The agents' sandbox cleanups (private directory, placeholders in the
	// workspace) run once each process is gone: waited for here, within
	// the stop timeout (and at least cleanupGrace after the stops, since a
	// process killed at the deadline still needs its cleanup).
	grace := time.NewTimer(cleanupGrace)
	defer grace.Stop()
	select {
	case <-b.cleanups.wait():
		return
	case <-ctx.Done():
	}
	select {
	case <-b.cleanups.wait():
	case <-grace.C:
		b.log.Warn("sandbox cleanups still running at exit: the next bridge's sweep removes what they leave")
	}
}

// sweepOnce: the sweep runs at the first Serve of the process.
var sweepOnce sync.Once

// cleanupGrace is the least shutdown waits for the sandbox cleanups after
// stopping the agents.
const cleanupGrace = 2 * time.Second

// pending counts goroutines shutdown waits for (the agents' sandbox
// cleanups). Unlike a sync.WaitGroup, more may be added while a wait is
// under way (an agent starting during shutdown).
type pending struct {
	mu   sync.Mutex
	n    int
	zero chan struct{} // closed when n drops to 0
}

func (p *pending) add() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.n == 0 {
		p.zero = make(chan struct{})
	}
	p.n++
}

func (p *pending) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n--
	if p.n == 0 {
		close(p.zero)
	}
}

// wait returns a channel closed once none is pending (now, or when the
// last one pending now is done).
func (p *pending) wait() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.n == 0 {
		c := make(chan struct{})
		close(c)
		return c
	}
	return p.zero
}

// startAgentsOnLaunch starts the agents marked to start with the bridge
// (startAgentsOnLaunch for all, agents.X.startOnLaunch for one). It runs
// after the editor's initialize, so they are offered the editor's fs and
// terminal capabilities.
func (b *Bridge) startAgentsOnLaunch(ctx context.Context) {
	snap := b.snapshot()
	for _, name := range snap.AgentNames() {
		if !snap.Config.StartAgentsOnLaunch && !snap.Config.Agents[name].StartOnLaunch {
			continue
		}
		a, err := b.agent(name)
		if err != nil {
			continue
		}
		go func() {
			if _, _, err := a.ensure(ctx); err != nil {
				b.log.Warn("start on launch failed", zap.String("agent", name), zap.Error(err))
			}
		}()
	}
}

func (b *Bridge) snapshot() *settings.Snapshot {
	if b.store == nil {
		return &settings.Snapshot{}
	}
	return b.store.Snapshot()
}

// settingsChanged runs when any settings layer changed: persisted grants are
// now part of the settings, so the runtime copies go (a rule removed from the
// settings is revoked at once).
func (b *Bridge) settingsChanged() {
	b.mu.Lock()
	b.runtimeRules = nil
	b.runtimeBypass = map[string]bool{}
	initialized := b.initialized
	b.mu.Unlock()
	b.reportRuleProblems(true, initialized)
	b.reportTrust(initialized)
	if initialized {
		b.announceModes()
	}
	go b.recheckSandboxes()
}

// announceModes tells the editor of every session whose mode in force
// changed with the settings (an agent's bypass revoked or granted, its mode
// or the default mode changed; a mode the editor set stays): a
// current_mode_update with the bridge's mode, so the chat never shows a mode
// (or a bypass banner) the bridge no longer applies.
func (b *Bridge) announceModes() {
	b.mu.Lock()
	sessions := make([]*session, 0, len(b.sessions))
	for _, s := range b.sessions {
		sessions = append(sessions, s)
	}
	b.mu.Unlock()
	for _, s := range sessions {
		m := b.effectiveMode(s)
		s.mu.Lock()
		changed := s.shown != "" && s.shown != m
		if changed {
			s.shown = m
		}
		s.mu.Unlock()
		if !changed {
			continue
		}
		b.log.Info("session mode changed with the settings", zap.String("session", s.id), zap.String("mode", string(m)))
		b.notifyEditor(acp.MethodSessionUpdate, map[string]any{
			"sessionId": s.id,
			"update": map[string]any{"sessionUpdate": "current_mode_update", "currentModeId": string(m),
				"_meta": map[string]any{acp.MetaKey: map[string]any{"reason": "settings"}}},
		})
	}
}

// bypassFor: the agent runs with bypass permissions now (settings or a card's grant).
func (b *Bridge) bypassFor(agent string) bool {
	return b.snapshot().Config.Agents[agent].BypassPermissions || b.runtimeBypassFor(agent)
}

// agent returns the runtime of a configured agent.
func (b *Bridge) agent(name string) (*agentRT, error) {
	snap := b.snapshot()
	if _, ok := snap.Config.Agents[name]; !ok {
		return nil, acp.Errorf(acp.CodeInvalidParams, "unknown agent %q (configured: %s)", name, joinNames(snap.AgentNames()))
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	a, ok := b.agents[name]
	if !ok {
		a = newAgentRT(b, name)
		b.agents[name] = a
	}
	return a, nil
}

func joinNames(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	s := ""
	for i, n := range names {
		if i > 0 {
			s += ", "
		}
		s += n
	}
	return s
}

// notifyEditor sends a notification to the editor; failures are logged.
func (b *Bridge) notifyEditor(method string, params any) {
	if b.editor == nil {
		return
	}
	if err := b.editor.Notify(context.Background(), method, params); err != nil {
		select {
		case <-b.editorGone:
		default:
			b.log.Debug("notify editor failed", zap.String("method", method), zap.Error(err))
		}
	}
}

func (b *Bridge) editorCapabilities() acp.ClientCapabilities {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.editorCaps
}

// agentsList is the result of _acp-bridge/agents/list.
func (b *Bridge) agentsList() map[string]any {
	snap := b.snapshot()
	out := []agentInfo{}
	for _, name := range snap.AgentNames() {
		b.mu.Lock()
		a := b.agents[name]
		b.mu.Unlock()
		if a == nil {
			cfg := snap.Config.Agents[name]
			out = append(out, agentInfo{ID: name, Name: name, Command: cfg.Command, Args: cfg.Args, Status: statusIdle,
				Family: string(familyOf(name, cfg.Family, cfg.Command, cfg.Args)), BypassPermissions: b.bypassFor(name), Mode: string(b.startMode(name))})
			continue
		}
		out = append(out, a.info())
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return map[string]any{"agents": out}
}

// session lookup by bridge id.
func (b *Bridge) session(id string) (*session, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	s, ok := b.sessions[id]
	if !ok {
		return nil, acp.Errorf(acp.CodeResourceNotFound, "unknown session %q", id)
	}
	return s, nil
}

func userHome() (string, error) { return os.UserHomeDir() }
