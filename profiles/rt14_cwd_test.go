package profiles

import (
	"encoding/json"
	"testing"

	"github.com/acp-bridge/acp-bridge/policy"
)

// Red team 14: a rawInput that names its directory under two keys (cwd and
// workdir) was judged against one of them chosen by Go's map order: the same
// call was denied on one run and allowed on the next (an MCP tool or an
// agent's own tool whose server reads the other key runs where the policy
// did not look). Now two different directories are a doubt (Call.Unread):
// one verdict, never allow.
func TestRT14CallCwdTwoKeys(t *testing.T) {
	deny, errs := policy.Compile([]policy.RuleText{{List: "deny", Text: "Edit(//ws/secret/**)"}, {List: "allow", Text: "Bash"}, {List: "allow", Text: "mcp__*"}})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	for _, fam := range []Family{FamilyClaude, FamilyCodex, FamilyGeneric} {
		seen := map[string]int{}
		verdicts := map[policy.Decision]int{}
		for i := 0; i < 200; i++ {
			raw, _ := json.Marshal(map[string]any{
				"toolCallId": "t1", "kind": "execute", "title": "mcp__shell__run",
				"rawInput": map[string]any{"command": "rm -f passwd", "cwd": "/ws/secret", "workdir": "/ws"},
			})
			c, err := Normalize(fam, raw)
			if err != nil {
				t.Fatal(err)
			}
			seen[c.Cwd]++
			if i == 0 {
				t.Logf("%s: call %+v", fam, c)
			}
			v := policy.Evaluate(policy.Input{Call: c, Policy: deny, Env: policy.Env{Cwd: "/ws", ProjectRoot: "/ws", Home: "/home/u"}, Mode: policy.ModeDefault})
			verdicts[v.Decision]++
		}
		t.Logf("%s: Call.Cwd chosen %v; verdicts %v", fam, seen, verdicts)
		if len(seen) > 1 || len(verdicts) > 1 {
			t.Errorf("%s: one call judged against %d directories (%v), verdicts %v", fam, len(seen), seen, verdicts)
		}
	}
}

// Red team 14: a directory named under a key callCwd did not read
// (directory, dir, cwd nested under options, a file: URI) was at most a
// touched path, and the command's relative paths were read against the
// session's directory (allowed). Now each is a doubt, or read as the
// directory: never allowed.
func TestRT14CallCwdOtherKeys(t *testing.T) {
	deny, errs := policy.Compile([]policy.RuleText{{List: "deny", Text: "Read(//ws/secret/**)"}, {List: "deny", Text: "Edit(//ws/secret/**)"}, {List: "allow", Text: "Bash"}})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	for _, in := range []map[string]any{
		{"command": "cat passwd", "directory": "/ws/secret"},
		{"command": "cat passwd", "dir": "/ws/secret"},
		{"command": "cat passwd", "options": map[string]any{"cwd": "/ws/secret"}},
		{"command": "cat passwd", "cwd": "secret"},
		{"command": "cat passwd", "cwd": "./secret/"},
		{"command": "cat passwd", "cwd": "~/../../ws/secret"},
		{"command": "cat passwd", "cwd": "file:///ws/secret"},
	} {
		raw, _ := json.Marshal(map[string]any{"toolCallId": "t1", "kind": "execute", "title": "mcp__shell__run", "rawInput": in})
		c, _ := Normalize(FamilyGeneric, raw)
		v := policy.Evaluate(policy.Input{Call: c, Policy: deny, Env: policy.Env{Cwd: "/ws", ProjectRoot: "/ws", Home: "/home/u"}, Mode: policy.ModeDefault})
		t.Logf("%v: Cwd=%q Paths=%v Unread=%q -> %s (%s)", in, c.Cwd, c.Paths, c.Unread, v.Decision, v.Reason)
		if v.Decision == policy.Allow {
			t.Errorf("%v: allowed", in)
		}
	}
}

// The doubts are about a command's directory: a tool that names a path, a
// directory or a nested options object but runs no command is read as
// before (its paths are touched paths), with no doubt.
func TestCallCwdDoubtsOnlyForCommands(t *testing.T) {
	for _, in := range []map[string]any{
		{"path": "/ws/file.txt"},
		{"directory": "/ws/src", "pattern": "*.go"},
		{"root": "/ws", "query": "x"},
		{"path": "/ws/a", "options": map[string]any{"recursive": true}},
	} {
		for _, kind := range []string{"other", "", "read", "search"} {
			raw, _ := json.Marshal(map[string]any{"toolCallId": "t1", "kind": kind, "title": "mcp__fs__tool", "rawInput": in})
			c, err := Normalize(FamilyGeneric, raw)
			if err != nil {
				t.Fatal(err)
			}
			if c.Unread != "" {
				t.Errorf("kind %q %v: a doubt without a command: %q", kind, in, c.Unread)
			}
		}
	}
}
