package profiles

import (
	"encoding/json"
	"testing"

	"github.com/acp-bridge/acp-bridge/policy"
)

// TestRT15bEnvPATHBesideACommandIsADoubt (red team 15b): beside a command,
// an environment's PATH is read as no place (env && key path: skipped;
// "PATH=..." in an env list: skipped). But PATH is where the tool finds the
// program it runs: env {PATH: /ws/evil} beside "git status" runs
// /ws/evil/git, a file the agent wrote, under the rule that allows
// git status. Control: the same PATH in the command text is not allowed by
// that rule.
func TestEnvPATHBesideACommandIsADoubt(t *testing.T) {
	pol, errs := policy.Compile([]policy.RuleText{{List: "allow", Text: "Bash(git status)"}})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	env := policy.Env{Cwd: "/ws", ProjectRoot: "/ws", Home: "/home/u"}
	eval := func(fam Family, in map[string]any) (policy.Verdict, policy.Call) {
		raw, _ := json.Marshal(map[string]any{"toolCallId": "t1", "kind": "execute", "title": "mcp__shell__run", "rawInput": in})
		call, err := Normalize(fam, raw)
		if err != nil {
			t.Fatal(err)
		}
		return policy.Evaluate(policy.Input{Call: call, Policy: pol, Env: env, Mode: policy.ModeDefault}), call
	}
	if v, _ := eval(FamilyGeneric, map[string]any{"command": "git status"}); v.Decision != policy.Allow {
		t.Fatalf("control: git status %s", v.Decision)
	}
	if v, _ := eval(FamilyGeneric, map[string]any{"command": "PATH=/ws/evil git status"}); v.Decision == policy.Allow {
		t.Fatalf("control: PATH=/ws/evil git status is allowed by the rule; the case proves nothing")
	}
	for _, fam := range []Family{FamilyGeneric, FamilyClaude, FamilyGemini} {
		for _, in := range []map[string]any{
			{"command": "git status", "env": map[string]any{"PATH": "/ws/evil:/usr/bin"}},
			{"command": "git status", "env": []any{"PATH=/ws/evil:/usr/bin"}},
			{"command": "git status", "environment": map[string]any{"Path": "."}},
		} {
			v, call := eval(fam, in)
			if v.Decision == policy.Allow {
				t.Errorf("%s %v: allowed (%s; unread %q): the tool runs the agent's git from PATH", fam, in, v.Reason, call.Unread)
			}
		}
	}
}
