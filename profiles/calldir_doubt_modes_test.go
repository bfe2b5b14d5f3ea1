package profiles

import (
	"encoding/json"
	"testing"

	"github.com/acp-bridge/acp-bridge/policy"
)

// Red team 15 (held): a call-directory doubt (Call.Unread) must never become an
// allow: every mode, AgentBypass, a session grant of the tool and of the
// exact command, an allow rule naming the tool or the command. A hole is
// an allow. (dontAsk may deny.)
func TestCallDirectoryDoubtNeverAllows(t *testing.T) {
	env := policy.Env{Cwd: "/ws", ProjectRoot: "/ws", Home: "/home/u"}
	inputs := []map[string]any{
		{"command": "cat passwd", "directory": "/ws/secret"},
		{"command": "cat passwd", "options": []any{map[string]any{"work_dir": "/ws/secret"}}},
		{"command": "cat passwd", "opts": "{\"cwd\":\"/ws/secret\"}"},
	}
	allows := [][]string{{"Bash"}, {"Bash(cat:*)"}, {"Bash(cat passwd)"}, {"mcp__*"}, {"mcp__shell__run"}, {"Bash", "mcp__*", "Read"}}
	for _, fam := range []Family{FamilyGeneric, FamilyClaude, FamilyGemini} {
		for _, kind := range []string{"execute", "other"} {
			for _, in := range inputs {
				raw, _ := json.Marshal(map[string]any{"toolCallId": "t1", "kind": kind, "title": "mcp__shell__run", "rawInput": in})
				call, err := Normalize(fam, raw)
				if err != nil {
					t.Fatal(err)
				}
				if call.Unread == "" {
					t.Errorf("%s %s %v: no doubt (Cwd %q)", fam, kind, in, call.Cwd)
					continue
				}
				for _, al := range allows {
					var rules []policy.RuleText
					for _, a := range al {
						rules = append(rules, policy.RuleText{List: "allow", Text: a})
					}
					rules = append(rules, policy.RuleText{List: "deny", Text: "Read(//ws/secret/**)"})
					pol, errs := policy.Compile(rules)
					if len(errs) > 0 {
						t.Fatal(errs)
					}
					sess, _ := policy.Compile([]policy.RuleText{{List: "allow", Text: "Bash"}, {List: "allow", Text: "mcp__shell__run"}, {List: "allow", Text: "Bash(cat passwd)"}})
					for _, mode := range []policy.Mode{policy.ModeDefault, policy.ModeAcceptEdits, policy.ModePlan, policy.ModeDontAsk, policy.ModeBypass} {
						for _, ab := range []bool{false, true} {
							for _, s := range []*policy.Policy{nil, sess} {
								v := policy.Evaluate(policy.Input{Call: call, Policy: pol, Env: env, Mode: mode, AgentBypass: ab, Session: s})
								if v.Decision == policy.Allow {
									t.Errorf("HOLE %s %s %v allow=%v mode=%s agentBypass=%v session=%v: %s (%s)", fam, kind, in, al, mode, ab, s != nil, v.Decision, v.Reason)
								}
							}
						}
					}
				}
			}
		}
	}
}
