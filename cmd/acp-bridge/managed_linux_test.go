package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/internal/testkit"
)

// managedNS returns the command prefix that runs the bridge in a private
// mount namespace whose /etc is an overlay holding /etc/acp-bridge as
// files (name -> YAML) describe: the managed tier in its real, fixed place
// (docs/org.md), without touching the machine's /etc.
func managedNS(t *testing.T, files map[string]string) []string {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("placing /etc/acp-bridge in a mount namespace needs root (CI runs as root)")
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("unshare(1) not found")
	}
	root, err := os.MkdirTemp("", "acpb-managed-") // under /tmp: root-owned path up to /
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(root) })
	upper, work := filepath.Join(root, "upper"), filepath.Join(root, "work")
	dir := filepath.Join(upper, "acp-bridge")
	for _, d := range []string{work, filepath.Join(dir, "managed-settings.d")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The probe: the namespace works here, and /etc/acp-bridge appears.
	probe := exec.Command("unshare", "-m", "--propagation", "private", "sh", "-c",
		`mount -t overlay overlay -o lowerdir=/etc,upperdir="$1",workdir="$2" /etc && test -d /etc/acp-bridge`, "sh", upper, work)
	if out, err := probe.CombinedOutput(); err != nil {
		t.Fatalf("cannot place /etc/acp-bridge in a mount namespace: %v\n%s", err, out)
	}
	if err := os.RemoveAll(work); err == nil {
		_ = os.MkdirAll(work, 0o755)
	}
	return []string{"unshare", "-m", "--propagation", "private", "sh", "-c",
		`mount -t overlay overlay -o lowerdir=/etc,upperdir="$1",workdir="$2" /etc && shift 2 && exec "$@"`, "sh", upper, work}
}

// A managed deny holds against a user's bypass, allow rule and agent
// bypass; bypass cannot be chosen; the file the rule protects is unchanged
// on disk. The control (no managed tier, same user settings) writes it.
func TestManagedDenyHoldsAgainstBypassThroughBinary(t *testing.T) {
	user := "defaultAgent: f\npermissions:\n  defaultMode: bypassPermissions\n  allow: [\"Edit\"]\nagents:\n" +
		testkit.FakeAgentYAML("f") + "    bypassPermissions: true\n"
	managed := "disableBypassPermissionsMode: true\npermissions:\n  deny: [\"Edit(**/keep.txt)\"]\n"
	for _, withManaged := range []bool{false, true} {
		name := "control-without-managed"
		var prefix []string
		if withManaged {
			name = "managed"
			prefix = managedNS(t, map[string]string{"managed-settings.yaml": managed})
		}
		t.Run(name, func(t *testing.T) {
			home, ws := t.TempDir(), t.TempDir()
			keep := filepath.Join(ws, "keep.txt")
			if err := os.WriteFile(keep, []byte("original\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			p := startBinVia(t, prefix, home, ws, user)
			c := ctx(t)
			m := initializeCaps(t, c, p, nil, map[string]any{"fs": map[string]bool{"readTextFile": true, "writeTextFile": true}})
			sid, err := p.editor.NewSession(c, ws, "")
			if err != nil {
				t.Fatal(err)
			}
			res := make(chan error, 1)
			go func() { _, err := p.editor.Prompt(c, sid, "write "+keep+" pwned"); res <- err }()
			if err := <-res; err != nil {
				t.Fatal(err)
			}
			data, _ := os.ReadFile(keep)
			texts := testkit.Texts(p.editor.Messages(), sid)
			modeErr := p.editor.Conn.Call(c, acp.MethodSessionSetMode, map[string]any{"sessionId": sid, "modeId": "bypassPermissions"}, nil)
			if !withManaged {
				if string(data) != "pwned\n" {
					t.Fatalf("control: keep.txt = %q (texts %q): the user's bypass should have written it", data, texts)
				}
				if modeErr != nil || !slices.Contains(m.PolicyModes, "bypassPermissions") {
					t.Fatalf("control: set_mode bypass %v, modes %q", modeErr, m.PolicyModes)
				}
				return
			}
			if string(data) != "original\n" {
				t.Fatalf("keep.txt = %q: the managed deny did not hold (texts %q)", data, texts)
			}
			if len(p.editor.Permissions) != 0 {
				t.Errorf("a card was shown for a managed deny")
			}
			if modeErr == nil || !strings.Contains(modeErr.Error(), "managed settings") {
				t.Errorf("set_mode bypassPermissions: %v, want a refusal naming the managed settings", modeErr)
			}
			if slices.Contains(m.PolicyModes, "bypassPermissions") {
				t.Errorf("initialize lists bypassPermissions: %q", m.PolicyModes)
			}
			if m.Managed == nil || !slices.Contains(m.Managed.Files, "/etc/acp-bridge/managed-settings.yaml") || !m.Managed.DisableBypass {
				t.Errorf("initialize's managed report %+v", m.Managed)
			}
		})
	}
}

// An invalid managed file starts no agent; the editor and `acp-bridge
// agents` say which file and line is wrong.
func TestInvalidManagedFileStartsNoAgentThroughBinary(t *testing.T) {
	prefix := managedNS(t, map[string]string{"managed-settings.d/10-org.yaml": "permissions:\n  deny: [\"Bash(rm *)\"]\nsandbox:\n  enabeld: true\n"})
	home, ws := t.TempDir(), t.TempDir()
	p := startBinVia(t, prefix, home, ws, "defaultAgent: f\nagents:\n"+testkit.FakeAgentYAML("f"))
	c := ctx(t)
	m := initialize(t, c, p, nil)
	if m.Managed == nil || len(m.Managed.Problems) == 0 || !strings.Contains(m.Managed.Problems[0], "/etc/acp-bridge/managed-settings.d/10-org.yaml:4") {
		t.Fatalf("initialize's managed report %+v: want the file and line named", m.Managed)
	}
	_, err := p.editor.NewSession(c, ws, "")
	if err == nil || !strings.Contains(err.Error(), "managed settings are invalid") {
		t.Fatalf("session/new: %v, want a refusal naming the managed settings", err)
	}

	cmd := exec.Command(prefix[0], append(prefix[1:], binPath, "agents", "--workspace", ws, "--timeout", "5s")...)
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"))
	out, _ := cmd.CombinedOutput()
	if !strings.Contains(string(out), "10-org.yaml:4") || !strings.Contains(string(out), "no agent starts") {
		t.Fatalf("acp-bridge agents:\n%s", out)
	}
}

// allowedAgents: an agent the tier does not list does not start.
func TestManagedAllowedAgentsThroughBinary(t *testing.T) {
	prefix := managedNS(t, map[string]string{"managed-settings.yaml": "allowedAgents: [acp-bridge.test]\n"})
	home, ws := t.TempDir(), t.TempDir()
	// g is named like an allowed program but runs another one: the command decides.
	p := startBinVia(t, prefix, home, ws, "defaultAgent: f\nagents:\n"+testkit.FakeAgentYAML("f")+"  acp-bridge-test:\n    command: /bin/true\n")
	c := ctx(t)
	initialize(t, c, p, nil)
	if _, err := p.editor.NewSession(c, ws, "f"); err != nil {
		t.Fatalf("f is allowed: %v", err)
	}
	_, err := p.editor.NewSession(c, ws, "acp-bridge-test")
	if err == nil || !strings.Contains(err.Error(), "allowedAgents") {
		t.Fatalf("an agent named like an allowed command: %v, want a refusal naming allowedAgents", err)
	}
}

// disableBypassPermissionsMode: the card does not offer "Bypass permissions
// for <agent>"; an editor that answers with it anyway (on the card, or
// through approvals/respond) is refused and the call is not allowed; the
// next call still asks. The control (no managed tier) offers bypass, and
// choosing it allows that call and the next one without a card.
func TestManagedDisableBypassDropsCardOptionThroughBinary(t *testing.T) {
	user := "defaultAgent: f\nagents:\n" + testkit.FakeAgentYAML("f")
	for _, withManaged := range []bool{false, true} {
		name := "control-without-managed"
		var prefix []string
		if withManaged {
			name = "managed"
			prefix = managedNS(t, map[string]string{"managed-settings.yaml": "disableBypassPermissionsMode: true\n"})
		}
		t.Run(name, func(t *testing.T) {
			home, ws := t.TempDir(), t.TempDir()
			p := startBinVia(t, prefix, home, ws, user)
			c := ctx(t)
			m := initialize(t, c, p, nil)
			if got := slices.Contains(m.PolicyModes, "bypassPermissions"); got == withManaged {
				t.Fatalf("initialize's modes %q (managed %v)", m.PolicyModes, withManaged)
			}
			sid, err := p.editor.NewSession(c, ws, "")
			if err != nil {
				t.Fatal(err)
			}
			// waitText: the agent's message reached the editor (a
			// notification may be read after the prompt's answer).
			waitText := func(want string) {
				t.Helper()
				wc, cancel := context.WithTimeout(c, 15*time.Second)
				defer cancel()
				if err := p.editor.WaitFor(wc, want, func(ms []testkit.Message) bool {
					return slices.Contains(testkit.Texts(ms, sid), want)
				}); err != nil {
					t.Fatalf("%v; agent got %q", err, testkit.Texts(p.editor.Messages(), sid))
				}
			}
			prompt := func(text string) chan error {
				res := make(chan error, 1)
				go func() { _, err := p.editor.Prompt(c, sid, text); res <- err }()
				return res
			}
			done := prompt("perm p1")
			card, err := p.editor.NextPermission(c)
			if err != nil {
				t.Fatal(err)
			}
			offered := card.HasOption("acp-bridge:bypass")
			respondErr := p.editor.Conn.Call(c, "_acp-bridge/approvals/respond",
				map[string]any{"approvalId": card.Meta.ApprovalID, "optionId": "acp-bridge:bypass"}, nil)
			if !withManaged {
				if !offered || respondErr != nil {
					t.Fatalf("control: bypass offered %v, approvals/respond %v", offered, respondErr)
				}
				if err := <-done; err != nil {
					t.Fatal(err)
				}
				waitText("p1=allow")
				// The bypass holds: the next call is allowed without a card.
				if err := <-prompt("perm p2"); err != nil {
					t.Fatal(err)
				}
				waitText("p2=allow")
				if len(p.editor.Permissions) != 0 {
					t.Fatalf("control: %d cards after bypass was granted", len(p.editor.Permissions))
				}
				return
			}
			if offered {
				t.Errorf("the card offers bypass under disableBypassPermissionsMode: %+v", card.Options)
			}
			if respondErr == nil || !strings.Contains(respondErr.Error(), "managed settings") {
				t.Errorf("approvals/respond with bypass: %v, want a refusal naming the managed settings", respondErr)
			}
			// The editor answers the card itself with the option it was not offered.
			card.Answer(acp.Selected("acp-bridge:bypass"))
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			waitText("p1=cancelled") // never allowed
			// No bypass was granted: the next call asks again.
			done = prompt("perm p2")
			card2, err := p.editor.NextPermission(c)
			if err != nil {
				t.Fatalf("the next call did not ask: %v", err)
			}
			card2.Answer(acp.Selected("acp-bridge:reject_once"))
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			waitText("p2=reject")
			if texts := testkit.Texts(p.editor.Messages(), sid); slices.Contains(texts, "p1=allow") || slices.Contains(texts, "p2=allow") {
				t.Fatalf("agent got %q: a call was allowed", texts)
			}
		})
	}
}

// A telemetry sink the managed tier requires that cannot start fails
// closed: no agent starts, and initialize, session/new and the log say
// why. The control (the same tier with an endpoint the exporter takes,
// its collector down) starts the agent: a collector that is down is not a
// sink that cannot start (the audit log keeps every record meanwhile,
// telemetry.TestCollectorDownAndBack).
func TestManagedTelemetryThatCannotStartStartsNoAgentThroughBinary(t *testing.T) {
	for _, c := range []struct {
		name, endpoint string
		starts         bool
	}{
		{"control-collector-down", "http://127.0.0.1:1", true},
		// A URL the settings accept (an IPv6 zone) that the gRPC exporter cannot take.
		{"exporter-cannot-start", "https://[fe80::1%25eth0]:4317", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			prefix := managedNS(t, map[string]string{"managed-settings.yaml": fmt.Sprintf("telemetry:\n  enabled: true\n  protocol: grpc\n  endpoint: %q\n", c.endpoint)})
			home, ws := t.TempDir(), t.TempDir()
			p := startBinVia(t, prefix, home, ws, "defaultAgent: f\nagents:\n"+testkit.FakeAgentYAML("f"))
			cx := ctx(t)
			m := initialize(t, cx, p, nil)
			if !m.Telemetry.Managed || m.Telemetry.Enabled == (m.Telemetry.Error != "") || m.Telemetry.Enabled != c.starts {
				t.Fatalf("initialize's telemetry %+v", m.Telemetry)
			}
			_, err := p.editor.NewSession(cx, ws, "")
			if c.starts {
				if err != nil {
					t.Fatalf("session/new: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), "no agent starts") || !strings.Contains(err.Error(), "telemetry") ||
				!strings.Contains(err.Error(), "/etc/acp-bridge/managed-settings.yaml") {
				t.Fatalf("session/new: %v, want a refusal naming the required telemetry and the managed file", err)
			}
			if log := p.stderr.String(); !strings.Contains(log, "exporter cannot start: no agent starts") {
				t.Errorf("the log does not say why:\n%s", log)
			}
		})
	}
}
