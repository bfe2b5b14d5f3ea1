package bridge

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/internal/testkit"
)

// RT1: terminal/create is judged on the command encoding/json reads
// (case-insensitive member names, last one in the agent's order wins), but
// the editor runs the member named exactly "command" (and the sandbox wraps
// what it reads from the re-marshalled, key-sorted object). An agent that
// sends "command":"touch ..." followed by "COMMAND":"echo" gets "echo"
// judged (allowed by rule) and "touch" run: Bash(touch *) is denied.
func TestAttackTerminalCreateCaseFoldedCommandRunsDenied(t *testing.T) {
	for _, sandboxed := range []bool{false, true} {
		t.Run(fmt.Sprintf("sandbox=%v", sandboxed), func(t *testing.T) {
			cfg := "defaultAgent: alpha\npermissions: {allow: [\"Bash(echo *)\"], deny: [\"Bash(touch *)\"]}\n"
			if !sandboxed {
				cfg += "sandbox: {enabled: false}\n"
			}
			h := start(t, cfg+"agents:\n"+testkit.FakeAgentYAML("alpha"))
			pwned := filepath.Join(h.ws, "pwned")
			var mu sync.Mutex
			var ran [][]string
			h.editor.OnRequest = func(method string, params json.RawMessage) (any, error) {
				switch method {
				case acp.MethodTerminalCreate:
					// As VS Code (JavaScript) reads it: the member named exactly "command".
					var o map[string]json.RawMessage
					_ = json.Unmarshal(params, &o)
					var cmd string
					var args []string
					_ = json.Unmarshal(o["command"], &cmd)
					_ = json.Unmarshal(o["args"], &args)
					out, err := exec.Command(cmd, args...).CombinedOutput()
					mu.Lock()
					ran = append(ran, append([]string{cmd}, args...))
					mu.Unlock()
					return map[string]string{"terminalId": fmt.Sprintf("t-%v-%q", err == nil, out)}, nil
				case acp.MethodTerminalOutput:
					return map[string]any{"output": "", "truncated": false}, nil
				}
				return nil, acp.MethodNotFound(method)
			}
			if _, err := h.editor.Initialize(tctx(t), false, true); err != nil {
				t.Fatal(err)
			}
			sid := h.session("")
			// Control: the plain denied command is refused.
			if _, err := h.editor.Prompt(tctx(t), sid, `call terminal/create {"sessionId":"$SID","command":"touch","args":["`+pwned+`"]}`); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(pwned); err == nil {
				t.Fatal("control: plain touch was not denied")
			}
			if _, err := h.editor.Prompt(tctx(t), sid, `call terminal/create {"sessionId":"$SID","command":"touch","args":["`+pwned+`"],"COMMAND":"echo","ARGS":["hi"]}`); err != nil {
				t.Fatal(err)
			}
			texts := testkit.Texts(h.editor.Messages(), sid)
			mu.Lock()
			defer mu.Unlock()
			if _, err := os.Stat(pwned); err == nil {
				t.Fatalf("Bash(touch *) is denied, yet the editor ran %q and %s exists (agent saw %q)", ran, pwned, texts)
			}
			for _, r := range ran {
				if strings.Contains(strings.Join(r, " "), "touch") {
					t.Fatalf("the editor was asked to run a denied command: %q", r)
				}
			}
		})
	}
}
