package settings

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestManagedPathsPerPlatform(t *testing.T) {
	for _, c := range []struct{ goos, file, dropins string }{
		{"linux", "/etc/acp-bridge/managed-settings.yaml", "/etc/acp-bridge/managed-settings.d"},
		{"freebsd", "/etc/acp-bridge/managed-settings.yaml", "/etc/acp-bridge/managed-settings.d"},
		{"darwin", "/Library/Application Support/acp-bridge/managed-settings.yaml", "/Library/Application Support/acp-bridge/managed-settings.d"},
		{"windows", `C:\ProgramData\acp-bridge\managed-settings.yaml`, `C:\ProgramData\acp-bridge\managed-settings.d`},
	} {
		f, d := ManagedPaths(c.goos)
		if f != c.file || d != c.dropins {
			t.Errorf("%s: got %q %q, want %q %q", c.goos, f, d, c.file, c.dropins)
		}
	}
}

// asAdmin lets the managed files of a test be owned by the user running
// it (root in CI): the ownership check itself is TestManagedFileWritableByOthersFailsClosed's.
func asAdmin(t *testing.T) {
	old := managedOwner
	managedOwner = uint32(os.Getuid())
	t.Cleanup(func() { managedOwner = old })
	// The directories above the test's temp dir belong to root: tests
	// running as another user cannot pass the walk up to "/".
	if os.Getuid() != 0 {
		t.Skip("the managed tier's files must be owned by root up to /: run as root (CI does)")
	}
}

func listed(rules []Rule, list string) []string {
	var out []string
	for _, r := range rules {
		if r.List == list {
			out = append(out, r.Layer+":"+r.Text)
		}
	}
	return out
}

func TestManagedTierNarrowsEveryLayer(t *testing.T) {
	asAdmin(t)
	for _, c := range []struct {
		name, managed, user, ws string
		check                   func(t *testing.T, s *Snapshot)
	}{
		{
			name:    "managed deny rules join every layer's, with their origin",
			managed: "permissions:\n  deny: [\"Bash(curl *)\"]\n",
			user:    "permissions:\n  allow: [\"Bash(curl *)\"]\n",
			check: func(t *testing.T, s *Snapshot) {
				if got := listed(s.Rules, ListDeny); !slices.Contains(got, "managed:Bash(curl *)") {
					t.Errorf("deny rules %q lack the managed one", got)
				}
				if got := listed(s.Rules, ListAllow); !slices.Contains(got, "user:Bash(curl *)") {
					t.Errorf("allow rules %q: the user's allow stays (the deny wins in the policy)", got)
				}
			},
		},
		{
			name:    "allowManagedPermissionRulesOnly drops every lower allow rule",
			managed: "allowManagedPermissionRulesOnly: true\npermissions:\n  allow: [\"Bash(go test *)\"]\n",
			user:    "permissions:\n  allow: [\"Bash(npm *)\"]\nagents:\n  demo:\n    permissions:\n      allow: [\"Bash(rm *)\"]\n",
			ws:      "permissions:\n  allow: [\"Read(**)\"]\n  deny: [\"Read(.env)\"]\n",
			check: func(t *testing.T, s *Snapshot) {
				if got := listed(s.Rules, ListAllow); !slices.Equal(got, []string{"managed:Bash(go test *)"}) {
					t.Errorf("allow rules %q, want only the managed one", got)
				}
				if got := listed(s.Rules, ListDeny); !slices.Contains(got, "workspace:Read(.env)") {
					t.Errorf("deny rules %q: lower deny rules still narrow", got)
				}
				if got := listed(s.Config.Agents["demo"].Rules, ListAllow); len(got) != 0 {
					t.Errorf("agent allow rules %q survived", got)
				}
				if len(s.Managed.Ignored) != 3 {
					t.Errorf("ignored %v, want the three allow rules named", s.Managed.Ignored)
				}
			},
		},
		{
			name:    "disableBypassPermissionsMode: bypass is chosen nowhere",
			managed: "disableBypassPermissionsMode: true\n",
			user:    "permissions:\n  defaultMode: bypassPermissions\nagents:\n  demo:\n    bypassPermissions: true\n  x:\n    command: /bin/true\n    mode: bypassPermissions\n",
			check: func(t *testing.T, s *Snapshot) {
				if m := s.Config.Permissions.DefaultMode; m != ModeDefault {
					t.Errorf("defaultMode %q", m)
				}
				if s.Config.Agents["demo"].BypassPermissions {
					t.Error("demo keeps bypassPermissions")
				}
				if m := s.Config.Agents["x"].Mode; m != ModeDefault {
					t.Errorf("x mode %q", m)
				}
				if err := s.Managed.ModeAllowed(ModeBypass); err == nil || !strings.Contains(err.Error(), "disabled by the managed settings") {
					t.Errorf("ModeAllowed(bypass) = %v", err)
				}
				if err := s.Managed.ModeAllowed(ModeAcceptEdits); err != nil {
					t.Errorf("ModeAllowed(acceptEdits) = %v", err)
				}
			},
		},
		{
			name:    "the managed mode is a floor: stricter lower modes stay, looser ones do not",
			managed: "permissions:\n  defaultMode: acceptEdits\n",
			user:    "permissions:\n  defaultMode: plan\nagents:\n  demo:\n    mode: bypassPermissions\n",
			check: func(t *testing.T, s *Snapshot) {
				if m := s.Config.Permissions.DefaultMode; m != ModePlan {
					t.Errorf("defaultMode %q, want the user's stricter plan", m)
				}
				if m := s.Config.Agents["demo"].Mode; m != ModeAcceptEdits {
					t.Errorf("demo mode %q, want the floor acceptEdits", m)
				}
				if err := s.Managed.ModeAllowed(ModeBypass); err == nil {
					t.Error("bypass allowed under an acceptEdits floor")
				}
			},
		},
		{
			name:    "the sandbox floor: required, network no looser, write lists fixed",
			managed: "sandbox:\n  enabled: true\n  network: loopback\n  allowWrite: []\n  onUnavailable: refuse\n",
			user:    "permissions:\n  additionalDirectories: [/tmp/z]\nsandbox:\n  enabled: false\n  network: all\n  allowWrite: [/tmp/x]\n  onUnavailable: warn\nagents:\n  demo:\n    sandbox:\n      enabled: false\n      network: all\n      allowWrite: [/tmp/y]\n",
			check: func(t *testing.T, s *Snapshot) {
				sb := s.SandboxFor("demo")
				if !sb.Enabled || sb.Network != "loopback" || len(sb.AllowWrite) != 0 || sb.OnUnavailable != SandboxRefuse {
					t.Errorf("demo's sandbox %+v", sb)
				}
				// red team 4: additionalDirectories are writable trees too
				if d := s.Config.Permissions.AdditionalDirectories; len(d) != 0 {
					t.Errorf("additionalDirectories %q widen the managed writable trees", d)
				}
			},
		},
		{
			name:    "a stricter lower network stays",
			managed: "sandbox:\n  network: domains\n",
			user:    "sandbox:\n  network: none\n",
			check: func(t *testing.T, s *Snapshot) {
				if n := s.Config.Sandbox.Network; n != "none" {
					t.Errorf("network %q", n)
				}
			},
		},
		{
			name:    "the audit path is the managed one",
			managed: "audit:\n  path: /var/log/acp-bridge/audit.jsonl\n",
			user:    "audit:\n  path: /tmp/mine.jsonl\n",
			check: func(t *testing.T, s *Snapshot) {
				if p := s.Config.Audit.Path; p != "/var/log/acp-bridge/audit.jsonl" {
					t.Errorf("audit path %q", p)
				}
			},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			writeFile(t, e.managedFile(), c.managed)
			if c.user != "" {
				writeFile(t, e.userFile(), c.user)
			}
			if c.ws != "" {
				writeFile(t, e.wsFile(), c.ws)
			}
			s := e.mustLoad().Snapshot()
			if len(s.Managed.Problems) > 0 {
				t.Fatalf("problems: %s", s.Managed.ProblemText())
			}
			if !slices.Equal(s.Managed.Files, []string{e.managedFile()}) {
				t.Errorf("files %q", s.Managed.Files)
			}
			c.check(t, s)
		})
	}
}

func TestManagedDropInsApplyInNameOrder(t *testing.T) {
	asAdmin(t)
	e := newEnv(t)
	writeFile(t, e.managedFile(), "approvals:\n  timeoutOutcome: reject\npermissions:\n  deny: [\"Bash(a *)\"]\n")
	writeFile(t, filepath.Join(e.managedDropins(), "20-b.yaml"), "approvals:\n  timeoutOutcome: cancel\npermissions:\n  deny: [\"Bash(c *)\"]\n")
	writeFile(t, filepath.Join(e.managedDropins(), "10-a.json"), `{"permissions": {"deny": ["Bash(b *)"]}, "allowedAgents": ["demo"]}`)
	writeFile(t, filepath.Join(e.managedDropins(), "README.txt"), "not a settings file")
	s := e.mustLoad().Snapshot()
	if len(s.Managed.Problems) > 0 {
		t.Fatal(s.Managed.ProblemText())
	}
	want := []string{e.managedFile(), filepath.Join(e.managedDropins(), "10-a.json"), filepath.Join(e.managedDropins(), "20-b.yaml")}
	if !slices.Equal(s.Managed.Files, want) {
		t.Errorf("files %q, want %q", s.Managed.Files, want)
	}
	if got := listed(s.Rules, ListDeny); !slices.Equal(got, []string{"managed:Bash(a *)", "managed:Bash(b *)", "managed:Bash(c *)"}) {
		t.Errorf("deny %q", got)
	}
	if o := s.Config.Approvals.TimeoutOutcome; o != OutcomeCancel {
		t.Errorf("timeoutOutcome %q", o)
	}
}

func TestManagedAllowedAgents(t *testing.T) {
	m := &Managed{Files: []string{"/etc/acp-bridge/managed-settings.yaml"}, AllowedAgents: []string{"claude-code-acp", "gemini", "/usr/bin/qwen"}}
	for _, c := range []struct {
		a  Agent
		ok bool
	}{
		{Agent{Name: "claude", Command: "/x/claude-code-acp"}, true},
		{Agent{Name: "mine", Family: "gemini", Command: "/x/y"}, false}, // a family is the person's word
		{Agent{Name: "claude-code-acp", Command: "/tmp/evil"}, false},   // and so is a name (red team 4)
		{Agent{Name: "q", Command: "/usr/bin/qwen"}, true},
		{Agent{Name: "q2", Command: "/tmp/qwen"}, false},
		{Agent{Name: "g", Command: "/opt/gemini"}, true},
		{Agent{Name: "evil", Command: "/tmp/evil"}, false},
	} {
		err := m.AgentAllowed(c.a)
		if (err == nil) != c.ok {
			t.Errorf("%+v: %v", c.a, err)
		}
		if err != nil && !strings.Contains(err.Error(), "/etc/acp-bridge/managed-settings.yaml") {
			t.Errorf("error %q does not name the file", err)
		}
	}
	if err := (&Managed{}).AgentAllowed(Agent{Name: "x"}); err != nil {
		t.Errorf("no allowedAgents: %v", err)
	}
}

func TestManagedInvalidFailsClosed(t *testing.T) {
	asAdmin(t)
	for _, c := range []struct{ name, body, want string }{
		{"unknown key", "permissions:\n  deny: [\"Bash(rm *)\"]\nsandbox:\n  enabeld: true\n", "enabeld"},
		{"not yaml", "permissions: [\n", "cannot parse"},
		{"switches the sandbox off", "sandbox:\n  enabled: false\n", "only narrow"},
		{"bypass and its ban", "disableBypassPermissionsMode: true\npermissions:\n  defaultMode: bypassPermissions\n", "contradicts"},
		{"bad mode", "permissions:\n  defaultMode: yolo\n", "yolo"},
		{"wrong type", "allowedAgents: claude\n", "allowedAgents"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			writeFile(t, e.managedFile(), c.body)
			s := e.mustLoad().Snapshot() // the bridge runs, to say what is wrong
			if len(s.Managed.Problems) == 0 {
				t.Fatal("no problem reported")
			}
			text := s.Managed.ProblemText()
			if !strings.Contains(text, c.want) || !strings.Contains(text, e.managedFile()) {
				t.Errorf("problems %q: want %q and the file named", text, c.want)
			}
			if err := s.Managed.AgentAllowed(s.Config.Agents["demo"]); err == nil {
				t.Error("an agent may start under an invalid managed file")
			}
		})
	}
}

func TestManagedFileWritableByOthersFailsClosed(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root: the check is that root owns the file")
	}
	for _, c := range []struct {
		name string
		prep func(t *testing.T, e *env)
		want string
	}{
		{"group-writable file", func(t *testing.T, e *env) { chmod(t, e.managedFile(), 0o664) }, "writable by group or others"},
		{"world-writable directory", func(t *testing.T, e *env) { chmod(t, filepath.Dir(e.managedFile()), 0o777) }, "writable by group or others"},
		{"owned by a user", func(t *testing.T, e *env) {
			if err := os.Chown(e.managedFile(), 1000, 1000); err != nil {
				t.Fatal(err)
			}
		}, "owned by uid 1000"},
		{"a symlink", func(t *testing.T, e *env) {
			other := filepath.Join(t.TempDir(), "x.yaml")
			writeFile(t, other, "permissions: {}\n")
			if err := os.Remove(e.managedFile()); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(other, e.managedFile()); err != nil {
				t.Fatal(err)
			}
		}, "symbolic link"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			writeFile(t, e.managedFile(), "permissions:\n  deny: [\"Bash(rm *)\"]\n")
			// control: as written, it is read.
			if s := e.mustLoad().Snapshot(); len(s.Managed.Problems) != 0 {
				t.Fatalf("control: %s", s.Managed.ProblemText())
			}
			c.prep(t, e)
			s := e.mustLoad().Snapshot()
			if !strings.Contains(s.Managed.ProblemText(), c.want) {
				t.Errorf("problems %q, want %q", s.Managed.ProblemText(), c.want)
			}
			if s.Managed.AgentAllowed(s.Config.Agents["demo"]) == nil {
				t.Error("an agent may start")
			}
		})
	}
}

func chmod(t *testing.T, p string, m os.FileMode) {
	t.Helper()
	if err := os.Chmod(p, m); err != nil {
		t.Fatal(err)
	}
}

func TestNoManagedFileChangesNothing(t *testing.T) {
	e := newEnv(t)
	writeFile(t, e.userFile(), "permissions:\n  defaultMode: bypassPermissions\n")
	s := e.mustLoad().Snapshot()
	if s.Managed.Active() || s.Config.Permissions.DefaultMode != ModeBypass {
		t.Errorf("managed %+v, mode %q", s.Managed, s.Config.Permissions.DefaultMode)
	}
	if err := s.Managed.ModeAllowed(ModeBypass); err != nil {
		t.Error(err)
	}
}

func TestClaudeCodeManagedFileIsImported(t *testing.T) {
	asAdmin(t)
	e := newEnv(t)
	writeFile(t, e.claudeFile(), `{
  "permissions": {"deny": ["Bash(curl *)", "Read(./.env)"], "ask": ["Bash(git push *)"], "allow": ["Bash(npm test)"],
                  "defaultMode": "acceptEdits", "disableBypassPermissionsMode": "disable"},
  "allowManagedPermissionRulesOnly": true,
  "model": "opus", "hooks": {},
  "sandbox": {"enabled": true, "network": {"allowedDomains": ["github.com"]}}
}`)
	writeFile(t, filepath.Join(e.claudeFile()+".d", "10-more.json"), `{"permissions": {"deny": ["WebFetch(domain:evil.example)"]}}`)
	writeFile(t, e.userFile(), "permissions:\n  allow: [\"Bash(curl *)\"]\n  defaultMode: bypassPermissions\nsandbox:\n  enabled: false\n")
	s := e.mustLoad().Snapshot()
	if len(s.Managed.Problems) > 0 {
		t.Fatal(s.Managed.ProblemText())
	}
	if got := listed(s.Rules, ListDeny); !slices.Equal(got, []string{"managed:Bash(curl *)", "managed:Read(./.env)", "managed:WebFetch(domain:evil.example)"}) {
		t.Errorf("deny %q", got)
	}
	if got := listed(s.Rules, ListAsk); !slices.Equal(got, []string{"managed:Bash(git push *)"}) {
		t.Errorf("ask %q", got)
	}
	if got := listed(s.Rules, ListAllow); !slices.Equal(got, []string{"managed:Bash(npm test)"}) {
		t.Errorf("allow %q: only the managed allow rules count", got)
	}
	if m := s.Config.Permissions.DefaultMode; m != ModeAcceptEdits {
		t.Errorf("mode %q", m)
	}
	if !s.Managed.DisableBypass || !s.Config.Sandbox.Enabled || !slices.Equal(s.Config.Sandbox.AllowDomains, []string{"github.com"}) {
		t.Errorf("managed %+v sandbox %+v", s.Managed, s.Config.Sandbox)
	}
	notes := strings.Join(s.Managed.Notes, "\n")
	for _, k := range []string{"model is Claude Code's own", "hooks is Claude Code's own"} {
		if !strings.Contains(notes, k) {
			t.Errorf("notes %q lack %q", notes, k)
		}
	}
}

func TestCopilotManagedFileIsImported(t *testing.T) {
	asAdmin(t)
	e := newEnv(t)
	cp := filepath.Join(filepath.Dir(e.managedFile()), "copilot.json")
	writeFile(t, cp, `{"permissions": {"deny": ["Shell(rm *)", "Read(**/.env)", "Domain(evil.example)"], "ask": ["Edit(src/**)"],
		"allow": ["Shell(go test *)"], "disableBypassPermissionsMode": "disable"}}`)
	writeFile(t, e.managedFile(), "copilotManagedSettings: "+cp+"\n")
	s := e.mustLoad().Snapshot()
	if len(s.Managed.Problems) > 0 {
		t.Fatal(s.Managed.ProblemText())
	}
	if got := listed(s.Rules, ListDeny); !slices.Equal(got, []string{"managed:Bash(rm *)", "managed:Read(**/.env)", "managed:WebFetch(domain:evil.example)"}) {
		t.Errorf("deny %q", got)
	}
	if got := listed(s.Rules, ListAsk); !slices.Equal(got, []string{"managed:Edit(src/**)"}) {
		t.Errorf("ask %q", got)
	}
	if !s.Managed.DisableBypass || !slices.Contains(s.Managed.Files, cp) {
		t.Errorf("managed %+v", s.Managed)
	}
}

func TestVendorManagedFilesThatCannotBeEnforcedFailClosed(t *testing.T) {
	asAdmin(t)
	for _, c := range []struct{ name, claude, copilot, want string }{
		{"claude: not json", `{"permissions": `, "", "cannot parse json"},
		{"claude: a deny rule acp-bridge cannot read", `{"permissions": {"deny": ["Bash(rm *"]}}`, "", "cannot be enforced"},
		{"claude: bad bypass value", `{"permissions": {"disableBypassPermissionsMode": "yes"}}`, "", `the only value is "disable"`},
		{"copilot: unknown selector", "", `{"permissions": {"deny": ["Tool(x)"]}}`, "is not a Shell(), Read(), Edit() or Domain() selector"},
		{"copilot: unknown key", "", `{"permissions": {"block": ["Shell(rm *)"]}}`, "permissions.block is not a key"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			if c.claude != "" {
				writeFile(t, e.claudeFile(), c.claude)
			}
			if c.copilot != "" {
				cp := filepath.Join(filepath.Dir(e.managedFile()), "copilot.json")
				writeFile(t, cp, c.copilot)
				writeFile(t, e.managedFile(), "copilotManagedSettings: "+cp+"\n")
			}
			s := e.mustLoad().Snapshot()
			if !strings.Contains(s.Managed.ProblemText(), c.want) {
				t.Fatalf("problems %q, want %q", s.Managed.ProblemText(), c.want)
			}
			if s.Managed.AgentAllowed(s.Config.Agents["demo"]) == nil {
				t.Error("an agent may start")
			}
		})
	}
}

func TestCopilotSelectors(t *testing.T) {
	for in, want := range map[string]string{
		"Shell(git push *)": "Bash(git push *)", "Shell": "Bash", "Read(~/.ssh/**)": "Read(~/.ssh/**)",
		"Edit(/etc/**)": "Edit(/etc/**)", "Domain(*.evil.example)": "WebFetch(domain:*.evil.example)", "Domain": "WebFetch",
	} {
		got, err := copilotRule(in)
		if err != nil || got != want {
			t.Errorf("%s: %q %v, want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"shell(x)", "Bash(x)", "Shell(x", "Fetch(x)", ""} {
		if _, err := copilotRule(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestManagedOPASection(t *testing.T) {
	asAdmin(t)
	for _, c := range []struct{ body, want string }{
		{"opa:\n  bundleUrl: https://bundles.example/acp.tar.gz\n  signingKeyId: org\n  signingKey: secret\n  query: data.acp.decision\n  pollMinSeconds: 5\n  timeoutMs: 300\n", ""},
		{"opa:\n  bundleUrl: https://bundles.example/acp.tar.gz\n  query: data.acp.decision\n", "always verified"},
		{"opa:\n  signingKeyId: org\n  signingKey: s\n  query: data.acp.decision\n", "bundleUrl: required"},
		{"opa:\n  bundleUrl: file:///b.tar.gz\n  signingKeyId: org\n  signingKey: s\n  query: q\n", "not an http(s) URL"},
		{"opa:\n  bundleUrl: https://b/x\n  signingKeyId: org\n  signingKey: s\n  query: q\n  verify: false\n", "unknown key"},
	} {
		e := newEnv(t)
		writeFile(t, e.managedFile(), c.body)
		s := e.mustLoad().Snapshot()
		if c.want == "" {
			if len(s.Managed.Problems) > 0 || s.Managed.OPA == nil || s.Managed.OPA.Query != "data.acp.decision" ||
				s.Managed.OPA.PollMin != 5*time.Second || s.Managed.OPA.Timeout != 300*time.Millisecond {
				t.Errorf("%q: %+v %s", c.body, s.Managed.OPA, s.Managed.ProblemText())
			}
			continue
		}
		if !strings.Contains(s.Managed.ProblemText(), c.want) || s.Managed.AgentAllowed(s.Config.Agents["demo"]) == nil {
			t.Errorf("%q: problems %q, want %q and no agent", c.body, s.Managed.ProblemText(), c.want)
		}
	}
	// Only the managed tier names a policy engine.
	e := newEnv(t)
	writeFile(t, e.userFile(), "opa:\n  bundleUrl: https://b/x\n")
	if _, err := e.load(); err == nil || !strings.Contains(err.Error(), "unknown key") {
		t.Errorf("opa in the user file: %v", err)
	}
}
