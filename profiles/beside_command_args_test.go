package profiles

import (
	"encoding/json"
	"testing"

	"github.com/acp-bridge/acp-bridge/policy"
)

// The arguments beside a command are judged (red team 15): a tool of kind
// execute whose rawInput has a command beside its arguments ({command: "cat", args: ["/ws/secret/passwd"]}, the shape
// of an MCP server's spawn tool) became a "Bash" call judged on "cat"
// alone: namedTools skips every other member, so the arguments (and any
// path-keyed member: files, input, stdin_file) were never read. Now they
// are a doubt (besideCommand) unless the command text holds them. Docs
// (policy.md, "any key"): a path-keyed member at any depth gives its
// values as paths, and program+args is an argv. A hole is an allow.
// Control: the same input with kind "other" (read as an MCP tool) is
// denied, and so is program+args.
func TestArgumentsBesideACommandNeverAllow(t *testing.T) {
	pol, errs := policy.Compile([]policy.RuleText{{List: "deny", Text: "Read(//ws/secret/**)"}, {List: "deny", Text: "Edit(//ws/secret/**)"}, {List: "allow", Text: "Bash"}, {List: "allow", Text: "mcp__*"}})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	env := policy.Env{Cwd: "/ws", ProjectRoot: "/ws", Home: "/home/u"}
	cases := []map[string]any{
		{"command": "cat", "args": []any{"/ws/secret/passwd"}},
		{"command": "cat", "arguments": []any{"/ws/secret/passwd"}},
		{"command": "cat", "params": []any{"/ws/secret/passwd"}},
		{"command": "rm", "args": []any{"-f", "secret/passwd"}},
		{"command": "cat", "files": []any{"/ws/secret/passwd"}},
		{"command": "cat", "input_file": "/ws/secret/passwd"},
		{"command": "tee", "args": []any{"/ws/secret/authorized_keys"}},
	}
	for _, fam := range []Family{FamilyGeneric, FamilyClaude, FamilyGemini} {
		for _, in := range cases {
			for _, kind := range []string{"other", "execute"} {
				raw, _ := json.Marshal(map[string]any{"toolCallId": "t1", "kind": kind, "title": "mcp__shell__run", "rawInput": in})
				call, err := Normalize(fam, raw)
				if err != nil {
					t.Fatal(err)
				}
				for _, mode := range []policy.Mode{policy.ModeDefault, policy.ModeAcceptEdits, policy.ModeDontAsk, policy.ModeBypass} {
					v := policy.Evaluate(policy.Input{Call: call, Policy: pol, Env: env, Mode: mode})
					if v.Decision == policy.Allow {
						t.Errorf("HOLE %s kind=%s %s %v: Tool=%q Cmd=%q Paths=%v Unread=%q -> %s (%s)", fam, kind, mode, in, call.Tool, call.Command, call.Paths, call.Unread, v.Decision, v.Reason)
					}
				}
			}
		}
	}
}
