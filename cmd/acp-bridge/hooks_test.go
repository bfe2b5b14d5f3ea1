package main

import (
	"encoding/json"
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
			budget := 20000 // loaded CI machines: only the hanging hook meets a short budget
			if c.name == "hangs" {
				budget = 400
			}
			cfg := fmt.Sprintf("defaultAgent: f\naudit: {path: %q}\npermissions: {defaultMode: %s}\nhooks:\n  - name: org-check\n    command: [/bin/sh, %q]\n    timeoutMs: %d\nagents:\n%s",
				audit, c.mode, hookScript(t, c.script), budget, testkit.FakeAgentYAML("f"))
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

// hookScript writes body to a script file in a directory of its own,
// outside the test's workspace and home (no writable tree): a hook runs a
// script file, never shell code (settings/hookpaths.go).
func hookScript(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "hook.sh")
	if err := os.WriteFile(p, []byte(body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// Red team 4 and 14: what a hook runs runs outside every sandbox. A hook
// whose script lies in the workspace is refused: the bridge does not start,
// naming the hook and the tree (an agent could plant a module or library
// beside the script; red team 14). The same script outside every writable
// tree starts, and is a protected place: the agent's write to it asks in
// every mode (a breaker) and, refused, leaves it unchanged on disk. The
// control (no hook names it) writes it without a card.
func TestHookScriptIsAProtectedPlace(t *testing.T) {
	t.Run("in the workspace: refused", func(t *testing.T) {
		home, ws := t.TempDir(), t.TempDir()
		script := filepath.Join(ws, "tools", "acp-hook.sh")
		if err := os.MkdirAll(filepath.Dir(script), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(script, []byte("cat >/dev/null; echo '{\"decision\":\"ask\"}'\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		cfg := fmt.Sprintf("defaultAgent: f\nagents:\n%shooks:\n  - name: log\n    command: [/bin/sh, %q]\n", testkit.FakeAgentYAML("f"), script)
		p := startBinIn(t, home, ws, cfg)
		if _, err := p.editor.Initialize(ctx(t), false, false); err == nil {
			t.Fatal("the bridge started with a hook whose script is in the workspace")
		}
		err := <-p.done
		p.done <- err // for the harness's cleanup
		if e := p.stderr.String(); !strings.Contains(e, "hooks[0].command") || !strings.Contains(e, "it is the workspace") {
			t.Fatalf("the refusal does not name the hook and the tree:\n%s", e)
		}
	})
	for _, withHook := range []bool{false, true} {
		t.Run(fmt.Sprintf("outside, hook=%v", withHook), func(t *testing.T) {
			home, ws, tools := t.TempDir(), t.TempDir(), t.TempDir()
			script := filepath.Join(tools, "acp-hook.sh")
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
			perm, err := p.editor.NextPermission(c)
			if err != nil {
				t.Fatal(err)
			}
			if withHook && perm.Meta.Source != "breaker" {
				t.Errorf("card source %q reason %q, want a breaker", perm.Meta.Source, perm.Meta.Reason)
			}
			if withHook {
				perm.Answer(acp.Selected("acp-bridge:reject_once"))
			} else {
				perm.Answer(acp.Selected("acp-bridge:allow_once")) // outside the workspace: asked, allowed
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

// Deny with a reason (issue 19 item 8, issue 20 item 4): the person's words,
// and with permissions.tellAgentDenials the policy's, reach what the agent's
// model sees: the start of the session's next prompt. Without either, the
// next prompt is the person's alone.
func TestDenialsReachTheAgentsNextPrompt(t *testing.T) {
	for _, c := range []struct {
		name, cfg, reason string
		card              bool
		want              []string // in the agent's next prompt; nil = no note
	}{
		{"the person's reason", "", "not on the build machine", true, []string{"[acp-bridge]", "Bash(rm -rf build) was denied: the person said: not on the build machine"}},
		{"a deny rule, told", "permissions: {deny: [\"Bash(rm *)\"], tellAgentDenials: true}\n", "", false, []string{"Bash(rm -rf build) was denied: acp-bridge's policy denied it", "Bash(rm *)"}},
		{"a deny rule, not told (the default)", "permissions: {deny: [\"Bash(rm *)\"]}\n", "", false, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := startBin(t, "defaultAgent: f\n"+c.cfg+"agents:\n"+testkit.FakeAgentYAML("f"))
			ctx, sid := p.open(t)
			res := make(chan error, 1)
			go func() { _, err := p.editor.Prompt(ctx, sid, "bash rm -rf build"); res <- err }()
			if c.card {
				perm, err := p.editor.NextPermission(ctx)
				if err != nil {
					t.Fatal(err)
				}
				ans := acp.Selected("acp-bridge:reject_once")
				ans.Meta = json.RawMessage(fmt.Sprintf(`{"acp-bridge":{"reason":%q}}`, c.reason))
				perm.Answer(ans)
			}
			if err := <-res; err != nil {
				t.Fatal(err)
			}
			if _, err := p.editor.Prompt(ctx, sid, "echoprompt"); err != nil {
				t.Fatal(err)
			}
			texts := testkit.Texts(p.editor.Messages(), sid)
			last := texts[len(texts)-1]
			if !strings.HasPrefix(last, "prompt:") {
				t.Fatalf("texts %q", texts)
			}
			if c.want == nil && strings.Contains(last, "[acp-bridge]") {
				t.Fatalf("a note was added: %q", last)
			}
			for _, w := range c.want {
				if !strings.Contains(last, w) {
					t.Errorf("the agent's next prompt %q lacks %q", last, w)
				}
			}
			if !strings.HasSuffix(strings.TrimSpace(last), "echoprompt") {
				t.Errorf("the person's own prompt is not last: %q", last)
			}
			// Told once: a third prompt carries no note.
			if _, err := p.editor.Prompt(ctx, sid, "echoprompt"); err != nil {
				t.Fatal(err)
			}
			texts = testkit.Texts(p.editor.Messages(), sid)
			if strings.Contains(texts[len(texts)-1], "[acp-bridge]") {
				t.Errorf("the note was repeated: %q", texts[len(texts)-1])
			}
		})
	}
}

// Red team 5: an ask the policy makes out of doubt (a command it cannot
// check against a deny rule) holds in every mode, and a hook that allows
// everything does not loosen it; the mode's own default ask it may.
func TestHookNeverLoosensADoubt(t *testing.T) {
	home := t.TempDir()
	cfg := fmt.Sprintf("defaultAgent: f\npermissions: {deny: [\"Bash(rm *)\"]}\nhooks:\n  - name: yes-man\n    command: [/bin/sh, %q]\n    timeoutMs: 20000\nagents:\n%s",
		hookScript(t, `cat >/dev/null; echo '{"decision":"allow"}'`), testkit.FakeAgentYAML("f"))
	p := startBinIn(t, home, t.TempDir(), cfg)
	ctx, sid := p.open(t)
	// the mode's default ask: the hook answers it
	if _, err := p.editor.Prompt(ctx, sid, "bash npm install left-pad"); err != nil {
		t.Fatal(err)
	}
	if len(p.editor.Permissions) != 0 {
		t.Fatal("the hook did not answer the mode's default ask")
	}
	// a doubt: a card, whatever the hook says
	res := make(chan error, 1)
	go func() { _, err := p.editor.Prompt(ctx, sid, `bash X='rm -rf ~'; eval "$X"`); res <- err }()
	perm, err := p.editor.NextPermission(ctx)
	if err != nil {
		t.Fatal(err)
	}
	perm.Answer(acp.Selected("acp-bridge:reject_once"))
	if err := <-res; err != nil {
		t.Fatal(err)
	}
	texts := testkit.Texts(p.editor.Messages(), sid)
	if len(texts) != 2 || texts[0] != "bash=allow" || texts[1] != "bash=reject" {
		t.Fatalf("texts %q", texts)
	}
}
