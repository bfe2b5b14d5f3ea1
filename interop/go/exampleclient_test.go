package interop

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acp-bridge/acp-bridge/internal/testkit"
)

// teeScript runs the bridge with its stdin and stdout copied to files, so a
// parent we do not control (the example client spawns its agent itself)
// still leaves a transcript.
const teeScript = `tee "$ACP_INTEROP_IN" | "$ACP_INTEROP_BRIDGE" "$@" | tee "$ACP_INTEROP_OUT"`

// menuOption is one line of the example client's permission menu:
// "   1. Allow once (allow_once)".
var menuOption = regexp.MustCompile(`(?m)^\s+(\d+)\. (.+) \(([a-z_]+)\)$`)

const menuPrompt = "Choose an option: "

// TestExampleClientAsParent runs goSDK's example client as the editor: it
// spawns acp-bridge itself (client <cmd> <args...>), sends one prompt
// "Hello, agent!" and asks on its stdin which option to pick for every
// permission request; the test picks the allow_once option each time.
func TestExampleClientAsParent(t *testing.T) {
	cases := []struct {
		name     string
		config   string // "" = an empty config: the built-in demo agent
		wantText []string
		minCards int
	}{
		{
			name:     "example agent",
			config:   exampleAgentConfig(),
			wantText: []string{"Permission requested: " + exampleToolTitle, exampleAllowText},
			minCards: 1,
		},
		{
			name:     "demo agent",
			config:   "",
			wantText: []string{"acp-bridge demo agent"},
			minCards: 1,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ctx := testCtx(t)
			out, cards := runExampleClient(ctx, t, c.config)
			if cards < c.minCards {
				t.Errorf("answered %d permission menus, want at least %d", cards, c.minCards)
			}
			for _, w := range append(c.wantText, "✅ Agent completed") {
				if !strings.Contains(out, w) {
					t.Errorf("client output lacks %q", w)
				}
			}
			if t.Failed() {
				t.Logf("client stdout:\n%s", out)
			}
		})
	}
}

// runExampleClient runs the example client against the bridge with config
// and returns its stdout and how many permission menus it answered.
func runExampleClient(ctx context.Context, t *testing.T, config string) (string, int) {
	t.Helper()
	home, ws, logs := t.TempDir(), t.TempDir(), t.TempDir()
	args := []string{"-c", teeScript, "acp-bridge-tee", "--workspace", ws, "--log-level", "debug"}
	if config != "" {
		cfg := filepath.Join(home, "config.yaml")
		if err := os.WriteFile(cfg, []byte(config), 0o600); err != nil {
			t.Fatal(err)
		}
		args = append(args, "--config", cfg)
	}
	inLog, outLog := filepath.Join(logs, "in.ndjson"), filepath.Join(logs, "out.ndjson")
	cmd := exec.Command(clientBin, append([]string{"/bin/sh"}, args...)...)
	cmd.Dir = ws
	cmd.Env = append(isolatedEnv(home), "ACP_INTEROP_BRIDGE="+bridgeBin, "ACP_INTEROP_IN="+inLog, "ACP_INTEROP_OUT="+outLog)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// The bridge and the tees inherit the client's stderr, so Wait returns
	// only when all of them have exited and the transcript files are complete.
	stderr := &testkit.SyncBuffer{}
	cmd.Stderr = stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	type result struct {
		out   string
		cards int
		err   error
	}
	done := make(chan result, 1)
	go func() {
		out, cards, err := answerMenus(stdout, stdin)
		done <- result{out, cards, err}
	}()
	var r result
	select {
	case r = <-done:
	case <-ctx.Done():
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		r = <-done
		r.err = errors.Join(r.err, fmt.Errorf("the example client did not finish: %w", ctx.Err()))
	}
	_ = stdin.Close()
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	select {
	case err := <-waited:
		if err != nil {
			t.Errorf("example client: %v", err)
		}
	case <-time.After(30 * time.Second):
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-waited
		t.Errorf("the bridge (or its tees) outlived the example client by 30s")
	}
	if r.err != nil {
		t.Error(r.err)
	}
	if strings.Contains(stderr.String(), "WARNING: DATA RACE") {
		t.Errorf("the race detector fired in acp-bridge")
	}
	if err := writeTeeTranscript(t, inLog, outLog); err != nil {
		t.Errorf("transcript: %v", err)
	}
	if t.Failed() {
		t.Logf("stderr of the client and the bridge:\n%s", stderr.String())
	}
	return r.out, r.cards
}

// answerMenus reads the client's stdout until EOF and, each time it prints
// a permission menu, answers with the number of its first allow_once option.
func answerMenus(stdout io.Reader, stdin io.Writer) (string, int, error) {
	var out strings.Builder
	r := bufio.NewReader(stdout)
	cards := 0
	answered := 0 // length of out already handled
	buf := make([]byte, 4096)
	for {
		n, err := r.Read(buf)
		out.Write(buf[:n])
		for {
			s := out.String()
			i := strings.Index(s[answered:], menuPrompt)
			if i < 0 {
				break
			}
			menu := s[answered : answered+i]
			answered += i + len(menuPrompt)
			choice := ""
			for _, m := range menuOption.FindAllStringSubmatch(menu, -1) {
				if m[3] == "allow_once" {
					choice = m[1]
					break
				}
			}
			if choice == "" {
				return out.String(), cards, fmt.Errorf("permission menu without an allow_once option:\n%s", menu)
			}
			if _, werr := io.WriteString(stdin, choice+"\n"); werr != nil {
				return out.String(), cards, fmt.Errorf("answering the menu: %w", werr)
			}
			cards++
		}
		if err == io.EOF {
			return out.String(), cards, nil
		}
		if err != nil {
			return out.String(), cards, err
		}
	}
}

// writeTeeTranscript turns the tee'd stdin and stdout of the bridge into a
// transcript file (all "in" lines, then all "out" lines: the two files keep
// no interleaving) and checks the bridge's lines are well-formed.
func writeTeeTranscript(t *testing.T, inLog, outLog string) error {
	tr := newTranscript(t)
	for _, f := range []struct{ path, dir string }{{inLog, dirIn}, {outLog, dirOut}} {
		b, err := os.ReadFile(f.path)
		if err != nil {
			return errors.Join(err, tr.close())
		}
		_, _ = tr.tap(f.dir).Write(b)
	}
	if err := tr.close(); err != nil {
		return err
	}
	// One bridge line must be the initialize result: a cheap proof the
	// transcript is the bridge's and not the client's own output.
	for _, e := range tr.entries {
		var m struct {
			Result struct {
				ProtocolVersion int `json:"protocolVersion"`
			} `json:"result"`
		}
		if e.Dir == dirOut && json.Unmarshal([]byte(e.Line), &m) == nil && m.Result.ProtocolVersion == 1 {
			return nil
		}
	}
	return errors.New("no initialize result with protocolVersion 1 among the bridge's lines")
}
