package faults

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/internal/testkit"
)

// Settings files that cannot be read (as root, chmod 000 does not stop a
// read: a directory in place of the file, or a dangling symlink, does). An
// explicit --config or a workspace file that cannot be read refuses to start,
// naming the file.
func TestUnreadableSettings(t *testing.T) {
	cases := []struct {
		name    string
		prepare func(home, ws string) (args []string, path string)
	}{
		{"config is a directory", func(home, _ string) ([]string, string) {
			p := filepath.Join(home, "config.yaml")
			_ = os.Mkdir(p, 0o700)
			return []string{"--config", p}, p
		}},
		{"config is a dangling symlink", func(home, _ string) ([]string, string) {
			p := filepath.Join(home, "config.yaml")
			_ = os.Symlink(filepath.Join(home, "gone", "config.yaml"), p)
			return []string{"--config", p}, p
		}},
		{"workspace file is a directory", func(_, ws string) ([]string, string) {
			p := filepath.Join(ws, ".acp-bridge.yaml")
			_ = os.Mkdir(p, 0o700)
			return nil, p
		}},
		{"workspace file is a dangling symlink", func(home, ws string) ([]string, string) {
			p := filepath.Join(ws, ".acp-bridge.yaml")
			_ = os.Symlink(filepath.Join(home, "gone.yaml"), p)
			return nil, p
		}},
		{"default user file is a dangling symlink", func(home, _ string) ([]string, string) {
			dir := filepath.Join(home, ".config", "acp-bridge")
			_ = os.MkdirAll(dir, 0o700)
			p := filepath.Join(dir, "config.yaml")
			_ = os.Symlink(filepath.Join(home, "dotfiles", "acp-bridge.yaml"), p)
			return nil, p
		}},
		{"default user file is a directory", func(home, _ string) ([]string, string) {
			p := filepath.Join(home, ".config", "acp-bridge", "config.yaml")
			_ = os.MkdirAll(p, 0o700)
			return nil, p
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			home, ws := t.TempDir(), t.TempDir()
			args, path := c.prepare(home, ws)
			cmd := exec.Command(binPath, append([]string{"--workspace", ws}, args...)...)
			cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"))
			cmd.Stdin = strings.NewReader("")
			out, err := cmd.CombinedOutput()
			var ee *exec.ExitError
			refused := errors.As(err, &ee) && ee.ExitCode() == 2
			if !refused {
				t.Fatalf("exit %v, want 2; output:\n%s", err, out)
			}
			if !strings.Contains(string(out), "refusing to start") || !strings.Contains(string(out), path) {
				t.Fatalf("the error does not name %s:\n%s", path, out)
			}
		})
	}
}

// Malformed rules never make the bridge more permissive: in bypass mode a
// malformed deny rule makes matching calls ask (not run), and a malformed
// allow rule allows nothing. The card says why, naming the rule and file.
func TestMalformedRulesAsk(t *testing.T) {
	p := start(t, startOpts{config: "defaultAgent: f\npermissions:\n  defaultMode: bypassPermissions\n  deny: [\"Bash(rm -rf *\"]\nagents:\n" + agentYAML("f", "")})
	p.init()
	sid := p.session("")
	res := p.promptAsync(sid, "bash rm -rf build")
	card, err := p.editor.NextPermission(tctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(card.Meta.Reason, "Bash(rm -rf *") || !strings.Contains(card.Meta.Reason, p.cfg) {
		t.Fatalf("card reason %q does not name the malformed rule and its file", card.Meta.Reason)
	}
	card.Answer(acp.Selected("acp-bridge:reject_once"))
	if r := wait(t, res, "prompt"); r.err != nil {
		t.Fatal(r.err)
	}
	if got := testkit.Texts(p.editor.Messages(), sid); len(got) == 0 || got[len(got)-1] != "bash=reject" {
		t.Fatalf("agent got %q", got)
	}

	// A malformed allow rule (default mode) allows nothing.
	q := start(t, startOpts{config: "defaultAgent: f\npermissions:\n  allow: [\"Bash(touch *\"]\nagents:\n" + agentYAML("f", "")})
	q.init()
	sid = q.session("")
	res = q.promptAsync(sid, "perm x")
	card, err = q.editor.NextPermission(tctx(t))
	if err != nil {
		t.Fatal(err)
	}
	card.Answer(acp.Selected("acp-bridge:reject_once"))
	if r := wait(t, res, "prompt"); r.err != nil {
		t.Fatal(r.err)
	}
}

// Writing a grant fails (the user config directory is a regular file, so
// nothing can be created in it, even as root): the failure is logged, the
// grant still holds for this run, and the settings files are untouched.
func TestGrantWriteFails(t *testing.T) {
	// The agent comes from the environment (the user config directory is
	// blocked below, and a workspace file that defines an agent waits for
	// approval, which is stored there too).
	args, _ := json.Marshal([]string{"-test.run=^$", "--", "--name=f"})
	p := start(t, startOpts{env: []string{"ACP_BRIDGE_DEFAULTAGENT=f", "ACP_BRIDGE_AGENTS_F_COMMAND=" + os.Args[0],
		"ACP_BRIDGE_AGENTS_F_ARGS=" + string(args), "ACP_BRIDGE_AGENTS_F_ENV=" + `{"` + "ACP_BRIDGE_FAKE_AGENT" + `":"1"}`}})
	blocker := filepath.Join(p.home, ".config", "acp-bridge")
	if err := os.MkdirAll(filepath.Dir(blocker), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(blocker, []byte("not a directory\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p.init()
	sid := p.session("")
	res := p.promptAsync(sid, "perm one")
	card, err := p.editor.NextPermission(tctx(t))
	if err != nil {
		t.Fatal(err)
	}
	card.Answer(acp.RequestPermissionResponse{Outcome: acp.PermissionOutcome{Outcome: acp.OutcomeSelected, OptionID: "acp-bridge:allow_always"},
		Meta: mustJSON(map[string]any{"acp-bridge": map[string]string{"rule": "Bash(touch *)", "scope": "user"}})})
	if r := wait(t, res, "prompt"); r.err != nil {
		t.Fatal(r.err)
	}
	// The grant applies at once, without a card.
	if stop, err := p.editor.Prompt(tctx(t), sid, "perm two"); err != nil || stop != acp.StopEndTurn {
		t.Fatalf("prompt after the grant: %q %v", stop, err)
	}
	if got := testkit.Texts(p.editor.Messages(), sid); got[len(got)-1] != "two=allow" {
		t.Fatalf("after always-allow the agent got %q", got[len(got)-1])
	}
	// The failure is logged (the persist runs in the background: poll the log).
	waitLog(t, p, "grant could not be persisted")
	if data, _ := os.ReadFile(blocker); string(data) != "not a directory\n" {
		t.Fatalf("the file in the way was changed: %q", data)
	}
	if _, err := os.Stat(filepath.Join(p.ws, ".acp-bridge.yaml")); err == nil {
		t.Fatal("a user-scope grant that could not be stored was written to the workspace instead")
	}
}

// The audit log cannot be written: a device (/dev/full: the audit writer
// owns only regular files, so it is refused at start; a full disk on write
// is internal/audit's TestAppendDiskFull) or a path under a regular file.
// Decisions still apply and the failure is logged.
func TestAuditUnwritable(t *testing.T) {
	cases := []struct {
		name, path, log string
	}{
		{"a device", "/dev/full", "audit log unavailable; decisions still apply"},
		{"under a regular file", "", "audit log unavailable; decisions still apply"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := c.path
			if path == "" {
				f := filepath.Join(t.TempDir(), "file")
				if err := os.WriteFile(f, nil, 0o600); err != nil {
					t.Fatal(err)
				}
				path = filepath.Join(f, "audit.jsonl")
			}
			p := start(t, startOpts{config: "defaultAgent: f\naudit: {path: " + path + "}\npermissions: {allow: [\"Bash(touch ok*)\"]}\nagents:\n" + agentYAML("f", "")})
			p.init()
			sid := p.session("")
			res := p.promptAsync(sid, "perm ok\nperm asked")
			card, err := p.editor.NextPermission(tctx(t))
			if err != nil {
				t.Fatal(err)
			}
			card.Answer(acp.Selected("acp-bridge:allow_once"))
			if r := wait(t, res, "prompt"); r.err != nil {
				t.Fatal(r.err)
			}
			got := testkit.Texts(p.editor.Messages(), sid)
			if strings.Join(got, ",") != "ok=allow,asked=allow" {
				t.Fatalf("agent got %q: want the rule's allow and the person's allow", got)
			}
			waitLog(t, p, c.log)
		})
	}
}

// waitLog waits (bounded) until the bridge's stderr contains s. The log
// offers no channel, so it is polled.
func waitLog(t *testing.T, p *bridgeProc, s string) {
	t.Helper()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(30 * time.Second)
	for !strings.Contains(p.stderr.String(), s) {
		select {
		case <-deadline:
			t.Fatalf("the bridge never logged %q:\n%s", s, tail(p.stderr.String(), 30))
		case <-tick.C:
		}
	}
}
