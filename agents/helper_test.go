package agents

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/acp-bridge/acp-bridge/internal/pipesize"
	"golang.org/x/sys/unix"
)

// The test binary doubles as the child agent: helperSpec runs it with
// -test.run=TestHelperProcess and a mode after "--".

const helperEnv = "ACPB_AGENTS_HELPER"

// testWait bounds every wait in these tests (2 shared cores, -race).
const testWait = 20 * time.Second

func helperSpec(name string, mode ...string) Spec {
	return Spec{
		Name:    name,
		Command: os.Args[0],
		Args:    append([]string{"-test.run=^TestHelperProcess$", "--"}, mode...),
		// Under -race a child exiting 0 would sleep 1 s in the race runtime.
		Env: map[string]string{helperEnv: "1", "GORACE": "atexit_sleep_ms=0"},
	}
}

// TestMain makes the test process a child subreaper, so grandchildren
// orphaned by a killed helper are reparented here and waitGone can reap them
// itself instead of depending on how promptly PID 1 reaps.
func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) != "1" {
		if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
			fmt.Fprintln(os.Stderr, "agents test: no child subreaper, relying on PID 1 to reap:", err)
		}
	}
	os.Exit(m.Run())
}

// TestHelperProcess is not a test: it is the child's main.
func TestHelperProcess(t *testing.T) {
	if os.Getenv(helperEnv) != "1" {
		t.Skip("helper process only")
	}
	args := os.Args
	for i, a := range args {
		if a == "--" {
			args = args[i+1:]
			break
		}
	}
	os.Exit(helperMain(args))
}

func helperMain(args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "helper: no mode")
		return 2
	}
	switch mode := args[0]; mode {
	case "echo": // copy stdin lines to stdout; exit 0 at EOF
		sc := bufio.NewScanner(os.Stdin)
		for sc.Scan() {
			fmt.Println(sc.Text())
		}
		return 0
	case "env": // print one env var and the working dir
		wd, err := os.Getwd()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Println(os.Getenv(args[1]))
		fmt.Println(wd)
		return 0
	case "stderr": // write the given lines to stderr, then one of N 'x's
		for _, l := range args[1 : len(args)-1] {
			fmt.Fprintln(os.Stderr, l)
		}
		n, _ := strconv.Atoi(args[len(args)-1])
		fmt.Fprintln(os.Stderr, strings.Repeat("x", n))
		return 0
	case "crash": // N stderr lines, then exit with the given code
		n, _ := strconv.Atoi(args[1])
		code, _ := strconv.Atoi(args[2])
		for i := 1; i <= n; i++ {
			fmt.Fprintf(os.Stderr, "line %d\n", i)
		}
		fmt.Fprintln(os.Stderr, "fatal: boom")
		return code
	case "exit-on-line": // exit with the code read from stdin; 0 at EOF
		sc := bufio.NewScanner(os.Stdin)
		if sc.Scan() {
			code, _ := strconv.Atoi(sc.Text())
			return code
		}
		return 0
	case "ignore-stdin": // never reads stdin; SIGTERM kills it (default action)
		fmt.Println("ready")
		select {}
	case "ignore-term": // ignores stdin and SIGTERM
		signal.Ignore(syscall.SIGTERM)
		fmt.Println("ready")
		select {}
	case "pipesize": // print the size of the stdout pipe's buffer
		size, err := pipesize.Size(os.Stdout)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Println(size)
		return 0
	case "sleep": // silent, never exits by itself
		select {}
	case "grandchild": // spawn "sleep" sharing our stdout and stderr pipes, then args[1]: wait | exit
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "--", "sleep")
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		if err := cmd.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Printf("grandchild %d\n", cmd.Process.Pid)
		if args[1] == "exit" {
			return 7
		}
		select {}
	}
	fmt.Fprintln(os.Stderr, "helper: unknown mode", args[0])
	return 2
}

// start starts spec with a logger and registers a cleanup that stops it.
func start(t *testing.T, ctx context.Context, spec Spec, log *zap.Logger) *Process {
	t.Helper()
	p, err := Start(ctx, spec, log)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), testWait)
		defer cancel()
		_ = p.Stop(ctx)
	})
	return p
}

// lineReader reads stdout lines in a goroutine so tests can wait with a bound.
type lineReader struct {
	lines chan string
}

func readStdout(p *Process) *lineReader {
	lr := &lineReader{lines: make(chan string, 16)}
	go func() {
		defer close(lr.lines)
		sc := bufio.NewScanner(p.Stdout())
		for sc.Scan() {
			lr.lines <- sc.Text()
		}
	}()
	return lr
}

func (lr *lineReader) next(t *testing.T) string {
	t.Helper()
	select {
	case l, ok := <-lr.lines:
		if !ok {
			t.Fatal("stdout ended before the expected line")
		}
		return l
	case <-time.After(testWait):
		t.Fatal("no stdout line in time")
	}
	return ""
}

// waitEOF waits for stdout to end.
func (lr *lineReader) waitEOF(t *testing.T) {
	t.Helper()
	for {
		select {
		case _, ok := <-lr.lines:
			if !ok {
				return
			}
		case <-time.After(testWait):
			t.Fatal("stdout did not reach EOF")
		}
	}
}

func waitDone(t *testing.T, p *Process) {
	t.Helper()
	select {
	case <-p.Done():
	case <-time.After(testWait):
		t.Fatalf("agent pid %d did not exit in time", p.Pid())
	}
}

// killOnCleanup makes sure a grandchild the code under test failed to stop
// does not outlive the test.
func killOnCleanup(t *testing.T, pid int) {
	t.Helper()
	if pid <= 1 {
		t.Fatalf("bad grandchild pid %d", pid)
	}
	t.Cleanup(func() {
		// Only a helper still alive after a failure; a passing test reaped it
		// and its pid may belong to someone else by now.
		cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if !t.Failed() || err != nil || !strings.Contains(string(cmdline), "TestHelperProcess") {
			return
		}
		if syscall.Kill(pid, syscall.SIGKILL) == nil {
			var ws unix.WaitStatus
			_, _ = unix.Wait4(pid, &ws, 0, nil) // ours as subreaper; ECHILD otherwise
		}
	})
}

// waitGone polls until pid no longer exists (ESRCH), bounded. An orphan
// reparented to this process (see TestMain) is reaped here once it exits.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(testWait)
	for {
		var ws unix.WaitStatus
		if got, _ := unix.Wait4(pid, &ws, unix.WNOHANG, nil); got == pid && !ws.Signaled() {
			t.Errorf("pid %d exited with status %d, want killed by a signal", pid, ws.ExitStatus())
		}
		err := syscall.Kill(pid, 0)
		if err == syscall.ESRCH {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("pid %d still exists (kill 0: %v)", pid, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
