package profiles

import (
	"encoding/json"
	"strings"

	"github.com/acp-bridge/acp-bridge/policy"
)

// Claude Code (claude-code-acp, claude-agent-acp). rawInput is the Claude
// tool's input (sdk-tools.d.ts); the tool name travels in
// _meta.claudeCode.toolName on tool_call / tool_call_update, which the cache
// merges into the permission request. claude-code-acp 0.16 sends only
// {toolCallId, rawInput, title} in the request, so without a cached name the
// rawInput shape decides, and only an exact shape counts.

// claudeTools is the adapter's table: Claude tool name -> extractor.
var claudeTools = map[string]extractor{
	"Bash":         claudeBash,
	"Edit":         claudeEditAt("file_path"),
	"Write":        claudeEditAt("file_path"),
	"MultiEdit":    claudeEditAt("file_path"),
	"NotebookEdit": claudeEditAt("notebook_path"),
	"Read":         claudeReadAt("file_path"),
	"LS":           claudeReadAt("path"),
	"Glob":         claudeGlob,
	"Grep":         claudeGrep,
	"WebFetch":     claudeWebFetch,
	"WebSearch":    claudeWebSearch,
	"ExitPlanMode": claudeExitPlanMode,
	// A question to the person: the policy reads it as thinking.
	"AskUserQuestion": claudeAskUserQuestion,
}

// claudeACPTools are the tools claude-code-acp swaps to mcp__acp__<name>
// when the client serves fs/terminal; same shapes as the built-ins.
var claudeACPTools = []string{"Bash", "Edit", "Write", "MultiEdit", "Read"}

// claudeShape recognises a Claude tool by its exact rawInput keys, for
// requests that carry no tool name. When the request carries a kind, it must
// be the kind Claude gives that tool: an MCP tool (kind other) whose input
// happens to be {command} is not Bash.
type claudeShape struct {
	tool     string
	kind     string
	required []string
	optional []string
	when     func(*toolCall) bool
}

// claudeShapes are tried in order; the first match names the tool. Glob
// comes before Grep: {pattern} alone fits both, and Glob's extractor is the
// stricter one (it refuses patterns that leave the directory).
var claudeShapes = []claudeShape{
	{tool: "Bash", kind: "execute", required: []string{"command"}, optional: []string{"description", "timeout", "run_in_background", "dangerouslyDisableSandbox"}},
	{tool: "Edit", kind: "edit", required: []string{"file_path", "old_string", "new_string"}, optional: []string{"replace_all"}},
	{tool: "Write", kind: "edit", required: []string{"file_path", "content"}},
	{tool: "MultiEdit", kind: "edit", required: []string{"file_path", "edits"}},
	{tool: "NotebookEdit", kind: "edit", required: []string{"notebook_path", "new_source"}, optional: []string{"cell_id", "cell_type", "edit_mode"}},
	{tool: "Read", kind: "read", required: []string{"file_path"}, optional: []string{"offset", "limit", "pages"}},
	{tool: "WebFetch", kind: "fetch", required: []string{"url", "prompt"}},
	{tool: "WebSearch", kind: "fetch", required: []string{"query"}, optional: []string{"allowed_domains", "blocked_domains"}},
	{tool: "Glob", kind: "search", required: []string{"pattern"}, optional: []string{"path"}},
	{tool: "Grep", kind: "search", required: []string{"pattern"}, optional: []string{"path", "glob", "output_mode", "-A", "-B", "-C", "-n", "-i", "type", "head_limit", "offset", "multiline", "context"}},
	{tool: "ExitPlanMode", kind: "switch_mode", required: []string{"plan"}, when: func(tc *toolCall) bool {
		return tc.kind == "switch_mode" || tc.title == "Ready to code?"
	}},
}

func claudeAdapter(tc *toolCall) (policy.Call, bool) {
	if name := tc.metaString("claudeCode", "toolName"); name != "" {
		return final(func(tc *toolCall) (policy.Call, bool) { return claudeByName(name, tc) }, tc)
	}
	for _, s := range claudeShapes {
		if (tc.kind == "" || tc.kind == s.kind) && tc.inputKeysWithin(s.required, s.optional) && (s.when == nil || s.when(tc)) {
			return final(claudeTools[s.tool], tc)
		}
	}
	return policy.Call{}, false
}

// claudeByName applies the named tool's extractor. An MCP tool keeps its
// name; any other tool Claude names keeps its own name (Task, TodoWrite...),
// as design.md allows, so a rule can still address it.
func claudeByName(name string, tc *toolCall) (policy.Call, bool) {
	if rest, ok := strings.CutPrefix(name, "mcp__acp__"); ok && contains(claudeACPTools, rest) {
		name = rest
	}
	if x, ok := claudeTools[name]; ok {
		return x(tc)
	}
	if strings.TrimSpace(name) != name || strings.ContainsAny(name, "()*") {
		return policy.Call{}, false // would not survive as a rule specifier
	}
	return policy.Call{Tool: name}, true
}

func claudeBash(tc *toolCall) (policy.Call, bool) {
	cmd, ok := tc.nonEmpty("command")
	if !ok {
		return policy.Call{}, false
	}
	return policy.Call{Tool: "Bash", Command: cmd}, true
}

func claudeEditAt(key string) extractor {
	return func(tc *toolCall) (policy.Call, bool) {
		p, ok := tc.nonEmpty(key)
		if !ok {
			return policy.Call{}, false
		}
		return policy.Call{Tool: "Edit", Paths: []string{p}}, true
	}
}

func claudeReadAt(key string) extractor {
	return func(tc *toolCall) (policy.Call, bool) {
		p, ok := tc.nonEmpty(key)
		if !ok {
			return policy.Call{}, false
		}
		return policy.Call{Tool: "Read", Paths: []string{p}}, true
	}
}

// claudeGlob reads under path, or under the working directory (workingDir)
// when path is absent. A pattern that can leave that directory is not
// understood: it could read anywhere.
func claudeGlob(tc *toolCall) (policy.Call, bool) {
	pattern, ok := tc.str("pattern")
	if !ok || globEscapes(pattern) {
		return policy.Call{}, false
	}
	return searchRoot(tc, "path")
}

// claudeGrep reads under path, or under the working directory. Its pattern
// is a regular expression over contents, not a path.
func claudeGrep(tc *toolCall) (policy.Call, bool) {
	if _, ok := tc.str("pattern"); !ok {
		return policy.Call{}, false
	}
	if g, ok := tc.str("glob"); ok && globEscapes(g) {
		return policy.Call{}, false
	}
	return searchRoot(tc, "path")
}

// searchRoot is a Read of rawInput[key], or of the working directory
// when the key is absent. A present key that is not a string is not
// understood.
func searchRoot(tc *toolCall, key string) (policy.Call, bool) {
	raw, present := tc.input[key]
	if !present || isNull(raw) {
		return policy.Call{Tool: "Read", Paths: []string{workingDir}}, true
	}
	p, ok := jsonString(raw)
	if !ok {
		return policy.Call{}, false
	}
	return policy.Call{Tool: "Read", Paths: []string{p}}, true
}

func claudeWebFetch(tc *toolCall) (policy.Call, bool) {
	u, ok := tc.nonEmpty("url")
	if !ok || !isWebURL(u) {
		return policy.Call{}, false
	}
	return policy.Call{Tool: "WebFetch", URL: u}, true
}

func claudeWebSearch(tc *toolCall) (policy.Call, bool) {
	q, ok := tc.nonEmpty("query")
	if !ok {
		return policy.Call{}, false
	}
	return policy.Call{Tool: "WebSearch", Query: q}, true
}

// claudeAskUserQuestion is the AskUserQuestion tool only in its exact
// shape (sdk-tools.d.ts AskUserQuestionInput: questions, a non-empty
// array, and what the answer adds): anything else under that name is not
// understood, and the policy asks.
func claudeAskUserQuestion(tc *toolCall) (policy.Call, bool) {
	if !tc.inputKeysWithin([]string{"questions"}, []string{"answers", "annotations", "metadata"}) {
		return policy.Call{}, false
	}
	var qs []json.RawMessage
	if json.Unmarshal(tc.input["questions"], &qs) != nil || len(qs) == 0 {
		return policy.Call{}, false
	}
	return policy.Call{Tool: "AskUserQuestion"}, true
}

func claudeExitPlanMode(*toolCall) (policy.Call, bool) {
	return policy.Call{Tool: "ExitPlanMode"}, true
}
