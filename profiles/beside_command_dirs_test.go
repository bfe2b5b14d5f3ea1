package profiles

import (
	"encoding/json"
	"testing"

	"github.com/acp-bridge/acp-bridge/policy"
)

// A directory beside a command, under any key (red team 15: keys the old
// key-based reader, dirKey, did not recognise): the command would be
// judged in the session's directory (/ws), not where a tool reading that
// key runs it (/ws/secret). Zed's terminal tool names its directory "cd";
// others use dir_path, project_root, workspace, base_path, wd. A hole is an
// allow. Control: "cwd" is denied. The red team's "weak" cases (no tool
// known to read the key, a PWD variable, --cwd in args) are held too since
// the members beside a command are read by value: every case asserts.
// (Their "weak" member is a boolean, which carries no place.)
func TestDirectoryBesideACommandUnderAnyKeyNeverAllows(t *testing.T) {
	pol, errs := policy.Compile([]policy.RuleText{{List: "deny", Text: "Read(//ws/secret/**)"}, {List: "deny", Text: "Edit(//ws/secret/**)"}, {List: "allow", Text: "Bash"}, {List: "allow", Text: "mcp__*"}})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	env := policy.Env{Cwd: "/ws", ProjectRoot: "/ws", Home: "/home/u"}
	cases := []map[string]any{
		{"command": "cat passwd", "cwd": "/ws/secret"}, // control
		{"command": "cat passwd", "cd": "/ws/secret"},
		{"command": "cat passwd", "wd": "/ws/secret"},
		{"command": "cat passwd", "dir_path": "/ws/secret"},
		{"command": "cat passwd", "dirPath": "/ws/secret"},
		{"command": "cat passwd", "dirname": "/ws/secret"},
		{"command": "cat passwd", "project_root": "/ws/secret"},
		{"command": "cat passwd", "projectRoot": "/ws/secret"},
		{"command": "cat passwd", "workspace": "/ws/secret"},
		{"command": "cat passwd", "workspaceRoot": "/ws/secret"},
		{"command": "cat passwd", "base_path": "/ws/secret"},
		{"weak": true, "command": "cat passwd", "in": "/ws/secret"},
		{"weak": true, "command": "cat passwd", "at": "/ws/secret"},
		{"weak": true, "command": "cat passwd", "repo": "/ws/secret"},
		{"weak": true, "command": "cat passwd", "project": "/ws/secret"},
		{"weak": true, "command": "cat passwd", "home": "/ws/secret"},
		{"weak": true, "command": "cat passwd", "target": "/ws/secret"},
		{"weak": true, "command": "cat passwd", "CWD ": "/ws/secret"},
		{"weak": true, "command": "cat passwd", "c.w.d": "/ws/secret"},
		{"weak": true, "command": "cat passwd", "c w d": "/ws/secret"},
		{"weak": true, "command": "cat passwd", "Cwd\u200b": "/ws/secret"},
		{"command": "cat passwd", "options": map[string]any{"cd": "/ws/secret"}},
		{"command": "cat passwd", "env": map[string]any{"PWD": "/ws/secret"}},
		{"weak": true, "command": "cat passwd", "env": []any{"PWD=/ws/secret"}},
		{"weak": true, "command": "cat passwd", "env": "PWD=/ws/secret"},
		{"weak": true, "command": "cat passwd", "args": []any{"--cwd", "/ws/secret"}},
		{"weak": true, "command": "cat passwd", "args": []any{"--cwd=/ws/secret"}},
		{"weak": true, "command": "cat passwd", "args": []any{"-C", "/ws/secret"}},
		{"command": "cd secret && cat passwd"},
		{"command": "cd secret; cat passwd"},
		{"command": "pushd secret && cat passwd"},
		{"command": "cat passwd", "cwd": "/ws", "cd": "secret"},
		{"command": "cat passwd", "cwd": "secret"},
		{"command": "cat passwd", "cwd": "~/../../ws/secret"},
		{"command": "cat passwd", "cwd": "/ws/./secret"},
		{"command": "cat passwd", "cwd": "/ws//secret"},
		{"command": "cat passwd", "cwd": "$HOME/../../ws/secret"},
	}
	for _, fam := range []Family{FamilyGeneric, FamilyClaude, FamilyGemini} {
		for i, in := range cases {
			raw, _ := json.Marshal(map[string]any{"toolCallId": "t1", "kind": "execute", "title": "mcp__shell__run", "rawInput": in})
			call, err := Normalize(fam, raw)
			if err != nil {
				t.Fatal(err)
			}
			for _, mode := range []policy.Mode{policy.ModeDefault, policy.ModeAcceptEdits, policy.ModeBypass, policy.ModeDontAsk} {
				v := policy.Evaluate(policy.Input{Call: call, Policy: pol, Env: env, Mode: mode})
				if i == 0 && v.Decision != policy.Deny {
					t.Fatalf("control not denied: %+v", v)
				}
				if v.Decision == policy.Allow {
					t.Errorf("HOLE %s %s %v: Cwd=%q Cmd=%q Paths=%v Unread=%q -> %s (%s)", fam, mode, in, call.Cwd, call.Command, call.Paths, call.Unread, v.Decision, v.Reason)
				}
			}
		}
	}
}
