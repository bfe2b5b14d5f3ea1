package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"sync"

	"go.uber.org/zap"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/agents"
	"github.com/acp-bridge/acp-bridge/permission"
	"github.com/acp-bridge/acp-bridge/policy"
	"github.com/acp-bridge/acp-bridge/profiles"
	"github.com/acp-bridge/acp-bridge/sandbox"
)

// Agent statuses reported by _acp-bridge/agents/list.
const (
	statusIdle     = "idle"
	statusStarting = "starting"
	statusRunning  = "running"
	statusCrashed  = "crashed"
	statusStopped  = "stopped"
)

type agentInfo struct {
	ID           string              `json:"id"`
	Name         string              `json:"name"`
	Command      string              `json:"command"`
	Args         []string            `json:"args"`
	Status       string              `json:"status"`
	Pid          int                 `json:"pid,omitempty"`
	Capabilities json.RawMessage     `json:"capabilities,omitempty"`
	AuthMethods  []acp.Object        `json:"authMethods,omitempty"` // auth.go
	AgentInfo    *acp.Implementation `json:"agentInfo,omitempty"`
	Modes        json.RawMessage     `json:"modes,omitempty"`
	LastError    string              `json:"lastError,omitempty"`
	Restarts     int                 `json:"restarts"`
	Family       string              `json:"family"`
	Sandbox      *SandboxPlan        `json:"sandbox,omitempty"`
	// BypassPermissions: the agent runs with bypass permissions now (its
	// settings, or a card's bypass not yet in the settings). The editor shows
	// its bypass banner from this, not from what it remembers.
	BypassPermissions bool `json:"bypassPermissions"`
	// Mode is the mode a new session of this agent starts in (startMode).
	Mode string `json:"mode"`
}

// agentRT is one configured agent at run time: its process (if any), its
// connection, its sessions.
type agentRT struct {
	b    *Bridge
	name string
	log  *zap.Logger

	mu        sync.Mutex
	status    string
	lastErr   string
	restarts  int
	gen       int // process generation, bumped at every start
	proc      *agents.Process
	conn      *acp.Conn
	stdin     *acp.QueueWriter
	init      acp.InitializeResponse
	modes     json.RawMessage // the last session/new modes, for agents/list
	family    profiles.Family
	profile   *profiles.Profile // how to keep it asking (modes.go)
	launched  bool              // the profile's launch flags were applied
	command   string
	args      []string
	starting  chan struct{} // non-nil while a start is in progress
	backoff   agents.Backoff
	notBefore time.Time
	startedAt time.Time
	stopping  bool
	reported  chan struct{}       // closed by watch once an exit of the current process is recorded
	sessions  map[string]*session // by child session id, current generation
	active    *session            // the session that prompted last
	// terminals are the terminal ids the editor gave this process's
	// terminal/create calls, with the bridge session each belongs to; only
	// those may be used by its terminal/output, wait_for_exit, kill and
	// release (clientops.go). Forgotten on release and when the process ends.
	terminals map[string]string
	// listed are the agent's own session ids its session/list answers
	// named (bounded, sessionlist.go): session/delete finds an id's agent.
	listed     map[string]struct{}
	sandbox    SandboxPlan       // how the current process is confined
	prepared   *sandbox.Prepared // its sandbox files (nil when unconfined)
	sandboxDir string            // the working directory it was computed for
	// privHome is the current process's private state home (Codex's
	// CODEX_HOME, Qwen Code's QWEN_HOME; privatehome.go; nil for other
	// agents and unconfined ones): writable in its sandbox.
	privHome *sandbox.Home

	// fwdMu serialises forwarding this agent's updates with registering
	// new sessions (see updates.go); it guards opening, held, openedCh and
	// every session's holding/held. Taken before mu, never after.
	fwdMu    sync.Mutex
	opening  int                 // session/new calls in flight
	held     map[string][]update // updates for unknown child ids while opening > 0
	openedCh chan struct{}       // closed when opening drops to 0
	// heldAll counts everything held, in held and in the sessions' held,
	// against maxHeldAll and maxHeldBytes (updates.go).
	heldAll heldCount
}

func newAgentRT(b *Bridge, name string) *agentRT {
	return &agentRT{
		b: b, name: name, log: b.log.With(zap.String("agent", name)),
		status: statusIdle, sessions: map[string]*session{}, terminals: map[string]string{}, held: map[string][]update{},
		backoff: agents.Backoff{Min: 500 * time.Millisecond, Max: 30 * time.Second},
	}
}

func (a *agentRT) info() agentInfo {
	bypass := a.b.bypassFor(a.name) // before a.mu: it takes b.mu
	mode := a.b.startMode(a.name)
	auth := a.authMethods() // takes a.mu
	a.mu.Lock()
	defer a.mu.Unlock()
	in := agentInfo{ID: a.name, Name: a.name, Command: a.command, Args: a.args, Status: a.status,
		LastError: a.lastErr, Restarts: a.restarts, Family: string(a.family), Modes: a.modes, BypassPermissions: bypass, Mode: string(mode)}
	if a.proc != nil {
		plan := a.sandbox
		in.Sandbox = &plan
	}
	if in.Command == "" || in.Family == "" {
		cfg := a.b.snapshot().Config.Agents[a.name]
		if in.Command == "" {
			in.Command, in.Args = cfg.Command, cfg.Args
		}
		if in.Family == "" {
			in.Family = string(familyOf(a.name, cfg.Family, cfg.Command, cfg.Args))
		}
	}
	if a.proc != nil && a.status == statusRunning {
		in.Pid = a.proc.Pid()
	}
	if len(a.init.AgentCapabilities) > 0 {
		in.Capabilities = a.init.AgentCapabilities
	}
	in.AgentInfo = a.init.AgentInfo
	in.AuthMethods = auth
	return in
}

func (a *agentRT) notifyStatus() {
	a.b.notifyEditor(acp.MethodAgentStatus, a.info())
}

// connFor returns the connection if the process of generation gen is still running.
func (a *agentRT) connFor(gen int) *acp.Conn {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.gen != gen || a.status != statusRunning {
		return nil
	}
	return a.conn
}

// sessionConn returns the connection serving s, or a clear error if the
// process that owned s is gone.
func (a *agentRT) sessionConn(ctx context.Context, s *session) (*acp.Conn, error) {
	if c := a.connFor(s.gen); c != nil {
		return c, nil
	}
	a.mu.Lock()
	status, lastErr := a.status, a.lastErr
	a.mu.Unlock()
	return nil, acp.Errorf(acp.CodeInternalError,
		"agent %s is %s (%s); session %s belonged to a process that is gone: start a new session", a.name, status, orNone(lastErr), s.id)
}

func orNone(s string) string {
	if s == "" {
		return "no error reported"
	}
	return s
}

// ensure returns a running, initialized connection, starting the process if
// needed (one start at a time; concurrent callers wait for it). After a
// crash, a restart waits out the backoff (bounded by ctx).
func (a *agentRT) ensure(ctx context.Context) (*acp.Conn, int, error) {
	for {
		a.mu.Lock()
		if a.status == statusRunning && a.conn != nil {
			c, g := a.conn, a.gen
			a.mu.Unlock()
			return c, g, nil
		}
		if a.starting != nil {
			ch := a.starting
			a.mu.Unlock()
			select {
			case <-ch:
				a.mu.Lock()
				err := a.lastErr
				running := a.status == statusRunning
				a.mu.Unlock()
				if !running {
					return nil, 0, acp.Errorf(acp.CodeInternalError, "agent %s failed to start: %s", a.name, err)
				}
				continue
			case <-ctx.Done():
				return nil, 0, ctx.Err()
			}
		}
		if a.b.lifetime.Err() != nil {
			a.mu.Unlock()
			return nil, 0, acp.Errorf(acp.CodeInternalError, "acp-bridge is shutting down")
		}
		if wait := time.Until(a.notBefore); wait > 0 {
			a.mu.Unlock()
			a.log.Info("waiting before restarting a crashed agent", zap.Duration("backoff", wait))
			t := time.NewTimer(wait)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return nil, 0, ctx.Err()
			}
			continue
		}
		ch := make(chan struct{})
		a.starting = ch
		if a.gen > 0 {
			a.restarts++
		}
		a.gen++
		gen := a.gen
		a.status = statusStarting
		a.mu.Unlock()
		a.notifyStatus()

		err := a.start(ctx, gen)

		a.mu.Lock()
		a.starting = nil
		if err != nil {
			a.status = statusCrashed
			a.lastErr = err.Error()
			a.notBefore = time.Now().Add(a.backoff.Next())
		} else {
			a.status = statusRunning
			a.lastErr = ""
		}
		close(ch)
		a.mu.Unlock()
		a.notifyStatus()
		if err != nil {
			a.log.Error("agent failed to start", zap.Error(err))
			return nil, 0, acp.Errorf(acp.CodeInternalError, "agent %s failed to start: %v", a.name, err)
		}
	}
}

// sandboxSetupAttempts bounds the starts of one agent whose sandbox could not
// be set up because the host changed under it (sandboxSetupRace).
const sandboxSetupAttempts = 3

// start spawns the process and runs initialize. Called with no lock held,
// by the one caller that set a.starting. A sandbox whose setup lost a race
// with the host (a socket it masks vanished between the scan and bwrap's
// mounts) is computed and started again: the agent never ran, and the new
// plan masks what is there now.
func (a *agentRT) start(ctx context.Context, gen int) error {
	for attempt := 1; ; attempt++ {
		err := a.startOnce(ctx, gen)
		if err == nil || attempt == sandboxSetupAttempts || !sandboxSetupRace(err) || ctx.Err() != nil {
			return err
		}
		a.log.Warn("the sandbox's setup lost a race with the host (a path it masks changed); starting the agent again",
			zap.Int("attempt", attempt), zap.Error(err))
	}
}

// sandboxSetupRace reports whether err is bubblewrap failing to create the
// mount point of a mask before the agent ran: "Can't create file at P" when
// the host socket P vanished after the plan was computed, "Can't mkdir
// parents for P" when its directory went too (a headless Chromium's
// SingletonSocket in /tmp/org.chromium.Chromium.*: rehearsal 14b).
func sandboxSetupRace(err error) bool {
	var xe *agents.ExitError
	if !errors.As(err, &xe) {
		return false
	}
	for _, l := range xe.StderrTail {
		// bwrap: Can't create file at P: Read-only file system. The agent
		// writes to the same stderr and could print such a line: it must
		// name an absolute path that is gone now (a vanished socket), and
		// the retries are bounded (sandboxSetupAttempts), so a spoof buys
		// at most two more starts of a process that exits anyway.
		rest, ok := strings.CutPrefix(l, "bwrap: Can't create file at ")
		if !ok {
			if rest, ok = strings.CutPrefix(l, "bwrap: Can't mkdir parents for "); !ok {
				continue
			}
		}
		p, _, _ := strings.Cut(rest, ": ")
		if _, err := os.Lstat(p); filepath.IsAbs(p) && errors.Is(err, fs.ErrNotExist) {
			return true
		}
	}
	return false
}

// startOnce is one start: the sandbox plan, the process, initialize.
func (a *agentRT) startOnce(ctx context.Context, gen int) error {
	snap := a.b.snapshot()
	cfg, ok := snap.Config.Agents[a.name]
	if !ok {
		return fmt.Errorf("agent %s is no longer configured", a.name)
	}
	if cfg.Command == "" {
		return fmt.Errorf("agents.%s.command is empty", a.name)
	}
	if err := snap.Managed.AgentAllowed(cfg); err != nil {
		return err
	}
	if err := a.b.requiredTelemetryDown(snap); err != nil {
		return err
	}
	if err := a.b.edSet.blocked(); err != nil {
		return err
	}
	family := familyOf(a.name, cfg.Family, cfg.Command, cfg.Args)
	dir := cfg.Cwd
	if dir == "" {
		dir = a.b.opts.WorkspaceDir
	}
	// The profile's launch flags and environment make the agent ask from
	// its first turn; flags only when its command names it (a wrapper
	// merely called "gemini" may know none of them).
	prof, fromLaunch := profiles.DetectProfile(a.name, cfg.Family, cfg.Command, cfg.Args)
	args, env, changes := prof.Launch(cfg.Command, cfg.Args, cfg.Env, fromLaunch)
	if len(changes) > 0 {
		a.log.Info("agent launched to ask", zap.String("profile", prof.Name), zap.Strings("changes", changes))
	}
	// An agent whose profile declares a private state home (Codex's
	// CODEX_HOME, Qwen Code's QWEN_HOME) gets one inside the sandbox
	// (privatehome.go, sandbox.MakeHome): made before the plan, which
	// binds it writable and fills its copies, and dropped again if the
	// plan does not confine it.
	var cxHome *sandbox.Home
	if ph := prof.PrivateHome; ph != nil && snap.SandboxFor(a.name).Enabled {
		if person := personHome(ph, env, agentHome(cfg, a.b.home)); person != "" {
			h, err := sandbox.MakeHome(homeDecl(prof, person))
			if err != nil {
				return fmt.Errorf("start agent %s: %w", a.name, err)
			}
			cxHome = h
		}
	}
	a.mu.Lock()
	a.privHome = cxHome
	a.mu.Unlock()
	plan, err := a.sandboxPlan(snap, prof.Name, dir) // state directories by profile (qwen reads tool calls as gemini does)
	if err == nil && cxHome != nil && !plan.Confined {
		cxHome.Remove()
		cxHome = nil
		a.mu.Lock()
		a.privHome = nil
		a.mu.Unlock()
		plan, err = a.sandboxPlan(snap, prof.Name, dir)
	}
	if err != nil {
		cxHome.Remove()
		return err
	}
	if plan.Spec != nil {
		for _, h := range plan.Spec.Homes {
			for _, c := range h.Copies {
				if c.Denied {
					a.log.Info("a Read deny rule names the agent's state file: its private copy is empty", zap.String("file", c.From))
				}
			}
		}
	}
	if plan.Confined {
		// A sandbox of the agent's own that cannot start inside the
		// bridge's is turned off there (Codex's; docs/agents.md).
		var confined []string
		if args, confined = prof.Confine(cfg.Command, args, fromLaunch); len(confined) > 0 {
			a.log.Info("agent launched inside the OS sandbox without its own", zap.String("profile", prof.Name), zap.Strings("changes", confined))
		}
	}
	if cxHome != nil {
		env, args = privateHomeConfined(env, args, cxHome)
		a.log.Info("agent runs with a private state home inside the OS sandbox", zap.String("profile", prof.Name),
			zap.String("env", cxHome.Env), zap.String("dir", cxHome.Dir), zap.String("from", cxHome.Person))
	}
	if prof.Name == "codex" && fromLaunch {
		// Codex's config profiles get the launch's settings too
		// (codexprofiles.go).
		var profChanges []string
		cfgPath := ""
		if ph := prof.PrivateHome; ph != nil {
			if h := personHome(ph, env, agentHome(cfg, a.b.home)); h != "" {
				cfgPath = filepath.Join(h, "config.toml")
			}
		}
		args, profChanges, err = codexProfiles(cfgPath, args, codexSandboxMode(prof, plan.Confined))
		if err != nil {
			cxHome.Remove()
			return fmt.Errorf("start agent %s: %w", a.name, err)
		}
		if len(profChanges) > 0 {
			a.log.Info("codex profiles launched to ask", zap.Strings("changes", profChanges))
		}
	}
	spec, prep, err := wrapSpec(plan, agents.Spec{
		Name: a.name, Command: cfg.Command, Args: args, Env: env, Dir: dir,
	}, a.log)
	if err != nil {
		cxHome.Remove()
		return err
	}
	if plan.Enabled && !plan.Confined {
		a.log.Warn("agent runs WITHOUT the OS sandbox", zap.String("reason", plan.Reason))
	}
	proc, err := agents.Start(a.b.lifetime, spec, a.b.log)
	if err != nil {
		if prep != nil {
			prep.Cleanup()
		}
		cxHome.Remove()
		return err
	}
	if prep != nil || cxHome != nil {
		// Counted, so that shutdown waits for it (bounded): a bridge that
		// exits right after its agents stop still removes their sandbox
		// files and placeholders.
		a.b.cleanups.add()
		go func() {
			defer a.b.cleanups.done()
			<-proc.Done()
			if prep != nil {
				prep.Cleanup()
			}
			cxHome.Remove()
		}()
	}
	a.mu.Lock()
	a.sandbox, a.prepared, a.sandboxDir = plan, prep, dir
	a.mu.Unlock()
	stdin := acp.NewQueueWriter(proc.Stdin(), proc.Stdin())
	// Closing the connection closes both pipes, so its read goroutine never
	// outlives it even if something outside the process group holds stdout.
	closer := closers{stdin}
	if c, ok := proc.Stdout().(io.Closer); ok {
		closer = append(closer, c)
	}
	stdout := flushingReader{r: proc.Stdout(), flush: a.b.editor.Flush}
	stream := acp.NewStream(stdout, stdin, closer, acp.StreamOptions{
		MaxLineBytes: snap.Config.MaxLineBytes,
		OnDrop: func(ev acp.StreamEvent) {
			a.log.Warn("dropped a line from the agent; the connection goes on",
				zap.String("kind", ev.Kind), zap.Error(ev.Err), zap.String("prefix", ev.Prefix), zap.String("reply", ev.Reply))
		},
	})
	conn := acp.NewConn(a.b.lifetime, stream, &childHandler{a: a, gen: gen}, a.b.connOptions("agent:"+a.name))

	a.mu.Lock()
	a.proc, a.conn, a.stdin = proc, conn, stdin
	a.reported = make(chan struct{})
	a.family, a.command, a.args = family, cfg.Command, args
	a.profile, a.launched = prof, fromLaunch
	a.startedAt = time.Now()
	a.sessions = map[string]*session{}
	a.terminals = map[string]string{}
	a.active = nil
	a.mu.Unlock()
	// The process's exit or its stdout's end, whichever comes first, starts
	// watch; no goroutine waits for either meanwhile (an idle agent holds
	// none for it).
	var watching sync.Once
	watchOn := func(byConn bool) { watching.Do(func() { go a.watch(proc, conn, gen, byConn) }) }
	proc.OnDone(func() { watchOn(false) })
	conn.OnClose(func() { watchOn(true) })

	caps := a.b.editorCapabilities()
	initParams := acp.InitializeRequest{
		ProtocolVersion: acp.ProtocolVersion,
		// fs and terminal only when the editor offered them: the bridge
		// serves them by forwarding, after a policy check.
		// elicitation as the editor offered it (passthrough.go).
		ClientCapabilities: acp.ClientCapabilities{FS: caps.FS, Terminal: caps.Terminal, Elicitation: caps.Elicitation},
		ClientInfo:         &acp.Implementation{Name: "acp-bridge", Version: a.b.opts.Version},
	}
	initTimeout := a.b.opts.InitTimeout
	if cfg.InitTimeout > 0 {
		initTimeout = cfg.InitTimeout
	}
	ictx, cancel := context.WithTimeout(ctx, initTimeout)
	defer cancel()
	var res acp.InitializeResponse
	err = conn.Call(ictx, acp.MethodInitialize, initParams, &res)
	if err == nil && res.ProtocolVersion != acp.ProtocolVersion {
		err = fmt.Errorf("agent answered protocolVersion %d; acp-bridge speaks %d", res.ProtocolVersion, acp.ProtocolVersion)
	}
	if err != nil {
		if isClosed(err) {
			// The pipe closed: the process is exiting; let it finish so the
			// error can say how it ended.
			waitDone(proc.Done(), 3*time.Second)
		}
		select {
		case <-proc.Done():
			err = fmt.Errorf("initialize: agent exited: %w", proc.ExitErr())
		default:
			if errors.Is(err, context.DeadlineExceeded) {
				err = fmt.Errorf("initialize: no answer within %s (agents.%s.initTimeoutSeconds)", initTimeout, a.name)
			} else {
				err = fmt.Errorf("initialize: %w", err)
			}
		}
		a.kill(proc, stdin)
		return err
	}
	a.mu.Lock()
	a.init = res
	a.mu.Unlock()
	a.log.Info("agent initialized", zap.Int("pid", proc.Pid()), zap.String("family", string(family)))
	return nil
}

func (a *agentRT) kill(proc *agents.Process, stdin *acp.QueueWriter) {
	stdin.Abort()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = proc.Stop(ctx)
}

// watch turns a process exit into a crash report: approvals resolved as
// cancelled, prompts failed (their conn closes), status crashed. It starts
// when the process exits or, byConn, when its connection ends first.
func (a *agentRT) watch(proc *agents.Process, conn *acp.Conn, gen int, byConn bool) {
	if byConn {
		// stdout closed: usually the process is exiting; give it a moment
		// so its own exit status is what gets reported.
		if !waitDone(proc.Done(), 2*time.Second) {
			// It lives on but can no longer talk: stop it.
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			_ = proc.Stop(ctx)
			cancel()
			<-proc.Done()
		}
	}
	_ = conn.Close()
	// The child's requests still being handled see their ctx end and resolve
	// their own approvals (by agentExit); wait for them (bounded) so the
	// crash is announced after its cards are withdrawn, and nothing opened
	// in the race with the exit outlives it.
	wctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	if err := conn.WaitHandlers(wctx); err != nil {
		a.log.Warn("agent requests still running after its exit", zap.Error(err))
	}
	cancel()
	exitErr := proc.ExitErr()
	a.mu.Lock()
	if a.gen != gen {
		a.mu.Unlock()
		return
	}
	stopping := a.stopping
	uptime := time.Since(a.startedAt)
	if stopping {
		a.status = statusStopped
	} else {
		a.status = statusCrashed
		if exitErr != nil {
			a.lastErr = exitErr.Error()
		} else {
			a.lastErr = "exited with status 0"
		}
		if uptime > time.Minute {
			a.backoff.Reset()
		}
		a.notBefore = time.Now().Add(a.backoff.Next())
	}
	a.conn = nil
	lastErr := a.lastErr
	terminals := a.terminals
	a.terminals = map[string]string{}
	close(a.reported)
	a.mu.Unlock()
	a.releaseTerminals(terminals)
	by := policy.SourceAgentExit
	n := a.b.broker.ResolveAgent(a.name, permission.Resolution{Outcome: acp.OutcomeCancelled, By: by})
	if stopping {
		a.log.Info("agent stopped", zap.Int("approvalsCancelled", n))
	} else {
		a.log.Error("agent exited unexpectedly", zap.String("error", lastErr), zap.Int("approvalsCancelled", n))
	}
	a.notifyStatus()
}

// stop stops the process gracefully (close stdin after the queue drains,
// SIGTERM, SIGKILL), bounded by ctx.
func (a *agentRT) stop(ctx context.Context) {
	a.mu.Lock()
	proc, stdin, conn, cxHome := a.proc, a.stdin, a.conn, a.privHome
	a.stopping = true
	a.mu.Unlock()
	if proc == nil {
		return
	}
	if conn != nil {
		// Let the child's in-flight requests (already resolved) send their
		// answers before its stdin closes.
		wctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		if err := conn.WaitHandlers(wctx); err != nil {
			a.log.Warn("agent requests still running at stop", zap.Error(err))
		}
		cancel()
	}
	stdin.Close()
	select {
	case <-stdin.Done():
	case <-proc.Done():
	case <-ctx.Done():
	}
	if err := proc.Stop(ctx); err != nil {
		a.log.Warn("stopping agent", zap.Error(err))
	}
	if cxHome != nil {
		select {
		case <-proc.Done():
			// Removed here too, not only by the goroutine that waits for
			// the exit: the bridge may exit right after its agents stop.
			cxHome.Remove()
		default: // still running: that goroutine removes it
		}
	}
}

// callError turns a failed call to the child into a clear error for the editor.
func (a *agentRT) callError(method string, err error) error {
	var ae *acp.Error
	if errors.As(err, &ae) {
		return err // the agent's own error, code and all
	}
	if errors.Is(err, context.Canceled) {
		return err
	}
	if isClosed(err) {
		// The connection closed under the call: wait (bounded) for the exit
		// to be recorded so the error can say how the agent ended.
		a.mu.Lock()
		reported := a.reported
		a.mu.Unlock()
		if reported != nil {
			t := time.NewTimer(3 * time.Second)
			select {
			case <-reported:
			case <-t.C:
			}
			t.Stop()
		}
	}
	a.mu.Lock()
	status, lastErr := a.status, a.lastErr
	a.mu.Unlock()
	if status == statusCrashed || status == statusStopped || isClosed(err) {
		if lastErr == "" {
			lastErr = err.Error()
		}
		return acp.Errorf(acp.CodeInternalError, "agent %s exited during %s: %s", a.name, method, lastErr)
	}
	return acp.Errorf(acp.CodeInternalError, "agent %s: %s: %v", a.name, method, err)
}

func (a *agentRT) addSession(s *session) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.sessions[s.childID] = s
	if a.active == nil {
		a.active = s
	}
}

func (a *agentRT) removeSession(s *session) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.sessions[s.childID] == s {
		delete(a.sessions, s.childID)
	}
	if a.active == s {
		a.active = nil
		for _, o := range a.sessions {
			a.active = o
			break
		}
	}
}

func (a *agentRT) setActive(s *session) {
	a.mu.Lock()
	a.active = s
	a.mu.Unlock()
}

// sessionFor maps a child session id to its bridge session. An id the bridge
// never created (sub-agents do this) maps to the agent's active session.
func (a *agentRT) sessionFor(childID string) (s *session, known bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if s, ok := a.sessions[childID]; ok {
		return s, true
	}
	return a.active, false
}

func (a *agentRT) bridgeIDFor(childID string) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if s, ok := a.sessions[childID]; ok {
		return s.id
	}
	return ""
}

// rememberModes records the modes a session/new returned.
func (a *agentRT) rememberModes(modes json.RawMessage) {
	var m acp.SessionModeState
	if json.Unmarshal(modes, &m) != nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.modes = modes
}

// knownModeIDs are the mode ids of the agent's last session/new answer.
func (a *agentRT) knownModeIDs() []string {
	a.mu.Lock()
	raw := a.modes
	a.mu.Unlock()
	var m acp.SessionModeState
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	ids := make([]string, 0, len(m.AvailableModes))
	for _, x := range m.AvailableModes {
		ids = append(ids, x.ID)
	}
	return ids
}

// profileOf is the agent's profile (Generic before its first start) and
// whether its launch flags were applied.
func (a *agentRT) profileOf() (*profiles.Profile, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.profile == nil {
		return profiles.Generic, false
	}
	return a.profile, a.launched
}

func (a *agentRT) familyOf() profiles.Family {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.family
}

// waitDone waits up to d for ch to close and reports whether it did.
func waitDone(ch <-chan struct{}, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
		return true
	case <-t.C:
		return false
	}
}

// closers closes each in turn and returns the first error.
type closers []io.Closer

func (cs closers) Close() error {
	var first error
	for _, c := range cs {
		if err := c.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// familyOf is the configured tool-call family, else the one detected from the command.
func familyOf(name, configured, command string, args []string) profiles.Family {
	if configured != "" {
		return profiles.Family(configured)
	}
	return profiles.DetectFamily(name, command, args)
}

// flushingReader is a child's stdout as its read loop sees it: before each
// read(2), which may wait, it flushes the editor's queue, where the updates
// of the lines read so far were left (Conn.NotifyPartsDeferred). So a batch
// of updates goes out in one write(2) from the read loop, and nothing is
// left queued while the loop waits.
type flushingReader struct {
	r     io.Reader
	flush func()
}

func (f flushingReader) Read(p []byte) (int, error) {
	f.flush()
	return f.r.Read(p)
}
