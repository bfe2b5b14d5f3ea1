package profiles

import (
	"encoding/json"
	"strings"

	"github.com/acp-bridge/acp-bridge/policy"
)

// OpenCode (opencode acp). The permission request's title is the OpenCode
// permission type ("bash", "edit", "read", "webfetch", "external_directory",
// ...) and rawInput is the permission's metadata: {filepath, diff} for an
// edit ({files:[...]} too for a multi-file patch), {url, ...} for webfetch,
// often {} for bash. The tool's own input ({command, description}) arrives
// earlier in a tool_call_update with the same toolCallId; the cache keeps it
// when the request's rawInput is {} (see ToolCallCache.Merge).

// opencodePermissions is the adapter's table: permission type -> extractor.
var opencodePermissions = map[string]extractor{
	"bash":        claudeBash,
	"edit":        opencodeEdit,
	"write":       opencodeEdit,
	"patch":       opencodeEdit,
	"apply_patch": opencodeEdit,
	"multiedit":   opencodeEdit,
	"read":        opencodeRead,
	"list":        opencodeRead,
	"glob":        opencodeSearch,
	"grep":        opencodeSearch,
	"webfetch":    claudeWebFetch,
	"websearch":   claudeWebSearch,
}

var opencodePathKeys = []string{"filePath", "filepath", "path"}

func opencodeAdapter(tc *toolCall) (policy.Call, bool) {
	if x, ok := opencodePermissions[strings.ToLower(strings.TrimSpace(tc.title))]; ok {
		return final(x, tc)
	}
	return policy.Call{}, false
}

// opencodeEdit collects every file of the edit. A multi-file patch lists its
// files in rawInput.files; without that list, a filepath that looks like
// several joined with ", " is not understood (a file could be missed).
func opencodeEdit(tc *toolCall) (policy.Call, bool) {
	var paths []string
	if raw, ok := tc.input["files"]; ok {
		files, ok := opencodeFiles(raw)
		if !ok {
			return policy.Call{}, false
		}
		paths = append(paths, files...)
	} else {
		for _, k := range opencodePathKeys {
			if p, ok := tc.nonEmpty(k); ok {
				if strings.Contains(p, ", ") {
					return policy.Call{}, false
				}
				paths = append(paths, p)
			}
		}
	}
	paths = append(paths, tc.locations...)
	paths = append(paths, tc.diffPaths...)
	if len(dedupe(paths)) == 0 {
		return policy.Call{}, false
	}
	return policy.Call{Tool: "Edit", Paths: paths}, true
}

// opencodeFiles reads a files list: strings, or objects with a path and an
// optional move target. Any entry without a path spoils the list.
func opencodeFiles(raw json.RawMessage) ([]string, bool) {
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil || len(items) == 0 {
		return nil, false
	}
	var out []string
	for _, it := range items {
		if s, ok := jsonString(it); ok && s != "" {
			out = append(out, s)
			continue
		}
		obj := jsonObject(it)
		found := false
		for _, k := range []string{"filePath", "filepath", "path"} {
			if s, ok := jsonString(obj[k]); ok && s != "" {
				out = append(out, s)
				found = true
				break
			}
		}
		if !found {
			return nil, false
		}
		for _, k := range []string{"movePath", "move_path"} {
			if s, ok := jsonString(obj[k]); ok && s != "" {
				out = append(out, s)
			}
		}
	}
	return out, true
}

func opencodeRead(tc *toolCall) (policy.Call, bool) {
	paths := append(tc.pathsFromInput(opencodePathKeys...), tc.locations...)
	if len(dedupe(paths)) == 0 {
		return policy.Call{}, false
	}
	return policy.Call{Tool: "Read", Paths: paths}, true
}

// opencodeSearch reads under path, or the working directory. A glob pattern
// that leaves it is not understood.
func opencodeSearch(tc *toolCall) (policy.Call, bool) {
	if p, ok := tc.str("pattern"); ok && strings.EqualFold(tc.title, "glob") && globEscapes(p) {
		return policy.Call{}, false
	}
	if g, ok := tc.str("include"); ok && globEscapes(g) {
		return policy.Call{}, false
	}
	paths := append([]string(nil), tc.locations...)
	if raw, present := tc.input["path"]; present && !isNull(raw) {
		p, ok := jsonString(raw)
		if !ok {
			return policy.Call{}, false
		}
		paths = append(paths, p)
	}
	if len(paths) == 0 {
		paths = []string{workingDir}
	}
	return policy.Call{Tool: "Read", Paths: paths}, true
}
