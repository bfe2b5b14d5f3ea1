package profiles

import (
	"encoding/json"
	"path"
	"strings"

	"github.com/acp-bridge/acp-bridge/policy"
)

// Codex (codex-acp). rawInput is the serialized Codex event:
//   - exec approval (ExecApprovalRequestEvent): {call_id, turn_id, command:
//     [argv], cwd, reason, parsed_cmd, ...}. Its kind follows parsed_cmd
//     (read, search or execute) but what runs is always the argv.
//   - patch approval (ApplyPatchApprovalRequestEvent): {call_id, changes:
//     {path: change}, reason, grant_root}. A change is {"type":"update",
//     "unified_diff", "move_path"} (or the older {"update": {...}}).
//   - MCP tool call begin: {server, tool, arguments}.
// Anything else (a permissions request, an MCP elicitation) is left to the
// generic adapter, which does not understand it: the policy asks.

// codexShapes is the adapter's table: how rawInput identifies the event
// (a member of a given JSON type) -> extractor.
var codexShapes = []struct {
	key  string
	json byte // first byte of the member's JSON: '[' array, '{' object, '"' string
	x    extractor
}{
	{"command", '[', codexExec},
	{"changes", '{', codexPatch},
	{"server", '"', codexMCP},
}

func codexAdapter(tc *toolCall) (policy.Call, bool) {
	for _, s := range codexShapes {
		if v := strings.TrimSpace(string(tc.input[s.key])); v != "" && v[0] == s.json {
			return final(s.x, tc)
		}
	}
	return policy.Call{}, false
}

func codexExec(tc *toolCall) (policy.Call, bool) {
	var argv []string
	if err := json.Unmarshal(tc.input["command"], &argv); err != nil || len(argv) == 0 || argv[0] == "" {
		return policy.Call{}, false
	}
	return policy.Call{Tool: "Bash", Command: argvCommand(argv)}, true
}

func codexPatch(tc *toolCall) (policy.Call, bool) {
	changes := jsonObject(tc.input["changes"])
	if len(changes) == 0 {
		return policy.Call{}, false
	}
	var paths []string
	for _, p := range sortedKeys(changes) {
		if p == "" {
			return policy.Call{}, false
		}
		paths = append(paths, p)
		change := jsonObject(changes[p])
		if change == nil {
			return policy.Call{}, false
		}
		// Tagged form {"type":"update","move_path":...}, or the older
		// externally tagged {"update":{"move_path":...}}.
		bodies := []map[string]json.RawMessage{change}
		for _, variant := range []string{"add", "delete", "update"} {
			if inner := jsonObject(change[variant]); inner != nil {
				bodies = append(bodies, inner)
			}
		}
		for _, b := range bodies {
			for _, key := range []string{"move_path", "movePath"} {
				if mp, ok := jsonString(b[key]); ok && mp != "" {
					paths = append(paths, mp)
				}
			}
		}
	}
	return policy.Call{Tool: "Edit", Paths: paths}, true
}

func codexMCP(tc *toolCall) (policy.Call, bool) {
	server, _ := tc.str("server")
	tool, _ := tc.str("tool")
	name := mcpName(server, tool)
	if name == "" {
		return policy.Call{}, false
	}
	return policy.Call{Tool: name}, true
}

// shells whose "-c SCRIPT" form shellScript reads.
var unwrapShells = []string{"bash", "sh", "zsh", "dash"}

// argvCommand renders an argv as the command line the policy parses: every
// word kept exactly, quoted with policy.ShellJoin, so the program word is
// the path the tool execs (red team 16: [/ws/evil/bash, -lc, S] was read
// as S, the shell's path dropped, and the agent's own bash ran under a
// read-only verdict). The engine reads a shell's -c script itself:
// [bash, -lc, S] and [/bin/zsh, -c, S] are judged as S's sub-commands,
// [/ws/evil/bash, -lc, S] as the agent's program.
func argvCommand(argv []string) string {
	return policy.ShellJoin(argv[0], argv[1:])
}

// shellScript is the SCRIPT of an argv that is exactly [shell, -c|-lc|-cl,
// SCRIPT] or [shell, -l, -c, SCRIPT], the shell known by its base name. It
// only lets an agent's echo of the command (codex's parsed_cmd) name the
// script's words; it never decides what is judged.
func shellScript(argv []string) (string, bool) {
	if len(argv) == 0 || !contains(unwrapShells, path.Base(argv[0])) {
		return "", false
	}
	switch {
	case len(argv) == 3 && contains([]string{"-c", "-lc", "-cl"}, argv[1]) && strings.TrimSpace(argv[2]) != "":
		return argv[2], true
	case len(argv) == 4 && argv[1] == "-l" && argv[2] == "-c" && strings.TrimSpace(argv[3]) != "":
		return argv[3], true
	}
	return "", false
}
