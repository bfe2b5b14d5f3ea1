package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acp-bridge/acp-bridge/internal/testkit"
)

// TestHookRunsBlindToTheWorkspace: through the real binary, a decision
// hook whose own script (outside every writable tree: the settings accept
// it) reads the workspace from its request and sources a file there, a
// file an agent wrote. Wherever bubblewrap works the hook runs in a
// sandbox of its own where every tree an agent may write is empty
// (sandbox.HookArgv), with the agents' sandbox on or off (red team 15b):
// the agent's file is not there, nothing of it runs, and the hook still
// gives its verdict. The control runs the same script unconfined with the
// same request: the agent's file runs and leaves its mark outside the
// workspace.
func TestHookRunsBlindToTheWorkspace(t *testing.T) {
	requireSandbox(t)
	for _, sandboxed := range []bool{true, false} {
		t.Run(fmt.Sprintf("sandbox=%v", sandboxed), func(t *testing.T) {
			home, ws, marks := t.TempDir(), t.TempDir(), t.TempDir()
			mark := filepath.Join(marks, "agent-code-ran")
			// What an agent wrote in its workspace.
			if err := os.WriteFile(filepath.Join(ws, ".hookrc"), []byte("echo agent > "+mark+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			script := hookScript(t, `req=$(cat)
ws=$(printf '%s' "$req" | sed -n 's/.*"workspace":"\([^"]*\)".*/\1/p')
[ -f "$ws/.hookrc" ] && . "$ws/.hookrc"
echo '{"decision":"deny","reason":"hook ran"}'`)
			audit := filepath.Join(home, "audit.jsonl")
			cfg := fmt.Sprintf("defaultAgent: f\naudit: {path: %q}\nsandbox: {enabled: %v}\npermissions: {defaultMode: bypassPermissions}\nhooks:\n  - name: org-check\n    command: [/bin/sh, %q]\n    timeoutMs: 20000\nagents:\n%s",
				audit, sandboxed, script, testkit.FakeAgentYAML("f"))
			p := startBinIn(t, home, ws, cfg)
			ctx, sid := p.open(t)
			if _, err := p.editor.Prompt(ctx, sid, "bash ls -la"); err != nil {
				t.Fatal(err)
			}
			if len(p.editor.Permissions) != 0 {
				t.Fatal("a card was shown")
			}
			if texts := testkit.Texts(p.editor.Messages(), sid); len(texts) != 1 || texts[0] != "bash=reject" {
				t.Fatalf("texts %q, want the hook's deny (bash=reject)", texts)
			}
			data, _ := os.ReadFile(audit)
			if !strings.Contains(string(data), "hook ran") {
				t.Errorf("the audit log lacks the hook's verdict:\n%s", data)
			}
			if _, err := os.Stat(mark); err == nil {
				t.Fatalf("the agent's .hookrc ran in the hook, outside every agent's sandbox")
			}
			// Control: the same script, unconfined, with a request naming
			// the workspace, runs the agent's file.
			cmd := exec.Command("/bin/sh", script)
			cmd.Stdin = strings.NewReader(`{"workspace":"` + ws + `"}`)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("control: %v\n%s", err, out)
			}
			if _, err := os.Stat(mark); err != nil {
				t.Fatalf("control: the agent's .hookrc did not run in the unconfined hook (%v): the test proves nothing", err)
			}
		})
	}
}
