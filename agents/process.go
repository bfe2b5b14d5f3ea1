package agents

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"go.uber.org/zap"

	"github.com/acp-bridge/acp-bridge/internal/pipesize"
	"golang.org/x/sys/unix"
)

// Defaults for the stop sequence.
const (
	DefaultStopGrace = 2 * time.Second
	DefaultKillGrace = 3 * time.Second
)

// stderrDrainTimeout bounds how long the waiter waits for stderr to reach EOF
// after the child was reaped and its process group killed. Only a process that
// left the group (setsid) can hold the pipe open that long.
const stderrDrainTimeout = time.Second

// Spec describes one child agent process.
type Spec struct {
	Name    string            // agent id, used to tag logs and errors
	Command string            // executable; looked up in $PATH unless it contains a slash
	Args    []string          // arguments after the command
	Env     map[string]string // added to os.Environ(), overriding the same keys
	Dir     string            // working directory; "" inherits the bridge's

	// StopGrace is how long Stop waits after closing stdin before it sends
	// SIGTERM to the process group. 0 means DefaultStopGrace; negative, none.
	StopGrace time.Duration
	// KillGrace is how long Stop waits after SIGTERM before SIGKILL.
	// 0 means DefaultKillGrace; negative, none.
	KillGrace time.Duration

	// Display, if set, is the command errors name instead of Command: the
	// agent's own command when Command is a wrapper (the OS sandbox).
	Display string
	// SignalCodes: Command reports its child's death by signal N as exit
	// status 128+N (bubblewrap does), so such a status is read as "killed
	// by signal N".
	SignalCodes bool
}

func (s Spec) withDefaults() Spec {
	s.StopGrace = grace(s.StopGrace, DefaultStopGrace)
	s.KillGrace = grace(s.KillGrace, DefaultKillGrace)
	return s
}

func grace(d, def time.Duration) time.Duration {
	switch {
	case d == 0:
		return def
	case d < 0:
		return 0
	}
	return d
}

// Process is one running child agent. Its methods are safe for concurrent
// use. See the package documentation for the goroutines behind it.
type Process struct {
	spec Spec        // immutable after Start; graces defaulted
	log  *zap.Logger // tagged with the agent name
	cmd  *exec.Cmd   // Start, then the waiter goroutine only
	pid  int

	stdin  io.WriteCloser // exec's close-once pipe writer; closed by Stop or cmd.Wait
	stdout *pipeReader    // read by the caller; closes itself at EOF
	stderr *os.File       // read by the stderr goroutine; closed by the waiter

	stderrDone chan struct{} // closed by the stderr goroutine when it returns
	tail       *lineRing     // last stderr lines; has its own lock

	// unwatch ends watch's tie to Start's ctx; set before the waiter
	// goroutine starts, called by it once the process is done.
	unwatch func() bool

	thenMu sync.Mutex
	exited bool     // done is closed (under thenMu)
	thens  []func() // OnDone's, run by the waiter after done is closed

	sigMu  sync.Mutex // held while signalling the group and when marking it reaped
	reaped bool       // the leader was reaped: its pid may be reused, never signal it again

	stopOnce sync.Once
	stopping atomic.Bool // a Stop began; read by the waiter to mark ExitError.Stopped

	done    chan struct{} // closed by the waiter once exited, reaped and stderr drained
	exitErr error         // written by the waiter before done is closed; read only after
}

// Start runs spec's command in its own process group, with stdin and stdout as
// pipes for the caller and stderr logged line by line. ctx is the process
// lifetime: when it ends, Stop runs. log may be nil.
func Start(ctx context.Context, spec Spec, log *zap.Logger) (*Process, error) {
	if log == nil {
		log = zap.NewNop()
	}
	if spec.Command == "" {
		return nil, fmt.Errorf("start agent %s: no command configured", spec.Name)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("start agent %s: %w", spec.Name, err)
	}
	if spec.Dir != "" {
		// exec reports a bad Dir as "fork/exec <command>: no such file or
		// directory", which blames the command; name the directory instead.
		if fi, err := os.Stat(spec.Dir); err != nil {
			return nil, fmt.Errorf("start agent %s: working dir: %w", spec.Name, err)
		} else if !fi.IsDir() {
			return nil, fmt.Errorf("start agent %s: working dir %s: not a directory", spec.Name, spec.Dir)
		}
	}
	spec = spec.withDefaults()

	cmd := exec.Command(spec.Command, spec.Args...)
	cmd.Dir = spec.Dir
	cmd.Env = mergeEnv(os.Environ(), spec.Env)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}

	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("start agent %s: stdin pipe: %w", spec.Name, err)
	}
	// Our own pipes for stdout and stderr: exec's StdoutPipe would be closed
	// by cmd.Wait, dropping output the caller has not read yet.
	outR, outW, err := os.Pipe()
	if err != nil {
		_ = stdin.Close()
		return nil, fmt.Errorf("start agent %s: stdout pipe: %w", spec.Name, err)
	}
	// A larger buffer lets a chatty agent run ahead of the bridge, which
	// then reads many messages per read(2) (see internal/pipesize).
	if _, err := pipesize.Grow(outR, pipesize.Default); err != nil {
		log.Debug("agent stdout pipe keeps its default size", zap.String("agent", spec.Name), zap.Error(err))
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		_ = stdin.Close()
		closeAll(outR, outW)
		return nil, fmt.Errorf("start agent %s: stderr pipe: %w", spec.Name, err)
	}
	cmd.Stdout = outW
	cmd.Stderr = errW
	if err := cmd.Start(); err != nil { // exec closes its own stdin pipe on failure
		closeAll(outR, outW, errR, errW)
		return nil, fmt.Errorf("start agent %s: %w", spec.Name, err)
	}
	// The child holds its copies; ours would keep EOF from ever arriving.
	closeAll(outW, errW)

	p := &Process{
		spec:       spec,
		log:        log.With(zap.String("agent", spec.Name)),
		cmd:        cmd,
		pid:        cmd.Process.Pid,
		stdin:      stdin,
		stdout:     &pipeReader{f: outR},
		stderr:     errR,
		stderrDone: make(chan struct{}),
		tail:       newLineRing(stderrTailLines),
		done:       make(chan struct{}),
	}
	p.log.Info("agent started", zap.Int("pid", p.pid), zap.String("command", spec.Command), zap.Strings("args", spec.Args))

	go p.readStderr()
	p.unwatch = p.watch(ctx)
	go p.wait()
	return p, nil
}

// Stdin is the child's standard input. Closing it is safe at any time and
// more than once; Stop closes it too.
func (p *Process) Stdin() io.WriteCloser { return p.stdin }

// Stdout is the child's standard output. It reaches EOF once every process
// holding the pipe is gone (the whole group is killed when the child exits)
// and then releases its descriptor. The value also implements io.Closer, for
// a caller that abandons the stream before EOF.
func (p *Process) Stdout() io.Reader { return p.stdout }

// Pid is the child's process id, which is also its process group id.
func (p *Process) Pid() int { return p.pid }

// Done is closed when the child has exited, has been reaped, and its stderr
// has been drained.
func (p *Process) Done() <-chan struct{} { return p.done }

// OnDone arranges for f to run once Done is closed, with no goroutine
// waiting for it: on the waiter goroutine, after ExitErr is set, or at once
// on the caller's if the process is done. f must not block.
func (p *Process) OnDone(f func()) {
	p.thenMu.Lock()
	if !p.exited {
		p.thens = append(p.thens, f)
		p.thenMu.Unlock()
		return
	}
	p.thenMu.Unlock()
	f()
}

// ExitErr reports how the child ended: nil for exit status 0, else an
// *ExitError. It returns nil until Done is closed.
func (p *Process) ExitErr() error {
	select {
	case <-p.done:
		return p.exitErr
	default:
		return nil
	}
}

// Stop shuts the child down and returns once it has been reaped: close stdin,
// wait StopGrace, SIGTERM the process group, wait KillGrace, SIGKILL the
// group. If ctx ends first the group is killed at once and Stop still waits
// for the reap, then returns an error wrapping ctx's cause. Stop is
// idempotent and safe concurrently with itself and with the child exiting on
// its own; only the first call runs the sequence.
func (p *Process) Stop(ctx context.Context) error {
	p.stopOnce.Do(func() {
		p.stopping.Store(true)
		go p.escalate()
	})
	select {
	case <-p.done:
		return nil
	default:
	}
	select {
	case <-p.done:
		return nil
	case <-ctx.Done():
	}
	p.log.Warn("stop deadline reached; killing agent process group", zap.Error(context.Cause(ctx)))
	p.signalGroup(syscall.SIGKILL)
	<-p.done
	return fmt.Errorf("stop agent %s: killed: %w", p.spec.Name, context.Cause(ctx))
}

// escalate is the stop sequence; it runs in its own goroutine, at most once.
func (p *Process) escalate() {
	if err := p.stdin.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
		p.log.Debug("close agent stdin", zap.Error(err))
	}
	if p.awaitDone(p.spec.StopGrace) {
		return
	}
	p.log.Info("agent still running after stdin closed; sending SIGTERM to its process group", zap.Duration("after", p.spec.StopGrace))
	p.signalGroup(syscall.SIGTERM)
	if p.awaitDone(p.spec.KillGrace) {
		return
	}
	p.log.Warn("agent ignored SIGTERM; sending SIGKILL to its process group", zap.Duration("after", p.spec.KillGrace))
	p.signalGroup(syscall.SIGKILL)
}

// awaitDone reports whether done closed within d.
func (p *Process) awaitDone(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.done:
		return true
	case <-t.C:
		return false
	}
}

// signalGroup sends sig to every process in the child's group, unless the
// leader has been reaped (its id could then name someone else's group).
func (p *Process) signalGroup(sig syscall.Signal) {
	p.sigMu.Lock()
	defer p.sigMu.Unlock()
	if p.reaped {
		return
	}
	err := syscall.Kill(-p.pid, sig)
	if errors.Is(err, syscall.ESRCH) {
		// No such group: the child moved itself to another one. Reach it at least.
		err = syscall.Kill(p.pid, sig)
	}
	if err != nil && !errors.Is(err, syscall.ESRCH) {
		p.log.Warn("signal agent process group", zap.String("signal", unix.SignalName(sig)), zap.Error(err))
	}
}

// watch ties the process to the ctx given to Start: its end stops the
// process, with no goroutine waiting for it (context.AfterFunc); wait
// calls the returned function once the process is done.
func (p *Process) watch(ctx context.Context) (unwatch func() bool) {
	return context.AfterFunc(ctx, func() {
		select {
		case <-p.done:
			return
		default:
		}
		p.log.Info("agent lifetime ended; stopping it", zap.Error(context.Cause(ctx)))
		_ = p.Stop(context.WithoutCancel(ctx))
	})
}

// wait is the only goroutine that waits for the child. While the exited child
// is still a zombie its pid cannot be reused, so it first kills whatever is
// left of the group (grandchildren such as node under npx), then reaps, then
// drains stderr, and only then publishes the result.
func (p *Process) wait() {
	exitErr := waitExited(p.pid)
	p.sigMu.Lock()
	if exitErr != nil {
		// Not waitable (already reaped elsewhere?): the group id is not
		// pinned any more, so leave the group alone.
		p.log.Warn("wait for agent exit", zap.Error(exitErr))
	} else if err := syscall.Kill(-p.pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		p.log.Warn("kill rest of agent process group", zap.Error(err))
	}
	p.reaped = true
	p.sigMu.Unlock()

	werr := p.cmd.Wait()

	drain := time.NewTimer(stderrDrainTimeout)
	select {
	case <-p.stderrDone:
	case <-drain.C:
		p.log.Warn("agent stderr still open after exit (held by a process outside its group); closing it")
		_ = p.stderr.Close()
		<-p.stderrDone
	}
	drain.Stop()
	_ = p.stderr.Close()

	p.exitErr = p.exitError(werr)
	if p.exitErr != nil {
		p.log.Info("agent exited", zap.Int("pid", p.pid), zap.Error(p.exitErr))
	} else {
		p.log.Info("agent exited", zap.Int("pid", p.pid), zap.Int("code", 0))
	}
	close(p.done)
	p.unwatch()
	p.thenMu.Lock()
	p.exited = true
	thens := p.thens
	p.thens = nil
	p.thenMu.Unlock()
	for _, f := range thens {
		f()
	}
}

func (p *Process) exitError(werr error) error {
	if werr == nil {
		return nil
	}
	e := &ExitError{
		Agent:      p.spec.Name,
		Command:    p.spec.Command,
		Code:       -1,
		Stopped:    p.stopping.Load(),
		StderrTail: p.tail.lines(),
		Err:        werr,
	}
	if p.spec.Display != "" {
		e.Command = p.spec.Display
	}
	var xe *exec.ExitError
	if errors.As(werr, &xe) {
		e.Code = xe.ExitCode()
		if ws, ok := xe.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			e.Signal = ws.Signal()
		}
		if p.spec.SignalCodes && e.Signal == 0 && e.Code > 128 && e.Code <= 128+64 {
			e.Signal, e.Code = syscall.Signal(e.Code-128), -1
		}
	}
	return e
}

// mergeEnv returns base with every key of extra replaced or added; extra's
// keys are appended in sorted order so the result is deterministic.
func mergeEnv(base []string, extra map[string]string) []string {
	out := make([]string, 0, len(base)+len(extra))
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		if _, ok := extra[k]; ok {
			continue
		}
		out = append(out, kv)
	}
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		out = append(out, k+"="+extra[k])
	}
	return out
}

func closeAll(fs ...*os.File) {
	for _, f := range fs {
		_ = f.Close()
	}
}

// pipeReader is the caller's end of the child's stdout. It closes its
// descriptor at the first EOF or error, and keeps answering io.EOF after.
type pipeReader struct {
	f      *os.File
	closed atomic.Bool
	once   sync.Once
}

func (r *pipeReader) Read(b []byte) (int, error) {
	if r.closed.Load() {
		return 0, io.EOF
	}
	n, err := r.f.Read(b)
	if err != nil {
		_ = r.Close()
		if errors.Is(err, os.ErrClosed) {
			err = io.EOF
		}
	}
	return n, err
}

// Close releases the pipe; a Read blocked on it returns io.EOF.
func (r *pipeReader) Close() error {
	var err error
	r.once.Do(func() {
		r.closed.Store(true)
		err = r.f.Close()
	})
	return err
}
