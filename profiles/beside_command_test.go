package profiles

import (
	"encoding/json"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/acp-bridge/acp-bridge/policy"
)

// besideCommandPolicy denies the secret tree and allows every command and
// MCP tool: a call that names the secret tree only where the reader does
// not look is allowed, so each doubt below is what keeps it from that.
func besideCommandPolicy(t *testing.T) *policy.Policy {
	t.Helper()
	pol, errs := policy.Compile([]policy.RuleText{
		{List: "deny", Text: "Read(//ws/secret/**)"}, {List: "deny", Text: "Edit(//ws/secret/**)"},
		{List: "allow", Text: "Bash"}, {List: "allow", Text: "mcp__*"},
	})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	return pol
}

var besideCommandEnv = policy.Env{Cwd: "/ws", ProjectRoot: "/ws", Home: "/home/u"}

// randomKeys are member names no reader knows: made up at random (seeded),
// so no list of names can be what catches them.
func randomKeys(n int) []string {
	r := rand.New(rand.NewPCG(15, 15))
	const letters = "abcdefghijklmnopqrstuvwxyz_"
	var out []string
	for len(out) < n {
		b := make([]byte, 2+r.IntN(10))
		for i := range b {
			b[i] = letters[r.IntN(len(letters))]
		}
		k := string(b)
		nk := keyNorm(k)
		if noPlaceKeys[nk] || wrapperKeys[nk] || wordMember(nk, true) || nk == "" {
			continue // a member the reader knows
		}
		out = append(out, k)
	}
	return out
}

// Beside a command, a member under any key whose string could name the
// directory the tool runs in (absolute, ~, ./, ../, a relative name, a
// bare name, "..", a name with a blank) is a doubt, at any depth, in
// arrays and in JSON text, for every command member and family, and never
// allows in any mode. The keys are Zed's cd, the red team's, and random
// ones.
func TestPlaceBesideACommandIsADoubtWhateverItsKey(t *testing.T) {
	pol := besideCommandPolicy(t)
	keys := append([]string{"cd", "wd", "in", "at", "dir_path", "project_root", "workspace", "Cwd\u200b", "c.w.d", "x y"}, randomKeys(12)...)
	values := []string{"/ws/secret", "~/../../ws/secret", "./secret", "../ws/secret", "secret", "secret/", "..", "my secret"}
	placements := map[string]func(k, v string) any{
		"top":    func(k, v string) any { return map[string]any{k: v} },
		"nested": func(k, v string) any { return map[string]any{"options": map[string]any{k: v}} },
		"list":   func(k, v string) any { return map[string]any{k: []any{v}} },
		"deep":   func(k, v string) any { return map[string]any{"a": []any{map[string]any{"b": map[string]any{k: v}}}} },
		"under a description": func(k, v string) any {
			return map[string]any{"description": map[string]any{k: v}, "title": []any{v}}
		},
		"json text": func(k, v string) any { return map[string]any{"opts": string(mustJSON(map[string]any{k: v}))} },
	}
	commands := []struct {
		kind string
		in   map[string]any
	}{
		{"execute", map[string]any{"command": "cat passwd"}},
		{"execute", map[string]any{"cmd": "cat passwd"}},
		{"execute", map[string]any{"command": []any{"cat", "passwd"}}},
		{"other", map[string]any{"script": "cat passwd"}},
	}
	modes := []policy.Mode{policy.ModeDefault, policy.ModeAcceptEdits, policy.ModePlan, policy.ModeDontAsk, policy.ModeBypass}
	n := 0
	for _, fam := range []Family{FamilyGeneric, FamilyClaude, FamilyGemini} {
		for _, k := range keys {
			for _, val := range values {
				for pname, place := range placements {
					for _, c := range commands {
						in := map[string]any{}
						for ck, cv := range c.in {
							in[ck] = cv
						}
						for pk, pv := range place(k, val).(map[string]any) {
							in[pk] = pv
						}
						raw, _ := json.Marshal(map[string]any{"toolCallId": "t1", "kind": c.kind, "title": "mcp__shell__run", "rawInput": in})
						call, err := Normalize(fam, raw)
						if err != nil {
							t.Fatal(err)
						}
						if call.Unread == "" {
							t.Errorf("%s %s %s %q=%q %v: no doubt (Cwd %q, Cmd %q)", fam, c.kind, pname, k, val, in, call.Cwd, call.Command)
							continue
						}
						for _, mode := range modes {
							n++
							if v := policy.Evaluate(policy.Input{Call: call, Policy: pol, Env: besideCommandEnv, Mode: mode}); v.Decision == policy.Allow {
								t.Errorf("%s %s %s %v: allowed (%s)", fam, mode, pname, in, v.Reason)
							}
						}
					}
				}
			}
		}
	}
	t.Logf("%d verdicts", n)
}

// The arguments beside a command are a doubt unless the command text
// already holds them (a tool that runs command+args runs them; the policy
// judged the command text). Every argument key, string, list, number (as an
// argument), for
// every family and mode. Controls: arguments the command holds, and a
// program beside its arguments (an argv the reader judges) read without a
// doubt; the argv's denied path is still denied.
func TestArgumentsBesideACommandAreADoubtUnlessTheCommandHoldsThem(t *testing.T) {
	pol := besideCommandPolicy(t)
	argVals := []any{[]any{"/ws/secret/passwd"}, []any{"-f", "secret/passwd"}, []any{5}, "secret/passwd", []any{"passwd", true}, []any{map[string]any{"path": "secret"}}}
	modes := []policy.Mode{policy.ModeDefault, policy.ModeAcceptEdits, policy.ModeDontAsk, policy.ModeBypass}
	for _, fam := range []Family{FamilyGeneric, FamilyClaude, FamilyGemini, FamilyCodex, FamilyGoose} {
		for _, ak := range append(append([]string(nil), argsKeys...), "Args", "ARGUMENTS", "files", "input_file", "stdin_path") {
			for _, av := range argVals {
				if l, ok := av.([]any); ok && len(l) == 1 && l[0] == 5 && !slices.Contains(argsKeys, keyNorm(ak)) {
					continue // a number is an argument, not a place
				}
				for _, kind := range []string{"execute", "other"} {
					in := map[string]any{"command": "cat", ak: av}
					raw, _ := json.Marshal(map[string]any{"toolCallId": "t1", "kind": kind, "title": "mcp__shell__run", "rawInput": in})
					call, err := Normalize(fam, raw)
					if err != nil {
						t.Fatal(err)
					}
					if call.Unread == "" {
						t.Errorf("%s %s %v: no doubt (Tool %q Cmd %q)", fam, kind, in, call.Tool, call.Command)
					}
					for _, mode := range modes {
						if v := policy.Evaluate(policy.Input{Call: call, Policy: pol, Env: besideCommandEnv, Mode: mode}); v.Decision == policy.Allow {
							t.Errorf("%s %s %s %v: allowed (%s)", fam, kind, mode, in, v.Reason)
						}
					}
				}
			}
		}
	}
	// an argument naming the directory read is still an argument: rm -rf
	// with no operand, run in /ws/secret on /ws/secret.
	for _, in := range []map[string]any{
		{"command": "rm -rf", "cwd": "/ws/secret", "args": []any{"/ws/secret"}},
		{"command": "rm -rf", "cwd": "/ws/secret", "argv": []any{"rm", "-rf", "/ws/secret"}},
		{"command": "rm -rf", "cwd": "/ws/secret", "steps": []any{"/ws/secret"}},
	} {
		raw, _ := json.Marshal(map[string]any{"toolCallId": "t1", "kind": "execute", "title": "mcp__shell__run", "rawInput": in})
		call, err := Normalize(FamilyGeneric, raw)
		if err != nil {
			t.Fatal(err)
		}
		if call.Unread == "" {
			t.Errorf("%v: no doubt (Cmd %q Cwd %q)", in, call.Command, call.Cwd)
		}
		for _, mode := range modes {
			if v := policy.Evaluate(policy.Input{Call: call, Policy: pol, Env: besideCommandEnv, Mode: mode}); v.Decision == policy.Allow {
				t.Errorf("%s %v: allowed (%s)", mode, in, v.Reason)
			}
		}
	}
	// controls
	for _, c := range []struct {
		fam  Family
		kind string
		in   map[string]any
		want policy.Decision
	}{
		{FamilyGeneric, "execute", map[string]any{"command": "ls -la src/app", "args": []any{"-la", "src/app"}}, policy.Allow},
		{FamilyGeneric, "execute", map[string]any{"command": "head -n 5 README.md", "args": []any{"-n", 5, "README.md"}}, policy.Allow},
		{FamilyCodex, "other", map[string]any{"server": "shell", "tool": "spawn", "arguments": map[string]any{"program": "cat", "args": []any{"README.md"}}}, policy.Allow},
		{FamilyCodex, "other", map[string]any{"server": "shell", "tool": "spawn", "arguments": map[string]any{"program": "cat", "args": []any{"/ws/secret/passwd"}}}, policy.Deny},
		{FamilyGeneric, "execute", map[string]any{"command": "cat /ws/secret/passwd", "args": []any{"/ws/secret/passwd"}}, policy.Deny},
	} {
		raw, _ := json.Marshal(map[string]any{"toolCallId": "t1", "kind": c.kind, "title": "mcp__shell__run", "rawInput": c.in})
		call, err := Normalize(c.fam, raw)
		if err != nil {
			t.Fatal(err)
		}
		if call.Unread != "" {
			t.Errorf("control %v: a doubt: %q", c.in, call.Unread)
		}
		if v := policy.Evaluate(policy.Input{Call: call, Policy: pol, Env: besideCommandEnv, Mode: policy.ModeDefault}); v.Decision != c.want {
			t.Errorf("control %s %v: Tool %q Cmd %q: %s (%s), want %s", c.fam, c.in, call.Tool, call.Command, v.Decision, v.Reason, c.want)
		}
	}
}

// A call an adapter reads as a path tool runs no command only when its
// command member is that tool's sub-command (Goose's text_editor: view,
// write): a command line beside the path a generic read names is a doubt
// and never allows; Goose's text_editor reads without one.
func TestCommandBesideAPathToolIsADoubtUnlessASubcommand(t *testing.T) {
	pol := besideCommandPolicy(t)
	for _, c := range []struct {
		fam   Family
		call  string
		doubt bool
	}{
		{FamilyGeneric, `{"toolCallId":"t1","kind":"read","title":"mcp__fs__read","rawInput":{"command":"cat passwd","path":"/ws/ok.txt","cwd":"/ws/secret"}}`, true},
		{FamilyGeneric, `{"toolCallId":"t1","kind":"edit","title":"mcp__fs__edit","rawInput":{"command":"rm -rf secret","path":"/ws/ok.txt"}}`, true},
		{FamilyGeneric, `{"toolCallId":"t1","kind":"read","title":"mcp__fs__read","rawInput":{"command":"view","path":"/ws/ok.txt"}}`, false},
		{FamilyGoose, `{"toolCallId":"t1","kind":"other","title":"developer__text_editor","rawInput":{"path":"/ws/ok.txt","command":"view"}}`, false},
		{FamilyGoose, `{"toolCallId":"t1","kind":"other","title":"developer__text_editor","rawInput":{"path":"/ws/ok.txt","command":"write","file_text":"hi"}}`, false},
	} {
		call, err := Normalize(c.fam, json.RawMessage(c.call))
		if err != nil {
			t.Fatal(err)
		}
		if (call.Unread != "") != c.doubt {
			t.Errorf("%s %s: Tool %q Unread %q, want doubt %v", c.fam, c.call, call.Tool, call.Unread, c.doubt)
		}
		if c.doubt {
			for _, mode := range []policy.Mode{policy.ModeDefault, policy.ModeAcceptEdits, policy.ModeDontAsk, policy.ModeBypass} {
				if v := policy.Evaluate(policy.Input{Call: call, Policy: pol, Env: besideCommandEnv, Mode: mode}); v.Decision == policy.Allow {
					t.Errorf("%s %s: allowed (%s)", mode, c.call, v.Reason)
				}
			}
		}
	}
}

// A member the reader knows reads without a doubt beside a command: text
// for the user (even naming a path), ids, time limits, booleans, numbers,
// the directory read repeated (nested too). Each is allowed (nothing the
// tool runs names the denied tree). An environment's PATH is not one of
// them (red team 15b: env {PATH: /ws/evil} made the tool run the agent's
// git): TestRT15bEnvPATHBesideACommandIsADoubt.
func TestKnownMembersBesideACommandReadWithoutADoubt(t *testing.T) {
	pol := besideCommandPolicy(t)
	for _, in := range []map[string]any{
		{"command": "cat passwd", "description": "read /ws/secret/passwd", "title": "cat ./secret"},
		{"command": "cat passwd", "reason": "needs ~/.cache", "justification": "see src/app"},
		{"command": "cat passwd", "timeout": 5, "timeout_ms": "30000", "run_in_background": false, "is_background": true},
		{"command": "cat passwd", "call_id": "call/1", "turn_id": "2", "id": "a/b"},
		{"command": "cat passwd", "cwd": "/ws", "folder": "/ws", "options": map[string]any{"cwd": "/ws", "dir": []any{"/ws"}}},
		{"command": "cat passwd", "count": 3, "flag": true, "nothing": nil, "empty": ""},
	} {
		for _, fam := range []Family{FamilyGeneric, FamilyClaude, FamilyGemini} {
			raw, _ := json.Marshal(map[string]any{"toolCallId": "t1", "kind": "execute", "title": "mcp__shell__run", "rawInput": in})
			call, err := Normalize(fam, raw)
			if err != nil {
				t.Fatal(err)
			}
			if call.Unread != "" {
				t.Errorf("%s %v: a doubt: %q", fam, in, call.Unread)
			}
			if v := policy.Evaluate(policy.Input{Call: call, Policy: pol, Env: besideCommandEnv, Mode: policy.ModeDefault}); v.Decision != policy.Allow {
				t.Errorf("%s %v: %s (%s), want allow", fam, in, v.Decision, v.Reason)
			}
		}
	}
}

// The real agents' shapes read without a doubt: a false doubt on every
// call would make every command ask. Every recorded payload the adapters
// understand (testdata/normalize), and the shell tools' full input shapes
// (Claude Bash with every optional member, Codex's exec approval event with
// parsed_cmd, reason and an execpolicy amendment, Gemini/Qwen
// run_shell_command, OpenCode bash, Goose developer__shell), are read
// without a doubt and allowed under "allow Bash" in the default mode.
func TestRealAgentShellShapesReadWithoutADoubt(t *testing.T) {
	for fam, cases := range loadNormalizeCases(t) {
		for _, tc := range cases {
			if tc.Want.Tool == "" {
				continue
			}
			cache := NewToolCallCache(16)
			for _, u := range tc.Updates {
				cache.Upsert(u)
			}
			got, err := Normalize(fam, cache.Merge(tc.ToolCall))
			if err != nil {
				t.Fatal(err)
			}
			if got.Unread != "" {
				t.Errorf("%s/%s: a doubt: %q", fam, tc.Name, got.Unread)
			}
		}
	}
	pol, errs := policy.Compile([]policy.RuleText{{List: "allow", Text: "Bash"}, {List: "deny", Text: "Read(//home/u/proj/secret/**)"}})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	env := policy.Env{Cwd: "/home/u/proj", ProjectRoot: "/home/u/proj", Home: "/home/u"}
	for _, c := range []struct {
		fam  Family
		call string
		cmd  string
	}{
		{FamilyClaude, `{"toolCallId":"toolu_1","title":"npm test","kind":"execute","rawInput":{"command":"npm test","description":"Run the tests in src/app","timeout":120000,"run_in_background":false,"dangerouslyDisableSandbox":false}}`, "npm test"},
		{FamilyCodex, `{"toolCallId":"call_1","title":"cat src/a.go","kind":"read","rawInput":{"call_id":"call_1","approval_id":null,"turn_id":"7","command":["bash","-lc","cat src/a.go"],"cwd":"/home/u/proj","reason":"read src/a.go to see ~/x","network_approval_context":null,"proposed_execpolicy_amendment":["bash","-lc","cat src/a.go"],"proposed_network_policy_amendments":null,"additional_permissions":null,"available_decisions":["approved","approved_for_session","abort"],"parsed_cmd":[{"type":"read","cmd":"cat src/a.go","name":"a.go","path":"src/a.go"}]}}`, "bash -lc 'cat src/a.go'"},
		{FamilyCodex, `{"toolCallId":"call_2","title":"rg foo src","kind":"search","rawInput":{"call_id":"call_2","turn_id":"8","command":["rg","-n","foo","src"],"cwd":"/home/u/proj","parsed_cmd":[{"type":"search","cmd":"rg -n foo src","query":"foo","path":"src"}]}}`, "rg -n foo src"},
		{FamilyGemini, `{"toolCallId":"run_shell_command-1","title":"npm test","kind":"execute","rawInput":{"command":"npm test","is_background":false,"description":"Run the tests in ./src"}}`, "npm test"},
		{FamilyGoose, `{"toolCallId":"toolu_g1","title":"developer__shell","kind":"other","rawInput":{"command":"cargo test"}}`, "cargo test"},
	} {
		got, err := Normalize(c.fam, json.RawMessage(c.call))
		if err != nil {
			t.Fatal(err)
		}
		if got.Tool != "Bash" || got.Command != c.cmd || got.Unread != "" {
			t.Errorf("%s %s: Tool %q Cmd %q Unread %q, want Bash %q without a doubt", c.fam, c.call, got.Tool, got.Command, got.Unread, c.cmd)
			continue
		}
		if v := policy.Evaluate(policy.Input{Call: got, Policy: pol, Env: env, Mode: policy.ModeDefault}); v.Decision != policy.Allow {
			t.Errorf("%s %s: %s (%s), want allow", c.fam, c.cmd, v.Decision, v.Reason)
		}
	}
	// OpenCode: the request's rawInput is {}, the command came in an
	// update (the cache merges it).
	cache := NewToolCallCache(16)
	cache.Upsert(json.RawMessage(`{"sessionUpdate":"tool_call_update","toolCallId":"call_oc","title":"bash","kind":"execute","rawInput":{"command":"git status","description":"Show the state of src/"}}`))
	got, err := Normalize(FamilyOpenCode, cache.Merge(json.RawMessage(`{"toolCallId":"call_oc","title":"bash","kind":"execute","rawInput":{}}`)))
	if err != nil {
		t.Fatal(err)
	}
	if got.Tool != "Bash" || got.Command != "git status" || got.Unread != "" {
		t.Errorf("opencode: Tool %q Cmd %q Unread %q", got.Tool, got.Command, got.Unread)
	}
}
