package profiles

import (
	"encoding/json"
	"testing"

	"github.com/acp-bridge/acp-bridge/policy"
)

// Red team 14b: callCwd's doubts, probed. Each input below names the
// directory the command runs in (/ws/secret) in a way the reader may not
// take; the command's relative path then lies in the denied tree. A hole
// is an allow. Control: the same command with "cwd" is denied.
func TestCallDirectoryVariantsAreDoubts(t *testing.T) {
	pol, errs := policy.Compile([]policy.RuleText{{List: "deny", Text: "Read(//ws/secret/**)"}, {List: "deny", Text: "Edit(//ws/secret/**)"}, {List: "allow", Text: "Bash"}, {List: "allow", Text: "mcp__*"}})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	env := policy.Env{Cwd: "/ws", ProjectRoot: "/ws", Home: "/home/u"}
	cases := []struct {
		kind string
		in   map[string]any
	}{
		{"execute", map[string]any{"command": "cat passwd", "cwd": "/ws/secret"}}, // control
		{"read", map[string]any{"command": "cat passwd", "directory": "/ws/secret"}},
		{"search", map[string]any{"command": "cat passwd", "dir": "/ws/secret"}},
		{"fetch", map[string]any{"command": "cat passwd", "directory": "/ws/secret"}},
		{"edit", map[string]any{"command": "rm -f passwd", "directory": "/ws/secret"}},
		{"execute", map[string]any{"args": map[string]any{"command": "cat passwd", "cwd": "/ws/secret"}}},
		{"execute", map[string]any{"input": map[string]any{"command": "cat passwd", "cwd": "/ws/secret"}}},
		{"execute", map[string]any{"command": "cat passwd", "env": map[string]any{"PWD": "/ws/secret"}}},
		{"execute", map[string]any{"command": "cat passwd", "current_dir": "/ws/secret"}},
		{"execute", map[string]any{"command": "cat passwd", "path": "/ws/secret"}},
		{"execute", map[string]any{"command": "cat passwd", "root": "/ws/secret"}},
		{"execute", map[string]any{"command": "cat passwd", "cwd": []any{"/ws/secret"}}},
		{"execute", map[string]any{"command": "cat passwd", "options": []any{map[string]any{"cwd": "/ws/secret"}}}},
		{"execute", map[string]any{"command": "cat passwd", "spawn_options": map[string]any{"cwd": "/ws/secret"}}},
		{"execute", map[string]any{"command": "cat passwd", "opts": "{\"cwd\":\"/ws/secret\"}"}},
		{"execute", map[string]any{"argv": []any{"cat", "passwd"}, "cwd": "/ws/secret"}},
		{"execute", map[string]any{"command": []any{"cat", "passwd"}, "cwd": "/ws/secret"}},
		{"execute", map[string]any{"cmd": "cat passwd", "cwd": "/ws/secret"}},
		{"other", map[string]any{"script": "cat passwd", "cwd": "/ws/secret"}},
	}
	for _, fam := range []Family{FamilyGeneric, FamilyClaude, FamilyGemini} {
		for i, c := range cases {
			raw, _ := json.Marshal(map[string]any{"toolCallId": "t1", "kind": c.kind, "title": "mcp__shell__run", "rawInput": c.in})
			call, err := Normalize(fam, raw)
			if err != nil {
				t.Fatal(err)
			}
			v := policy.Evaluate(policy.Input{Call: call, Policy: pol, Env: env, Mode: policy.ModeDefault})
			t.Logf("%s %s %v: Cwd=%q Cmd=%q Paths=%v Unread=%q -> %s (%s)", fam, c.kind, c.in, call.Cwd, call.Command, call.Paths, call.Unread, v.Decision, v.Reason)
			if i == 0 && v.Decision != policy.Deny {
				t.Fatalf("control not denied: %+v", v)
			}
			if v.Decision == policy.Allow {
				t.Errorf("%s kind %s %v allowed", fam, c.kind, c.in)
			}
		}
	}
}

// The rule is general: beside a command, any member holding a string, at
// any depth, in arrays and in JSON text, is a doubt (the call asks, never
// allows) unless it names the one directory read, is an environment's
// PATH, or is a member known to carry no place (besideCommand). Each doubt
// case but the last names the denied tree, so without the doubt it would
// be allowed (judged in /ws).
func TestCallDirectoryKeysAreDoubtsBesideACommand(t *testing.T) {
	pol, errs := policy.Compile([]policy.RuleText{{List: "deny", Text: "Read(//ws/secret/**)"}, {List: "allow", Text: "mcp__*"}, {List: "allow", Text: "Bash"}})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	env := policy.Env{Cwd: "/ws", ProjectRoot: "/ws", Home: "/home/u"}
	cases := []struct {
		in    map[string]any
		doubt bool
	}{
		{map[string]any{"command": "cat passwd", "chdir": "/ws/secret"}, true},
		{map[string]any{"command": "cat passwd", "folder": "/ws/secret"}, true},
		{map[string]any{"command": "cat passwd", "base_folder": "/ws/secret"}, true},
		{map[string]any{"command": "cat passwd", "runDir": "/ws/secret"}, true},
		{map[string]any{"command": "cat passwd", "working_directory_path": "/ws/secret"}, true},
		{map[string]any{"command": "cat passwd", "location": "/ws/secret"}, true},
		{map[string]any{"command": "cat passwd", "options": []any{map[string]any{"work_folder": "/ws/secret"}}}, true},
		{map[string]any{"command": "cat passwd", "opts": `[{"exec": {"root": "/ws/secret"}}]`}, true},
		{map[string]any{"command": "cat passwd", "spawn": map[string]any{"chdir": []any{"/ws/secret"}}}, true},
		{map[string]any{"command": "cat passwd", "cwd": "/ws", "directory": "/ws/secret"}, true},
		// an environment's PATH: the tool looks its program up there (red
		// team 15b).
		{map[string]any{"command": "cat passwd", "env": map[string]any{"PATH": "/usr/bin:/bin"}}, true},
		// not doubts: the directory read repeated, members known to carry
		// no place.
		{map[string]any{"command": "cat passwd", "cwd": "/ws", "folder": "/ws", "options": map[string]any{"cwd": "/ws"}}, false},
		{map[string]any{"command": "cat passwd", "description": "read ./secret/passwd", "timeout": 5, "run_in_background": false, "title": "cat in secret/"}, false},
		// a bare word under a member the reader does not know may be a
		// relative directory (Zed's terminal tool: cd: "proj"): since red
		// team 15 the members beside a command are read by value, not by
		// key, so keys that only look alike are doubts too.
		{map[string]any{"command": "cat passwd", "redirect": "none", "direction": "in"}, true},
	}
	for _, fam := range []Family{FamilyGeneric, FamilyClaude, FamilyGemini} {
		for _, c := range cases {
			raw, _ := json.Marshal(map[string]any{"toolCallId": "t1", "kind": "execute", "title": "mcp__shell__run", "rawInput": c.in})
			call, err := Normalize(fam, raw)
			if err != nil {
				t.Fatal(err)
			}
			v := policy.Evaluate(policy.Input{Call: call, Policy: pol, Env: env, Mode: policy.ModeDefault})
			gotDoubt := call.Unread != ""
			t.Logf("%s %v: Cwd=%q Unread=%q -> %s", fam, c.in, call.Cwd, call.Unread, v.Decision)
			if gotDoubt != c.doubt {
				t.Errorf("%s %v: doubt %v (%q), want %v", fam, c.in, gotDoubt, call.Unread, c.doubt)
			}
			if c.doubt && v.Decision == policy.Allow {
				t.Errorf("%s %v: allowed", fam, c.in)
			}
			if !c.doubt && v.Decision != policy.Allow {
				t.Errorf("%s %v: %s (%s), want allowed (nothing names the denied tree)", fam, c.in, v.Decision, v.Reason)
			}
		}
	}
}
