package settings

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestValidationMessages loads one bad user file per case and checks every
// problem's exact text (file:line: key: message).
func TestValidationMessages(t *testing.T) {
	const modeMsg = `is not a mode (default, acceptEdits, plan, dontAsk, bypassPermissions, or aliases autonomous, ask_every_time, auto_accept_read_only, auto_accept_all)`
	cases := []struct {
		name string
		yaml string
		want []string // with F for the file path
	}{
		{"command required", "agents:\n  claude:\n    args: [x]\n",
			[]string{"F:2: agents.claude.command: required"}},
		{"empty command", "agents:\n  claude:\n    command: \"\"\n",
			[]string{"F:3: agents.claude.command: required"}},
		{"bad default mode", "permissions:\n  defaultMode: yolo\n",
			[]string{`F:2: permissions.defaultMode: "yolo" ` + modeMsg}},
		{"bad agent mode", "agents:\n  demo:\n    mode: careful\n",
			[]string{`F:3: agents.demo.mode: "careful" ` + modeMsg}},
		{"timeout zero", "approvals:\n  timeoutSeconds: 0\n",
			[]string{"F:2: approvals.timeoutSeconds: must be > 0"}},
		{"timeout negative", "approvals: {timeoutSeconds: -5}\n",
			[]string{"F:1: approvals.timeoutSeconds: must be > 0"}},
		{"timeout not a number", "approvals: {timeoutSeconds: soon}\n",
			[]string{`F:1: approvals.timeoutSeconds: must be an integer, got string "soon"`}},
		{"timeout fractional", "approvals: {timeoutSeconds: 1.5}\n",
			[]string{`F:1: approvals.timeoutSeconds: must be an integer, got number 1.5`}},
		{"timeout outcome", "approvals: {timeoutOutcome: allow}\n",
			[]string{`F:1: approvals.timeoutOutcome: "allow" is not one of reject, cancel`}},
		{"audit size", "audit: {maxSizeMB: 0}\n",
			[]string{"F:1: audit.maxSizeMB: must be > 0"}},
		{"log level", "log: {level: verbose}\n",
			[]string{`F:1: log.level: "verbose" is not one of debug, info, warn, error`}},
		{"max line bytes", "maxLineBytes: 100\n",
			[]string{"F:1: maxLineBytes: must be >= 4096"}},
		{"bool type", "startAgentsOnLaunch: \"yes\"\n",
			[]string{`F:1: startAgentsOnLaunch: must be true or false, got string "yes"`}},
		{"default agent unknown", "defaultAgent: x\n",
			[]string{`F:1: defaultAgent: "x" is not a configured agent (configured: demo)`}},
		{"default agent empty", "defaultAgent: \"\"\n",
			[]string{`F:1: defaultAgent: must not be empty`}},
		{"rules must be strings", "permissions:\n  allow:\n    - Bash(ls)\n    - 3\n    - {a: b}\n",
			[]string{"F:4: permissions.allow[1]: must be a string, got number 3", "F:5: permissions.allow[2]: must be a string, got an object"}},
		{"rules must be a list", "permissions: {deny: \"Read(.env)\"}\n",
			[]string{`F:1: permissions.deny: must be a list of strings, got string "Read(.env)"`}},
		{"empty rule", "permissions: {ask: [\"  \"]}\n",
			[]string{"F:1: permissions.ask[0]: must not be empty"}},
		{"agent rules", "agents:\n  demo:\n    permissions:\n      deny: [1]\n",
			[]string{"F:4: agents.demo.permissions.deny[0]: must be a string, got number 1"}},
		{"agent env value", "agents:\n  demo:\n    env: {A: [1]}\n",
			[]string{"F:3: agents.demo.env.A: must be a string, got a list"}},
		{"args not strings", "agents:\n  demo:\n    args: [--port, 80]\n",
			[]string{"F:3: agents.demo.args[1]: must be a string, got number 80"}},
		{"agent name", "agents:\n  \"my agent\": {command: x}\n",
			[]string{"F:2: agents.my agent: agent name must start with a letter or digit and hold only letters, digits, - and _"}},
		{"section not an object", "permissions: [a]\n",
			[]string{"F:1: permissions: must be an object, got a list"}},
		{"top level unknown key, suggestion", "defaultAgnet: demo\n",
			[]string{"F:1: defaultAgnet: unknown key (did you mean defaultAgent?)"}},
		{"agent unknown key, suggestion", "agents:\n  claude:\n    comand: npx\n",
			[]string{"F:3: agents.claude.comand: unknown key (did you mean command?)", "F:2: agents.claude.command: required"}},
		{"case-only difference", "permissions: {defaultmode: plan}\n",
			[]string{"F:1: permissions.defaultmode: unknown key (did you mean defaultMode?)"}},
		{"unknown key, no suggestion", "colour: blue\n",
			[]string{"F:1: colour: unknown key (valid keys: defaultAgent, agents, permissions, approvals, audit, log, maxLineBytes, startAgentsOnLaunch, sandbox, hooks, telemetry)"}},
		{"agent permissions take only lists", "agents:\n  demo:\n    permissions: {defaultMode: plan}\n",
			[]string{"F:3: agents.demo.permissions.defaultMode: unknown key (valid keys: allow, ask, deny)"}},
		{"every problem at once", "defaultAgent: ghost\npermissions: {defaultMode: yolo}\napprovals: {timeoutSeconds: 0, timeoutOutcome: x}\nlog: {lvl: debug}\n",
			[]string{
				`F:2: permissions.defaultMode: "yolo" ` + modeMsg,
				"F:3: approvals.timeoutSeconds: must be > 0",
				`F:3: approvals.timeoutOutcome: "x" is not one of reject, cancel`,
				"F:4: log.lvl: unknown key (did you mean level?)",
				`F:1: defaultAgent: "ghost" is not a configured agent (configured: demo)`,
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			writeFile(t, e.userFile(), tc.yaml)
			s, err := e.load()
			if err == nil {
				t.Fatalf("Load accepted %q: %+v", tc.yaml, s.Snapshot().Config)
			}
			want := make([]string, len(tc.want))
			for i, w := range tc.want {
				want[i] = strings.Replace(w, "F:", e.userFile()+":", 1)
			}
			if got := problems(t, err); !slices.Equal(got, want) {
				t.Errorf("problems:\n got %q\nwant %q", got, want)
			}
		})
	}
}

func TestUnknownKeysSample(t *testing.T) {
	e := newEnv(t)
	file := filepath.Join("..", "testdata", "config", "unknown-keys.yaml")
	abs, _ := filepath.Abs(file)
	_, err := e.load(func(o *Options) { o.ConfigFile = file })
	want := []string{
		abs + ":2: defaultAgnet: unknown key (did you mean defaultAgent?)",
		abs + ":5: agents.claude.comand: unknown key (did you mean command?)",
		abs + ":8: agents.claude.permissions.alow: unknown key (did you mean allow?)",
		abs + ":10: permissions.defaultmode: unknown key (did you mean defaultMode?)",
		abs + ":12: colour: unknown key (valid keys: defaultAgent, agents, permissions, approvals, audit, log, maxLineBytes, startAgentsOnLaunch, sandbox, hooks, telemetry)",
		abs + ":4: agents.claude.command: required",
	}
	if got := problems(t, err); !slices.Equal(got, want) {
		t.Errorf("problems:\n got %q\nwant %q", got, want)
	}
	if !strings.HasPrefix(err.Error(), "invalid settings (6 problems):\n  "+abs) {
		t.Errorf("Error() = %q", err.Error())
	}
}

func TestBrokenFiles(t *testing.T) {
	sample, _ := filepath.Abs(filepath.Join("..", "testdata", "config", "broken.yaml"))
	cases := []struct {
		name, file, content, want string
	}{
		{"broken yaml sample", sample, "", "cannot parse yaml: yaml: line 3: did not find expected ',' or ']'"},
		{"tab indent", "config.yaml", "permissions:\n\tallow: []\n", "cannot parse yaml: yaml: line 2: found character that cannot start any token"},
		{"list at top", "config.yaml", "- a\n- b\n", "cannot parse yaml: yaml: unmarshal errors:\n  line 1: cannot unmarshal !!seq into map[string]interface {}"},
		{"duplicate key", "config.yaml", "log: {level: info}\nlog: {level: debug}\n", `cannot parse yaml: yaml: unmarshal errors:` + "\n" + `  line 2: mapping key "log" already defined at line 1`},
		{"broken json", "config.json", `{"permissions": {"allow": [}}`, "cannot parse json: invalid character '}' looking for beginning of value"},
		{"broken toml", "config.toml", "[permissions\nallow = []\n", "cannot parse toml: toml: expected character ]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			path := tc.file
			if !filepath.IsAbs(path) {
				path = filepath.Join(e.userDir, tc.file)
				writeFile(t, path, tc.content)
			}
			_, err := e.load(func(o *Options) { o.ConfigFile = path })
			got := problems(t, err)
			if want := path + ": " + tc.want; len(got) != 1 || got[0] != want {
				t.Errorf("got %q\nwant %q", got, want)
			}
		})
	}
}

// TestBrokenWorkspaceFileFailsLoad: a broken file is an error, never a
// load without its deny rules.
func TestBrokenWorkspaceFileFailsLoad(t *testing.T) {
	e := newEnv(t)
	writeFile(t, e.userFile(), "permissions: {allow: [\"Bash(*)\"]}\n")
	writeFile(t, e.wsFile(), "permissions: {deny: [\"Bash(rm *)\"]\n")
	s, err := e.load()
	if err == nil {
		t.Fatalf("Load accepted a broken workspace file: %+v", s.Snapshot().Rules)
	}
	if !strings.Contains(err.Error(), e.wsFile()+": cannot parse yaml") {
		t.Errorf("error does not name the file: %v", err)
	}
}

// TestValidate checks the merged-config validator directly.
func TestValidate(t *testing.T) {
	good := Config{
		DefaultAgent: "a",
		Agents:       map[string]Agent{"a": {Name: "a", Command: "x"}},
		Permissions:  Permissions{DefaultMode: "default"},
		Approvals:    Approvals{Timeout: 1e9, TimeoutOutcome: "reject"},
		Audit:        Audit{MaxSizeBytes: 1},
		Log:          Log{Level: "info"},
		MaxLineBytes: 1 << 20,
	}
	if errs := Validate(good); len(errs) != 0 {
		t.Fatalf("good config: %v", errs)
	}
	bad := good
	bad.DefaultAgent = ""
	bad.Agents = map[string]Agent{"a": {Name: "a", Mode: "x", Rules: []Rule{{List: "maybe", Text: "Bash"}}}}
	bad.Permissions.DefaultMode = ""
	bad.Approvals = Approvals{}
	bad.Audit.MaxSizeBytes = 0
	bad.Log.Level = ""
	bad.MaxLineBytes = 0
	var got []string
	for _, err := range Validate(bad) {
		var fe *FieldError
		if !errors.As(err, &fe) {
			t.Fatalf("%v is not a *FieldError", err)
		}
		got = append(got, err.Error())
	}
	want := []string{
		"defaultAgent: required",
		"agents.a.command: required",
		`agents.a.mode: "x" is not a mode (default, acceptEdits, plan, dontAsk, bypassPermissions, or aliases autonomous, ask_every_time, auto_accept_read_only, auto_accept_all)`,
		`agents.a.permissions: rule "Bash" is in list "maybe" is not one of allow, ask, deny`,
		`permissions.defaultMode: "" is not a mode (default, acceptEdits, plan, dontAsk, bypassPermissions, or aliases autonomous, ask_every_time, auto_accept_read_only, auto_accept_all)`,
		"approvals.timeoutSeconds: must be > 0",
		`approvals.timeoutOutcome: "" is not one of reject, cancel`,
		"audit.maxSizeMB: must be > 0",
		`log.level: "" is not one of debug, info, warn, error`,
		"maxLineBytes: must be >= 4096",
	}
	if !slices.Equal(got, want) {
		t.Errorf("Validate:\n got %q\nwant %q", got, want)
	}
}

func TestSuggest(t *testing.T) {
	known := []string{"command", "args", "env", "cwd", "family", "mode", "bypassPermissions", "startOnLaunch", "permissions"}
	cases := map[string]string{
		"comand":            "command",
		"Command":           "command",
		"arg":               "args",
		"bypasspermissions": "bypassPermissions",
		"bypassPermission":  "bypassPermissions",
		"permisions":        "permissions",
		"famliy":            "family",
		"xyzzy":             "",
		"timeout":           "",
	}
	for in, want := range cases {
		if got := suggest(in, known); got != want {
			t.Errorf("suggest(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestFieldErrorsReachable: callers can pick out each problem with
// errors.As through the ValidationError.
func TestFieldErrorsReachable(t *testing.T) {
	e := newEnv(t)
	writeFile(t, e.userFile(), "approvals: {timeoutSeconds: 0}\n")
	_, err := e.load()
	var fe *FieldError
	if !errors.As(err, &fe) {
		t.Fatalf("errors.As(%v, *FieldError) failed", err)
	}
	if fe.Source != e.userFile() || fe.Line != 1 || fe.Key != "approvals.timeoutSeconds" || fe.Msg != "must be > 0" {
		t.Errorf("FieldError %+v", fe)
	}
	if got := err.Error(); got != "invalid settings: "+e.userFile()+":1: approvals.timeoutSeconds: must be > 0" {
		t.Errorf("Error() = %q", got)
	}
}

func TestEffectiveMode(t *testing.T) {
	cases := []struct {
		a      Agent
		global string
		want   string
	}{
		{Agent{}, "plan", "plan"},
		{Agent{Mode: "acceptEdits"}, "plan", "acceptEdits"},
		{Agent{Mode: "plan", BypassPermissions: true}, "default", "bypassPermissions"},
	}
	for _, tc := range cases {
		if got := tc.a.EffectiveMode(tc.global); got != tc.want {
			t.Errorf("%+v.EffectiveMode(%q) = %q, want %q", tc.a, tc.global, got, tc.want)
		}
	}
}

// "auto" is no mode alias: agents' own "auto" presets mean something else,
// and reading it as bypassPermissions would loosen a config silently.
func TestAutoIsNotAMode(t *testing.T) {
	if m, ok := NormalizeMode("auto"); ok {
		t.Fatalf("NormalizeMode(auto) = %q: want refused", m)
	}
	for _, a := range []string{"autonomous", "auto_accept_all"} {
		if m, ok := NormalizeMode(a); !ok || m != ModeBypass {
			t.Fatalf("NormalizeMode(%s) = %q %v", a, m, ok)
		}
	}
}
