package profiles

import (
	"strings"
	"unicode/utf8"

	"github.com/acp-bridge/acp-bridge/policy"
)

// Kimi CLI (kimi acp). The permission request is {toolCallId:
// "<turn>/<llm id>", title, content}: no kind, no rawInput. The title is
// "TOOL: KEY ARGUMENT" (or "TOOL" alone), where Kimi shortens a key argument
// longer than 50 characters to 25 + "..." + 25: such a title no longer says
// what runs. Content holds diffs for file edits, else a text line.

// kimiTitleLimit is the key-argument length Kimi shows unshortened.
const kimiTitleLimit = 50

// kimiTools is the adapter's table: Kimi tool name -> extractor of its key
// argument. CMD (Windows cmd.exe) is absent on purpose: its syntax is not
// the shell syntax the policy parses.
var kimiTools = map[string]func(tc *toolCall, arg string, full bool) (policy.Call, bool){
	"Shell":          kimiShell,
	"Bash":           kimiShell,
	"WriteFile":      kimiEdit,
	"StrReplaceFile": kimiEdit,
	"ReadFile":       kimiRead,
	"FetchURL":       kimiFetch,
	"SearchWeb":      kimiSearch,
}

func kimiAdapter(tc *toolCall) (policy.Call, bool) {
	name, arg, _ := strings.Cut(tc.title, ": ")
	x, ok := kimiTools[name]
	if !ok {
		return policy.Call{}, false
	}
	full := arg != "" && utf8.RuneCountInString(arg) <= kimiTitleLimit
	return final(func(tc *toolCall) (policy.Call, bool) { return x(tc, arg, full) }, tc)
}

func kimiShell(_ *toolCall, arg string, full bool) (policy.Call, bool) {
	if !full || strings.TrimSpace(arg) == "" {
		return policy.Call{}, false
	}
	return policy.Call{Tool: "Bash", Command: arg}, true
}

// kimiEdit prefers the diffs' paths (absolute); the title's path (relative
// to the working directory) is used only when no diff names the file.
func kimiEdit(tc *toolCall, arg string, full bool) (policy.Call, bool) {
	if len(tc.diffPaths) > 0 {
		return policy.Call{Tool: "Edit", Paths: tc.diffPaths}, true
	}
	if !full {
		return policy.Call{}, false
	}
	return policy.Call{Tool: "Edit", Paths: []string{arg}}, true
}

func kimiRead(_ *toolCall, arg string, full bool) (policy.Call, bool) {
	if !full {
		return policy.Call{}, false
	}
	return policy.Call{Tool: "Read", Paths: []string{arg}}, true
}

func kimiFetch(_ *toolCall, arg string, full bool) (policy.Call, bool) {
	if !full || !isWebURL(arg) {
		return policy.Call{}, false
	}
	return policy.Call{Tool: "WebFetch", URL: arg}, true
}

func kimiSearch(_ *toolCall, arg string, full bool) (policy.Call, bool) {
	if !full || strings.TrimSpace(arg) == "" {
		return policy.Call{}, false
	}
	return policy.Call{Tool: "WebSearch", Query: arg}, true
}
