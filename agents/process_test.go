package agents

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest"
	"go.uber.org/zap/zaptest/observer"

	"github.com/acp-bridge/acp-bridge/internal/pipesize"
)

func TestEchoOverStdio(t *testing.T) {
	p := start(t, t.Context(), helperSpec("echo", "echo"), zaptest.NewLogger(t))
	out := readStdout(p)
	for _, msg := range []string{"hello", `{"jsonrpc":"2.0","id":1,"method":"initialize"}`} {
		if _, err := io.WriteString(p.Stdin(), msg+"\n"); err != nil {
			t.Fatalf("write stdin: %v", err)
		}
		if got := out.next(t); got != msg {
			t.Fatalf("echo = %q, want %q", got, msg)
		}
	}
	if err := p.Stdin().Close(); err != nil {
		t.Fatalf("close stdin: %v", err)
	}
	waitDone(t, p)
	out.waitEOF(t)
	if err := p.ExitErr(); err != nil {
		t.Fatalf("ExitErr = %v, want nil", err)
	}
	if err := syscall.Kill(p.Pid(), 0); err != syscall.ESRCH {
		t.Fatalf("kill(pid, 0) after Done = %v, want ESRCH (reaped)", err)
	}
}

// TestStdoutPipeGrown checks, from the child's side, that its stdout pipe
// holds pipesize.Default bytes, so a chatty agent can run ahead.
func TestStdoutPipeGrown(t *testing.T) {
	p := start(t, t.Context(), helperSpec("size", "pipesize"), zaptest.NewLogger(t))
	out := readStdout(p)
	if got, want := out.next(t), strconv.Itoa(pipesize.Default); got != want {
		t.Fatalf("child's stdout pipe holds %s bytes, want %s", got, want)
	}
	waitDone(t, p)
}

func TestEnvAndDir(t *testing.T) {
	t.Setenv("ACPB_AGENTS_X", "from-parent")
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	tests := []struct {
		name    string
		env     map[string]string
		dir     string
		wantVal string
		wantDir string
	}{
		{"spec overrides parent env and sets dir", map[string]string{"ACPB_AGENTS_X": "from-spec"}, dir, "from-spec", dir},
		{"parent env and dir inherited", nil, "", "from-parent", cwd},
		{"empty value overrides too", map[string]string{"ACPB_AGENTS_X": ""}, dir, "", dir},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := helperSpec("env", "env", "ACPB_AGENTS_X")
			for k, v := range tt.env {
				spec.Env[k] = v
			}
			spec.Dir = tt.dir
			p := start(t, t.Context(), spec, zaptest.NewLogger(t))
			out := readStdout(p)
			if got := out.next(t); got != tt.wantVal {
				t.Errorf("env ACPB_AGENTS_X = %q, want %q", got, tt.wantVal)
			}
			gotDir := out.next(t)
			want, err := filepath.EvalSymlinks(tt.wantDir)
			if err != nil {
				t.Fatal(err)
			}
			if gotDir != want {
				t.Errorf("working dir = %q, want %q", gotDir, want)
			}
			waitDone(t, p)
			if err := p.ExitErr(); err != nil {
				t.Errorf("ExitErr = %v", err)
			}
		})
	}
}

// agentLines returns the logged stderr lines, without the package's own
// lifecycle messages.
func agentLines(logs *observer.ObservedLogs) []observer.LoggedEntry {
	var out []observer.LoggedEntry
	for _, e := range logs.All() {
		if strings.HasPrefix(e.Message, "agent ") {
			continue
		}
		out = append(out, e)
	}
	return out
}

func TestStderrLinesReachLogger(t *testing.T) {
	core, logs := observer.New(zapcore.DebugLevel)
	long := maxStderrLine + 4464
	p := start(t, t.Context(), helperSpec("gemini", "stderr",
		"hello there", "Error: something bad", "\x1b[31mred\x1b[0m text", "   ", fmt.Sprint(long)), zap.New(core))
	waitDone(t, p)
	if err := p.ExitErr(); err != nil {
		t.Fatalf("ExitErr = %v", err)
	}
	want := []struct {
		msg   string
		level zapcore.Level
	}{
		{"hello there", zapcore.InfoLevel},
		{"Error: something bad", zapcore.WarnLevel},
		{"red text", zapcore.InfoLevel},
		{strings.Repeat("x", maxStderrLine), zapcore.InfoLevel},
		{strings.Repeat("x", long-maxStderrLine), zapcore.InfoLevel},
	}
	got := agentLines(logs)
	if len(got) != len(want) {
		for _, e := range got {
			t.Logf("logged %s %.60q", e.Level, e.Message)
		}
		t.Fatalf("logged %d stderr lines, want %d", len(got), len(want))
	}
	for i, w := range want {
		if got[i].Message != w.msg || got[i].Level != w.level {
			t.Errorf("line %d = %s %.60q (len %d), want %s %.60q (len %d)", i, got[i].Level, got[i].Message, len(got[i].Message), w.level, w.msg, len(w.msg))
		}
		if a := got[i].ContextMap()["agent"]; a != "gemini" {
			t.Errorf("line %d agent field = %v, want gemini", i, a)
		}
	}
}

func TestCrashReportsExitCodeAndStderrTail(t *testing.T) {
	core, logs := observer.New(zapcore.DebugLevel)
	p := start(t, t.Context(), helperSpec("claude", "crash", "25", "3"), zap.New(core))
	waitDone(t, p)
	err := p.ExitErr()
	var ee *ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("ExitErr = %v (%T), want *ExitError", err, err)
	}
	if ee.Code != 3 || ee.Signal != 0 || ee.Stopped || ee.Agent != "claude" {
		t.Errorf("ExitError = {Code %d Signal %v Stopped %v Agent %q}, want {3 0 false claude}", ee.Code, ee.Signal, ee.Stopped, ee.Agent)
	}
	if len(ee.StderrTail) != stderrTailLines {
		t.Fatalf("tail has %d lines, want %d: %q", len(ee.StderrTail), stderrTailLines, ee.StderrTail)
	}
	if ee.StderrTail[0] != "line 7" || ee.StderrTail[len(ee.StderrTail)-1] != "fatal: boom" {
		t.Errorf("tail = %q, want line 7 ... fatal: boom", ee.StderrTail)
	}
	msg := err.Error()
	for _, want := range []string{"agent claude", "exited with code 3", "last 20 stderr lines", "\n  line 7\n", "\n  fatal: boom"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error text lacks %q:\n%s", want, msg)
		}
	}
	var xe *exec.ExitError
	if !errors.As(err, &xe) {
		t.Errorf("ExitError does not unwrap to *exec.ExitError")
	}
	if n := len(agentLines(logs)); n != 26 {
		t.Errorf("logged %d stderr lines, want 26", n)
	}
}

// stopWithin runs Stop and fails the test if it has not returned in testWait.
func stopWithin(t *testing.T, ctx context.Context, p *Process) error {
	t.Helper()
	errc := make(chan error, 1)
	go func() { errc <- p.Stop(ctx) }()
	select {
	case err := <-errc:
		return err
	case <-time.After(testWait):
		t.Fatalf("Stop of pid %d did not return", p.Pid())
		return nil
	}
}

func TestStop(t *testing.T) {
	const long = 10 * time.Minute // a grace the test must never wait out
	tests := []struct {
		name       string
		mode       []string
		stopGrace  time.Duration
		killGrace  time.Duration
		firstLine  string // stdout line (prefix) announcing the child is ready
		wantSignal syscall.Signal
	}{
		{"exits when stdin closes", []string{"echo"}, long, long, "", 0},
		{"ignores stdin, honours SIGTERM", []string{"ignore-stdin"}, 50 * time.Millisecond, long, "ready", syscall.SIGTERM},
		{"ignores SIGTERM, killed", []string{"ignore-term"}, 50 * time.Millisecond, 50 * time.Millisecond, "ready", syscall.SIGKILL},
		{"grandchild taken down too", []string{"grandchild", "wait"}, 50 * time.Millisecond, long, "grandchild ", syscall.SIGTERM},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			core, logs := observer.New(zapcore.DebugLevel)
			spec := helperSpec("a", tt.mode...)
			spec.StopGrace, spec.KillGrace = tt.stopGrace, tt.killGrace
			p := start(t, t.Context(), spec, zap.New(core))
			out := readStdout(p)
			grandchild := 0
			if tt.firstLine != "" {
				line := out.next(t)
				if !strings.HasPrefix(line, tt.firstLine) {
					t.Fatalf("first stdout line = %q, want %q...", line, tt.firstLine)
				}
				if _, err := fmt.Sscanf(line, "grandchild %d", &grandchild); err == nil {
					killOnCleanup(t, grandchild)
				}
			}
			if err := stopWithin(t, t.Context(), p); err != nil {
				t.Fatalf("Stop = %v", err)
			}
			select {
			case <-p.Done():
			default:
				t.Fatal("Done not closed when Stop returned")
			}
			if err := syscall.Kill(p.Pid(), 0); err != syscall.ESRCH {
				t.Errorf("kill(pid, 0) after Stop = %v, want ESRCH (reaped, no zombie)", err)
			}
			err := p.ExitErr()
			if tt.wantSignal == 0 {
				if err != nil {
					t.Errorf("ExitErr = %v, want nil", err)
				}
			} else {
				var ee *ExitError
				if !errors.As(err, &ee) || ee.Signal != tt.wantSignal || !ee.Stopped || ee.Code != -1 {
					t.Errorf("ExitErr = %#v, want signal %v while stopping", err, tt.wantSignal)
				}
			}
			if grandchild != 0 {
				waitGone(t, grandchild)
			}
			out.waitEOF(t)
			if w := logs.FilterMessageSnippet("still open").Len(); w != 0 {
				t.Errorf("stderr drain timed out (%d warnings): something outside the group held it", w)
			}
		})
	}
}

func TestCrashTakesDownGroup(t *testing.T) {
	core, logs := observer.New(zapcore.DebugLevel)
	p := start(t, t.Context(), helperSpec("npx", "grandchild", "exit"), zap.New(core))
	out := readStdout(p)
	var grandchild int
	if _, err := fmt.Sscanf(out.next(t), "grandchild %d", &grandchild); err != nil {
		t.Fatalf("read grandchild pid: %v", err)
	}
	killOnCleanup(t, grandchild)
	waitDone(t, p)
	var ee *ExitError
	if err := p.ExitErr(); !errors.As(err, &ee) || ee.Code != 7 || ee.Stopped {
		t.Fatalf("ExitErr = %v, want exit code 7, not stopped", err)
	}
	waitGone(t, grandchild)
	out.waitEOF(t)
	if w := logs.FilterMessageSnippet("still open").Len(); w != 0 {
		t.Errorf("Done waited for the stderr drain timeout: grandchild was not killed with its group")
	}
}

func TestStopContextEndsKillsAtOnce(t *testing.T) {
	spec := helperSpec("a", "ignore-term")
	spec.StopGrace, spec.KillGrace = 10*time.Minute, 10*time.Minute
	p := start(t, t.Context(), spec, zaptest.NewLogger(t))
	out := readStdout(p)
	if l := out.next(t); l != "ready" {
		t.Fatalf("first line %q", l)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	err := stopWithin(t, ctx, p)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "stop agent a") {
		t.Fatalf("Stop = %v, want stop agent a ... deadline exceeded", err)
	}
	var ee *ExitError
	if !errors.As(p.ExitErr(), &ee) || ee.Signal != syscall.SIGKILL {
		t.Fatalf("ExitErr = %v, want SIGKILL", p.ExitErr())
	}
	if err := syscall.Kill(p.Pid(), 0); err != syscall.ESRCH {
		t.Errorf("kill(pid, 0) = %v, want ESRCH", err)
	}
}

func TestLifetimeContextCancelStops(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	spec := helperSpec("a", "ignore-stdin")
	spec.StopGrace = 50 * time.Millisecond
	p := start(t, ctx, spec, zaptest.NewLogger(t))
	out := readStdout(p)
	if l := out.next(t); l != "ready" {
		t.Fatalf("first line %q", l)
	}
	cancel()
	waitDone(t, p)
	var ee *ExitError
	if !errors.As(p.ExitErr(), &ee) || ee.Signal != syscall.SIGTERM || !ee.Stopped {
		t.Fatalf("ExitErr = %v, want SIGTERM while stopping", p.ExitErr())
	}
}

func TestStopRaces(t *testing.T) {
	t.Run("concurrent with crash", func(t *testing.T) {
		for i := range 5 {
			// A grace long enough that a loaded machine still lets the
			// helper read its line and exit 4 before SIGTERM (seen once
			// under CI load with the 2 s default).
			spec := helperSpec("a", "exit-on-line")
			spec.StopGrace = 30 * time.Second
			p := start(t, t.Context(), spec, zaptest.NewLogger(t))
			var wg sync.WaitGroup
			errs := make(chan error, 4)
			wg.Go(func() {
				_, err := io.WriteString(p.Stdin(), "4\n")
				if err != nil && !errors.Is(err, os.ErrClosed) {
					errs <- fmt.Errorf("write: %w", err)
				}
			})
			for range 3 {
				wg.Go(func() { errs <- stopWithin(t, t.Context(), p) })
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				if err != nil {
					t.Errorf("round %d: %v", i, err)
				}
			}
			var ee *ExitError
			if err := p.ExitErr(); err != nil && (!errors.As(err, &ee) || ee.Code != 4) {
				t.Errorf("round %d: ExitErr = %v, want nil or code 4", i, err)
			}
			if err := stopWithin(t, t.Context(), p); err != nil {
				t.Errorf("round %d: second Stop = %v", i, err)
			}
		}
	})
	t.Run("unblocks a writer stuck on a full pipe", func(t *testing.T) {
		spec := helperSpec("a", "ignore-stdin")
		spec.StopGrace = 50 * time.Millisecond
		p := start(t, t.Context(), spec, zaptest.NewLogger(t))
		out := readStdout(p)
		if l := out.next(t); l != "ready" {
			t.Fatalf("first line %q", l)
		}
		werr := make(chan error, 1)
		go func() {
			_, err := p.Stdin().Write(make([]byte, 4<<20)) // far beyond a pipe buffer
			werr <- err
		}()
		if err := stopWithin(t, t.Context(), p); err != nil {
			t.Fatalf("Stop = %v", err)
		}
		select {
		case err := <-werr:
			if err == nil {
				t.Error("write of 4 MiB to a child that never reads succeeded")
			}
		case <-time.After(testWait):
			t.Fatal("writer still blocked after Stop")
		}
	})
	t.Run("after exit", func(t *testing.T) {
		p := start(t, t.Context(), helperSpec("a", "crash", "0", "5"), zaptest.NewLogger(t))
		waitDone(t, p)
		for range 2 {
			if err := stopWithin(t, t.Context(), p); err != nil {
				t.Fatalf("Stop after exit = %v", err)
			}
		}
		var ee *ExitError
		if !errors.As(p.ExitErr(), &ee) || ee.Code != 5 || ee.Stopped {
			t.Fatalf("ExitErr = %v, want code 5, not stopped", p.ExitErr())
		}
		if _, err := io.WriteString(p.Stdin(), "x\n"); err == nil {
			t.Error("write to stdin of an exited agent succeeded")
		}
	})
}

func openFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

func TestStartErrors(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	missingDir := filepath.Join(t.TempDir(), "nope")
	tests := []struct {
		name   string
		ctx    context.Context
		spec   Spec
		want   string // exact error text, or a prefix ending in "..."
		wantIs error
	}{
		{"missing executable", context.Background(), Spec{Name: "claude", Command: "acpb-no-such-agent-cmd"},
			`start agent claude: exec: "acpb-no-such-agent-cmd": executable file not found in $PATH`, exec.ErrNotFound},
		{"missing path", context.Background(), Spec{Name: "x", Command: "/nonexistent/acpb-agent"},
			`start agent x: fork/exec /nonexistent/acpb-agent: no such file or directory`, os.ErrNotExist},
		{"missing dir", context.Background(), Spec{Name: "x", Command: os.Args[0], Dir: missingDir},
			`start agent x: working dir: stat ` + missingDir + `: no such file or directory`, os.ErrNotExist},
		{"dir is a file", context.Background(), Spec{Name: "x", Command: os.Args[0], Dir: os.Args[0]},
			`start agent x: working dir ` + os.Args[0] + `: not a directory`, nil},
		{"no command", context.Background(), Spec{Name: "gemini"}, "start agent gemini: no command configured", nil},
		{"lifetime already over", cancelled, helperSpec("x", "echo"), "start agent x: context canceled", context.Canceled},
	}
	before := openFDs(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Start(tt.ctx, tt.spec, zaptest.NewLogger(t))
			if err == nil {
				_ = p.Stop(context.Background())
				t.Fatal("Start succeeded")
			}
			if err.Error() != tt.want {
				t.Errorf("error = %q\nwant    %q", err, tt.want)
			}
			if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
				t.Errorf("errors.Is(%v, %v) = false", err, tt.wantIs)
			}
		})
	}
	if after := openFDs(t); after > before {
		t.Errorf("open fds grew from %d to %d across failed starts", before, after)
	}
}

func TestNoGoroutineLeak(t *testing.T) {
	base := runtime.NumGoroutine()
	for range 3 {
		p, err := Start(t.Context(), helperSpec("a", "echo"), zap.NewNop())
		if err != nil {
			t.Fatal(err)
		}
		out := readStdout(p)
		if err := stopWithin(t, t.Context(), p); err != nil {
			t.Fatal(err)
		}
		out.waitEOF(t)
	}
	deadline := time.Now().Add(testWait)
	for runtime.NumGoroutine() > base {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines, %d before:\n%s", runtime.NumGoroutine(), base, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}
