package profiles

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/acp-bridge/acp-bridge/policy"
)

// Every tool is judged by what it touches (docs/policy.md, "Every tool by
// what it touches"). Whatever a tool is called (an MCP tool, an agent's
// own tool, one no adapter knows), its rawInput is walked, bounded, for
// the paths and commands it names, and they go into the canonical call:
//
//   - a member whose key names a path (path, file_path, filePath, paths,
//     filename, target, source, destination, dir, notebook_path, and
//     any key ending in path, file, dir or directory) gives its string
//     value(s) as paths, at any depth (codex wraps MCP arguments in
//     {server, tool, arguments});
//   - for tools no adapter maps to a canonical tool, a string anywhere that
//     is shaped like a path (absolute, ~/, ./, ../, file://, or relative
//     with a "/") is a path too, and a member named command, cmd, script or
//     shell is a command the policy reads as Bash;
//   - what cannot be read within the bounds (too deep, too many members) is
//     named in Call.Unread, and the policy asks.
//
// For the canonical path tools (Read, Edit...) the paths their adapter read
// are joined by every other path-keyed member: a call with a harmless
// file_path and a path: .env is judged on both.

// Bounds of the walk: depth of nesting and number of JSON values visited.
const (
	touchMaxDepth = 32
	touchMaxNodes = 50000
	touchMaxPath  = 4096
)

// touches is what a rawInput names.
type touches struct {
	keyPaths   []string // under a path-like key
	shapePaths []string // path-shaped strings under other keys
	commands   []string
	unread     string
}

// pathKeys are the keys (lower case, without _ and -) that name a path.
var pathKeys = map[string]bool{
	"path": true, "paths": true, "file": true, "files": true, "filename": true, "filenames": true,
	"filepath": true, "filepaths": true, "absolutepath": true, "relativepath": true, "notebookpath": true,
	"source": true, "sources": true, "src": true, "destination": true, "dest": true, "dst": true,
	"target": true, "targets": true, "dir": true, "dirs": true, "directory": true, "directories": true,
	"cwd": true, "workdir": true, "workingdirectory": true, "workingdir": true, "root": true, "from": true, "to": true,
	"oldpath": true, "newpath": true, "movepath": true, "location": true, "locations": true,
	"uri": true, "fileuri": true, "output": true, "outputfile": true, "input": true, "inputfile": true,
}

// (At the top level of rawInput, cwd, workdir and working_directory are
// not paths the tool touches but where it runs: Call.Cwd, against which
// the policy reads the call. Deeper, they are paths like any other.)

// pathKeySuffixes: a key ending in one of these names a path too.
var pathKeySuffixes = []string{"path", "paths", "file", "files", "dir", "dirs", "directory", "filename", "uri"}

// commandKeys name a command line (string or argv).
var commandKeys = map[string]bool{"command": true, "cmd": true, "commandline": true, "shellcommand": true, "script": true, "shell": true}

// contentKeys hold text, not paths: their strings are not read by shape.
var contentKeys = map[string]bool{
	"content": true, "contents": true, "text": true, "newstring": true, "oldstring": true, "newsource": true,
	"body": true, "message": true, "prompt": true, "description": true, "query": true, "pattern": true,
	"regex": true, "code": true, "patch": true, "diff": true, "data": true, "title": true, "plan": true,
	"edits": true, "filetext": true, "url": true, "todos": true,
}

func keyNorm(k string) string {
	k = strings.ToLower(k)
	return strings.NewReplacer("_", "", "-", "").Replace(k)
}

func isPathKey(k string) bool {
	if pathKeys[k] {
		return true
	}
	for _, s := range pathKeySuffixes {
		if strings.HasSuffix(k, s) {
			return true
		}
	}
	return false
}

// readTouches walks rawInput within the bounds.
func readTouches(raw json.RawMessage) touches {
	var t touches
	if len(bytes.TrimSpace(raw)) == 0 {
		return t
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.unread = fmt.Sprintf("rawInput is not JSON: %v", err)
		return t
	}
	nodes := 0
	var walk func(v any, key string, underPath bool, depth int)
	walk = func(v any, key string, underPath bool, depth int) {
		if t.unread != "" {
			return
		}
		nodes++
		if nodes > touchMaxNodes {
			t.unread = fmt.Sprintf("rawInput has more than %d values", touchMaxNodes)
			return
		}
		if depth > touchMaxDepth {
			t.unread = fmt.Sprintf("rawInput is nested deeper than %d", touchMaxDepth)
			return
		}
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				nk := keyNorm(k)
				if depth == 0 && slices.Contains(cwdKeys, nk) {
					continue // Call.Cwd
				}
				if commandKeys[nk] {
					if cmd, ok := commandFromInput(mustJSON(e)); ok {
						t.commands = append(t.commands, cmd)
						continue
					}
				}
				walk(e, nk, isPathKey(nk), depth+1)
			}
		case []any:
			for _, e := range x {
				walk(e, key, underPath, depth+1)
			}
		case string:
			switch {
			case underPath:
				if p, ok := asPath(x, true); ok {
					t.keyPaths = append(t.keyPaths, p)
				}
			case !contentKeys[key]:
				if p, ok := asPath(x, false); ok {
					t.shapePaths = append(t.shapePaths, p)
				}
			}
		}
	}
	walk(v, "", false, 0)
	return t
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return b
}

// asPath reads s as a path: under a path key any non-empty string is one
// (a file:// URI by its path); elsewhere only a string shaped like a path.
func asPath(s string, keyed bool) (string, bool) {
	if s == "" || len(s) > touchMaxPath || strings.IndexByte(s, 0) >= 0 {
		return "", false
	}
	if strings.HasPrefix(strings.ToLower(s), "file://") {
		u, err := url.Parse(s)
		if err != nil || u.Path == "" {
			return "", false
		}
		return u.Path, true
	}
	if keyed {
		// even a URL-looking value: a server that takes it as a path
		// reads "x://../.env" as x:/../.env, which cleans to .env.
		return s, true
	}
	if strings.ContainsAny(s, " \t\r\n") || strings.Contains(s, "://") {
		return "", false
	}
	switch {
	case s == "~", strings.HasPrefix(s, "~/"), strings.HasPrefix(s, "./"), strings.HasPrefix(s, "../"):
		return s, true
	case strings.HasPrefix(s, "/") && len(s) > 1:
		return s, true
	case strings.Contains(strings.Trim(s, "/"), "/"):
		return s, true
	}
	return "", false
}

// pathTools are the canonical tools whose adapters read paths: the walk
// adds the path-keyed members they did not read.
var pathTools = map[string]bool{
	"Read": true, "Edit": true, "Write": true, "MultiEdit": true, "NotebookEdit": true,
	"NotebookRead": true, "Glob": true, "Grep": true, "LS": true,
}

// namedTools are canonical tools whose whole input their adapter reads.
var namedTools = map[string]bool{"Bash": true, "WebFetch": true, "WebSearch": true, "ExitPlanMode": true}

// cwdKeys (normalised) name the directory a tool runs in.
var cwdKeys = []string{"cwd", "workdir", "workingdirectory", "workingdir"}

// callCwd is the directory rawInput says the tool runs in, "" if none (or
// not one string).
func callCwd(raw json.RawMessage) string {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return ""
	}
	for k, v := range obj {
		for _, ck := range cwdKeys {
			if keyNorm(k) == ck {
				if s, ok := jsonString(v); ok && strings.TrimSpace(s) != "" {
					return s
				}
			}
		}
	}
	return ""
}

// withTouches adds what the call's rawInput touches to c.
func withTouches(c policy.Call, raw json.RawMessage) policy.Call {
	if len(raw) == 0 {
		return c
	}
	// a command (or a relative path) is read where the tool runs it.
	c.Cwd = callCwd(raw)
	if namedTools[c.Tool] {
		return c
	}
	t := readTouches(raw)
	if pathTools[c.Tool] {
		c.Paths = dedupe(append(c.Paths, t.keyPaths...))
		if t.unread != "" {
			c.Unread = t.unread
		}
		return c
	}
	// an MCP tool, an agent's own tool, a call no adapter understood
	c.Paths = dedupe(append(append(c.Paths, t.keyPaths...), t.shapePaths...))
	switch {
	case c.Command != "":
	case len(t.commands) == 1:
		c.Command = t.commands[0]
	case len(t.commands) > 1:
		// joined, one could hide the next (an unterminated heredoc); the
		// call is uncertain instead.
		if t.unread == "" {
			t.unread = fmt.Sprintf("the input holds %d commands", len(t.commands))
		}
	}
	c.Unread = t.unread
	return c
}
