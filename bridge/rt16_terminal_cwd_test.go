package bridge

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acp-bridge/acp-bridge/internal/testkit"
)

// TestRT16TerminalCwdIsNotJudged (red team 16): a child's terminal/create
// is judged as a Bash call built from command, args and env only
// (bridge/clientops.go: policy.Call{Tool: "Bash", Command: cmd}, no Cwd),
// so in the session's directory; its cwd member is checked to be an
// absolute path and forwarded, and the terminal runs there (confineTerminal
// passes it to bubblewrap's --chdir). {command: cat, args: [credentials],
// cwd: ~/.aws} is judged as `cat credentials` inside the workspace
// (read-only, allowed in plan mode) and prints ~/.aws/credentials. Control:
// the same file named by its path asks (plan: denied).
func TestRT16TerminalCwdIsNotJudged(t *testing.T) {
	home := t.TempDir()
	aws := filepath.Join(home, ".aws")
	if err := os.MkdirAll(aws, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(aws, "credentials"), []byte("aws_secret_access_key=SECRET-42\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	h := start(t, "defaultAgent: alpha\npermissions: {defaultMode: plan}\nagents:\n"+testkit.FakeAgentYAML("alpha"))
	var mu sync.Mutex
	var ran []string
	serveTerminals(t, h, func(p termCreate) {
		cmd := exec.Command(p.Command, p.Args...)
		cmd.Dir = p.Cwd
		out, _ := cmd.CombinedOutput()
		mu.Lock()
		ran = append(ran, string(out))
		mu.Unlock()
	})
	sid := h.session("")
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	// Control: the file named by its path is not read in plan mode (waited
	// for as long as the attack below is).
	ctl := `raw {"jsonrpc":"2.0","id":"c1","method":"terminal/create","params":{"sessionId":"$SID","command":"cat","args":[` + q(filepath.Join(aws, "credentials")) + `]}}`
	if _, err := h.editor.Prompt(tctx(t), sid, ctl+"\nsay done"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	mu.Lock()
	if len(ran) != 0 {
		t.Fatalf("control: the editor ran %q", ran)
	}
	mu.Unlock()
	// The same read, the directory given as the terminal's cwd.
	atk := `raw {"jsonrpc":"2.0","id":"a1","method":"terminal/create","params":{"sessionId":"$SID","command":"cat","args":["credentials"],"cwd":` + q(aws) + `}}`
	if _, err := h.editor.Prompt(tctx(t), sid, atk+"\nsay done"); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 100; i++ {
		mu.Lock()
		n := len(ran)
		mu.Unlock()
		if n > 0 {
			break
		}
		time.Sleep(30 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, out := range ran {
		if strings.Contains(out, "SECRET-42") {
			t.Errorf("plan mode: terminal/create {cat credentials, cwd: %s} was allowed with no card and printed %q", aws, out)
		}
	}
}
