package settings

import (
	"reflect"
	"slices"
	"testing"
	"time"
)

func TestEnvOverrides(t *testing.T) {
	cases := []struct {
		name string
		env  []string
		get  func(*Snapshot) any
		want any
	}{
		{"default agent", []string{"ACP_BRIDGE_DEFAULTAGENT=claude", "ACP_BRIDGE_AGENTS_CLAUDE_COMMAND=npx"},
			func(s *Snapshot) any { return s.Config.DefaultAgent }, "claude"},
		{"timeout", []string{"ACP_BRIDGE_APPROVALS_TIMEOUTSECONDS=42"},
			func(s *Snapshot) any { return s.Config.Approvals.Timeout }, 42 * time.Second},
		{"timeout outcome", []string{"ACP_BRIDGE_APPROVALS_TIMEOUTOUTCOME=cancel"},
			func(s *Snapshot) any { return s.Config.Approvals.TimeoutOutcome }, "cancel"},
		{"default mode alias", []string{"ACP_BRIDGE_PERMISSIONS_DEFAULTMODE=auto_accept_all"},
			func(s *Snapshot) any { return s.Config.Permissions.DefaultMode }, "bypassPermissions"},
		{"log level", []string{"ACP_BRIDGE_LOG_LEVEL=debug"},
			func(s *Snapshot) any { return s.Config.Log.Level }, "debug"},
		{"log file", []string{"ACP_BRIDGE_LOG_FILE=/var/log/acp-bridge.log"},
			func(s *Snapshot) any { return s.Config.Log.File }, "/var/log/acp-bridge.log"},
		{"audit path", []string{"ACP_BRIDGE_AUDIT_PATH=/var/log/audit.jsonl"},
			func(s *Snapshot) any { return s.Config.Audit.Path }, "/var/log/audit.jsonl"},
		{"audit size", []string{"ACP_BRIDGE_AUDIT_MAXSIZEMB=3"},
			func(s *Snapshot) any { return s.Config.Audit.MaxSizeBytes }, int64(3 << 20)},
		{"start on launch", []string{"ACP_BRIDGE_STARTAGENTSONLAUNCH=true"},
			func(s *Snapshot) any { return s.Config.StartAgentsOnLaunch }, true},
		{"deny rules as JSON", []string{`ACP_BRIDGE_PERMISSIONS_DENY=["Read(.env*)","Bash(curl *)"]`},
			func(s *Snapshot) any { return ruleTexts(s.Rules) }, []string{"env deny Read(.env*)", "env deny Bash(curl *)"}},
		{"additional directories", []string{`ACP_BRIDGE_PERMISSIONS_ADDITIONALDIRECTORIES=["/srv/data"]`},
			func(s *Snapshot) any { return s.Config.Permissions.AdditionalDirectories }, []string{"/srv/data"}},
		{"agent fields match existing name case-insensitively", []string{
			"ACP_BRIDGE_AGENTS_DEMO_ARGS=[\"demo-agent\",\"--fast\"]",
			"ACP_BRIDGE_AGENTS_DEMO_ENV={\"K\":\"V\"}",
			"ACP_BRIDGE_AGENTS_DEMO_MODE=plan",
			"ACP_BRIDGE_AGENTS_DEMO_PERMISSIONS_ASK=[\"Edit\"]",
		}, func(s *Snapshot) any {
			a := s.Config.Agents["demo"]
			return []any{a.Command, a.Args, a.Env, a.Mode, ruleTexts(a.Rules)}
		}, []any{testExe, []string{"demo-agent", "--fast"}, map[string]string{"K": "V"}, "plan", []string{"env agent:demo ask Edit"}}},
		{"agent name with underscore", []string{"ACP_BRIDGE_AGENTS_MY_AGENT_COMMAND=my-acp"},
			func(s *Snapshot) any { return s.Config.Agents["my_agent"].Command }, "my-acp"},
		{"empty value is unset", []string{"ACP_BRIDGE_LOG_LEVEL="},
			func(s *Snapshot) any { return s.Config.Log.Level }, "info"},
		{"unrelated variables ignored", []string{"ACP_BRIDGE_TEST_HELPER=1", "PATH=/bin", "ACP_BRIDGE_VERSION=9"},
			func(s *Snapshot) any { return s.Config.Log.Level }, "info"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			s := e.mustLoad(func(o *Options) { o.Environ = tc.env })
			if got := tc.get(s.Snapshot()); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %#v, want %#v", got, tc.want)
			}
		})
	}
}

func TestEnvErrors(t *testing.T) {
	cases := []struct {
		env  string
		want []string
	}{
		{"ACP_BRIDGE_APPROVALS_TIMEOUTSECONDS=soon",
			[]string{`env ACP_BRIDGE_APPROVALS_TIMEOUTSECONDS: approvals.timeoutSeconds: must be an integer, got "soon"`}},
		{"ACP_BRIDGE_APPROVALS_TIMEOUTSECONDS=0",
			[]string{`env ACP_BRIDGE_APPROVALS_TIMEOUTSECONDS: approvals.timeoutSeconds: must be > 0`}},
		{"ACP_BRIDGE_PERMISSIONS_DEFAULTMODE=yolo",
			[]string{`env ACP_BRIDGE_PERMISSIONS_DEFAULTMODE: permissions.defaultMode: "yolo" is not a mode (default, acceptEdits, plan, dontAsk, bypassPermissions, or aliases autonomous, ask_every_time, auto_accept_read_only, auto_accept_all)`}},
		{"ACP_BRIDGE_STARTAGENTSONLAUNCH=maybe",
			[]string{`env ACP_BRIDGE_STARTAGENTSONLAUNCH: startAgentsOnLaunch: must be true or false, got "maybe"`}},
		{"ACP_BRIDGE_PERMISSIONS_ALLOW=Bash(ls)",
			[]string{`env ACP_BRIDGE_PERMISSIONS_ALLOW: permissions.allow: must be a JSON list of strings, e.g. ["a","b"]: invalid character 'B' looking for beginning of value`}},
		{`ACP_BRIDGE_PERMISSIONS_DENY=[1]`,
			[]string{`env ACP_BRIDGE_PERMISSIONS_DENY: permissions.deny[0]: must be a string, got number 1`}},
		{"ACP_BRIDGE_PERMISSION_DENY=[]",
			[]string{`env ACP_BRIDGE_PERMISSION_DENY: unknown setting (did you mean ACP_BRIDGE_PERMISSIONS_DENY?)`}},
		{"ACP_BRIDGE_LOG_LEVL=debug",
			[]string{`env ACP_BRIDGE_LOG_LEVL: unknown setting (did you mean ACP_BRIDGE_LOG_LEVEL?)`}},
		{"ACP_BRIDGE_PERMISSIONS_MODE=plan",
			[]string{`env ACP_BRIDGE_PERMISSIONS_MODE: unknown setting (see docs/settings.md for the variable names)`}},
		{"ACP_BRIDGE_AGENTS_CLAUDE_COMAND=npx",
			[]string{`env ACP_BRIDGE_AGENTS_CLAUDE_COMAND: unknown setting (per-agent variables are ACP_BRIDGE_AGENTS_<NAME>_<FIELD>, FIELD one of ARGS, BYPASSPERMISSIONS, COMMAND, CWD, ENV, FAMILY, INITTIMEOUTSECONDS, MODE, PERMISSIONS_ALLOW, PERMISSIONS_ASK, PERMISSIONS_DENY, SANDBOX_ALLOWDOMAINS, SANDBOX_ALLOWWRITE, SANDBOX_ENABLED, SANDBOX_NETWORK, STARTONLAUNCH)`}},
		{"ACP_BRIDGE_AGENTS_GHOST_MODE=plan",
			[]string{`env ACP_BRIDGE_AGENTS_GHOST_MODE: agents.ghost.command: required`}},
		{"ACP_BRIDGE_DEFAULTAGENT=ghost",
			[]string{`env ACP_BRIDGE_DEFAULTAGENT: defaultAgent: "ghost" is not a configured agent (configured: demo)`}},
	}
	for _, tc := range cases {
		t.Run(tc.env, func(t *testing.T) {
			e := newEnv(t)
			_, err := e.load(func(o *Options) { o.Environ = []string{tc.env} })
			if got := problems(t, err); !slices.Equal(got, tc.want) {
				t.Errorf("got %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestEnvNames(t *testing.T) {
	global, fields := EnvNames()
	for name, path := range map[string]string{
		"ACP_BRIDGE_DEFAULTAGENT":             "defaultAgent",
		"ACP_BRIDGE_APPROVALS_TIMEOUTSECONDS": "approvals.timeoutSeconds",
		"ACP_BRIDGE_PERMISSIONS_DEFAULTMODE":  "permissions.defaultMode",
		"ACP_BRIDGE_LOG_LEVEL":                "log.level",
		"ACP_BRIDGE_AUDIT_PATH":               "audit.path",
	} {
		if global[name] != path {
			t.Errorf("%s -> %q, want %q", name, global[name], path)
		}
	}
	if len(global) != len(globalLeaves) || fields["PERMISSIONS_DENY"] != "permissions.deny" || len(fields) != len(agentLeaves) {
		t.Errorf("EnvNames: %v %v", global, fields)
	}
}
