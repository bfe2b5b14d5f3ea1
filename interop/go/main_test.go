package interop

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acp-bridge/acp-bridge/internal/testkit"
)

// goSDK is the foreign Go ACP SDK whose examples the tests run.
const goSDK = "github.com/coder/acp-go-sdk"

// goSDKVersion is the version of goSDK, the only one on the proxy when this was written.
const goSDKVersion = "v0.13.0"

// Binaries built once by TestMain.
var (
	bridgeBin  string // acp-bridge, built with -race so the bridge's own races fail these tests
	exampleBin string // goSDK's example/agent
	clientBin  string // goSDK's example/client
)

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "acp-bridge-interop")
	if err != nil {
		fmt.Fprintln(os.Stderr, "interop:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	if err := buildAll(dir); err != nil {
		fmt.Fprintln(os.Stderr, "interop:", err)
		return 1
	}
	return m.Run()
}

// buildAll builds the bridge from this module and the example agent and
// client of goSDK from the module proxy, into dir.
func buildAll(dir string) error {
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	bridgeBin = filepath.Join(dir, "acp-bridge")
	build := exec.Command("go", "build", "-race", "-o", bridgeBin, "./cmd/acp-bridge")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("go build ./cmd/acp-bridge: %w\n%s", err, out)
	}

	// go install pkg@version from a directory outside this module, so
	// nothing is added to our go.mod; the default module cache is used.
	gobin := filepath.Join(dir, "gobin")
	outside := filepath.Join(dir, "outside")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		return err
	}
	install := exec.Command("go", "install",
		goSDK+"/example/agent@"+goSDKVersion,
		goSDK+"/example/client@"+goSDKVersion)
	install.Dir = outside
	install.Env = append(os.Environ(), "GOBIN="+gobin, "GOFLAGS=-mod=mod", "GOWORK=off")
	if out, err := install.CombinedOutput(); err != nil {
		return fmt.Errorf("go install %s examples %s: %w\n%s", goSDK, goSDKVersion, err, out)
	}
	exampleBin = filepath.Join(gobin, "agent")
	clientBin = filepath.Join(gobin, "client")
	return nil
}

// moduleRoot is the directory of our go.mod (two levels up from this package).
func moduleRoot() (string, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", fmt.Errorf("cannot locate the interop package's source")
	}
	root := filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		return "", fmt.Errorf("module root %s: %w", root, err)
	}
	return root, nil
}

// exampleAgentConfig is a bridge config whose default agent is the Go SDK's
// example agent, under the name "goexample".
func exampleAgentConfig() string {
	return fmt.Sprintf("defaultAgent: goexample\nagents:\n  goexample:\n    command: %q\napprovals:\n  timeoutSeconds: 120\n", exampleBin)
}

// isolatedEnv is os.Environ without ACP_BRIDGE_* settings, with HOME and the
// XDG directories under home, so no user config leaks into a test.
func isolatedEnv(home string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(k, "ACP_BRIDGE_"), k == "HOME", strings.HasPrefix(k, "XDG_"):
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"HOME="+home,
		"XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"XDG_STATE_HOME="+filepath.Join(home, ".local", "state"),
		"XDG_CACHE_HOME="+filepath.Join(home, ".cache"))
}

// bridgeProc is one acp-bridge process driven by the testkit editor.
type bridgeProc struct {
	editor     *testkit.Editor
	workspace  string
	stderr     *testkit.SyncBuffer
	transcript *transcript
}

// startBridge runs acp-bridge with config (YAML) over real stdio, driven by
// a testkit editor whose traffic is recorded in a transcript named after the
// test. Cleanup closes stdin, waits for the bridge to exit, checks the
// transcript is well-formed and the race detector stayed quiet.
func startBridge(t *testing.T, config string) *bridgeProc {
	t.Helper()
	home, ws := t.TempDir(), t.TempDir()
	cfg := filepath.Join(home, "config.yaml")
	if err := os.WriteFile(cfg, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bridgeBin, "--config", cfg, "--workspace", ws, "--log-level", "debug")
	cmd.Env = isolatedEnv(home)
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
	tr := newTranscript(t)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()

	ctx, cancel := context.WithCancel(context.Background())
	p := &bridgeProc{
		editor:     testkit.NewEditor(ctx, io.TeeReader(stdout, tr.tap(dirOut)), tapWriteCloser{stdin, tr.tap(dirIn)}),
		workspace:  ws,
		stderr:     stderr,
		transcript: tr,
	}
	t.Cleanup(func() {
		cancel()
		_ = stdin.Close()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("acp-bridge exited with %v after stdin closed", err)
			}
		case <-time.After(20 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
			t.Errorf("acp-bridge did not exit within 20s of stdin closing")
		}
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // stray children of the group, if any
		if strings.Contains(stderr.String(), "WARNING: DATA RACE") {
			t.Errorf("the race detector fired in acp-bridge")
		}
		if err := tr.close(); err != nil {
			t.Errorf("transcript: %v", err)
		}
		if t.Failed() {
			t.Logf("acp-bridge stderr:\n%s", stderr.String())
		}
	})
	return p
}

// testCtx bounds a whole scenario.
func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// promptResult is what Editor.Prompt returned.
type promptResult struct {
	stopReason string
	err        error
}

// promptAsync sends a prompt on its own goroutine.
func promptAsync(ctx context.Context, e *testkit.Editor, sessionID, text string) <-chan promptResult {
	ch := make(chan promptResult, 1)
	go func() {
		stop, err := e.Prompt(ctx, sessionID, text)
		ch <- promptResult{stop, err}
	}()
	return ch
}

// awaitPrompt waits for a prompt's result.
func awaitPrompt(ctx context.Context, t *testing.T, ch <-chan promptResult) string {
	t.Helper()
	select {
	case r := <-ch:
		if r.err != nil {
			t.Fatalf("session/prompt: %v", r.err)
		}
		return r.stopReason
	case <-ctx.Done():
		t.Fatalf("session/prompt never answered: %v", ctx.Err())
		return ""
	}
}

// toolUpdates returns the tool_call / tool_call_update updates of a tool call, in order.
func toolUpdates(msgs []testkit.Message, sessionID, toolCallID string) []map[string]any {
	var out []map[string]any
	for _, raw := range testkit.Updates(msgs, sessionID) {
		var u map[string]any
		if json.Unmarshal(raw, &u) != nil {
			continue
		}
		kind, _ := u["sessionUpdate"].(string)
		if (kind == "tool_call" || kind == "tool_call_update") && u["toolCallId"] == toolCallID {
			out = append(out, u)
		}
	}
	return out
}

// resolvedFor returns the _acp-bridge/approval/resolved notifications of one approval.
func resolvedFor(msgs []testkit.Message, approvalID string) []map[string]any {
	var out []map[string]any
	for _, r := range testkit.Resolved(msgs) {
		if r["approvalId"] == approvalID {
			out = append(out, r)
		}
	}
	return out
}
