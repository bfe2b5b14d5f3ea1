package profiles

import (
	"encoding/json"
	"testing"

	"github.com/acp-bridge/acp-bridge/policy"
)

// TestRT15bProgramAndArgsBesideACommandNeverEscapeADeny (red team 15b): in
// a kind-execute call, a program and its arguments beside a command are
// read as "words the command text already holds": {command: "echo rm -rf
// /ws/secret", program: "rm", args: ["-rf", "/ws/secret"]} is judged as
// the echo and allowed, though a tool that runs program+args (the shape the
// reader itself judges as an argv when it stands alone) runs rm -rf on the
// denied tree. The same input with kind other is "2 commands" (ask).
// Control: {program: rm, args: [-rf, /ws/secret]} alone is denied.
func TestProgramAndArgsBesideACommandNeverEscapeADeny(t *testing.T) {
	pol, errs := policy.Compile([]policy.RuleText{{List: "allow", Text: "Bash(echo *)"}, {List: "deny", Text: "Bash(rm *)"}})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	env := policy.Env{Cwd: "/ws", ProjectRoot: "/ws", Home: "/home/u"}
	eval := func(fam Family, kind string, mode policy.Mode, in map[string]any) policy.Verdict {
		raw, _ := json.Marshal(map[string]any{"toolCallId": "t1", "kind": kind, "title": "mcp__shell__run", "rawInput": in})
		call, err := Normalize(fam, raw)
		if err != nil {
			t.Fatal(err)
		}
		return policy.Evaluate(policy.Input{Call: call, Policy: pol, Env: env, Mode: mode})
	}
	if v := eval(FamilyGeneric, "execute", policy.ModeDefault, map[string]any{"program": "rm", "args": []any{"-rf", "/ws/secret"}}); v.Decision != policy.Deny {
		t.Fatalf("control: program+args alone %s", v.Decision)
	}
	for _, fam := range []Family{FamilyGeneric, FamilyClaude, FamilyGemini} {
		for _, mode := range []policy.Mode{policy.ModeDefault, policy.ModeAcceptEdits, policy.ModeBypass} {
			for _, in := range []map[string]any{
				{"command": "echo rm -rf /ws/secret", "program": "rm", "args": []any{"-rf", "/ws/secret"}},
				{"command": []any{"echo", "rm", "-rf", "/ws/secret"}, "program": "rm", "args": []any{"-rf", "/ws/secret"}},
				{"command": "echo rm -rf /ws/secret", "executable": "rm", "arguments": []any{"-rf", "/ws/secret"}},
			} {
				if v := eval(fam, "execute", mode, in); v.Decision == policy.Allow {
					t.Errorf("%s %s %v: allowed (%s): a tool running program+args runs rm -rf /ws/secret, denied alone", fam, mode, in, v.Reason)
				}
			}
		}
	}
}
