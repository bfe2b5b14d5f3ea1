package faults

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/bench"
	"github.com/acp-bridge/acp-bridge/internal/testkit"
)

// binPath is the acp-bridge binary, built once by TestMain.
var binPath string

func TestMain(m *testing.M) {
	testkit.RunWithBinary(m.Run, &binPath, "../cmd/acp-bridge", raceEnabled)
}

// valve is a reader that can be shut: the fake editor stops reading the
// bridge's stdout while it is shut (a slow or stalled editor).
type valve struct {
	r    io.Reader
	mu   sync.Mutex
	open chan struct{}
}

func newValve(r io.Reader) *valve {
	v := &valve{r: r, open: make(chan struct{})}
	close(v.open)
	return v
}

func (v *valve) Read(p []byte) (int, error) {
	v.mu.Lock()
	ch := v.open
	v.mu.Unlock()
	<-ch
	return v.r.Read(p)
}

func (v *valve) shut() {
	v.mu.Lock()
	v.open = make(chan struct{})
	v.mu.Unlock()
}

func (v *valve) release() {
	v.mu.Lock()
	defer v.mu.Unlock()
	select {
	case <-v.open:
	default:
		close(v.open)
	}
}

// bridgeProc is one acp-bridge process with a fake editor on its stdio.
type bridgeProc struct {
	t      *testing.T
	cmd    *exec.Cmd
	editor *testkit.Editor
	stdin  io.WriteCloser
	valve  *valve
	stderr *testkit.SyncBuffer
	home   string // HOME; XDG_CONFIG_HOME is home/.config
	ws     string // workspace and cwd
	cfg    string // --config file ("" if none)
	exited chan struct{}
	exit   error // set before exited closes
}

type startOpts struct {
	config    string   // YAML of the --config file; "" = no --config
	workspace string   // YAML of <ws>/.acp-bridge.yaml; "" = none
	env       []string // extra environment
	args      []string // extra flags
}

// start runs the real binary with an isolated HOME and workspace.
func start(t *testing.T, o startOpts) *bridgeProc {
	t.Helper()
	home := t.TempDir()
	ws := t.TempDir()
	p := &bridgeProc{t: t, home: home, ws: ws, stderr: &testkit.SyncBuffer{}, exited: make(chan struct{})}
	args := []string{"--workspace", ws, "--log-level", "debug"}
	if o.config != "" {
		p.cfg = filepath.Join(home, "config.yaml")
		if err := os.WriteFile(p.cfg, []byte(o.config), 0o600); err != nil {
			t.Fatal(err)
		}
		args = append(args, "--config", p.cfg)
	}
	if o.workspace != "" {
		if err := os.WriteFile(filepath.Join(ws, ".acp-bridge.yaml"), []byte(o.workspace), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	p.cmd = exec.Command(binPath, append(args, o.args...)...)
	p.cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"))
	p.cmd.Env = append(p.cmd.Env, o.env...)
	p.cmd.Dir = ws
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdin, err := p.cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p.cmd.Stderr = p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p.stdin = stdin
	p.valve = newValve(stdout)
	ctx, cancel := context.WithCancel(context.Background())
	p.editor = testkit.NewEditor(ctx, p.valve, stdin)
	go func() {
		p.exit = p.cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		p.valve.release()
		cancel()
		_ = stdin.Close()
		select {
		case <-p.exited:
		case <-time.After(30 * time.Second):
			_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
			t.Errorf("acp-bridge did not exit within 30s of stdin closing")
			<-p.exited
		}
		if t.Failed() {
			t.Logf("acp-bridge stderr:\n%s", tail(p.stderr.String(), 60))
		}
	})
	return p
}

func tail(s string, lines int) string {
	l := strings.Split(s, "\n")
	if len(l) > lines {
		l = l[len(l)-lines:]
	}
	return strings.Join(l, "\n")
}

// waitExit waits (bounded) for the bridge to exit.
func (p *bridgeProc) waitExit(what string) {
	p.t.Helper()
	select {
	case <-p.exited:
	case <-time.After(30 * time.Second):
		p.t.Fatalf("acp-bridge did not exit after %s", what)
	}
}

func tctx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// wait receives from ch, failing the test after a minute.
func wait[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(60 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
		var zero T
		return zero
	}
}

func (p *bridgeProc) init() {
	p.t.Helper()
	if _, err := p.editor.Initialize(tctx(p.t), false, false); err != nil {
		p.t.Fatalf("initialize: %v\nstderr:\n%s", err, tail(p.stderr.String(), 30))
	}
}

func (p *bridgeProc) session(agent string) string {
	p.t.Helper()
	sid, err := p.editor.NewSession(tctx(p.t), p.ws, agent)
	if err != nil {
		p.t.Fatalf("session/new %s: %v\nstderr:\n%s", agent, err, tail(p.stderr.String(), 30))
	}
	return sid
}

type promptResult struct {
	stop string
	err  error
}

func (p *bridgeProc) promptAsync(sid, text string) <-chan promptResult {
	ch := make(chan promptResult, 1)
	go func() {
		stop, err := p.editor.Prompt(tctx(p.t), sid, text)
		ch <- promptResult{stop, err}
	}()
	return ch
}

// agentPid returns the pid of a running agent from _acp-bridge/agents/list.
func (p *bridgeProc) agentPid(name string) int {
	p.t.Helper()
	var list struct {
		Agents []struct {
			ID  string `json:"id"`
			Pid int    `json:"pid"`
		} `json:"agents"`
	}
	if err := p.editor.Conn.Call(tctx(p.t), acp.MethodAgentsList, map[string]any{}, &list); err != nil {
		p.t.Fatal(err)
	}
	for _, a := range list.Agents {
		if a.ID == name && a.Pid > 0 {
			return a.Pid
		}
	}
	p.t.Fatalf("agent %s has no pid in agents/list", name)
	return 0
}

// procState reads /proc/<pid>/stat: the state letter and the parent pid.
// ok is false when the process no longer exists.
func procState(pid int) (state byte, ppid int, ok bool) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, false
	}
	// pid (comm) state ppid ...; comm may hold spaces and parentheses.
	i := bytes.LastIndexByte(data, ')')
	if i < 0 || i+2 >= len(data) {
		return 0, 0, false
	}
	f := strings.Fields(string(data[i+2:]))
	if len(f) < 2 {
		return 0, 0, false
	}
	ppid, _ = strconv.Atoi(f[1])
	return f[0][0], ppid, true
}

// waitGone waits until pid no longer runs. A zombie whose parent is not
// reaper (the bridge) counts as gone: it is not the bridge's to reap. A
// zombie of reaper is a leak. /proc offers no channel, so this polls.
func waitGone(t *testing.T, pid, reaper int, what string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		state, ppid, ok := procState(pid)
		if !ok || (state == 'Z' && ppid != reaper) {
			return
		}
		if time.Now().After(deadline) {
			if state == 'Z' {
				t.Fatalf("%s (pid %d) is a zombie of pid %d: never reaped", what, pid, ppid)
			}
			t.Fatalf("%s (pid %d) still running (state %c)", what, pid, state)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// memory reads VmRSS and VmHWM (bytes) of pid.
func memory(t *testing.T, pid int) (rss, hwm int64) {
	t.Helper()
	m, err := bench.ReadMemory(pid)
	if err != nil {
		t.Fatal(err)
	}
	return m.RSS, m.HWM
}

// bytesWritten is wchar of /proc/<pid>/io: what the process has written.
func bytesWritten(t *testing.T, pid int) int64 {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/io", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(l, "wchar: "); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	t.Fatal("no wchar in /proc/<pid>/io")
	return 0
}

// resolvedBy counts _acp-bridge/approval/resolved notices by their "by".
func resolvedBy(msgs []testkit.Message) map[string]int {
	out := map[string]int{}
	for _, r := range testkit.Resolved(msgs) {
		by, _ := r["by"].(string)
		out[by]++
	}
	return out
}

// readReport reads a fake agent's --report file: toolCallId -> answers.
func readReport(t *testing.T, path string) map[string][]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if id, ans, ok := strings.Cut(l, "="); ok {
			out[id] = append(out[id], ans)
		}
	}
	return out
}

// agentYAML is a fake agent entry (under agents:) with a --report file.
// The agent runs in the OS sandbox, so the report's directory is one more
// writable path for it (sandbox.allowWrite).
func agentYAML(name, report string, flags ...string) string {
	y := ""
	if report != "" {
		flags = append(flags, "--report="+report)
		y = "    sandbox: {allowWrite: [\"" + filepath.Dir(report) + "\"]}\n"
	}
	return testkit.FakeAgentYAML(name, flags...) + y
}

// killTree SIGKILLs pid and every process below it, the lowest first. The
// bridge knows an agent by the pid of what it started; in the OS sandbox
// that is bubblewrap, and the agent runs below it (in its own session), so
// "the agent is killed" means the whole tree.
func killTree(t *testing.T, pid int) {
	t.Helper()
	var walk func(int) []int
	walk = func(p int) []int {
		var out []int
		for _, c := range bench.ChildPIDs(p) {
			out = append(out, walk(c)...)
		}
		return append(out, p)
	}
	for _, p := range walk(pid) {
		// The agent's process may be gone already (its descendants were
		// killed first and the bridge reaped it): ESRCH is that, not a
		// failure; the callers check that it died and how.
		if err := syscall.Kill(p, syscall.SIGKILL); err != nil && p == pid && !errors.Is(err, syscall.ESRCH) {
			t.Fatal(err)
		}
	}
}

// pidByCmdline returns the pid (in this PID namespace) of the one process
// whose command line, NULs read as spaces, is cmdline; 0 if none.
func pidByCmdline(t *testing.T, cmdline string) int {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.TrimRight(strings.ReplaceAll(string(b), "\x00", " "), " ") == cmdline {
			return pid
		}
	}
	return 0
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
