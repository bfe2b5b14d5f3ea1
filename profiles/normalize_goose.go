package profiles

import (
	"strings"

	"github.com/acp-bridge/acp-bridge/policy"
)

// Goose (goose acp). The permission request has kind "other", rawInput =
// the tool's arguments, and a title built from the tool name, which has
// taken three forms: "developer__shell" (the name itself), "Developer:
// Shell", and "developer: shell · ls -la" (with a detail after " · ").
// Newer Goose also puts the name in _meta.goose.toolCall.toolName on the
// tool_call, which the cache merges in; it wins over the title. Goose tools
// are "extension__tool"; the built-in developer extension's are mapped to
// Bash / Read / Edit, any other extension's to mcp__extension__tool (Goose
// extensions are MCP servers).

// gooseTools is the adapter's table: tool name -> extractor.
var gooseTools = map[string]extractor{
	"developer__shell":       claudeBash,
	"shell":                  claudeBash,
	"developer__text_editor": gooseTextEditor,
	"text_editor":            gooseTextEditor,
	"developer__read":        gooseAt("Read"),
	"developer__tree":        gooseAt("Read"),
	"developer__write":       gooseAt("Edit"),
	"developer__edit":        gooseAt("Edit"),
}

// gooseEditorCommands maps text_editor's command to the canonical tool.
var gooseEditorCommands = map[string]string{
	"view":        "Read",
	"write":       "Edit",
	"str_replace": "Edit",
	"insert":      "Edit",
	"undo_edit":   "Edit",
}

func gooseAdapter(tc *toolCall) (policy.Call, bool) {
	name := tc.metaString("goose", "toolCall", "toolName")
	if name == "" {
		name = gooseNameFromTitle(tc.title)
	}
	if name == "" {
		return policy.Call{}, false
	}
	if x, ok := gooseTools[name]; ok {
		return final(x, tc)
	}
	ext, tool, ok := strings.Cut(name, "__")
	if !ok {
		return policy.Call{}, false
	}
	if ext == "developer" {
		return policy.Call{}, true // a built-in tool this table does not know: ask
	}
	return policy.Call{Tool: mcpName(ext, tool)}, true
}

// gooseNameFromTitle turns any of the title forms back into the tool name:
// "developer: shell · ls" and "Developer: Text Editor" give
// "developer__shell" and "developer__text_editor".
func gooseNameFromTitle(title string) string {
	title, _, _ = strings.Cut(title, " · ")
	title = strings.TrimSpace(title)
	if ext, tool, ok := strings.Cut(title, ": "); ok {
		title = snake(ext) + "__" + snake(tool)
	} else {
		title = snake(title)
	}
	if strings.ContainsAny(title, " \t\r\n:()") {
		return ""
	}
	return title
}

func snake(s string) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimSpace(s)), " ", "_")
}

func gooseTextEditor(tc *toolCall) (policy.Call, bool) {
	p, ok := tc.nonEmpty("path")
	if !ok {
		return policy.Call{}, false
	}
	cmd, _ := tc.str("command")
	tool, ok := gooseEditorCommands[cmd]
	if !ok {
		return policy.Call{}, false
	}
	return policy.Call{Tool: tool, Paths: []string{p}}, true
}

func gooseAt(tool string) extractor {
	return func(tc *toolCall) (policy.Call, bool) {
		p, ok := tc.nonEmpty("path")
		if !ok {
			return policy.Call{}, false
		}
		return policy.Call{Tool: tool, Paths: []string{p}}, true
	}
}
