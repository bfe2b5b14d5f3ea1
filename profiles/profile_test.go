package profiles

import (
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/acp-bridge/acp-bridge/policy"
)

func TestDetectProfile(t *testing.T) {
	for _, tc := range []struct {
		name, family, command string
		args                  []string
		want                  string
		fromLaunch            bool
	}{
		{"claude", "", "npx", []string{"-y", "@agentclientprotocol/claude-agent-acp"}, "claude", true},
		{"c", "", "npx", []string{"@zed-industries/claude-code-acp@latest"}, "claude", true},
		{"g", "", "gemini", []string{"--acp"}, "gemini", true},
		{"g", "", "npx", []string{"@google/gemini-cli", "--experimental-acp"}, "gemini", true},
		{"q", "", "qwen", []string{"--acp"}, "qwen", true},
		{"q", "gemini", "qwen", []string{"--acp"}, "qwen", true}, // configured family gemini: qwen is of it
		{"x", "", "codex-acp", nil, "codex", true},
		{"x", "", "opencode", []string{"acp"}, "opencode", true},
		{"x", "", "goose", []string{"acp"}, "goose", true},
		{"x", "", "kimi", []string{"acp"}, "kimi", true},
		{"x", "", "/home/claude/bin/node", []string{"/opt/node_modules/@google/gemini-cli/dist/index.js"}, "gemini", true}, // the script's path first
		{"x", "", "/opt/qwen/bin/node", []string{"dist/index.js"}, "qwen", true},
		// named only: the profile, but none of its flags.
		{"gemini", "", "my-wrapper", nil, "gemini", false},
		{"qwen", "", "wrapper", nil, "qwen", false},
		// configured family wins over the name; an unknown one is generic.
		{"claude", "codex", "wrapper", nil, "codex", false},
		{"x", "martian", "wrapper", nil, "generic", false},
		{"demo", "", "acp-bridge", []string{"demo-agent"}, "generic", false},
	} {
		p, from := DetectProfile(tc.name, tc.family, tc.command, tc.args)
		if p.Name != tc.want || from != tc.fromLaunch {
			t.Errorf("DetectProfile(%q, %q, %q, %q) = %s, %v; want %s, %v", tc.name, tc.family, tc.command, tc.args, p.Name, from, tc.want, tc.fromLaunch)
		}
	}
}

// Every profile is consistent: an id is asking, forwardable or bypass-like,
// never two of asking and bypass; forwardable ids ask at least as much.
func TestProfilesAreConsistent(t *testing.T) {
	names := map[string]bool{}
	for _, p := range Profiles() {
		if names[p.Name] {
			t.Errorf("profile %s twice", p.Name)
		}
		names[p.Name] = true
		for _, m := range p.BypassModes {
			if p.Forwardable(m) {
				t.Errorf("%s: mode %q is both bypass-like and forwardable", p.Name, m)
			}
		}
		for _, f := range p.LaunchFlags {
			if !slices.ContainsFunc(p.DropFlags, func(d LaunchFlag) bool { return d.Name == f.Name }) && f.TakesValue {
				// a value flag the config also gives is replaced, not doubled
				t.Errorf("%s: launch flag %s is not in DropFlags", p.Name, f.Name)
			}
		}
		if p.Family == "" {
			t.Errorf("%s: no family", p.Name)
		}
	}
	for _, want := range []string{"claude", "gemini", "qwen", "codex", "opencode", "goose", "kimi", "generic"} {
		if !names[want] {
			t.Errorf("no profile %s", want)
		}
	}
}

// The mode ids found in the real agents' sources.
func TestProfileModes(t *testing.T) {
	for _, tc := range []struct {
		profile         string
		offered         []string
		pick            string
		asking, refused []string
	}{
		{"claude", []string{"auto", "default", "acceptEdits", "plan", "bypassPermissions"}, "default",
			[]string{"default"}, []string{"auto", "acceptEdits", "bypassPermissions", "dontAsk"}},
		{"gemini", []string{"default", "autoEdit", "yolo", "plan"}, "default", []string{"default"}, []string{"autoEdit", "yolo"}},
		{"qwen", []string{"plan", "default", "auto-edit", "auto", "yolo"}, "default", []string{"default"}, []string{"auto-edit", "auto", "yolo"}},
		// codex's auto applies patches unasked (measured): kept from it.
		{"codex", []string{"read-only", "auto", "full-access"}, "read-only", []string{"read-only"}, []string{"auto", "full-access"}},
		{"goose", []string{"auto", "approve", "smart_approve", "chat"}, "approve", []string{"approve"}, []string{"auto", "smart_approve"}},
		{"generic", []string{"code", "ask"}, "ask", []string{"default", "ask"}, []string{"code", "yolo", "bypassPermissions", "auto"}},
		{"generic", []string{"code", "architect"}, "", nil, []string{"code", "architect"}},
	} {
		p := ProfileByName(tc.profile)
		if got := p.PickAsking(tc.offered); got != tc.pick {
			t.Errorf("%s.PickAsking(%q) = %q, want %q", tc.profile, tc.offered, got, tc.pick)
		}
		for _, m := range tc.asking {
			if !p.IsAsking(m) {
				t.Errorf("%s: %q should ask", tc.profile, m)
			}
		}
		for _, m := range tc.refused {
			if p.Forwardable(m) {
				t.Errorf("%s: %q must never be forwarded", tc.profile, m)
			}
		}
	}
	// RejectAborts as measured (docs/agents.md, "Denials the agent's model learns").
	for name, want := range map[string]bool{"codex": true, "qwen": true, "opencode": true, "claude": false, "gemini": false} {
		if got := ProfileByName(name).RejectAborts; got != want {
			t.Errorf("%s: RejectAborts = %v, want %v (measured)", name, got, want)
		}
	}
	if !ProfileByName("claude").Forwardable("plan") || !ProfileByName("codex").RejectAborts || ProfileByName("claude").RejectAborts {
		t.Error("claude plan forwardable, codex reject aborts")
	}
}

func TestLaunch(t *testing.T) {
	gemini, qwen, opencode, goose, codex := ProfileByName("gemini"), ProfileByName("qwen"), ProfileByName("opencode"), ProfileByName("goose"), ProfileByName("codex")
	const untrusted = `approval_policy="untrusted"`
	for _, tc := range []struct {
		p       *Profile
		command string
		args    []string
		env     map[string]string
		flags   bool
		want    []string
		wantEnv map[string]string
		changes string
	}{
		{gemini, "gemini", []string{"--acp"}, nil, true, []string{"--acp", "--approval-mode", "default"}, map[string]string{}, "argument --approval-mode default"},
		{gemini, "gemini", []string{"--experimental-acp", "--yolo", "-m", "x"}, nil, true, []string{"--experimental-acp", "-m", "x", "--approval-mode", "default"}, map[string]string{},
			"removed argument --yolo|argument --approval-mode default"},
		{gemini, "gemini", []string{"--approval-mode", "yolo", "--acp"}, nil, true, []string{"--acp", "--approval-mode", "default"}, map[string]string{},
			"removed argument --approval-mode yolo|argument --approval-mode default"},
		{qwen, "qwen", []string{"--acp", "--approval-mode=auto-edit", "-y"}, nil, true, []string{"--acp", "--approval-mode", "default"}, map[string]string{},
			"removed argument --approval-mode=auto-edit|removed argument -y|argument --approval-mode default"},
		{qwen, "qwen", []string{"--acp", "--approval-mode", "default"}, nil, true, []string{"--acp", "--approval-mode", "default"}, map[string]string{},
			"argument --approval-mode default"},
		// recognised by name only: no flags touched.
		{gemini, "gemini", []string{"--yolo"}, nil, false, []string{"--yolo"}, map[string]string{}, ""},
		{opencode, "opencode", []string{"acp"}, map[string]string{"OPENCODE_PERMISSION": `{"bash":"allow"}`, "X": "1"}, false, []string{"acp"},
			map[string]string{"OPENCODE_PERMISSION": openCodeAsk, "X": "1"}, `environment OPENCODE_PERMISSION overridden (was {"bash":"allow"})`},
		{goose, "goose", []string{"acp"}, nil, true, []string{"acp"}, map[string]string{"GOOSE_MODE": "approve"}, "environment GOOSE_MODE=approve"},
		// a runner's own flags stay: npx's -y is not gemini's.
		{gemini, "npx", []string{"-y", "@google/gemini-cli", "--acp", "-y"}, nil, true, []string{"-y", "@google/gemini-cli", "--acp", "--approval-mode", "default"}, map[string]string{},
			"removed argument -y|argument --approval-mode default"},
		{qwen, "node", []string{"--yolo", "/opt/qwen-code/cli.js", "--approval-mode", "yolo"}, nil, true, []string{"--yolo", "/opt/qwen-code/cli.js", "--approval-mode", "default"}, map[string]string{},
			"removed argument --approval-mode yolo|argument --approval-mode default"},
		// codex: its approval policy is set, a configured one (any form of
		// -c/--config approval_policy) removed; other settings stay.
		{codex, "codex-acp", nil, nil, true, []string{"-c", untrusted}, map[string]string{}, "argument -c " + untrusted},
		{codex, "codex-acp", []string{"-c", `model="m"`, "-c", `approval_policy="never"`, "--config", "approval_policy = never", "--config=approval_policy=on-request", "-capproval_policy=never", "-c", untrusted},
			nil, true, []string{"-c", `model="m"`, "-c", untrusted}, map[string]string{},
			`removed argument -c approval_policy="never"|removed argument --config approval_policy = never|removed argument --config=approval_policy=on-request|removed argument -capproval_policy=never|argument -c ` + untrusted},
		{codex, "npx", []string{"-y", "@zed-industries/codex-acp", "-c", "approval_policy=never"}, nil, true,
			[]string{"-y", "@zed-industries/codex-acp", "-c", untrusted}, map[string]string{}, "removed argument -c approval_policy=never|argument -c " + untrusted},
		// recognised by its family only (a wrapper): nothing touched.
		{codex, "my-wrapper", []string{"-c", "approval_policy=never"}, nil, false, []string{"-c", "approval_policy=never"}, map[string]string{}, ""},
	} {
		args, env, changes := tc.p.Launch(tc.command, tc.args, tc.env, tc.flags)
		if !slices.Equal(args, tc.want) {
			t.Errorf("%s.Launch(%q) args = %q, want %q", tc.p.Name, tc.args, args, tc.want)
		}
		if len(env) != len(tc.wantEnv) {
			t.Errorf("%s.Launch env = %v, want %v", tc.p.Name, env, tc.wantEnv)
		}
		for k, v := range tc.wantEnv {
			if env[k] != v {
				t.Errorf("%s.Launch env %s = %q, want %q", tc.p.Name, k, env[k], v)
			}
		}
		if got := strings.Join(changes, "|"); got != tc.changes {
			t.Errorf("%s.Launch(%q) changes = %q, want %q", tc.p.Name, tc.args, got, tc.changes)
		}
	}
	// The inputs are not modified.
	in := []string{"--yolo", "--acp"}
	env := map[string]string{"GOOSE_MODE": "auto"}
	gemini.Launch("gemini", in, env, true)
	goose.Launch("goose", nil, env, true)
	if in[0] != "--yolo" || env["GOOSE_MODE"] != "auto" {
		t.Error("Launch modified its inputs")
	}
	if !goose.AsksAtLaunch(false) || gemini.AsksAtLaunch(false) || !gemini.AsksAtLaunch(true) || ProfileByName("claude").AsksAtLaunch(true) {
		t.Error("AsksAtLaunch")
	}
}

func TestConfine(t *testing.T) {
	codex, gemini := ProfileByName("codex"), ProfileByName("gemini")
	const off = `sandbox_mode="danger-full-access"`
	for _, tc := range []struct {
		p       *Profile
		command string
		args    []string
		flags   bool
		want    []string
		changes string
	}{
		{codex, "codex-acp", []string{"-c", "x=1"}, true, []string{"-c", "x=1", "-c", off}, "argument -c " + off},
		{codex, "codex-acp", []string{"-c", `sandbox_mode="workspace-write"`, "-c", "x=1"}, true, []string{"-c", "x=1", "-c", off},
			`removed argument -c sandbox_mode="workspace-write"|argument -c ` + off},
		// a wrapper: no flags, the agent keeps its own sandbox.
		{codex, "wrapper", []string{"-c", "x=1"}, false, []string{"-c", "x=1"}, ""},
		// no confined flags: nothing changes.
		{gemini, "gemini", []string{"--acp"}, true, []string{"--acp"}, ""},
	} {
		args, changes := tc.p.Confine(tc.command, tc.args, tc.flags)
		if !slices.Equal(args, tc.want) {
			t.Errorf("%s.Confine(%q) = %q, want %q", tc.p.Name, tc.args, args, tc.want)
		}
		if got := strings.Join(changes, "|"); got != tc.changes {
			t.Errorf("%s.Confine(%q) changes = %q, want %q", tc.p.Name, tc.args, got, tc.changes)
		}
	}
}

// Every config place is a clean path relative to the home, and the places
// the red team wrote (Codex's rules and .env, OpenCode's agents and
// plugins) are among them, as places that run code.
func TestConfigPlaces(t *testing.T) {
	all := map[string]bool{}
	for _, pl := range AllConfigPlaces() {
		if pl.Base != policy.InHome || !pl.RunsCode || pl.Path == "" || pl.Path != path.Clean(pl.Path) ||
			strings.HasPrefix(pl.Path, "/") || strings.HasPrefix(pl.Path, "..") {
			t.Errorf("config place %+v: want a clean home-relative path that runs code", pl)
		}
		all[pl.Path] = pl.Dir
	}
	for _, tc := range []struct {
		path string
		dir  bool
	}{
		{".codex/rules", true}, {".codex/.env", false}, {".codex/AGENTS.md", false}, {".codex/skills", true},
		{".codex/prompts", true}, {".config/opencode/agent", true}, {".config/opencode/agents", true},
		{".config/opencode/plugin", true}, {".config/opencode/plugins", true}, {".config/opencode/tool", true},
		{".config/opencode/command", true}, {".config/opencode/mode", true},
	} {
		if dir, ok := all[tc.path]; !ok || dir != tc.dir {
			t.Errorf("%s: declared %v (dir %v), want dir %v", tc.path, ok, dir, tc.dir)
		}
	}
}

// A private home's read-only copies are among its copies, and its config
// places (HomePlaces) are the profile's config places that are top-level
// entries of its directory: a place there that were linked instead would
// let the agent replace the link (docs/sandbox.md, "Private state homes").
func TestHomePlaces(t *testing.T) {
	for _, p := range Profiles() {
		ph := p.PrivateHome
		if ph == nil {
			if hp := p.HomePlaces(); hp != nil {
				t.Errorf("%s: home places %v without a private home", p.Name, hp)
			}
			continue
		}
		for _, r := range ph.ReadOnly {
			if !slices.Contains(ph.Copies, r) {
				t.Errorf("%s: read-only %q is not one of the copies %v", p.Name, r, ph.Copies)
			}
		}
		var want []string
		for _, c := range p.ConfigPlaces {
			if rest, ok := strings.CutPrefix(c.Path, ph.Dir+"/"); ok && !strings.Contains(rest, "/") {
				want = append(want, rest)
			}
		}
		var got []string
		for _, c := range p.HomePlaces() {
			got = append(got, c.Path)
			if slices.Contains(ph.Copies, c.Path) || slices.Contains(ph.Made, c.Path) {
				t.Errorf("%s: %q is both a config place and a copy or made directory", p.Name, c.Path)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: home places %v, want %v", p.Name, got, want)
		}
	}
	codex := ProfileByName("codex")
	var names []string
	for _, c := range codex.HomePlaces() {
		names = append(names, c.Path)
	}
	if !slices.Equal(names, []string{"rules", ".env", "AGENTS.md", "AGENTS.override.md", "skills", "prompts", "hooks.json", "hooks"}) {
		t.Errorf("codex home places %v", names)
	}
	if !slices.Equal(codex.PrivateHome.ReadOnly, []string{"config.toml"}) {
		t.Errorf("codex's config.toml is not read-only in its private home: %v", codex.PrivateHome.ReadOnly)
	}
}
