package main

import (
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
	"syscall"
	"testing"
	"time"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/internal/pipesize"
	"github.com/acp-bridge/acp-bridge/internal/testkit"
)

// binPath is the acp-bridge binary built once for these tests.
var binPath string

func TestMain(m *testing.M) {
	// Always -race here: these tests are the race detector's view of the real binary.
	// The companion (OPA, telemetry) is built beside the bridge, where the
	// bridge looks for it.
	testkit.RunWithBinary(func() int {
		build := exec.Command("go", "build", "-race", "-o", filepath.Join(filepath.Dir(binPath), "acp-bridge-org"), "../acp-bridge-org")
		build.Stderr = os.Stderr
		if err := build.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "build acp-bridge-org:", err)
			return 1
		}
		return m.Run()
	}, &binPath, ".", true)
}

type proc struct {
	cmd    *exec.Cmd
	editor *testkit.Editor
	stdin  io.WriteCloser
	stdout *os.File // our end of the bridge's stdout
	stderr *testkit.SyncBuffer
	ws     string
	home   string
	cfg    string
	done   chan error
	// termAtCleanup: the cleanup also sends SIGTERM after closing stdin
	// (a bridge started with --attach-dir outlives its editor's stdin).
	termAtCleanup bool
}

// startBin runs the real binary over real stdio with an isolated HOME and
// config dir; config is the YAML of the --config file ("" = none: shipped defaults).
func startBin(t *testing.T, config string, extraArgs ...string) *proc {
	t.Helper()
	return startBinIn(t, t.TempDir(), t.TempDir(), config, extraArgs...)
}

// startBinIn is startBin with a given HOME and workspace (a test may have
// written files there first).
func startBinIn(t *testing.T, home, ws, config string, extraArgs ...string) *proc {
	t.Helper()
	return startBinVia(t, nil, home, ws, config, extraArgs...)
}

// startBinVia is startBinIn with the binary run through a wrapper command
// (prefix, e.g. unshare into a mount namespace), which must exec its
// arguments.
func startBinVia(t *testing.T, prefix []string, home, ws, config string, extraArgs ...string) *proc {
	t.Helper()
	args := []string{"--workspace", ws, "--log-level", "debug"}
	cfg := ""
	if config != "" {
		cfg = filepath.Join(home, "config.yaml")
		if err := os.WriteFile(cfg, []byte(config), 0o600); err != nil {
			t.Fatal(err)
		}
		args = append(args, "--config", cfg)
	}
	args = append(args, extraArgs...)
	argv := append(append(append([]string(nil), prefix...), binPath), args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"))
	cmd.Dir = ws
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &testkit.SyncBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &proc{cmd: cmd, stdin: stdin, stdout: stdout.(*os.File), stderr: stderr, ws: ws, home: home, cfg: cfg, done: make(chan error, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	p.editor = testkit.NewEditor(ctx, stdout, stdin)
	go func() { p.done <- cmd.Wait() }()
	t.Cleanup(func() {
		cancel()
		_ = stdin.Close()
		how := "stdin closed"
		if p.termAtCleanup {
			_ = syscall.Kill(cmd.Process.Pid, syscall.SIGTERM)
			how = "SIGTERM"
		}
		select {
		case <-p.done:
		case <-time.After(20 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			t.Errorf("acp-bridge did not exit after %s", how)
		}
		if t.Failed() {
			t.Logf("acp-bridge stderr:\n%s", p.stderr.String())
		}
	})
	return p
}

// open initializes (no fs, no terminal) and opens a session with the default agent.
func (p *proc) open(t *testing.T) (context.Context, string) {
	t.Helper()
	c := ctx(t)
	if _, err := p.editor.Initialize(c, false, false); err != nil {
		t.Fatal(err)
	}
	sid, err := p.editor.NewSession(c, p.ws, "")
	if err != nil {
		t.Fatal(err)
	}
	return c, sid
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return c
}

func TestVersionAndHelp(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"version"}} {
		out, err := exec.Command(binPath, args...).Output()
		if err != nil || !strings.HasPrefix(string(out), "acp-bridge ") {
			t.Fatalf("%v: %q %v", args, out, err)
		}
	}
	for _, sub := range []string{"chat", "agents", "demo-agent", "audit"} {
		out, err := exec.Command(binPath, sub, "--help").CombinedOutput()
		if err != nil || !strings.Contains(string(out), "Usage") {
			t.Fatalf("%s --help: %v\n%s", sub, err, out)
		}
	}
	out, err := exec.Command(binPath, "frobnicate").CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), `unknown command "frobnicate"`) {
		t.Fatalf("unknown command: %v %s", err, out)
	}
}

// TestEditorPipesGrown checks that the bridge enlarges the pipes the editor
// gave it (internal/pipesize), seen from the editor's ends.
func TestEditorPipesGrown(t *testing.T) {
	p := startBin(t, "")
	p.open(t) // the bridge has started serving
	for name, end := range map[string]any{"stdin": p.stdin, "stdout": p.stdout} {
		conn, ok := end.(syscall.Conn)
		if !ok {
			t.Fatalf("%s: %T has no SyscallConn", name, end)
		}
		size, err := pipesize.Size(conn)
		if err != nil || size < pipesize.Default {
			t.Errorf("bridge's %s pipe: %d bytes (%v), want %d", name, size, err, pipesize.Default)
		}
	}
}

// The bridge serves the editor's pipes from Go's poller (non-blocking, see
// editorStdio), and a batch of updates followed by the agent's silence
// still reaches the editor whole: the child's read loop flushes the editor
// queue before it waits for more.
func TestUpdatesBeforeSilenceReachTheEditor(t *testing.T) {
	p := startBin(t, "defaultAgent: f\nagents:\n"+testkit.FakeAgentYAML("f"))
	c, sid := p.open(t)
	for _, fd := range []int{0, 1} {
		info, err := os.ReadFile(fmt.Sprintf("/proc/%d/fdinfo/%d", p.cmd.Process.Pid, fd))
		if err != nil {
			t.Fatal(err)
		}
		var flags int64
		for _, line := range strings.Split(string(info), "\n") {
			if v, ok := strings.CutPrefix(line, "flags:"); ok {
				flags, _ = strconv.ParseInt(strings.TrimSpace(v), 8, 64)
			}
		}
		if flags&syscall.O_NONBLOCK == 0 {
			t.Errorf("the bridge's fd %d is blocking (flags %#o)", fd, flags)
		}
	}
	done := make(chan error, 1)
	go func() {
		stop, err := p.editor.Prompt(c, sid, "updates 3\nwait")
		if err == nil && stop != acp.StopCancelled {
			err = fmt.Errorf("stop %q, want cancelled", stop)
		}
		done <- err
	}()
	want := []string{"f:1", "f:2", "f:3", "waiting"}
	// The agent now waits for the cancel and writes nothing more.
	if err := p.editor.WaitFor(c, "four updates", func(msgs []testkit.Message) bool {
		return len(testkit.Texts(msgs, sid)) >= len(want)
	}); err != nil {
		t.Fatal(err)
	}
	if got := testkit.Texts(p.editor.Messages(), sid); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("updates %q, want %q", got, want)
	}
	_ = p.editor.Conn.Notify(c, acp.MethodSessionCancel, map[string]string{"sessionId": sid})
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the cancelled prompt did not end")
	}
}

func TestBrokenConfigRefusesToStart(t *testing.T) {
	dir := t.TempDir()
	cases := map[string]string{
		"yaml":    "agents: [this is: not: valid\n",
		"unknown": "defaultAgent: demo\npermisions: {allow: [\"Bash\"]}\n",
		"mode":    "permissions: {defaultMode: yolo}\n",
	}
	for name, body := range cases {
		t.Run(name, func(t *testing.T) {
			cfg := filepath.Join(dir, name+".yaml")
			if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(binPath, "--config", cfg, "--workspace", dir)
			cmd.Stdin = strings.NewReader("")
			cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_CONFIG_HOME="+dir)
			out, err := cmd.CombinedOutput()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 2 {
				t.Fatalf("exit %v, want 2; output:\n%s", err, out)
			}
			if !strings.Contains(string(out), "refusing to start") || !strings.Contains(string(out), cfg) {
				t.Fatalf("error does not name the file:\n%s", out)
			}
		})
	}
}

// The demo agent, the default of a fresh install, through the real binary.
func TestDemoAgentThroughBinary(t *testing.T) {
	p := startBin(t, "")
	c := ctx(t)
	init, err := p.editor.Initialize(c, false, false)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(init), `"defaultAgent":"demo"`) {
		t.Fatalf("initialize: %s", init)
	}
	sid, err := p.editor.NewSession(c, p.ws, "")
	if err != nil {
		t.Fatal(err)
	}
	res := make(chan string, 1)
	go func() {
		stop, err := p.editor.Prompt(c, sid, "only:test")
		if err != nil {
			stop = "error: " + err.Error()
		}
		res <- stop
	}()
	perm, err := p.editor.NextPermission(c)
	if err != nil {
		t.Fatal(err)
	}
	if perm.Meta.Specifier != "Bash(go test ./...)" || perm.Meta.ApprovalID == "" {
		t.Fatalf("card: %+v", perm.Meta)
	}
	perm.Answer(acp.Selected("acp-bridge:allow_once"))
	if stop := <-res; stop != acp.StopEndTurn {
		t.Fatalf("stop = %s", stop)
	}
	completed := false
	for _, u := range testkit.Updates(p.editor.Messages(), sid) {
		if strings.Contains(string(u), `"tool_call_update"`) && strings.Contains(string(u), `"completed"`) {
			completed = true
		}
	}
	if !completed {
		t.Fatal("the allowed tool call never completed")
	}
}

// Rules decide the demo agent's calls in each mode, without a card.
func TestRulesAndModesThroughBinary(t *testing.T) {
	cases := []struct {
		mode, prompt, rules string
		wantCard            bool
		wantStatus          string // the tool call's final status
	}{
		{"default", "only:test", `allow: ["Bash(go test *)"]`, false, "completed"},
		{"default", "only:test", `deny: ["Bash(go test *)"]`, false, "failed"},
		{"default", "only:test", ``, true, ""},
		{"plan", "only:test", ``, false, "failed"},
		{"dontAsk", "only:test", ``, false, "failed"},
		{"bypassPermissions", "only:rm", `deny: ["Bash(rm *)"]`, false, "failed"},
		{"acceptEdits", "only:edit", ``, false, "completed"},
	}
	for _, tc := range cases {
		t.Run(tc.mode+"/"+tc.prompt+"/"+tc.rules, func(t *testing.T) {
			p := startBin(t, fmt.Sprintf("permissions: {defaultMode: %s, %s}\n", tc.mode, tc.rules))
			c, sid := p.open(t)
			res := make(chan error, 1)
			go func() { _, err := p.editor.Prompt(c, sid, tc.prompt); res <- err }()
			if tc.wantCard {
				perm, err := p.editor.NextPermission(c)
				if err != nil {
					t.Fatal(err)
				}
				perm.Answer(acp.Selected("acp-bridge:reject_once"))
			}
			if err := <-res; err != nil {
				t.Fatal(err)
			}
			if !tc.wantCard && len(p.editor.Permissions) > 0 {
				t.Fatal("a card was shown although the rules/mode decide")
			}
			if tc.wantStatus == "" {
				return
			}
			var last string
			for _, u := range testkit.Updates(p.editor.Messages(), sid) {
				if strings.Contains(string(u), `"tool_call_update"`) {
					last = string(u)
				}
			}
			// In plan mode the demo agent may not attempt the call at all: then no card, no completion.
			if tc.mode == "plan" && last == "" {
				return
			}
			if !strings.Contains(last, `"status":"`+tc.wantStatus+`"`) {
				t.Fatalf("last tool_call_update %s, want status %s", last, tc.wantStatus)
			}
		})
	}
}

// Always allow: the next identical call goes through without a card, and the
// rule lands in the bridge's config (the fake editor cannot persist).
func TestAlwaysAllowThroughBinary(t *testing.T) {
	p := startBin(t, "defaultAgent: demo\n")
	c, sid := p.open(t)
	res := make(chan error, 1)
	go func() { _, err := p.editor.Prompt(c, sid, "only:test"); res <- err }()
	perm, err := p.editor.NextPermission(c)
	if err != nil {
		t.Fatal(err)
	}
	if len(perm.Meta.SuggestedRules) == 0 || perm.Meta.SuggestedRules[0] != "Bash(go test ./...)" {
		t.Fatalf("suggested rules %v", perm.Meta.SuggestedRules)
	}
	perm.Answer(acp.Selected("acp-bridge:allow_always"))
	if err := <-res; err != nil {
		t.Fatal(err)
	}
	if _, err := p.editor.Prompt(c, sid, "only:test"); err != nil {
		t.Fatal(err)
	}
	if len(p.editor.Permissions) != 0 {
		t.Fatal("a card was shown for the call that was always-allowed")
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		data, _ := os.ReadFile(p.cfg)
		if strings.Contains(string(data), "Bash(go test ./...)") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("rule not persisted to %s:\n%s", p.cfg, data)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A circuit breaker asks even in bypass mode.
func TestCircuitBreakerAsksInBypass(t *testing.T) {
	p := startBin(t, "defaultAgent: f\npermissions: {defaultMode: bypassPermissions}\nagents:\n"+testkit.FakeAgentYAML("f"))
	c, sid := p.open(t)
	res := make(chan error, 1)
	go func() { _, err := p.editor.Prompt(c, sid, "bash ls -la\nbash rm -rf ~"); res <- err }()
	perm, err := p.editor.NextPermission(c)
	if err != nil {
		t.Fatal(err)
	}
	if perm.Meta.Breaker == "" || perm.Meta.Source != "breaker" {
		t.Fatalf("card for rm -rf ~ in bypass: %+v", perm.Meta)
	}
	perm.Answer(acp.Selected("acp-bridge:reject_once"))
	if err := <-res; err != nil {
		t.Fatal(err)
	}
	texts := testkit.Texts(p.editor.Messages(), sid)
	if len(texts) != 2 || texts[0] != "bash=allow" || texts[1] != "bash=reject" {
		t.Fatalf("texts %q: want ls allowed by bypass, rm -rf ~ rejected by the person", texts)
	}
}

// The editor closes stdin mid-turn: pending approvals answered, children stopped, bridge exits.
func TestEditorClosesStdinMidTurn(t *testing.T) {
	p := startBin(t, "defaultAgent: f\nagents:\n"+testkit.FakeAgentYAML("f"))
	c, sid := p.open(t)
	go func() { _, _ = p.editor.Prompt(c, sid, "perm x\nwait") }()
	if _, err := p.editor.NextPermission(c); err != nil {
		t.Fatal(err)
	}
	var list struct {
		Agents []struct {
			ID  string `json:"id"`
			Pid int    `json:"pid"`
		} `json:"agents"`
	}
	if err := p.editor.Conn.Call(c, acp.MethodAgentsList, map[string]any{}, &list); err != nil {
		t.Fatal(err)
	}
	pid := 0
	for _, a := range list.Agents {
		if a.ID == "f" {
			pid = a.Pid
		}
	}
	if pid == 0 {
		t.Fatal("no pid for the running agent")
	}
	_ = p.stdin.Close()
	select {
	case err := <-p.done:
		if err != nil {
			t.Fatalf("bridge exit: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("bridge did not exit after stdin closed")
	}
	p.done <- nil // for the cleanup
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("child %d still exists after the bridge exited (err %v)", pid, err)
	}
}

// SIGTERM: pending approvals resolved, children stopped, clean exit.
func TestSIGTERM(t *testing.T) {
	p := startBin(t, "defaultAgent: f\nagents:\n"+testkit.FakeAgentYAML("f"))
	c, sid := p.open(t)
	go func() { _, _ = p.editor.Prompt(c, sid, "perm x") }()
	if _, err := p.editor.NextPermission(c); err != nil {
		t.Fatal(err)
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(20 * time.Second):
		t.Fatal("bridge did not exit on SIGTERM")
	}
	p.done <- nil
	if err := p.editor.WaitFor(c, "resolved by shutdown", func(msgs []testkit.Message) bool {
		for _, r := range testkit.Resolved(msgs) {
			if r["by"] == "shutdown" {
				return true
			}
		}
		return false
	}); err != nil {
		t.Fatalf("%v; stderr:\n%s", err, p.stderr.String())
	}
}

func TestPolicyEvalThroughBinary(t *testing.T) {
	in := `{"id":"1","tool":"Bash","input":{"command":"npm run test && rm -rf /tmp/x"},"rules":{"allow":["Bash(npm run test *)","Bash(npm run test)"],"deny":["Bash(rm *)"]},"mode":"default","cwd":"/p","projectRoot":"/p","home":"/h"}
{"id":"2","tool":"Bash","input":{"command":"npm run test"},"rules":{"allow":["Bash(npm run test)"]},"mode":"default","cwd":"/p","projectRoot":"/p","home":"/h"}
not json
`
	cmd := exec.Command(binPath, "policy", "eval")
	cmd.Stdin = strings.NewReader(in)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("policy eval: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 3 {
		t.Fatalf("want 3 output lines, got %q", out)
	}
	var r1, r2 map[string]any
	_ = json.Unmarshal([]byte(lines[0]), &r1)
	_ = json.Unmarshal([]byte(lines[1]), &r2)
	if r1["decision"] != "deny" || r1["rule"] != "Bash(rm *)" || r2["decision"] != "allow" {
		t.Fatalf("decisions: %v / %v", r1, r2)
	}
	if !strings.Contains(lines[2], "error") {
		t.Fatalf("bad line not reported: %s", lines[2])
	}
}

func TestAgentsCommand(t *testing.T) {
	home := t.TempDir()
	cfg := filepath.Join(home, "c.yaml")
	_ = os.WriteFile(cfg, []byte("agents:\n"+testkit.FakeAgentYAML("f")+"  broken:\n    command: /nonexistent/agent\n"), 0o600)
	cmd := exec.Command(binPath, "agents", "--config", cfg, "--workspace", home)
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+home)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("agents with a broken agent: %v\n%s", err, out)
	}
	s := string(out)
	for _, want := range []string{"demo (default)", "acp-bridge-demo", "f ", "ok", "broken", "FAILED", "/nonexistent/agent"} {
		if !strings.Contains(s, want) {
			t.Fatalf("agents output lacks %q:\n%s", want, s)
		}
	}
}
