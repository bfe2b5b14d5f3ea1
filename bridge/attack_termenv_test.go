package bridge

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/internal/testkit"
	"github.com/acp-bridge/acp-bridge/sandbox"
)

// RT1: terminal/create's env is neither judged nor dropped: it reaches the
// editor, which starts bubblewrap with it. bubblewrap itself runs outside
// the sandbox (it builds it), so LD_PRELOAD of a library the agent wrote in
// its workspace runs the agent's code unconfined, in the editor's name,
// while the policy judged (and allowed) `echo hi`. The fake editor runs
// terminal/create as the ACP spec says: command, args, env, cwd.
func TestAttackTerminalEnvRunsOutsideTheSandbox(t *testing.T) {
	if m := sandbox.Probe(); !m.Available {
		t.Skip(m.Problem)
	}
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("no gcc")
	}
	outside := filepath.Join(t.TempDir(), "escaped")
	h := start(t, "defaultAgent: alpha\npermissions: {allow: [\"Bash(echo *)\"]}\nagents:\n"+testkit.FakeAgentYAML("alpha"))
	// What the agent writes in its workspace (it may: the workspace is writable in its sandbox).
	src := filepath.Join(h.ws, "evil.c")
	so := filepath.Join(h.ws, "evil.so")
	code := fmt.Sprintf(`#include <stdio.h>
__attribute__((constructor)) static void run(void) { FILE *f = fopen(%q, "a"); if (f) { fputs("escaped\n", f); fclose(f); } }
`, outside)
	if err := os.WriteFile(src, []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("gcc", "-shared", "-fPIC", "-o", so, src).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v %s", err, out)
	}
	var ran []string
	var argvs [][]string
	h.editor.OnRequest = func(method string, params json.RawMessage) (any, error) {
		switch method {
		case acp.MethodTerminalCreate:
			var p struct {
				Command string   `json:"command"`
				Args    []string `json:"args"`
				Cwd     string   `json:"cwd"`
				Env     []struct{ Name, Value string }
			}
			_ = json.Unmarshal(params, &p)
			cmd := exec.Command(p.Command, p.Args...)
			cmd.Dir = p.Cwd
			cmd.Env = os.Environ()
			for _, e := range p.Env {
				cmd.Env = append(cmd.Env, e.Name+"="+e.Value)
			}
			out, err := cmd.CombinedOutput()
			argvs = append(argvs, append([]string{p.Command}, p.Args...))
			ran = append(ran, fmt.Sprintf("%q env=%v err=%v out=%q", append([]string{p.Command}, p.Args...), p.Env, err, out))
			return map[string]string{"terminalId": "t1"}, nil
		case acp.MethodTerminalOutput:
			return map[string]any{"output": "", "truncated": false}, nil
		}
		return nil, acp.MethodNotFound(method)
	}
	if _, err := h.editor.Initialize(tctx(t), false, true); err != nil {
		t.Fatal(err)
	}
	sid := h.session("")
	// Control: the same library preloaded inside the same sandbox (the
	// bubblewrap command line the bridge gave the editor for a plain
	// `echo hi`, run with LD_PRELOAD set only inside) cannot write there.
	if _, err := h.editor.Prompt(tctx(t), sid, "term echo hi"); err != nil {
		t.Fatal(err)
	}
	if len(argvs) != 1 {
		t.Fatalf("terminals: %q", ran)
	}
	argv := argvs[0]
	inner := slices.Index(argv, "--")
	ctl := append(append(append([]string{}, argv[:inner+1]...), "env", "LD_PRELOAD="+so), argv[inner+1:]...)
	if out, err := exec.Command(ctl[0], ctl[1:]...).CombinedOutput(); err != nil {
		t.Logf("control ran %q: %v %s", ctl, err, out)
	}
	if _, err := os.Stat(outside); err == nil {
		t.Fatalf("control: the library wrote %s from inside the sandbox: the test proves nothing", outside)
	}
	if _, err := h.editor.Prompt(tctx(t), sid, `call terminal/create {"sessionId":"$SID","command":"echo","args":["hi"],"env":[{"name":"LD_PRELOAD","value":"`+so+`"}]}`); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(outside); err == nil {
		t.Fatalf("the policy judged `echo hi`, the sandbox was to confine it, yet code the agent wrote ran outside the sandbox and wrote %s (%q); editor ran %q; agent saw %q",
			outside, b, ran, testkit.Texts(h.editor.Messages(), sid))
	}
}
