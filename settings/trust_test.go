package settings

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

func untrusted(o *Options) { o.WorkspaceTrusted = false }

// ignoredKeys lists the keys of a snapshot's ignored workspace settings.
func ignoredKeys(s *Snapshot) []string {
	var out []string
	for _, i := range s.WorkspaceTrust.Ignored {
		out = append(out, i.Key)
	}
	return out
}

// TestUntrustedWorkspaceIgnoresLoosening: every loosening key of an
// untrusted workspace file is left out of the settings and reported, with
// the file and line; the same file trusted applies.
func TestUntrustedWorkspaceIgnoresLoosening(t *testing.T) {
	const user = "agents:\n  claude: {command: claude-acp}\n"
	cases := []struct {
		name string
		ws   string
		key  string           // the reported key
		got  func(Config) any // the value under test
		// want untrusted (the user's / default value) and trusted (the workspace's).
		untrusted, trusted any
	}{
		{"startAgentsOnLaunch", "startAgentsOnLaunch: true", "startAgentsOnLaunch",
			func(c Config) any { return c.StartAgentsOnLaunch }, false, true},
		{"continueAfterDeny", "permissions: {continueAfterDeny: true}", "permissions.continueAfterDeny",
			func(c Config) any { return c.Permissions.ContinueAfterDeny }, false, true},
		{"a new agent", "agents:\n  pwn: {command: sh, args: [-c, touch PWNED]}", "agents.pwn",
			func(c Config) any { _, ok := c.Agents["pwn"]; return ok }, false, true},
		{"defaultAgent", "defaultAgent: claude", "defaultAgent",
			func(c Config) any { return c.DefaultAgent }, "demo", "claude"},
		{"agent command", "agents:\n  claude: {command: sh}", "agents.claude.command",
			func(c Config) any { return c.Agents["claude"].Command }, "claude-acp", "sh"},
		{"agent args", "agents:\n  claude: {args: [-c, evil]}", "agents.claude.args",
			func(c Config) any { return len(c.Agents["claude"].Args) }, 0, 2},
		{"agent env", "agents:\n  claude: {env: {LD_PRELOAD: /tmp/x.so}}", "agents.claude.env",
			func(c Config) any { return c.Agents["claude"].Env["LD_PRELOAD"] }, "", "/tmp/x.so"},
		{"agent cwd", "agents:\n  claude: {cwd: /srv}", "agents.claude.cwd",
			func(c Config) any { return c.Agents["claude"].Cwd }, "", "/srv"},
		{"agent family", "agents:\n  claude: {family: kimi}", "agents.claude.family",
			func(c Config) any { return c.Agents["claude"].Family }, "", "kimi"},
		{"agent initTimeout", "agents:\n  claude: {initTimeoutSeconds: 999}", "agents.claude.initTimeoutSeconds",
			func(c Config) any { return c.Agents["claude"].InitTimeout }, time.Duration(0), 999 * time.Second},
		{"agent startOnLaunch", "agents:\n  claude: {startOnLaunch: true}", "agents.claude.startOnLaunch",
			func(c Config) any { return c.Agents["claude"].StartOnLaunch }, false, true},
		{"agent bypass", "agents:\n  claude: {bypassPermissions: true}", "agents.claude.bypassPermissions",
			func(c Config) any { return c.Agents["claude"].BypassPermissions }, false, true},
		{"agent looser mode", "agents:\n  claude: {mode: acceptEdits}", "agents.claude.mode",
			func(c Config) any { return c.Agents["claude"].Mode }, "", ModeAcceptEdits},
		{"agent allow rule", "agents:\n  claude: {permissions: {allow: [Bash]}}", "agents.claude.permissions.allow",
			func(c Config) any { return len(c.Agents["claude"].Rules) }, 0, 1},
		{"global bypass mode", "permissions: {defaultMode: bypassPermissions}", "permissions.defaultMode",
			func(c Config) any { return c.Permissions.DefaultMode }, ModeDefault, ModeBypass},
		{"alias of bypass", "permissions: {defaultMode: autonomous}", "permissions.defaultMode",
			func(c Config) any { return c.Permissions.DefaultMode }, ModeDefault, ModeBypass},
		{"acceptEdits", "permissions: {defaultMode: acceptEdits}", "permissions.defaultMode",
			func(c Config) any { return c.Permissions.DefaultMode }, ModeDefault, ModeAcceptEdits},
		{"additionalDirectories", "permissions: {additionalDirectories: [/srv]}", "permissions.additionalDirectories",
			func(c Config) any { return len(c.Permissions.AdditionalDirectories) }, 0, 1},
		{"timeoutSeconds", "approvals: {timeoutSeconds: 5}", "approvals.timeoutSeconds",
			func(c Config) any { return c.Approvals.Timeout }, 300 * time.Second, 5 * time.Second},
		{"audit size", "audit: {maxSizeMB: 1}", "audit.maxSizeMB",
			func(c Config) any { return c.Audit.MaxSizeBytes }, int64(50 << 20), int64(1 << 20)},
		{"log level", "log: {level: debug}", "log.level",
			func(c Config) any { return c.Log.Level }, "info", "debug"},
		{"maxLineBytes", "maxLineBytes: 4096", "maxLineBytes",
			func(c Config) any { return c.MaxLineBytes }, DefaultMaxLineBytes, 4096},
		{"sandbox off", "sandbox: {enabled: false}", "sandbox.enabled",
			func(c Config) any { return c.Sandbox.Enabled }, true, false},
		{"sandbox writable paths", "sandbox: {allowWrite: [/etc]}", "sandbox.allowWrite",
			func(c Config) any { return len(c.Sandbox.AllowWrite) }, 0, 1},
		{"agent sandbox off", "agents:\n  claude: {sandbox: {enabled: false}}", "agents.claude.sandbox.enabled",
			func(c Config) any { e := c.Agents["claude"].Sandbox.Enabled; return e != nil && !*e }, false, true},
		{"agent sandbox writable paths", "agents:\n  claude: {sandbox: {allowWrite: [/srv]}}", "agents.claude.sandbox.allowWrite",
			func(c Config) any { return len(c.Agents["claude"].Sandbox.AllowWrite) }, 0, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newTrustEnv(t)
			writeFile(t, e.userFile(), user)
			writeFile(t, e.wsFile(), tc.ws)
			s := e.mustLoad(untrusted)
			snap := s.Snapshot()
			if got := tc.got(snap.Config); !reflect.DeepEqual(got, tc.untrusted) {
				t.Errorf("untrusted: got %v, want %v", got, tc.untrusted)
			}
			if snap.WorkspaceTrust.Trusted {
				t.Error("WorkspaceTrust.Trusted = true by default")
			}
			if !slices.Contains(ignoredKeys(snap), tc.key) {
				t.Errorf("ignored %v, want %s reported", ignoredKeys(snap), tc.key)
			}
			for _, i := range snap.WorkspaceTrust.Ignored {
				if i.File != e.wsFile() || i.Line < 1 || i.Reason == "" {
					t.Errorf("ignored entry %+v: want file %s, a line and a reason", i, e.wsFile())
				}
			}
			// Granting trust does not approve the loosening: it waits,
			// listed, for the person's approval of this version.
			if changed, err := s.SetWorkspaceTrusted(true); err != nil || !changed {
				t.Fatalf("SetWorkspaceTrusted(true) = %v, %v", changed, err)
			}
			snap = s.Snapshot()
			if got := tc.got(snap.Config); !reflect.DeepEqual(got, tc.untrusted) {
				t.Errorf("trusted, not approved: got %v, want %v", got, tc.untrusted)
			}
			p := snap.WorkspaceTrust.Pending
			if p == nil || p.Approved != DigestNone || p.Digest != ContentDigest([]byte(tc.ws), true) ||
				!slices.ContainsFunc(p.Loosens, func(l string) bool { return l == tc.key || strings.HasPrefix(l, tc.key+" ") }) {
				t.Fatalf("trusted, not approved: pending %+v, want %s listed", p, tc.key)
			}
			if _, err := os.Stat(filepath.Join(e.userDir, ApprovalsFileName)); !os.IsNotExist(err) {
				t.Errorf("first trust of a loosening file pinned it: %v", err)
			}
			// Approving that version applies it.
			if _, err := s.ApproveWorkspaceFile(p.Digest); err != nil {
				t.Fatal(err)
			}
			snap = s.Snapshot()
			if got := tc.got(snap.Config); !reflect.DeepEqual(got, tc.trusted) {
				t.Errorf("trusted: got %v, want %v", got, tc.trusted)
			}
			if len(snap.WorkspaceTrust.Ignored) != 0 || !snap.WorkspaceTrust.Trusted {
				t.Errorf("trusted: WorkspaceTrust %+v, want trusted and nothing ignored", snap.WorkspaceTrust)
			}
			// Revoking narrows again.
			if _, err := s.SetWorkspaceTrusted(false); err != nil {
				t.Fatal(err)
			}
			if got := tc.got(s.Snapshot().Config); !reflect.DeepEqual(got, tc.untrusted) {
				t.Errorf("revoked: got %v, want %v", got, tc.untrusted)
			}
		})
	}
}

// TestUntrustedWorkspaceKeepsNarrowing: deny and ask rules, stricter modes,
// a stricter timeout outcome and bypass off apply without trust.
func TestUntrustedWorkspaceKeepsNarrowing(t *testing.T) {
	cases := []struct {
		name string
		user string
		ws   string
		got  func(*Snapshot) any
		want any
	}{
		{"deny rule", "", "permissions: {deny: [\"Bash(curl *)\"]}",
			func(s *Snapshot) any { return listTexts(s.Rules, ListDeny) }, []string{"Bash(curl *)"}},
		{"ask rule", "", "permissions: {ask: [WebFetch]}",
			func(s *Snapshot) any { return listTexts(s.Rules, ListAsk) }, []string{"WebFetch"}},
		{"allow dropped, deny kept in one list", "", "permissions: {allow: [Bash], deny: [Read(.env)]}",
			func(s *Snapshot) any { return listTexts(s.Rules, "") }, []string{"deny Read(.env)"}},
		{"agent deny rule", "agents: {claude: {command: c}}", "agents: {claude: {permissions: {deny: [Bash]}}}",
			func(s *Snapshot) any { return listTexts(s.Config.Agents["claude"].Rules, ListDeny) }, []string{"Bash"}},
		{"plan over default", "", "permissions: {defaultMode: plan}",
			func(s *Snapshot) any { return s.Config.Permissions.DefaultMode }, ModePlan},
		{"dontAsk over default", "", "permissions: {defaultMode: dontAsk}",
			func(s *Snapshot) any { return s.Config.Permissions.DefaultMode }, ModeDontAsk},
		{"default over acceptEdits", "permissions: {defaultMode: acceptEdits}", "permissions: {defaultMode: default}",
			func(s *Snapshot) any { return s.Config.Permissions.DefaultMode }, ModeDefault},
		{"acceptEdits over bypass", "permissions: {defaultMode: bypassPermissions}", "permissions: {defaultMode: acceptEdits}",
			func(s *Snapshot) any { return s.Config.Permissions.DefaultMode }, ModeAcceptEdits},
		{"agent plan", "agents: {claude: {command: c}}", "agents: {claude: {mode: plan}}",
			func(s *Snapshot) any { return s.Config.Agents["claude"].Mode }, ModePlan},
		{"agent bypass off", "agents: {claude: {command: c, bypassPermissions: true}}", "agents: {claude: {bypassPermissions: false}}",
			func(s *Snapshot) any { return s.Config.Agents["claude"].BypassPermissions }, false},
		{"timeout outcome cancel", "", "approvals: {timeoutOutcome: cancel}",
			func(s *Snapshot) any { return s.Config.Approvals.TimeoutOutcome }, OutcomeCancel},
		{"startAgentsOnLaunch off", "startAgentsOnLaunch: true", "startAgentsOnLaunch: false",
			func(s *Snapshot) any { return s.Config.StartAgentsOnLaunch }, false},
		{"sandbox on", "sandbox: {enabled: false}", "sandbox: {enabled: true}",
			func(s *Snapshot) any { return s.Config.Sandbox.Enabled }, true},
		{"sandbox refuses unconfined", "", "sandbox: {onUnavailable: refuse}",
			func(s *Snapshot) any { return s.Config.Sandbox.OnUnavailable }, SandboxRefuse},
		{"sandbox network none", "", "sandbox: {network: none}",
			func(s *Snapshot) any { return s.Config.Sandbox.Network }, "none"},
		{"agent sandbox network loopback", "agents: {claude: {command: c, sandbox: {network: domains}}}", "agents: {claude: {sandbox: {network: loopback}}}",
			func(s *Snapshot) any { return s.Config.Agents["claude"].Sandbox.Network }, "loopback"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newTrustEnv(t)
			if tc.user != "" {
				writeFile(t, e.userFile(), tc.user)
			}
			writeFile(t, e.wsFile(), tc.ws)
			snap := e.mustLoad(untrusted).Snapshot()
			if got := tc.got(snap); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
			for _, i := range snap.WorkspaceTrust.Ignored {
				if !strings.HasSuffix(i.Key, ".allow") {
					t.Errorf("narrowing reported as ignored: %s", i)
				}
			}
		})
	}
}

// TestStricterModeNotLooser: untrusted, a workspace mode applies only when
// it is at least as strict as the trusted one.
func TestStricterOrEqualMode(t *testing.T) {
	modes := []string{ModeBypass, ModeAcceptEdits, ModeDefault, ModeDontAsk, ModePlan}
	// applies[w][t]: w from the workspace applies over trusted t.
	applies := map[string]map[string]bool{
		ModeBypass:      {ModeBypass: true},
		ModeAcceptEdits: {ModeBypass: true, ModeAcceptEdits: true},
		ModeDefault:     {ModeBypass: true, ModeAcceptEdits: true, ModeDefault: true},
		ModeDontAsk:     {ModeBypass: true, ModeAcceptEdits: true, ModeDefault: true, ModeDontAsk: true},
		ModePlan:        {ModeBypass: true, ModeAcceptEdits: true, ModeDefault: true, ModePlan: true},
	}
	for _, w := range modes {
		for _, tr := range modes {
			if got := StricterOrEqualMode(w, tr); got != applies[w][tr] {
				t.Errorf("StricterOrEqualMode(%s, %s) = %v", w, tr, got)
			}
			e := newTrustEnv(t)
			writeFile(t, e.userFile(), "permissions: {defaultMode: "+tr+"}")
			writeFile(t, e.wsFile(), "permissions: {defaultMode: "+w+"}")
			want := tr
			if applies[w][tr] {
				want = w
			}
			if got := e.mustLoad(untrusted).Snapshot().Config.Permissions.DefaultMode; got != want {
				t.Errorf("user %s, workspace %s: mode %s, want %s", tr, w, got, want)
			}
		}
	}
}

// TestAuditAndLogPathNeverFromWorkspace: trusted or not, the workspace file
// cannot point the audit log or the bridge's log at a file.
func TestAuditAndLogPathNeverFromWorkspace(t *testing.T) {
	for _, trusted := range []bool{false, true} {
		e := newTrustEnv(t)
		bashrc := filepath.Join(e.wsDir, "..", "home", ".bashrc")
		writeFile(t, e.wsFile(), "audit: {path: "+bashrc+"}\nlog: {file: "+bashrc+"}\n")
		s := e.mustLoad(func(o *Options) { o.WorkspaceTrusted = trusted })
		c := s.Snapshot().Config
		if want := filepath.Join(e.userDir, "audit.jsonl"); c.Audit.Path != want {
			t.Errorf("trusted=%v: audit path %s, want %s", trusted, c.Audit.Path, want)
		}
		if c.Log.File != "" {
			t.Errorf("trusted=%v: log file %s, want stderr", trusted, c.Log.File)
		}
		keys := ignoredKeys(s.Snapshot())
		if !slices.Contains(keys, "audit.path") || !slices.Contains(keys, "log.file") {
			t.Errorf("trusted=%v: ignored %v, want audit.path and log.file", trusted, keys)
		}
	}
	// The user file and the environment may set them.
	e := newTrustEnv(t)
	writeFile(t, e.userFile(), "audit: {path: /var/log/a.jsonl}")
	s := e.mustLoad(untrusted, func(o *Options) { o.Environ = []string{"ACP_BRIDGE_LOG_FILE=/var/log/b.log"} })
	if c := s.Snapshot().Config; c.Audit.Path != "/var/log/a.jsonl" || c.Log.File != "/var/log/b.log" {
		t.Errorf("user audit %s, env log %s", c.Audit.Path, c.Log.File)
	}
}

// TestTrustGrantPublishes: granting trust is a settings change subscribers
// hear of, and a trusted-only problem keeps the previous settings.
func TestTrustGrantPublishes(t *testing.T) {
	e := newTrustEnv(t)
	writeFile(t, e.wsFile(), "permissions: {allow: [Bash]}")
	s := e.mustLoad(untrusted)
	got := make(chan *Snapshot, 4)
	s.OnChange(func(sn *Snapshot) { got <- sn })
	if _, err := s.SetWorkspaceTrusted(true); err != nil {
		t.Fatal(err)
	}
	select {
	case sn := <-got:
		if !sn.WorkspaceTrust.Trusted || len(listTexts(sn.Rules, ListAllow)) != 0 || sn.WorkspaceTrust.Pending == nil {
			t.Errorf("after grant: %+v, rules %v; want trusted, the allow rule pending", sn.WorkspaceTrust, sn.Rules)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no OnChange after SetWorkspaceTrusted")
	}
	if _, err := s.ApproveWorkspaceFile(""); err != nil {
		t.Fatal(err)
	}
	select {
	case sn := <-got:
		if !sn.WorkspaceTrust.Trusted || len(listTexts(sn.Rules, ListAllow)) != 1 {
			t.Errorf("after grant: %+v, rules %v", sn.WorkspaceTrust, sn.Rules)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no OnChange after SetWorkspaceTrusted")
	}
	if changed, _ := s.SetWorkspaceTrusted(true); changed {
		t.Error("granting twice reported a change")
	}

	// A workspace agent without a command is ignored untrusted, invalid trusted.
	e = newEnv(t)
	writeFile(t, e.wsFile(), "agents: {half: {args: [x]}}\npermissions: {allow: [Bash]}")
	e.preApprove()
	writeFile(t, e.wsFile(), "agents: {half: {args: [x]}}\npermissions: {allow: [Bash]}")
	s = e.mustLoad(untrusted)
	before := s.Snapshot()
	if _, err := s.SetWorkspaceTrusted(true); err == nil || !strings.Contains(err.Error(), "agents.half.command") {
		t.Errorf("SetWorkspaceTrusted(true) = %v, want the invalid agent named", err)
	}
	if s.Snapshot() != before {
		t.Error("an invalid trusted result replaced the settings")
	}
	if !s.WorkspaceTrusted() {
		t.Error("the trust itself was not recorded")
	}
}

// listTexts lists rule texts of one list ("" = "list text" of every rule).
func listTexts(rules []Rule, list string) []string {
	var out []string
	for _, r := range rules {
		switch {
		case list == "":
			out = append(out, r.String())
		case r.List == list:
			out = append(out, r.Text)
		}
	}
	return out
}

// TestPersistLooseningToUntrustedWorkspaceRefused: an allow rule or a bypass
// is not written into an untrusted workspace file (it would be ignored);
// deny rules are, and user-scope grants are unaffected.
func TestPersistLooseningToUntrustedWorkspaceRefused(t *testing.T) {
	e := newTrustEnv(t)
	writeFile(t, e.userFile(), "agents: {claude: {command: c}}\n")
	s := e.mustLoad(untrusted)
	for _, g := range []Grant{
		{Kind: GrantRule, Scope: ScopeWorkspace, List: ListAllow, Rule: "Bash(npm test)"},
		{Kind: GrantRule, Scope: ScopeWorkspace, Agent: "claude", List: ListAllow, Rule: "Bash"},
		{Kind: GrantBypass, Scope: ScopeWorkspace, Agent: "claude"},
	} {
		if _, err := s.Persist(g); !errors.Is(err, ErrWorkspaceUntrusted) {
			t.Errorf("Persist(%+v) = %v, want ErrWorkspaceUntrusted", g, err)
		}
	}
	if _, err := os.Stat(e.wsFile()); err == nil {
		t.Fatal("the workspace file was written")
	}
	if _, err := s.Persist(Grant{Kind: GrantRule, Scope: ScopeWorkspace, List: ListDeny, Rule: "Bash(rm *)"}); err != nil {
		t.Fatalf("a deny into the untrusted workspace: %v", err)
	}
	if got := listTexts(s.Snapshot().Rules, ListDeny); !slices.Contains(got, "Bash(rm *)") {
		t.Errorf("deny rules %v", got)
	}
	if _, err := s.Persist(Grant{Kind: GrantRule, Scope: ScopeUser, List: ListAllow, Rule: "Bash(npm test)"}); err != nil {
		t.Fatalf("a user-scope allow: %v", err)
	}
	// Trusted, the workspace takes an allow.
	if _, err := s.SetWorkspaceTrusted(true); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Persist(Grant{Kind: GrantRule, Scope: ScopeWorkspace, List: ListAllow, Rule: "Bash(make)"}); err != nil {
		t.Fatalf("a workspace allow once trusted: %v", err)
	}
}
