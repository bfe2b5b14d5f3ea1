package profiles

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/acp-bridge/acp-bridge/policy"
)

// Red team 16: the program a tool runs, named by a path in a tree the
// agent writes, is judged as the program of the same base name.
//
//   - beside a command (profiles/beside.go argvMember): a top-level
//     program/executable/bin is accepted when its base name is the
//     command's first word's: {command: "git status", program:
//     "/ws/evil/git", args: ["status"]} is judged as `git status`
//     (read-only, allowed in every mode, plan included) while the tool runs
//     the agent's /ws/evil/git.
//   - the shell member (commandKeys holds "shell"): {command: "echo
//     /ws/evil.sh", shell: "/ws/evil.sh"} (Desktop Commander's
//     start_process shape: command, shell, timeout_ms) is judged as the
//     echo; the tool runs the command with the agent's script as its shell.
//   - a command given as an argv (profiles/normalize_codex.go argvCommand):
//     [/ws/evil/bash, -lc, S] is read as S, the shell's path dropped (codex's
//     exec shape): the agent's bash runs. The same line given as a string,
//     `/ws/evil/bash -lc 'git status'`, asks, and [/ws/evil/git, status]
//     is judged as `/ws/evil/git status` (denied in plan).
//
// Each must never be allowed in default, plan and dontAsk: the reader did
// not judge the program that runs. In bypassPermissions the shapes that
// name a program other than the command's first word are a doubt (ask);
// the others are judged as the agent's path program, as their string form
// is (allowed there unless a deny rule meets it: corpus 108's
// exceptBypass).
func TestRT16ProgramByPathIsJudgedAsItsBaseName(t *testing.T) {
	pol, errs := policy.Compile([]policy.RuleText{{List: "deny", Text: "Bash(rm *)"}, {List: "deny", Text: "Read(//ws/secret/**)"}})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	env := policy.Env{Cwd: "/ws", ProjectRoot: "/ws", Home: "/home/u"}
	eval := func(fam Family, mode policy.Mode, in map[string]any) (policy.Call, policy.Verdict) {
		raw, _ := json.Marshal(map[string]any{"toolCallId": "t1", "kind": "execute", "title": "mcp__shell__run", "rawInput": in})
		call, err := Normalize(fam, raw)
		if err != nil {
			t.Fatal(err)
		}
		return call, policy.Evaluate(policy.Input{Call: call, Policy: pol, Env: env, Mode: mode})
	}
	// controls: the same programs spelled where the reader sees them.
	for _, in := range []map[string]any{
		{"command": []any{"/ws/evil/git", "status"}},
		{"command": "/ws/evil/bash -lc 'git status'"},
		{"command": "/ws/evil/git status"},
	} {
		if _, v := eval(FamilyGeneric, policy.ModePlan, in); v.Decision == policy.Allow {
			t.Errorf("control %v: allowed in plan (%s)", in, v.Reason)
		}
	}
	if _, v := eval(FamilyGeneric, policy.ModePlan, map[string]any{"command": []any{"bash", "-lc", "git status"}}); v.Decision != policy.Allow {
		t.Errorf("control [bash -lc 'git status']: %s (%s), want allow", v.Decision, v.Reason)
	}
	for _, fam := range []Family{FamilyGeneric, FamilyCodex} {
		for _, mode := range []policy.Mode{policy.ModeDefault, policy.ModePlan, policy.ModeDontAsk, policy.ModeBypass} {
			for _, in := range []map[string]any{
				{"command": "git status", "program": "/ws/evil/git", "args": []any{"status"}},
				{"command": "git status", "executable": "./evil/git"},
				{"command": "git status", "bin": "/ws/evil/git"},
				{"command": "/usr/bin/git status", "program": "/ws/evil/git"},
				{"command": "echo /ws/evil.sh", "shell": "/ws/evil.sh", "timeout_ms": 5000},
				{"command": []any{"/ws/evil/bash", "-lc", "git status"}},
				{"command": []any{"./evil/sh", "-c", "git status"}},
				{"command": []any{"/ws/evil/bash", "-lc", "git status"}, "cwd": "/ws", "parsed_cmd": []any{map[string]any{"type": "unknown", "cmd": "git status"}}},
			} {
				call, v := eval(fam, mode, in)
				if mode == policy.ModeBypass && call.Unread == "" {
					// bypassPermissions allows an unknown program that
					// meets no deny rule, the agent's own file too, in
					// its string form (`/ws/evil/git status`: corpus
					// 108's exceptBypass). What holds there: the call is
					// judged as the path program that runs, never as the
					// bare one, so a deny rule meeting it holds.
					if w := shellWords(call.Command); len(w) == 0 || !strings.Contains(w[0], "/evil") {
						t.Errorf("%s %s %v: judged as %q (%s): the program that runs is the agent's path", fam, mode, in, call.Command, v.Reason)
					}
					continue
				}
				if v.Decision == policy.Allow {
					t.Errorf("%s %s %v: allowed as %q (%s): the tool runs a program the agent wrote", fam, mode, in, call.Command, v.Reason)
				}
			}
		}
	}
}
