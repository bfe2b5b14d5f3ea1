package orgproc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/bits"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"go.uber.org/zap"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/hooks"
	"github.com/acp-bridge/acp-bridge/internal/audit"
	"github.com/acp-bridge/acp-bridge/internal/mountnames"
	"github.com/acp-bridge/acp-bridge/orgpolicy/opastage"
	"github.com/acp-bridge/acp-bridge/policy"
)

// Defaults of Options.
const (
	DefaultStartTimeout = 10 * time.Second
	DefaultBackoff      = 200 * time.Millisecond
	DefaultMaxBackoff   = 10 * time.Second
	DefaultQueueSize    = 8192
	// decideMargin is what a decision may take beyond OPA's own budget
	// (the pipe both ways) before the bridge stops waiting.
	decideMargin = 100 * time.Millisecond
	// hungAfter consecutive decisions past their budget kill the companion
	// (it is restarted).
	hungAfter = 2
)

// Beside is where the companion must be: next to the bridge's own
// executable. Nothing else is looked at (no PATH, no variable): a
// repository or an agent cannot plant one.
func Beside() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("orgproc: the bridge's own executable: %w", err)
	}
	return filepath.Join(filepath.Dir(exe), Name), nil
}

// oneName refuses a companion that is not one plain file with one name:
// the sandbox keeps the companion's path read-only (docs/sandbox.md,
// "Programs the bridge runs outside every sandbox"), but another name of
// the same file (a hard link), or the file a symlink names (the path
// itself or one of its directories), may lie in a tree an agent can
// write, where the sandbox does not guard it (red teams 14, 14b). Not run: OPA calls ask. A refusal holds until the bridge restarts
// (Client.placeErr): an agent that rewrote the file through its other
// name and then removed that name must not have it run at the next retry.
func oneName(path string) error {
	var st syscall.Stat_t
	if err := syscall.Lstat(path, &st); err != nil {
		return fmt.Errorf("orgproc: %s: %w", path, err)
	}
	switch {
	case st.Mode&syscall.S_IFMT == syscall.S_IFLNK:
		return fmt.Errorf("orgproc: %s is a symbolic link: the file it names could be written where the sandbox does not guard it; not run (install the file itself)", path)
	case st.Mode&syscall.S_IFMT != syscall.S_IFREG:
		return fmt.Errorf("orgproc: %s is not a regular file; not run", path)
	case st.Nlink > 1:
		return fmt.Errorf("orgproc: %s has %d names (hard links): another name could be written where the sandbox does not guard it; not run until acp-bridge restarts (copy it instead of linking)", path, st.Nlink)
	}
	// A directory of its path that is a symlink makes the file that runs
	// another than the one the sandbox guards by its path (red team 14b):
	// the real path must be the path.
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("orgproc: %s: %w", path, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return fmt.Errorf("orgproc: %s: %w", path, err)
	}
	if real != abs {
		return fmt.Errorf("orgproc: %s is reached through a symbolic link (its real path is %s, which could lie where the sandbox does not guard it); not run until acp-bridge restarts (name the real path)", path, real)
	}
	// A mount (a bind mount of a directory or of the file) gives it
	// another name the sandbox does not guard by this path (red team 15).
	mounts, err := mountnames.Read()
	if err != nil {
		return fmt.Errorf("orgproc: %s: its other names through mounts could not be checked: %w", path, err)
	}
	others, ok := mounts.Others(real)
	switch {
	case !ok:
		return fmt.Errorf("orgproc: %s: no mount of this namespace holds it; its other names could not be checked; not run", path)
	case len(others) > 0:
		return fmt.Errorf("orgproc: %s is also %s through a mount (a bind mount): that name could be written where the sandbox does not guard it; not run until acp-bridge restarts (install the file itself, not bound from elsewhere)", path, strings.Join(others, ", "))
	}
	return nil
}

// Options configures a Client.
type Options struct {
	// Path is the companion; "" = Beside().
	Path string
	// Version is the bridge's version; a companion with another is refused.
	Version string
	// Logger receives the client's log and the companion's (relayed from
	// its stderr); nil: discarded.
	Logger *zap.Logger
	// StartTimeout bounds hello and each start; 0: DefaultStartTimeout.
	StartTimeout time.Duration
	// Backoff and MaxBackoff space restarts; 0: the defaults.
	Backoff, MaxBackoff time.Duration
	// QueueSize bounds the records waiting for the companion's pipe;
	// 0: DefaultQueueSize.
	QueueSize int
}

// Client is the bridge's side of the companion. It starts the process on
// the first Start*, Begin or AuthZEN, restarts it with backoff whenever it dies, and never
// makes a caller wait past its bound. Safe for concurrent use.
type Client struct {
	opts Options
	log  *zap.Logger

	once     sync.Once
	firstTry chan struct{} // closed after the first spawn attempt
	stop     chan struct{}
	done     chan struct{} // the supervisor has returned
	stopOnce sync.Once

	mu  sync.Mutex
	cur *conn
	why string // why the companion is not running
	opa *opastage.Config
	tel *TelemetryStart
	// telOn is the connection whose telemetry.start succeeded (nil: none
	// yet), telWhy why the last one did not: a companion that runs but
	// refused or never answered it exports nothing (Down says so).
	telOn  *conn
	telWhy string
	// placeErr is why the companion's file was refused (oneName): kept,
	// so that no later retry runs it.
	placeErr error
	status   BundleStatus
	changed  chan struct{}
	// moved is closed (and replaced) whenever cur changes.
	moved chan struct{}

	lost     atomic.Uint64
	timeouts atomic.Int32
	spawns   atomic.Int32
}

// New returns a Client; nothing starts until StartOPA, StartTelemetry,
// Begin or AuthZEN.
func New(opts Options) *Client {
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = DefaultStartTimeout
	}
	if opts.Backoff <= 0 {
		opts.Backoff = DefaultBackoff
	}
	if opts.MaxBackoff < opts.Backoff {
		opts.MaxBackoff = max(DefaultMaxBackoff, opts.Backoff)
	}
	if opts.QueueSize <= 0 {
		opts.QueueSize = DefaultQueueSize
	}
	log := opts.Logger
	if log == nil {
		log = zap.NewNop()
	}
	return &Client{opts: opts, log: log, firstTry: make(chan struct{}), stop: make(chan struct{}),
		done: make(chan struct{}), why: "not started", changed: make(chan struct{}), moved: make(chan struct{})}
}

// StartError is a start the running companion refused (a configuration
// it cannot take): restarting does not help.
type StartError struct{ Msg string }

func (e *StartError) Error() string { return e.Msg }

// StartOPA starts OPA in the companion, now and at every restart. An
// error that is a *StartError is a configuration OPA refused; any other
// is a companion that is not running (yet): decisions have no verdict
// until it is.
func (c *Client) StartOPA(ctx context.Context, cfg opastage.Config) error {
	return c.startEngine(ctx, MethodOPAStart, func() { c.opa = &cfg }, cfg, nil)
}

// StartTelemetry starts the OpenTelemetry sink in the companion, now and
// at every restart, and says where it sends.
func (c *Client) StartTelemetry(ctx context.Context, ts TelemetryStart) (TelemetryStarted, error) {
	var out TelemetryStarted
	err := c.startEngine(ctx, MethodTelemetryStart, func() { c.tel = &ts }, ts, &out)
	return out, err
}

func (c *Client) startEngine(ctx context.Context, method string, set func(), params, result any) error {
	c.Begin()
	ctx, cancel := context.WithTimeout(ctx, c.opts.StartTimeout)
	defer cancel()
	select {
	case <-c.firstTry:
	case <-ctx.Done():
		c.mu.Lock()
		set()
		c.mu.Unlock()
		return fmt.Errorf("orgproc: %s did not start within %v", Name, c.opts.StartTimeout)
	}
	// Setting the configuration and reading the connection under one lock:
	// each connection gets each start exactly once (here or in supervise).
	c.mu.Lock()
	set()
	cn, why := c.cur, c.why
	c.mu.Unlock()
	if cn == nil {
		return fmt.Errorf("orgproc: %s is not running: %s", Name, why)
	}
	err := cn.call(ctx, method, params, result)
	if method == MethodTelemetryStart {
		c.telStarted(cn, err)
	}
	if acp.ErrorCode(err) == acp.CodeInvalidParams {
		// The companion's refusal of the configuration (protocol.go).
		return &StartError{Msg: err.Error()}
	}
	return err
}

// Decide implements opastage.Decider: OPA's answer from the companion,
// or no verdict (never an error) when it is not running, refused, has
// crashed or does not answer within OPA's budget.
func (c *Client) Decide(ctx context.Context, in opastage.Input) opastage.Result {
	start := time.Now()
	c.mu.Lock()
	cn, why := c.cur, c.why
	budget := opastage.DefaultTimeout
	if c.opa != nil {
		budget = c.opa.Budget()
	}
	c.mu.Unlock()
	if cn == nil {
		return opastage.NoVerdict(Name+" is not running: "+why, time.Since(start))
	}
	dctx, cancel := context.WithTimeout(ctx, budget+decideMargin)
	defer cancel()
	var r opastage.Result
	if err := cn.call(dctx, MethodOPADecide, in, &r); err != nil {
		var long *TooLongError
		if errors.As(err, &long) {
			// never sent, whatever the time its encoding took (a 16 MiB
			// input may outlast the budget on a loaded machine): not the
			// companion's silence
			return opastage.NoVerdict(err.Error(), time.Since(start))
		}
		if dctx.Err() != nil && ctx.Err() == nil {
			if c.timeouts.Add(1) >= hungAfter {
				c.log.Error("the companion answers no decision within its budget: killing it (it is restarted)", zap.String("companion", Name))
				cn.kill()
			}
			return opastage.NoVerdict(fmt.Sprintf("no decision within %v (%s does not answer)", budget, Name), time.Since(start))
		}
		return opastage.NoVerdict(err.Error(), time.Since(start))
	}
	c.timeouts.Store(0)
	switch {
	case r.Outcome == hooks.OutcomeNoVerdict:
	case r.Outcome == hooks.OutcomeVerdict && (r.Decision == policy.Allow || r.Decision == policy.Ask || r.Decision == policy.Deny):
	default:
		return opastage.NoVerdict(fmt.Sprintf("%s's answer has outcome %q decision %q", Name, r.Outcome, r.Decision), time.Since(start))
	}
	r.Hook = "opa"
	return r
}

// Begin starts the companion now, when it is not running yet, without
// waiting for it (a bridge whose settings name an AuthZEN hook, so that
// the first consultation does not pay its start). AuthZEN does the same.
func (c *Client) Begin() { c.once.Do(func() { go c.supervise() }) }

// AuthZEN implements hooks.Post: the companion POSTs body to url
// (authzen.evaluate) and answers the PDP's status and body. It starts
// the companion when it is not running yet and waits for it within ctx
// (the hook's budget). An error, which the hook turns into no verdict
// (the call asks), when the companion is missing, of another version,
// crashed, restarting, refuses the request (not http/https, a redirect,
// an answer over hooks.MaxAnswer, the PDP unreachable) or does not answer
// within ctx (it is told to stop: $/cancel_request).
// authzenMargin is how much longer than the caller's budget the companion
// lets an AuthZEN request run: its bound is a backstop for a bridge that
// could not cancel, not the budget.
const authzenMargin = 250 * time.Millisecond

func (c *Client) AuthZEN(ctx context.Context, url string, body []byte) (int, []byte, error) {
	c.Begin()
	select {
	case <-c.firstTry:
	case <-ctx.Done():
		return 0, nil, fmt.Errorf("orgproc: %s has not started: %w", Name, ctx.Err())
	}
	c.mu.Lock()
	cn, why := c.cur, c.why
	c.mu.Unlock()
	if cn == nil {
		return 0, nil, fmt.Errorf("orgproc: %s is not running: %s", Name, why)
	}
	p := AuthZENEvaluate{URL: url, Body: body}
	if d, ok := ctx.Deadline(); ok {
		left := time.Until(d)
		if left <= 0 {
			return 0, nil, fmt.Errorf("orgproc: %s: %w", MethodAuthZENEvaluate, context.DeadlineExceeded)
		}
		// The companion's own bound comes after ours: the caller's budget
		// ends the wait here (and $/cancel_request ends the request there),
		// so a PDP past the budget reads as the budget, whichever side's
		// clock fired first under load.
		p.TimeoutMs = max(1, (left + authzenMargin).Milliseconds())
	}
	var a AuthZENAnswer
	if err := cn.call(ctx, MethodAuthZENEvaluate, p, &a); err != nil {
		return 0, nil, fmt.Errorf("%s: %w", MethodAuthZENEvaluate, err)
	}
	if len(a.Body) > hooks.MaxAnswer {
		return 0, nil, fmt.Errorf("orgproc: %s: the answer is %d bytes, over the %d a hook reads", MethodAuthZENEvaluate, len(a.Body), hooks.MaxAnswer)
	}
	return a.Status, a.Body, nil
}

// Status returns the bundle's last status and a channel closed at the next.
func (c *Client) Status() (BundleStatus, <-chan struct{}) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.status, c.changed
}

// Record hands r to the companion's sink. It never waits: while the
// companion is down, or its queue is full, the record is counted (Lost)
// and logged; the audit log has it either way.
//
// The call and the other fields an agent sizes are cut as the JSONL log
// cuts its copy (audit.CutRecord); a record whose line is still longer
// than the companion reads is not sent (counted and logged).
func (c *Client) Record(r audit.Record) {
	audit.CutRecord(&r)
	// Queued under c.mu: once cur has moved on, nothing enters the old
	// connection's queue, and dropQueued counts all it held.
	c.mu.Lock()
	cn, on := c.cur, c.tel != nil
	queued := false
	if on && cn != nil {
		select {
		case cn.records <- r:
			queued = true
		default:
		}
	}
	c.mu.Unlock()
	if on && !queued {
		c.loseRecords(1, cn == nil)
	}
}

// dropQueued counts and logs the records still queued for a companion
// that is gone (called once cur has moved on from cn and its writer has
// returned).
func (c *Client) dropQueued(cn *conn) {
	var n uint64
	for {
		select {
		case <-cn.records:
			n++
			continue
		default:
		}
		break
	}
	if n > 0 {
		total := c.lost.Add(n)
		c.log.Warn("telemetry: decision events queued for "+Name+" when it stopped were not handed to it; the audit log has them",
			zap.Uint64("records", n), zap.Uint64("lost", total))
	}
}

func (c *Client) loseRecords(n uint64, down bool) {
	total := c.lost.Add(n)
	// Logged at the first loss and whenever the count passes a power of two.
	if bits.Len64(total) > bits.Len64(total-n) {
		why := "its queue is full"
		if down {
			why = "it is not running"
		}
		c.log.Warn("telemetry: decision events not handed to "+Name+" ("+why+"); the audit log has them", zap.Uint64("lost", total))
	}
}

// Lost is how many records were not handed to the companion.
func (c *Client) Lost() uint64 { return c.lost.Load() }

// Flush asks the companion to export what its sink has queued.
func (c *Client) Flush(ctx context.Context) error {
	c.mu.Lock()
	cn, why := c.cur, c.why
	c.mu.Unlock()
	if cn == nil {
		return fmt.Errorf("orgproc: %s is not running: %s", Name, why)
	}
	return cn.call(ctx, MethodTelemetryFlush, Empty{}, nil)
}

// Close stops restarting, asks the companion to flush and stop (bounded
// by ctx), kills it if it does not, and waits for every goroutine.
func (c *Client) Close(ctx context.Context) {
	first := false
	c.once.Do(func() { close(c.firstTry); close(c.done) }) // never started: nothing runs
	c.stopOnce.Do(func() { first = true; close(c.stop) })
	if !first {
		return
	}
	select {
	case <-c.done:
	case <-ctx.Done():
		c.mu.Lock()
		cn := c.cur
		c.mu.Unlock()
		if cn != nil {
			cn.kill()
		}
		<-c.done
	}
	if n := c.lost.Load(); n > 0 {
		c.log.Warn("telemetry: decision events never handed to "+Name+" (the audit log has them)", zap.Uint64("lost", n))
	}
}

// supervise runs the companion, restarting it with backoff until Close.
func (c *Client) supervise() {
	defer close(c.done)
	wait := c.opts.Backoff
	first := true
	for {
		cn, err := c.spawn()
		if err == nil {
			began := time.Now()
			c.timeouts.Store(0)
			c.mu.Lock()
			c.cur, c.why = cn, ""
			c.move()
			starts := c.pendingStarts(cn)
			c.mu.Unlock()
			if first {
				close(c.firstTry)
				first = false
			}
			c.awaitStarts(cn, starts)
			select {
			case <-cn.dead:
			case <-c.stop:
				c.shutdown(cn)
				c.setDown("closed")
				c.dropQueued(cn)
				return
			}
			cn.wg.Wait()
			err = cn.err
			c.setDown(err.Error())
			c.dropQueued(cn)
			if time.Since(began) > c.opts.MaxBackoff {
				wait = c.opts.Backoff
			}
		}
		c.setDown(err.Error())
		if first {
			close(c.firstTry)
			first = false
		}
		c.log.Error(Name+" is not running: OPA decisions and AuthZEN hooks ask, decision events are counted as lost (the audit log has them); restarting",
			zap.Error(err), zap.Duration("in", wait))
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-c.stop:
			t.Stop()
			return
		}
		wait = min(2*wait, c.opts.MaxBackoff)
	}
}

// Down is why no companion runs now, "" while one does: a bridge whose
// managed tier requires decision events starts no agent meanwhile
// (bridge.Options.TelemetryDown).
func (c *Client) Down() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.cur != nil && (c.tel == nil || c.telOn == c.cur):
		return ""
	case c.cur != nil:
		why := c.telWhy
		if why == "" {
			why = "no answer yet"
		}
		return Name + " runs but its decision-event sink has not started: " + why
	case c.why != "":
		return c.why
	}
	return Name + " has not started"
}

// telStarted records the outcome of telemetry.start on cn.
func (c *Client) telStarted(cn *conn, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err == nil {
		if c.cur == cn {
			c.telOn = cn
		}
		return
	}
	c.telWhy = err.Error()
}

func (c *Client) setDown(why string) {
	c.mu.Lock()
	c.cur, c.why = nil, why
	c.move()
	c.mu.Unlock()
}

// move says cur changed (c.mu held).
func (c *Client) move() {
	close(c.moved)
	c.moved = make(chan struct{})
}

// state is the running companion (nil: none) and a channel closed when
// that changes.
func (c *Client) state() (*conn, <-chan struct{}) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cur, c.moved
}

type pending struct {
	method string
	p      *acp.Pending
}

// pendingStarts queues the configured starts on a new connection (called
// with c.mu held, so that a Start* after it sends its own).
func (c *Client) pendingStarts(cn *conn) []pending {
	var out []pending
	for _, s := range []struct {
		method string
		params any
		on     bool
	}{{MethodOPAStart, c.opa, c.opa != nil}, {MethodTelemetryStart, c.tel, c.tel != nil}} {
		if !s.on {
			continue
		}
		p, err := cn.start(s.method, s.params)
		if err != nil {
			c.log.Error(Name+": cannot restart "+s.method, zap.Error(err))
			continue
		}
		out = append(out, pending{s.method, p})
	}
	return out
}

func (c *Client) awaitStarts(cn *conn, starts []pending) {
	ctx, cancel := context.WithTimeout(context.Background(), c.opts.StartTimeout)
	defer cancel()
	for _, p := range starts {
		err := p.p.Wait(ctx, nil)
		if p.method == MethodTelemetryStart {
			if err != nil && ctx.Err() != nil {
				err = fmt.Errorf("no answer to %s within %v", p.method, c.opts.StartTimeout)
			}
			c.telStarted(cn, err)
		}
		switch {
		case err == nil, errors.Is(err, acp.ErrClosed): // started, or gone (the supervisor sees it)
		case ctx.Err() != nil:
			c.log.Error(Name+": no answer to "+p.method+" after a restart", zap.Duration("within", c.opts.StartTimeout))
		default:
			c.log.Error(Name+": "+p.method+" refused after a restart", zap.Error(err))
		}
	}
}

// shutdown closes the companion's stdin once the queued records are
// written: it flushes its sink, stops OPA and exits; past StartTimeout it
// is killed. The caller counts what stayed queued (dropQueued).
func (c *Client) shutdown(cn *conn) {
	ctx, cancel := context.WithTimeout(context.Background(), c.opts.StartTimeout)
	defer cancel()
	cn.closeInput()
	select {
	case <-cn.dead:
	case <-ctx.Done():
		cn.kill()
		<-cn.dead
	}
	cn.wg.Wait()
}

// spawn starts the companion and checks its hello.
func (c *Client) spawn() (*conn, error) {
	path := c.opts.Path
	if path == "" {
		p, err := Beside()
		if err != nil {
			return nil, err
		}
		path = p
	}
	c.mu.Lock()
	placeErr := c.placeErr
	c.mu.Unlock()
	if placeErr != nil {
		return nil, placeErr
	}
	if err := oneName(path); err != nil {
		c.mu.Lock()
		c.placeErr = err
		c.mu.Unlock()
		return nil, err
	}
	c.spawns.Add(1)
	cmd := exec.Command(path, "--log-level", levelOf(c.log).String())
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("orgproc: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("orgproc: %w", err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, fmt.Errorf("orgproc: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("orgproc: start %s: %w", path, err)
	}
	m := newMeter()
	q := acp.NewQueueWriter(meterOut{m: m, w: stdin}, stdin)
	cn := &conn{cmd: cmd, q: q, m: m, records: make(chan audit.Record, c.opts.QueueSize),
		dead: make(chan struct{}), quit: make(chan struct{}),
		lost: func(n uint64, why string) {
			total := c.lost.Add(n)
			c.log.Warn("telemetry: a decision event not handed to "+Name+" ("+why+"); the audit log has it", zap.Uint64("lost", total))
		}}
	cn.rpc = NewConn(stdout, meterIn{m: m, q: q}, clientHandler{c}, func(ev acp.StreamEvent) {
		c.log.Error("reading "+Name+": a line skipped", zap.String("kind", ev.Kind), zap.Int("bytes", ev.Bytes),
			zap.String("prefix", ev.Prefix), zap.String("reply", ev.Reply), zap.Error(ev.Err))
	}, acp.ConnOptions{Logf: func(format string, args ...any) {
		// jsonrpc2's own diagnostics: an answer to a call nobody waits
		// for any more (its bound ended the wait), say.
		c.log.Debug(Name + ": " + fmt.Sprintf(format, args...))
	}})
	relayed := make(chan struct{})
	cn.wg.Add(3)
	go func() { defer cn.wg.Done(); defer close(relayed); c.relayLog(stderr) }()
	go func() { defer cn.wg.Done(); cn.writeRecords() }()
	go func() {
		defer cn.wg.Done()
		// Its output ended (acp has failed every call still waiting): it
		// is done, or broken.
		<-cn.rpc.Done()
		cn.kill()
		<-relayed
		err := cmd.Wait()
		cn.finish(fmt.Errorf("%s exited: %v", Name, err))
		q.Abort()
		<-q.Done()
		_ = cn.rpc.Close()
	}()
	ctx, cancel := context.WithTimeout(context.Background(), c.opts.StartTimeout)
	defer cancel()
	var h Hello
	err = cn.call(ctx, MethodHello, Hello{Version: c.opts.Version, Protocol: Protocol}, &h)
	if err == nil && (h.Version != c.opts.Version || h.Protocol != Protocol) {
		err = fmt.Errorf("%s at %s is version %q (protocol %d), the bridge %q (protocol %d): refused",
			Name, path, h.Version, h.Protocol, c.opts.Version, Protocol)
	}
	if err != nil {
		cn.kill()
		<-cn.dead
		cn.wg.Wait()
		return nil, fmt.Errorf("orgproc: hello: %w", err)
	}
	return cn, nil
}

// clientHandler takes what the companion sends on its own: opa.status.
type clientHandler struct{ c *Client }

func (h clientHandler) HandleNotification(_ context.Context, method string, params json.RawMessage) {
	if method != MethodOPAStatus {
		return
	}
	var st BundleStatus
	if json.Unmarshal(params, &st) != nil {
		return
	}
	c := h.c
	c.mu.Lock()
	c.status = st
	close(c.changed)
	c.changed = make(chan struct{})
	c.mu.Unlock()
}

// HandleRequest: the companion asks the bridge nothing.
func (clientHandler) HandleRequest(_ context.Context, method string, _ json.RawMessage) (any, error) {
	return nil, acp.MethodNotFound(method)
}
