package settings

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestDefaults(t *testing.T) {
	e := newEnv(t)
	s := e.mustLoad()
	want := Config{
		DefaultAgent: "demo",
		Agents: map[string]Agent{
			"demo": {Name: "demo", Command: testExe, Args: []string{"demo-agent"}},
		},
		Permissions:  Permissions{DefaultMode: "default", CancelOnUnaskedDeny: true},
		Approvals:    Approvals{Timeout: 300 * time.Second, TimeoutOutcome: "reject"},
		Audit:        Audit{Path: filepath.Join(e.userDir, "audit.jsonl"), MaxSizeBytes: 50 << 20},
		Log:          Log{Level: "info"},
		MaxLineBytes: 64 << 20,
		Sandbox:      Sandbox{Enabled: true, OnUnavailable: "warn", Network: "all"},
	}
	got := s.Snapshot()
	if !reflect.DeepEqual(got.Config, want) {
		t.Errorf("defaults:\n got %+v\nwant %+v", got.Config, want)
	}
	if len(got.Rules) != 0 || len(got.Sources) != 0 {
		t.Errorf("rules %v sources %v, want none", got.Rules, got.Sources)
	}
}

func TestDefaultExecutable(t *testing.T) {
	e := newEnv(t)
	s := e.mustLoad(func(o *Options) { o.Executable = "" })
	exe, err := os.Executable()
	if err != nil {
		t.Skip("no executable:", err)
	}
	if got := s.Snapshot().Config.Agents["demo"].Command; got != exe {
		t.Errorf("demo command %q, want the running binary %q", got, exe)
	}
}

// TestPrecedence sets one scalar in several layers and checks the heaviest
// wins: default < user < workspace < env < editor.
func TestPrecedence(t *testing.T) {
	type layers struct{ user, ws, env, editor string }
	cases := []struct {
		name string
		in   layers
		get  func(Config) any
		want any
	}{
		{"default only", layers{}, func(c Config) any { return c.Approvals.Timeout }, 300 * time.Second},
		{"user", layers{user: "approvals: {timeoutSeconds: 10}"}, func(c Config) any { return c.Approvals.Timeout }, 10 * time.Second},
		{"workspace over user", layers{user: "approvals: {timeoutSeconds: 10}", ws: "approvals: {timeoutSeconds: 20}"},
			func(c Config) any { return c.Approvals.Timeout }, 20 * time.Second},
		{"env over workspace", layers{user: "approvals: {timeoutSeconds: 10}", ws: "approvals: {timeoutSeconds: 20}", env: "ACP_BRIDGE_APPROVALS_TIMEOUTSECONDS=30"},
			func(c Config) any { return c.Approvals.Timeout }, 30 * time.Second},
		{"editor over env", layers{user: "approvals: {timeoutSeconds: 10}", ws: "approvals: {timeoutSeconds: 20}", env: "ACP_BRIDGE_APPROVALS_TIMEOUTSECONDS=30", editor: `{"approvals":{"timeoutSeconds":40}}`},
			func(c Config) any { return c.Approvals.Timeout }, 40 * time.Second},
		{"lighter layer kept when heavier is silent", layers{user: "approvals: {timeoutSeconds: 10}", ws: "log: {level: debug}"},
			func(c Config) any { return c.Approvals.Timeout }, 10 * time.Second},
		{"mode alias normalised", layers{ws: "permissions: {defaultMode: autonomous}"},
			func(c Config) any { return c.Permissions.DefaultMode }, "bypassPermissions"},
		{"user mode, editor mode", layers{user: "permissions: {defaultMode: plan}", editor: `{"permissions":{"defaultMode":"acceptEdits"}}`},
			func(c Config) any { return c.Permissions.DefaultMode }, "acceptEdits"},
		{"defaultAgent from env", layers{user: "agents: {x: {command: x}}", env: "ACP_BRIDGE_DEFAULTAGENT=x"},
			func(c Config) any { return c.DefaultAgent }, "x"},
		{"bool from editor", layers{user: "startAgentsOnLaunch: true", editor: `{"startAgentsOnLaunch":false}`},
			func(c Config) any { return c.StartAgentsOnLaunch }, false},
		{"continueAfterDeny off by default", layers{}, func(c Config) any { return c.Permissions.ContinueAfterDeny }, false},
		{"continueAfterDeny from user", layers{user: "permissions: {continueAfterDeny: true}"},
			func(c Config) any { return c.Permissions.ContinueAfterDeny }, true},
		{"continueAfterDeny from env over user", layers{user: "permissions: {continueAfterDeny: true}", env: "ACP_BRIDGE_PERMISSIONS_CONTINUEAFTERDENY=false"},
			func(c Config) any { return c.Permissions.ContinueAfterDeny }, false},
		{"log file never from the workspace", layers{ws: "log: {file: logs/bridge.log}"},
			func(c Config) any { return c.Log.File }, ""},
		{"log file relative to the user file", layers{user: "log: {file: logs/bridge.log}"},
			func(c Config) any { return strings.HasSuffix(c.Log.File, "/acp-bridge/logs/bridge.log") }, true},
		{"audit size", layers{user: "audit: {maxSizeMB: 2}"}, func(c Config) any { return c.Audit.MaxSizeBytes }, int64(2 << 20)},
		{"maxLineBytes from env", layers{env: "ACP_BRIDGE_MAXLINEBYTES=65536"}, func(c Config) any { return c.MaxLineBytes }, 65536},
		{"timeout outcome", layers{ws: "approvals: {timeoutOutcome: cancel}"}, func(c Config) any { return c.Approvals.TimeoutOutcome }, "cancel"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			if tc.in.user != "" {
				writeFile(t, e.userFile(), tc.in.user)
			}
			if tc.in.ws != "" {
				writeFile(t, e.wsFile(), tc.in.ws)
			}
			s := e.mustLoad(func(o *Options) {
				if tc.in.env != "" {
					o.Environ = []string{tc.in.env}
				}
			})
			if tc.in.editor != "" {
				if err := s.ApplyEditor([]byte(tc.in.editor)); err != nil {
					t.Fatalf("ApplyEditor: %v", err)
				}
			}
			if got := tc.get(s.Snapshot().Config); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestAgentsMergeFieldByField(t *testing.T) {
	e := newEnv(t)
	writeFile(t, e.userFile(), `
agents:
  claude:
    command: npx
    args: ["@agentclientprotocol/claude-agent-acp"]
    env: {A: "1", B: "2"}
    family: claude
`)
	writeFile(t, e.wsFile(), `
agents:
  claude:
    mode: plan
    env: {B: "3", PORT: 8080}
    cwd: sub
`)
	s := e.mustLoad(func(o *Options) {
		o.Environ = []string{"ACP_BRIDGE_AGENTS_CLAUDE_COMMAND=/opt/claude", "ACP_BRIDGE_AGENTS_CLAUDE_BYPASSPERMISSIONS=true"}
	})
	if err := s.ApplyEditor([]byte(`{"agents":{"claude":{"args":["--verbose"]}}}`)); err != nil {
		t.Fatal(err)
	}
	got := s.Snapshot().Config.Agents["claude"]
	want := Agent{
		Name:              "claude",
		Command:           "/opt/claude",
		Args:              []string{"--verbose"},
		Env:               map[string]string{"A": "1", "B": "3", "PORT": "8080"},
		Cwd:               filepath.Join(e.wsDir, "sub"),
		Family:            "claude",
		Mode:              "plan",
		BypassPermissions: true,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("claude:\n got %+v\nwant %+v", got, want)
	}
	if m := got.EffectiveMode("default"); m != ModeBypass {
		t.Errorf("EffectiveMode = %q, want bypassPermissions (per-agent bypass is the agent's mode)", m)
	}
	if names := s.Snapshot().AgentNames(); !slices.Equal(names, []string{"claude", "demo"}) {
		t.Errorf("AgentNames = %v", names)
	}
}

func TestRulesConcatenateWithOrigin(t *testing.T) {
	e := newEnv(t)
	writeFile(t, e.userFile(), `
permissions:
  allow: ["Bash(npm run test *)"]
  deny: ["Read(.env*)"]
  additionalDirectories: [~/lib, shared]
agents:
  claude:
    command: npx
    permissions: {deny: ["Bash(git push *)"]}
`)
	writeFile(t, e.wsFile(), `
permissions:
  allow: ["Bash(make *)"]
  additionalDirectories: [vendor]
agents:
  claude:
    permissions: {allow: ["Bash(git status)"]}
`)
	s := e.mustLoad(func(o *Options) { o.Environ = []string{`ACP_BRIDGE_PERMISSIONS_DENY=["WebFetch"]`} })
	if err := s.ApplyEditor(mustJSON(t, map[string]any{
		"permissions": map[string]any{"ask": []string{"Bash(rm *)"}},
		"agents":      map[string]any{"claude": map[string]any{"permissions": map[string]any{"ask": []string{"Edit"}}}},
	})); err != nil {
		t.Fatal(err)
	}
	sn := s.Snapshot()
	wantGlobal := []Rule{
		{List: "allow", Text: "Bash(npm run test *)", Layer: "user", File: e.userFile(), Root: e.userDir},
		{List: "deny", Text: "Read(.env*)", Layer: "user", File: e.userFile(), Root: e.userDir},
		{List: "allow", Text: "Bash(make *)", Layer: "workspace", File: e.wsFile(), Root: e.wsDir},
		{List: "deny", Text: "WebFetch", Layer: "env", Root: e.wsDir},
		{List: "ask", Text: "Bash(rm *)", Layer: "editor", Root: e.wsDir},
	}
	if !reflect.DeepEqual(sn.Rules, wantGlobal) {
		t.Errorf("global rules:\n got %+v\nwant %+v", sn.Rules, wantGlobal)
	}
	wantAgent := []string{
		"user agent:claude deny Bash(git push *)",
		"workspace agent:claude allow Bash(git status)",
		"editor agent:claude ask Edit",
	}
	if got := ruleTexts(sn.Config.Agents["claude"].Rules); !slices.Equal(got, wantAgent) {
		t.Errorf("agent rules:\n got %q\nwant %q", got, wantAgent)
	}
	all := ruleTexts(sn.AgentRules("claude"))
	if len(all) != len(wantGlobal)+len(wantAgent) || all[len(all)-1] != "editor agent:claude ask Edit" {
		t.Errorf("AgentRules(claude) = %q", all)
	}
	if got := ruleTexts(sn.AgentRules("demo")); len(got) != len(wantGlobal) {
		t.Errorf("AgentRules(demo) = %q, want only the global rules", got)
	}
	home, _ := os.UserHomeDir()
	wantDirs := []string{filepath.Join(home, "lib"), filepath.Join(e.userDir, "shared"), filepath.Join(e.wsDir, "vendor")}
	if got := sn.Config.Permissions.AdditionalDirectories; !slices.Equal(got, wantDirs) {
		t.Errorf("additionalDirectories = %q, want %q", got, wantDirs)
	}
	if got := sn.Rules[0].Origin(); got != "user ("+e.userFile()+")" {
		t.Errorf("Origin = %q", got)
	}
	if got := sn.Config.Agents["claude"].Rules[1].Origin(); got != "workspace agent:claude ("+e.wsFile()+")" {
		t.Errorf("Origin = %q", got)
	}
	if !slices.Equal(sn.Sources, []string{e.userFile(), e.wsFile()}) {
		t.Errorf("Sources = %q", sn.Sources)
	}
}

// TestExplicitConfigFile: --config replaces the search; its directory is the
// user rules' root; it must exist.
func TestExplicitConfigFile(t *testing.T) {
	e := newEnv(t)
	writeFile(t, e.userFile(), `permissions: {allow: ["Bash(ignored)"]}`)
	other := filepath.Join(t.TempDir(), "etc", "bridge.yaml")
	writeFile(t, other, `permissions: {deny: ["Bash(curl *)"]}`)
	s := e.mustLoad(func(o *Options) { o.ConfigFile = other })
	want := []Rule{{List: "deny", Text: "Bash(curl *)", Layer: "user", File: other, Root: filepath.Dir(other)}}
	if got := s.Snapshot().Rules; !reflect.DeepEqual(got, want) {
		t.Errorf("rules %+v, want %+v", got, want)
	}

	missing := filepath.Join(t.TempDir(), "nope.yaml")
	_, err := e.load(func(o *Options) { o.ConfigFile = missing })
	if got := joinLines(problems(t, err)); got != missing+": config file does not exist" {
		t.Errorf("missing --config: %q", got)
	}
}

func TestUserFileFormats(t *testing.T) {
	cases := []struct{ name, content string }{
		{"config.yaml", "defaultAgent: x\nagents: {x: {command: x-acp}}\npermissions: {deny: [\"Read(.env*)\"]}\napprovals: {timeoutSeconds: 7}\n"},
		{"config.yml", "defaultAgent: x\nagents: {x: {command: x-acp}}\npermissions: {deny: [\"Read(.env*)\"]}\napprovals: {timeoutSeconds: 7}\n"},
		{"config.json", `{"defaultAgent":"x","agents":{"x":{"command":"x-acp"}},"permissions":{"deny":["Read(.env*)"]},"approvals":{"timeoutSeconds":7}}`},
		{"config.toml", "defaultAgent = \"x\"\n[agents.x]\ncommand = \"x-acp\"\n[permissions]\ndeny = [\"Read(.env*)\"]\n[approvals]\ntimeoutSeconds = 7\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			writeFile(t, filepath.Join(e.userDir, tc.name), tc.content)
			sn := e.mustLoad().Snapshot()
			if sn.Config.DefaultAgent != "x" || sn.Config.Agents["x"].Command != "x-acp" ||
				sn.Config.Approvals.Timeout != 7*time.Second || !hasRule(sn.Rules, "deny", "Read(.env*)") {
				t.Errorf("not read: %+v %+v", sn.Config, sn.Rules)
			}
			if !slices.Equal(sn.Sources, []string{filepath.Join(e.userDir, tc.name)}) {
				t.Errorf("Sources = %q", sn.Sources)
			}
		})
	}
}

// TestSeveralUserFiles: two user files is an error, not a silent pick that
// could drop the other's deny rules.
func TestSeveralUserFiles(t *testing.T) {
	e := newEnv(t)
	writeFile(t, filepath.Join(e.userDir, "config.yaml"), "{}")
	writeFile(t, filepath.Join(e.userDir, "config.json"), "{}")
	_, err := e.load()
	want := e.userDir + ": several user config files: " + filepath.Join(e.userDir, "config.yaml") + ", " + filepath.Join(e.userDir, "config.json") + " (keep one)"
	if got := joinLines(problems(t, err)); got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

func TestEmptyFilesAreEmptyLayers(t *testing.T) {
	e := newEnv(t)
	writeFile(t, e.userFile(), "# nothing yet\n")
	writeFile(t, e.wsFile(), "")
	sn := e.mustLoad().Snapshot()
	if sn.Config.DefaultAgent != "demo" || len(sn.Rules) != 0 {
		t.Errorf("empty files changed settings: %+v", sn)
	}
}

func TestFullSample(t *testing.T) {
	e := newEnv(t)
	s := e.mustLoad(func(o *Options) { o.ConfigFile = filepath.Join("..", "testdata", "config", "full.yaml") })
	sn := s.Snapshot()
	if got := sn.AgentNames(); !slices.Equal(got, []string{"claude", "codex", "demo", "gemini", "goose", "opencode"}) {
		t.Errorf("agents %v", got)
	}
	c := sn.Config
	if c.DefaultAgent != "claude" || c.Agents["gemini"].Mode != "acceptEdits" || c.Agents["goose"].Args[0] != "acp" {
		t.Errorf("full sample misread: %+v", c)
	}
	if got := c.Agents["claude"].Env["CLAUDE_CODE_USE_BEDROCK"]; got != "0" {
		t.Errorf("env var case or value lost: %q", got)
	}
	if len(sn.Rules) != 7 || !hasRule(sn.Rules, "deny", "Edit(/secrets/**)") {
		t.Errorf("rules %q", ruleTexts(sn.Rules))
	}
	if got := ruleTexts(c.Agents["claude"].Rules); !slices.Equal(got, []string{"user agent:claude allow Bash(npm run lint)", "user agent:claude deny Bash(git push *)"}) {
		t.Errorf("claude rules %q", got)
	}
	if c.MaxLineBytes != 67108864 || c.Approvals.Timeout != 300*time.Second {
		t.Errorf("scalars %+v", c)
	}
}
