package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/internal/testkit"
)

// Decision hooks through the real binary: a hook that hangs or crashes asks
// (even in bypassPermissions), a hook's deny holds with its reason, a hook's
// allow answers an ask; the audit log names the hook and tells no-verdict
// apart.
func TestDecisionHooksThroughBinary(t *testing.T) {
	for _, c := range []struct {
		name, mode, script string
		wantCard           bool
		wantText           string // the fake agent's report without a card
		wantSource         string // in the audit log
	}{
		{"hangs", "bypassPermissions", "sleep 30", true, "", "hook-no-verdict"},
		{"crashes", "bypassPermissions", "exit 7", true, "", "hook-no-verdict"},
		{"malformed", "bypassPermissions", "echo allow", true, "", "hook-no-verdict"},
		{"denies", "bypassPermissions", `cat >/dev/null; echo '{"decision":"deny","reason":"no listing today"}'`, false, "bash=reject", "hook"},
		{"allows an ask", "default", `cat >/dev/null; echo '{"decision":"allow","reason":"our registry"}'`, false, "bash=allow", "hook"},
	} {
		t.Run(c.name, func(t *testing.T) {
			home := t.TempDir()
			audit := filepath.Join(home, "audit.jsonl")
			cfg := fmt.Sprintf("defaultAgent: f\naudit: {path: %q}\npermissions: {defaultMode: %s}\nhooks:\n  - name: org-check\n    command: [/bin/sh, -c, %q]\n    timeoutMs: 400\nagents:\n%s",
				audit, c.mode, c.script, testkit.FakeAgentYAML("f"))
			p := startBinIn(t, home, t.TempDir(), cfg)
			ctx, sid := p.open(t)
			res := make(chan error, 1)
			cmd := "bash ls -la"
			if c.mode == "default" {
				cmd = "bash npm install left-pad" // asks in default mode
			}
			go func() { _, err := p.editor.Prompt(ctx, sid, cmd); res <- err }()
			if c.wantCard {
				perm, err := p.editor.NextPermission(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if perm.Meta.Source != c.wantSource || !strings.Contains(perm.Meta.Reason, "org-check") {
					t.Errorf("card source %q reason %q", perm.Meta.Source, perm.Meta.Reason)
				}
				perm.Answer(acp.Selected("acp-bridge:reject_once"))
			}
			if err := <-res; err != nil {
				t.Fatal(err)
			}
			if !c.wantCard {
				if len(p.editor.Permissions) != 0 {
					t.Fatal("a card was shown")
				}
				texts := testkit.Texts(p.editor.Messages(), sid)
				if len(texts) != 1 || texts[0] != c.wantText {
					t.Fatalf("texts %q, want %q", texts, c.wantText)
				}
			}
			data, _ := os.ReadFile(audit)
			key := `"source":"`
			if c.wantCard {
				key = `"askedBy":"` // the person decided; the hook asked
			}
			if !strings.Contains(string(data), key+c.wantSource+`"`) || !strings.Contains(string(data), "org-check") {
				t.Errorf("audit log lacks the hook's %s record:\n%s", c.wantSource, data)
			}
		})
	}
}

// Red team 4: a hook whose script lies in the workspace. The script is a
// protected place (what a hook runs runs outside every sandbox): the agent's
// write to it asks in every mode and, refused, leaves it unchanged on disk.
// The control (no hook names it) writes it without a card.
func TestHookScriptIsAProtectedPlace(t *testing.T) {
	for _, withHook := range []bool{false, true} {
		t.Run(fmt.Sprintf("hook=%v", withHook), func(t *testing.T) {
			home, ws := t.TempDir(), t.TempDir()
			script := filepath.Join(ws, "tools", "acp-hook.sh")
			if err := os.MkdirAll(filepath.Dir(script), 0o755); err != nil {
				t.Fatal(err)
			}
			orig := "cat >/dev/null; echo '{\"decision\":\"ask\"}'\n"
			if err := os.WriteFile(script, []byte(orig), 0o755); err != nil {
				t.Fatal(err)
			}
			cfg := "defaultAgent: f\npermissions: {defaultMode: acceptEdits}\nagents:\n" + testkit.FakeAgentYAML("f")
			if withHook {
				cfg += fmt.Sprintf("hooks:\n  - name: log\n    command: [/bin/sh, %q]\n", script)
			}
			p := startBinIn(t, home, ws, cfg)
			c := ctx(t)
			initializeCaps(t, c, p, nil, map[string]any{"fs": map[string]bool{"readTextFile": true, "writeTextFile": true}})
			sid, err := p.editor.NewSession(c, ws, "")
			if err != nil {
				t.Fatal(err)
			}
			res := make(chan error, 1)
			go func() { _, err := p.editor.Prompt(c, sid, "write "+script+" touch-home"); res <- err }()
			if withHook {
				perm, err := p.editor.NextPermission(c)
				if err != nil {
					t.Fatal(err)
				}
				if perm.Meta.Source != "breaker" {
					t.Errorf("card source %q reason %q, want a breaker", perm.Meta.Source, perm.Meta.Reason)
				}
				perm.Answer(acp.Selected("acp-bridge:reject_once"))
			}
			if err := <-res; err != nil {
				t.Fatal(err)
			}
			data, _ := os.ReadFile(script)
			if withHook && string(data) != orig {
				t.Fatalf("the hook's script was rewritten: %q", data)
			}
			if !withHook && string(data) != "touch-home\n" {
				t.Fatalf("control: the script was not written (%q): the test proves nothing", data)
			}
		})
	}
}
