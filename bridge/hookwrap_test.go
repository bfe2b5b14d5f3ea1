package bridge

import (
	"context"
	"github.com/acp-bridge/acp-bridge/hooks"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acp-bridge/acp-bridge/internal/testkit"
	"github.com/acp-bridge/acp-bridge/sandbox"

	"github.com/acp-bridge/acp-bridge/settings"
)

// TestRT15bHookWrappedWhenOnlyAnAgentIsSandboxed (red team 15b): the
// global sandbox is off, but agent alpha turns its own sandbox on
// (agents.alpha.sandbox.enabled: true): alpha runs in bubblewrap, so the
// promise "wherever agents run in the OS sandbox, a command hook runs in
// bubblewrap" holds for it. hooksInForce checks only the global switch.
// Control: with the global switch on, the hook is wrapped.
func TestHookWrappedWhenOnlyAnAgentIsSandboxed(t *testing.T) {
	for _, c := range []struct {
		name, global, agent string
		wantWrap            bool
	}{
		{"control-global-on", "true", "", true},
		{"agent-on-global-off", "false", "    sandbox: {enabled: true}\n", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			ws, userDir := t.TempDir(), t.TempDir()
			cfgFile := filepath.Join(userDir, "config.yaml")
			cfg := "defaultAgent: alpha\nsandbox: {enabled: " + c.global + "}\n" +
				"hooks:\n  - name: h\n    command: [/usr/bin/true]\n" +
				"agents:\n  alpha:\n    command: /usr/bin/cat\n" + c.agent
			if err := os.WriteFile(cfgFile, []byte(cfg), 0o600); err != nil {
				t.Fatal(err)
			}
			store, err := settings.Load(settings.Options{ConfigFile: cfgFile, UserConfigDir: userDir, WorkspaceDir: ws, Environ: []string{}, Executable: os.Args[0]})
			if err != nil {
				t.Fatalf("settings: %v", err)
			}
			snap := store.Snapshot()
			if sb := snap.SandboxFor("alpha"); !sb.Enabled {
				t.Fatalf("alpha's sandbox is off: the case proves nothing")
			}
			b := New(Options{Settings: store, WorkspaceDir: ws})
			hs := b.hooksInForce()
			if len(hs) != 1 {
				t.Fatalf("hooks %v", hs)
			}
			if got := hs[0].Wrap != nil; got != c.wantWrap {
				t.Errorf("agent alpha runs in the OS sandbox (global %s, agent %q) but the hook is wrapped=%v", c.global, c.agent, got)
			}
		})
	}
}

// TestRT15bHookProgramInATreeTheRunningAgentStillWrites (red team 15b): a
// live reload takes sandbox.allowWrite: [tools] away and adds a hook whose
// script lies in tools. The settings judge the hook against the new
// writable trees (tools is no longer one: accepted), and the hook's mask
// no longer hides tools; but the running agent keeps its old mounts until
// it restarts (recheckSandboxes only marks it stale), so it may still
// write the hook's script, which runs outside every sandbox. Control: the
// same config at start (allowWrite with the hook inside it) is refused.
func TestHookProgramInATreeTheRunningAgentStillWrites(t *testing.T) {
	if m := sandbox.Probe(); !m.Available {
		t.Skip(m.Problem)
	}
	tools := t.TempDir()
	guard := filepath.Join(tools, "guard.sh")
	if err := os.WriteFile(guard, []byte("#!/bin/sh\necho '{\"decision\":\"ask\"}'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	base := "defaultAgent: alpha\nagents:\n" + testkit.FakeAgentYAML("alpha")
	first := base + "sandbox: {allowWrite: [" + tools + "]}\n"
	h := start(t, first)
	h.init(false)
	h.session("")
	hook := "hooks:\n  - name: guard\n    command: [" + guard + "]\n"
	// control: at start the hook inside allowWrite is refused
	{
		dir := t.TempDir()
		cf := filepath.Join(dir, "config.yaml")
		os.WriteFile(cf, []byte(first+hook), 0o600)
		if _, err := settings.Load(settings.Options{ConfigFile: cf, UserConfigDir: dir, WorkspaceDir: h.ws, Environ: []string{}, Executable: os.Args[0]}); err == nil {
			t.Fatal("control: a hook inside allowWrite loads")
		}
	}
	if err := writeConfig(h.cfg, []byte(base+hook)); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for len(h.bridge.hooksInForce()) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the reload with the hook was not taken")
		}
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(500 * time.Millisecond) // recheckSandboxes
	h.bridge.mu.Lock()
	a := h.bridge.agents["alpha"]
	h.bridge.mu.Unlock()
	a.mu.Lock()
	plan := a.sandbox
	a.mu.Unlock()
	if plan.Spec == nil {
		t.Fatal("alpha has no sandbox spec")
	}
	stillWrites := false
	for _, w := range plan.Spec.Writable {
		if guard == w || strings.HasPrefix(guard, w+"/") {
			stillWrites = true
		}
	}
	if !stillWrites {
		t.Fatalf("control: the running agent alpha can no longer write %s (%v): the test proves nothing", guard, plan.Spec.Writable)
	}
	// The hook's own sandbox hides what a running agent may still write:
	// the hook's script is not there, so the hook gives no verdict (the
	// call asks) instead of running a file the agent may have rewritten.
	hs := h.bridge.hooksInForce()
	res := hooks.Consult(context.Background(), hs[0], hooks.Request{Agent: "alpha"})
	if res.Outcome == hooks.OutcomeVerdict {
		t.Errorf("red team 15b: the hook %s ran (verdict %s) while the running agent alpha may still write it; its sandbox did not hide it", guard, res.Decision)
	}
	// Control: the same hook unwrapped runs and gives its verdict.
	plain := hs[0]
	plain.Wrap = nil
	if r := hooks.Consult(context.Background(), plain, hooks.Request{Agent: "alpha"}); r.Outcome != hooks.OutcomeVerdict {
		t.Errorf("control: the hook unwrapped gave no verdict (%s): the test proves nothing", r.Reason)
	}
}

// A URL hook carries Options.AuthZEN as its transport (the companion's, in
// cmd/acp-bridge): consulted, it is that function that is called, with
// the hook's URL and its AuthZEN request; a command hook has none. Without
// Options.AuthZEN the URL hook gives no verdict (the call asks).
func TestURLHookPostsThroughOptionsAuthZEN(t *testing.T) {
	ws, userDir := t.TempDir(), t.TempDir()
	cfgFile := filepath.Join(userDir, "config.yaml")
	cfg := "defaultAgent: alpha\nhooks:\n  - name: cmd\n    command: [/usr/bin/true]\n  - name: pdp\n    url: https://pdp.example/access/v1/evaluation\n" +
		"agents:\n  alpha:\n    command: /usr/bin/cat\n"
	if err := os.WriteFile(cfgFile, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	store, err := settings.Load(settings.Options{ConfigFile: cfgFile, UserConfigDir: userDir, WorkspaceDir: ws, Environ: []string{}, Executable: os.Args[0]})
	if err != nil {
		t.Fatalf("settings: %v", err)
	}
	var gotURL string
	var gotBody []byte
	post := func(_ context.Context, url string, body []byte) (int, []byte, error) {
		gotURL, gotBody = url, body
		return 200, []byte(`{"decision":false,"context":{"reason":"the PDP says no"}}`), nil
	}
	for _, c := range []struct {
		name    string
		post    hooks.Post
		outcome hooks.Outcome
	}{{"with the transport", post, hooks.OutcomeVerdict}, {"without", nil, hooks.OutcomeNoVerdict}} {
		t.Run(c.name, func(t *testing.T) {
			b := New(Options{Settings: store, WorkspaceDir: ws, AuthZEN: c.post})
			hs := b.hooksInForce()
			if len(hs) != 2 || hs[0].Post != nil {
				t.Fatalf("hooks %+v: want two, the command hook without a transport", hs)
			}
			r := hooks.Consult(context.Background(), hs[1], hooks.Request{Agent: "alpha"})
			if r.Outcome != c.outcome {
				t.Fatalf("the URL hook: %+v, want %s", r, c.outcome)
			}
			if c.post != nil && (r.Decision != "deny" || gotURL != "https://pdp.example/access/v1/evaluation" || !strings.Contains(string(gotBody), `"id":"alpha"`)) {
				t.Errorf("decision %q; the transport got %q %s", r.Decision, gotURL, gotBody)
			}
		})
	}
}
