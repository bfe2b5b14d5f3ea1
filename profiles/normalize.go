package profiles

// Tool-call normalisation: step 1 of every decision (design.md, "Decisions").
//
// Every agent describes the same actions differently. Normalize turns one
// ACP ToolCall / ToolCallUpdate object, already merged with what the session
// announced earlier (ToolCallCache.Merge), into a canonical policy.Call. One small,
// table-driven adapter per agent family reads that family's real payload
// shapes (acp-protocol.md §6, §7); each falls back to the generic adapter,
// and the generic adapter falls back to Tool "" (not understood), which the
// policy answers by asking. No adapter guesses an allowable tool from a
// title alone when the shape is ambiguous.
//
// Concurrency: Normalize, DetectFamily and policy.ShellJoin are pure and safe from
// any goroutine. A ToolCallCache is guarded by its own mutex.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/acp-bridge/acp-bridge/policy"
)

// Family is a group of agents that shape their tool calls the same way.
type Family string

// Agent families.
const (
	FamilyClaude   Family = "claude"   // claude-code-acp, claude-agent-acp
	FamilyCodex    Family = "codex"    // codex-acp
	FamilyGemini   Family = "gemini"   // Gemini CLI and Qwen Code
	FamilyGoose    Family = "goose"    // goose acp
	FamilyOpenCode Family = "opencode" // opencode acp
	FamilyKimi     Family = "kimi"     // kimi acp
	FamilyGeneric  Family = "generic"  // anything else: ACP kind, locations, diffs
)

// familyMarkers are matched, in order, against the agent's command, its
// non-flag arguments and its configured name.
var familyMarkers = []struct {
	marker string
	family Family
}{
	{"claude-code-acp", FamilyClaude},
	{"claude-agent-acp", FamilyClaude},
	{"claude", FamilyClaude},
	{"codex", FamilyCodex},
	{"gemini", FamilyGemini},
	{"qwen", FamilyGemini},
	{"goose", FamilyGoose},
	{"opencode", FamilyOpenCode},
	{"kimi", FamilyKimi},
}

// DetectFamily picks the adapter family from how an agent is launched:
// first from the base names of the command and its non-flag arguments (an
// npm package such as "@zed-industries/claude-code-acp@latest" counts by its
// last segment), then from the configured agent name, then from whole paths
// (".../node_modules/@zed-industries/claude-code-acp/dist/index.js").
// Anything unrecognised is FamilyGeneric.
func DetectFamily(agentName, command string, args []string) Family {
	candidates := []string{command}
	for _, a := range args {
		if a != "" && !strings.HasPrefix(a, "-") {
			candidates = append(candidates, a)
		}
	}
	var bases []string
	for _, c := range candidates {
		bases = append(bases, launchBase(c))
	}
	bases = append(bases, strings.ToLower(agentName))
	for _, b := range bases {
		if f, ok := matchFamily(b); ok {
			return f
		}
	}
	for _, c := range candidates {
		if f, ok := matchFamily(strings.ToLower(strings.ReplaceAll(c, `\`, "/"))); ok {
			return f
		}
	}
	return FamilyGeneric
}

// launchBase lowercases s and keeps its last path segment, without an npm
// version suffix ("pkg@1.2.3") or an executable extension.
func launchBase(s string) string {
	s = strings.ToLower(strings.ReplaceAll(s, `\`, "/"))
	s = strings.TrimRight(s, "/")
	if i := strings.LastIndex(s, "/"); i >= 0 {
		s = s[i+1:]
	}
	if i := strings.LastIndex(s, "@"); i > 0 {
		s = s[:i]
	}
	for _, ext := range []string{".exe", ".cmd", ".bat", ".js", ".mjs", ".cjs"} {
		s = strings.TrimSuffix(s, ext)
	}
	return s
}

func matchFamily(s string) (Family, bool) {
	if s == "" {
		return "", false
	}
	for _, m := range familyMarkers {
		if strings.Contains(s, m.marker) {
			return m.family, true
		}
	}
	return "", false
}

// ErrNotToolCall is wrapped by Normalize's error when its input is not a JSON
// object.
var ErrNotToolCall = errors.New("tool call is not a JSON object")

// Normalize turns a tool call (the merged ToolCall / ToolCallUpdate object of
// a permission request, see ToolCallCache.Merge) into a canonical policy.Call.
//
// Kind, Title and Input are always filled from the payload as sent. Tool is
// "" when the call was not understood; the policy then asks. The error is
// non-nil only when toolCall is not a JSON object; the policy.Call returned with it
// has Tool "" as well. Normalize never panics, whatever the JSON.
func Normalize(f Family, toolCall json.RawMessage) (policy.Call, error) {
	tc, err := parseToolCall(toolCall)
	base := policy.Call{Kind: tc.kind, Title: tc.title, Input: tc.rawInput}
	if err != nil {
		return base, err
	}
	if a, ok := familyAdapters[f]; ok && f != FamilyGeneric {
		if c, mine := a(tc); mine {
			return withTouches(finish(c, base), tc.rawInput), nil
		}
	}
	if c, ok := genericAdapter(tc); ok {
		return withTouches(finish(c, base), tc.rawInput), nil
	}
	return withTouches(base, tc.rawInput), nil
}

// adapter reads one family's shapes. mine=false means the call is none of
// the family's known tools: the caller falls back to the generic adapter.
// mine=true is final, even with Tool "": a call the family recognised but
// found unsafe or ambiguous must not be rescued by a looser reading.
type adapter func(tc *toolCall) (c policy.Call, mine bool)

// extractor builds a policy.Call from a tool call already identified as one tool;
// ok=false means the call does not carry what that tool needs.
type extractor func(tc *toolCall) (c policy.Call, ok bool)

// final applies x to a call its adapter has recognised: a refusal becomes
// Tool "" without fallback.
func final(x extractor, tc *toolCall) (policy.Call, bool) {
	if c, ok := x(tc); ok {
		return c, true
	}
	return policy.Call{}, true
}

var familyAdapters map[Family]adapter

func init() {
	// Assigned in init: the adapters refer to tables that refer back to
	// shared extractors, which a package-level literal would turn into an
	// initialisation cycle.
	familyAdapters = map[Family]adapter{
		FamilyClaude:   claudeAdapter,
		FamilyCodex:    codexAdapter,
		FamilyGemini:   geminiAdapter,
		FamilyGoose:    gooseAdapter,
		FamilyOpenCode: opencodeAdapter,
		FamilyKimi:     kimiAdapter,
		FamilyGeneric:  genericAdapter,
	}
}

// finish copies the as-sent fields onto an adapter's result and tidies Paths.
func finish(c, base policy.Call) policy.Call {
	c.Kind, c.Title, c.Input = base.Kind, base.Title, base.Input
	if c.Tool == "" {
		// An adapter that did not understand the call must not leak a
		// half-built canonical form.
		return base
	}
	c.Paths = dedupe(c.Paths)
	return c
}

// toolCall is the lenient parse of a ToolCall / ToolCallUpdate object: a
// member of the wrong type reads as absent.
type toolCall struct {
	id        string
	title     string
	kind      string
	rawInput  json.RawMessage            // as sent; nil when absent or null
	input     map[string]json.RawMessage // rawInput when it is an object
	locations []string
	diffPaths []string
	texts     []string // text of {type:"content"} items
	meta      map[string]json.RawMessage
}

func parseToolCall(raw json.RawMessage) (*toolCall, error) {
	tc := &toolCall{}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return tc, fmt.Errorf("normalize: %w: %w", ErrNotToolCall, err)
	}
	if obj == nil {
		return tc, fmt.Errorf("normalize: %w: null", ErrNotToolCall)
	}
	tc.id, _ = jsonString(obj["toolCallId"])
	tc.title, _ = jsonString(obj["title"])
	tc.kind, _ = jsonString(obj["kind"])
	if ri, ok := obj["rawInput"]; ok && !isNull(ri) {
		tc.rawInput = ri
		tc.input = jsonObject(ri)
	}
	tc.meta = jsonObject(obj["_meta"])
	var locs []map[string]json.RawMessage
	if json.Unmarshal(obj["locations"], &locs) == nil {
		for _, l := range locs {
			if p, ok := jsonString(l["path"]); ok && p != "" {
				tc.locations = append(tc.locations, p)
			}
		}
	}
	var content []map[string]json.RawMessage
	if json.Unmarshal(obj["content"], &content) == nil {
		for _, item := range content {
			typ, _ := jsonString(item["type"])
			switch typ {
			case "diff":
				if p, ok := jsonString(item["path"]); ok && p != "" {
					tc.diffPaths = append(tc.diffPaths, p)
				}
			case "content":
				block := jsonObject(item["content"])
				if t, _ := jsonString(block["type"]); t == "text" {
					if text, ok := jsonString(block["text"]); ok {
						tc.texts = append(tc.texts, text)
					}
				}
			}
		}
	}
	return tc, nil
}

// str returns rawInput[key] when it is a string.
func (tc *toolCall) str(key string) (string, bool) { return jsonString(tc.input[key]) }

// nonEmpty returns rawInput[key] when it is a string with more than blanks.
func (tc *toolCall) nonEmpty(key string) (string, bool) {
	s, ok := tc.str(key)
	if !ok || strings.TrimSpace(s) == "" {
		return "", false
	}
	return s, true
}

// metaString reads a string at a path of nested objects under _meta.
func (tc *toolCall) metaString(keys ...string) string {
	obj := tc.meta
	for i, k := range keys {
		if i == len(keys)-1 {
			s, _ := jsonString(obj[k])
			return s
		}
		obj = jsonObject(obj[k])
	}
	return ""
}

// inputKeysWithin reports whether rawInput is an object holding every key of
// required and no key outside required and optional.
func (tc *toolCall) inputKeysWithin(required, optional []string) bool {
	if tc.input == nil {
		return false
	}
	for _, k := range required {
		if _, ok := tc.input[k]; !ok {
			return false
		}
	}
	for k := range tc.input {
		if !contains(required, k) && !contains(optional, k) {
			return false
		}
	}
	return true
}

// pathsFromInput collects the string values of the given rawInput keys.
func (tc *toolCall) pathsFromInput(keys ...string) []string {
	var out []string
	for _, k := range keys {
		if p, ok := tc.nonEmpty(k); ok {
			out = append(out, p)
		}
	}
	return out
}

// ---- the generic adapter ---------------------------------------------------

// inputPathKeys are rawInput members that name files in the agents seen so
// far; the generic adapter adds them to locations and diffs so that no
// touched file is missed.
var inputPathKeys = []string{
	"path", "file_path", "filePath", "filepath", "absolute_path", "notebook_path",
	"source", "destination", "old_path", "new_path", "from", "to", "target",
}

// genericKinds is the generic adapter's table: ACP kind -> extractor.
var genericKinds = map[string]extractor{
	"execute": genericExecute,
	"edit":    genericWrite,
	"delete":  genericWrite,
	"move":    genericWrite,
	"read":    genericRead,
	"search":  genericSearch,
	"fetch":   genericFetch,
}

// genericAdapter reads only the ACP-standard parts of a tool call: kind,
// locations, diffs, and rawInput.command / rawInput.url. It never reads a
// tool from a title.
func genericAdapter(tc *toolCall) (policy.Call, bool) {
	if x, ok := genericKinds[tc.kind]; ok {
		return x(tc)
	}
	return policy.Call{}, false
}

func genericExecute(tc *toolCall) (policy.Call, bool) {
	cmd, ok := commandFromInput(tc.input["command"])
	if !ok {
		return policy.Call{}, false
	}
	return policy.Call{Tool: "Bash", Command: cmd}, true
}

func genericWrite(tc *toolCall) (policy.Call, bool) {
	paths := allPaths(tc)
	if len(paths) == 0 {
		return policy.Call{}, false
	}
	return policy.Call{Tool: "Edit", Paths: paths}, true
}

func genericRead(tc *toolCall) (policy.Call, bool) {
	paths := allPaths(tc)
	if len(paths) == 0 {
		return policy.Call{}, false
	}
	return policy.Call{Tool: "Read", Paths: paths}, true
}

// genericSearch is a read of the locations searched, unless a glob in
// rawInput could reach outside them (a regex that looks like one is
// refused too: asking is the safe side).
func genericSearch(tc *toolCall) (policy.Call, bool) {
	for _, k := range []string{"pattern", "glob", "include"} {
		if g, ok := tc.str(k); ok && globEscapes(g) {
			return policy.Call{}, false
		}
	}
	return genericRead(tc)
}

func genericFetch(tc *toolCall) (policy.Call, bool) {
	u, ok := tc.nonEmpty("url")
	if !ok || !isWebURL(u) {
		return policy.Call{}, false
	}
	return policy.Call{Tool: "WebFetch", URL: u}, true
}

// allPaths is every file the call names: locations, diff paths and the
// path-like members of rawInput.
func allPaths(tc *toolCall) []string {
	var out []string
	out = append(out, tc.locations...)
	out = append(out, tc.diffPaths...)
	out = append(out, tc.pathsFromInput(inputPathKeys...)...)
	return dedupe(out)
}

// commandFromInput reads a command given as a string or as an argv array of
// strings; an argv is quoted word by word (argvCommand), its program word
// kept as the path the tool execs.
func commandFromInput(raw json.RawMessage) (string, bool) {
	if s, ok := jsonString(raw); ok {
		if strings.TrimSpace(s) == "" {
			return "", false
		}
		return s, true
	}
	var argv []string
	if err := json.Unmarshal(raw, &argv); err != nil || len(argv) == 0 || argv[0] == "" {
		return "", false
	}
	return argvCommand(argv), true
}

// ---- small helpers ---------------------------------------------------------

func jsonString(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	if s, ok := plainJSONString(raw); ok {
		return s, true
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// plainJSONString is the string raw encodes when it needs no decoding: one
// quoted run of valid UTF-8 without escapes, quotes or control bytes
// (what encoding/json would decode to the same bytes). Anything else is
// left to encoding/json (ok false).
func plainJSONString(raw []byte) (string, bool) {
	n := len(raw)
	if n < 2 || raw[0] != '"' || raw[n-1] != '"' {
		return "", false
	}
	body := raw[1 : n-1]
	for _, b := range body {
		if b < 0x20 || b == '"' || b == '\\' {
			return "", false
		}
	}
	if !utf8.Valid(body) {
		return "", false
	}
	return string(body), true
}

func jsonObject(raw json.RawMessage) map[string]json.RawMessage {
	if len(raw) == 0 {
		return nil
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return nil
	}
	return obj
}

func isNull(raw json.RawMessage) bool {
	return string(bytes.TrimSpace(raw)) == "null" // compared without a copy
}

// isEmptyObject reports whether raw is the JSON object {} (blanks allowed),
// without decoding it (a rawInput can hold a whole file).
func isEmptyObject(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) >= 2 && t[0] == '{' && t[len(t)-1] == '}' && len(bytes.TrimSpace(t[1:len(t)-1])) == 0
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// workingDir is the path of a search that names no directory: the session's
// working directory (Paths are relative to Env.Cwd).
const workingDir = "."

// dedupe drops repeats, keeping first-seen order. Empty paths sent by an
// agent are dropped when parsed.
func dedupe(in []string) []string {
	if len(in) == 0 {
		return nil
	}
	seen := make(map[string]bool, len(in))
	out := make([]string, 0, len(in))
	for _, s := range in {
		if seen[s] {
			continue
		}
		seen[s] = true
		out = append(out, s)
	}
	return out
}

func sortedKeys(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// isWebURL accepts an absolute http(s) URL with a host and no blanks.
func isWebURL(s string) bool {
	if strings.ContainsAny(s, " \t\r\n") {
		return false
	}
	lower := strings.ToLower(s)
	for _, scheme := range []string{"http://", "https://"} {
		if strings.HasPrefix(lower, scheme) && len(s) > len(scheme) && s[len(scheme)] != '/' {
			return true
		}
	}
	return false
}

// mcpName builds mcp__server__tool, or "" when the server name could be
// split differently (it holds "__" or blanks) or a part is empty: a rule for
// one server must never match another server's tool.
func mcpName(server, tool string) string {
	if server == "" || tool == "" || strings.Contains(server, "__") ||
		strings.ContainsAny(server+tool, " \t\r\n()") {
		return ""
	}
	return "mcp__" + server + "__" + tool
}

// globEscapes reports whether a glob pattern can reach outside the directory
// it is applied to: absolute, home-relative, drive-lettered or ".." in any
// brace alternative.
func globEscapes(pattern string) bool {
	pieces := strings.FieldsFunc(pattern, func(r rune) bool { return r == '{' || r == ',' || r == '}' })
	pieces = append(pieces, pattern)
	for _, p := range pieces {
		p = strings.ReplaceAll(p, `\`, "/")
		if strings.HasPrefix(p, "/") || strings.HasPrefix(p, "~") ||
			(len(p) >= 2 && p[1] == ':') {
			return true
		}
		for _, seg := range strings.Split(p, "/") {
			if seg == ".." {
				return true
			}
		}
	}
	return false
}
