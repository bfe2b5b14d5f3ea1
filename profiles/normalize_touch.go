package profiles

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"path"
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
//   - for a tool of kind execute or of no known kind, a member named code,
//     exec, run, bash, sh, argv (and the like: execCommandKeys) is a command
//     too, a list under commands (cmds, scripts, steps) is one command line
//     each, and a program beside its arguments (program + args) is an argv;
//   - a file:// URL is a path under any key (url, text), a bare hidden name
//     (.env) is a path under any non-content key, and a directory member
//     beside a name member (directory + name) names the file in it;
//   - a path under /proc (/proc/self/root/..., /proc/PID/cwd/...) can name
//     any file: the call is uncertain;
//   - what cannot be read within the bounds (too deep, too many members) is
//     named in Call.Unread, and the policy asks;
//   - beside a command, whatever the tool (Bash included), a member that
//     could name where it runs or what it runs on is a doubt, whatever its
//     key (besideCommand).
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
	urls       []string // web URLs, whatever their key (hosts the tool reaches)
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

// execCommandKeys name a command line (string or argv) in the input of a
// tool of kind execute or one of no known kind: code, exec, run... A
// program beside its arguments (program + args) is an argv too.
var execCommandKeys = map[string]bool{
	"code": true, "exec": true, "execute": true, "run": true, "bash": true, "sh": true, "zsh": true,
	"argv": true, "commandargs": true, "commandlinearguments": true, "shellscript": true, "line": true,
}

// execCommandListKeys name a list of command lines.
var execCommandListKeys = map[string]bool{"commands": true, "cmds": true, "scripts": true, "lines": true, "steps": true}

// programKeys name a program whose arguments argsKeys name.
var (
	programKeys = []string{"program", "executable", "binary", "bin", "exe", "prog"}
	argsKeys    = []string{"args", "arguments", "argv", "params", "parameters"}
)

// nameKeys name a file inside a directory named beside them.
var nameKeys = []string{"name", "filename", "file", "basename"}

// contentKeys hold text, not paths: their strings are not read by shape.
var contentKeys = map[string]bool{
	"content": true, "contents": true, "text": true, "newstring": true, "oldstring": true, "newsource": true,
	"body": true, "message": true, "prompt": true, "description": true, "query": true, "pattern": true,
	"regex": true, "code": true, "patch": true, "diff": true, "data": true, "title": true, "plan": true,
	"edits": true, "filetext": true, "url": true, "todos": true,
}

// keyNorm is k lower-cased without '_' and '-' (file_path, filePath and
// file-path are one key). A key that is already so (most) is returned as
// it is, without allocating: it is asked for every key of every call.
func keyNorm(k string) string {
	for i := 0; i < len(k); i++ {
		if c := k[i]; c >= 0x80 || c == '_' || c == '-' || ('A' <= c && c <= 'Z') {
			return keyNormReplacer.Replace(strings.ToLower(k))
		}
	}
	return k
}

var keyNormReplacer = strings.NewReplacer("_", "", "-", "")

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

// readTouches walks rawInput within the bounds. execLike: the tool is of
// kind execute or of no known kind (its execCommandKeys are commands).
func readTouches(raw json.RawMessage, execLike bool) touches {
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
			// every key under its normalised name; filePath beside
			// file_path keeps both values, each judged.
			byNorm := map[string][]any{}
			for _, k := range slices.Sorted(maps.Keys(x)) {
				nk := keyNorm(k)
				byNorm[nk] = append(byNorm[nk], x[k])
			}
			// a program beside its arguments: one argv per program value.
			if execLike {
				for _, pk := range programKeys {
					for _, pv := range byNorm[pk] {
						prog, ok := pv.(string)
						if !ok || strings.TrimSpace(prog) == "" {
							continue
						}
						argvs := [][]string{{prog}}
						for _, ak := range argsKeys {
							if len(byNorm[ak]) == 0 {
								continue
							}
							argvs = argvs[:0]
							for _, av := range byNorm[ak] {
								argv := []string{prog}
								switch l := av.(type) {
								case []any:
									for _, a := range l {
										if as, ok := a.(string); ok {
											argv = append(argv, as)
										} else {
											argv = append(argv, string(mustJSON(a)))
										}
									}
								case string:
									argv = append(argv, l)
								}
								argvs = append(argvs, argv)
							}
							break
						}
						for _, argv := range argvs {
							t.commands = append(t.commands, argvCommand(argv))
						}
					}
				}
			}
			// a directory beside a file name: the file in it, for every
			// pair of values.
			for _, dk := range slices.Sorted(maps.Keys(byNorm)) {
				if !isPathKey(dk) || strings.HasSuffix(dk, "file") {
					continue
				}
				for _, dv := range byNorm[dk] {
					dir, ok := dv.(string)
					if !ok || dir == "" {
						continue
					}
					for _, nk := range nameKeys {
						if nk == dk {
							continue
						}
						for _, nv := range byNorm[nk] {
							if n, ok := nv.(string); ok && n != "" {
								if p, ok := asPath(strings.TrimRight(dir, "/")+"/"+n, true); ok {
									t.keyPaths = append(t.keyPaths, p)
								}
							}
						}
					}
				}
			}
			// a shell beside a command runs it: [shell, -c, command].
			shell := shellBeside(x, execLike)
			wrap := func(cmd string) string {
				if shell == "" {
					return cmd
				}
				return policy.ShellJoin(shell, []string{"-c", cmd})
			}
			for _, k := range slices.Sorted(maps.Keys(x)) {
				e := x[k]
				nk := keyNorm(k)
				if depth == 0 && slices.Contains(cwdKeys, nk) {
					continue // Call.Cwd
				}
				if nk == "shell" && shell != "" {
					if _, ok := e.(string); ok {
						continue // the program of the commands beside it
					}
				}
				if commandKeys[nk] || (execLike && execCommandKeys[nk]) {
					if cmd, ok := commandFromInput(mustJSON(e)); ok {
						t.commands = append(t.commands, wrap(cmd))
						continue
					}
				}
				if execLike && execCommandListKeys[nk] {
					if l, ok := e.([]any); ok {
						n := 0
						for _, c := range l {
							if cs, ok := c.(string); ok && strings.TrimSpace(cs) != "" {
								t.commands = append(t.commands, wrap(cs))
								n++
							}
						}
						if n > 0 {
							continue
						}
					}
				}
				walk(e, nk, isPathKey(nk), depth+1)
			}
		case []any:
			for _, e := range x {
				walk(e, key, underPath, depth+1)
			}
		case string:
			// whatever its key: a host the tool may reach
			if u, ok, uncertain := netURL(x); ok {
				t.urls = append(t.urls, u)
			} else if uncertain && t.unread == "" {
				t.unread = fmt.Sprintf("the input holds a URL whose host cannot be read with certainty (%q)", x)
			}
			switch {
			case underPath:
				if p, ok := asPath(x, true); ok {
					t.keyPaths = append(t.keyPaths, p)
				}
			case !contentKeys[key]:
				if p, ok := asPath(x, false); ok {
					t.shapePaths = append(t.shapePaths, p)
				}
			case strings.HasPrefix(strings.ToLower(x), "file://"):
				// a file URL is a path whatever its key (url, uri, text).
				if p, ok := asPath(x, false); ok {
					t.shapePaths = append(t.shapePaths, p)
				}
			}
		}
	}
	walk(v, "", false, 0)
	// A path under /proc names another file by a process's view of it
	// (/proc/self/root/..., /proc/PID/cwd/..., fd/N): what it reaches is
	// not known here, so the call is uncertain.
	if t.unread == "" {
		for _, p := range append(append([]string(nil), t.keyPaths...), t.shapePaths...) {
			if c := path.Clean(p); c == "/proc" || strings.HasPrefix(c, "/proc/") {
				t.unread = fmt.Sprintf("the path %q is under /proc, which can name any file", p)
				break
			}
		}
	}
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
	case dotName(s):
		// a bare hidden name (.env, .npmrc): a file in the directory the
		// tool runs in.
		return s, true
	}
	return "", false
}

// dotName: s is a bare hidden file name (".env"), not "." or "..".
func dotName(s string) bool {
	if len(s) < 2 || len(s) > 255 || s[0] != '.' || strings.ContainsAny(s, "/\\") {
		return false
	}
	for _, r := range s[1:] {
		if !(r == '.' || r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return s != ".." && strings.Trim(s, ".") != ""
}

// pathTools are the canonical tools whose adapters read paths: the walk
// adds the path-keyed members they did not read.
var pathTools = map[string]bool{
	"Read": true, "Edit": true, "Write": true, "MultiEdit": true, "NotebookEdit": true,
	"NotebookRead": true, "Glob": true, "Grep": true, "LS": true,
}

// namedTools are canonical tools whose input their adapter reads: the walk
// adds nothing to them (the members beside a Bash command are
// besideCommand's).
var namedTools = map[string]bool{"Bash": true, "WebFetch": true, "WebSearch": true, "ExitPlanMode": true}

// cwdKeys (normalised) name the directory a tool runs in.
var cwdKeys = []string{"cwd", "workdir", "workingdirectory", "workingdir", "currentdir", "currentdirectory", "pwd"}

// envKeys hold a process's environment: PATH there is a search list,
// not a directory to run in.
var envKeys = []string{"env", "environment", "environ", "envvars", "envs"}

// maxCwdDepth bounds the search for a nested directory key and the walk of
// the members beside a command.
const maxCwdDepth = 8

// callCwd is the directory rawInput says the tool runs in, "" if none.
// doubt is set when the input names it in a way the policy cannot judge
// (red team 14): under two of cwdKeys with different values (which one the
// tool reads is the tool's; Go's map order chose one, so the same call was
// denied on one run and allowed on the next), as something other than a
// plain path (a file: URI, not a string), or nested (options.cwd). For a
// call that runs a command, the members beside it are read by
// besideCommand (any member that could name a place is a doubt).
func callCwd(raw json.RawMessage, runs bool) (cwd, doubt string) {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return "", ""
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys) // the doubt names keys in one order
	for _, k := range keys {
		v := obj[k]
		if !slices.Contains(cwdKeys, keyNorm(k)) {
			continue
		}
		s, ok := jsonString(v)
		if !ok {
			if !isNull(v) {
				return "", fmt.Sprintf("the directory under %q is not a string", k)
			}
			continue
		}
		s = strings.TrimSpace(s)
		switch {
		case s == "":
		case strings.Contains(s, "://") || strings.HasPrefix(strings.ToLower(s), "file:"):
			return "", fmt.Sprintf("the directory under %q is not a plain path (%q)", k, s)
		case cwd != "" && s != cwd:
			return "", fmt.Sprintf("the input names two directories to run in (%q and %q)", cwd, s)
		default:
			cwd = s
		}
	}
	if runs {
		return cwd, ""
	}
	for _, k := range keys {
		if nk := keyNorm(k); !slices.Contains(cwdKeys, nk) {
			if where := nestedCwd(obj[k], k, 0); where != "" {
				return "", "a directory to run in is nested at " + where
			}
		}
	}
	return cwd, ""
}

// hasCommandKey: rawInput names a command line at its top level.
func hasCommandKey(raw json.RawMessage, execLike bool) bool {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return false
	}
	for k := range obj {
		if nk := keyNorm(k); commandKeys[nk] || (execLike && execCommandKeys[nk]) {
			return true
		}
	}
	return false
}

// nestedCwd finds a directory key (cwdKeys) anywhere below a top-level
// member of a rawInput that runs no command: in an object, an array, or a
// string that holds JSON (an options object passed as text). It says
// where, "" if nowhere. Too deep to search is a find too.
func nestedCwd(v json.RawMessage, at string, depth int) string {
	if depth > maxCwdDepth {
		return at + " (too deep to read)"
	}
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return ""
	}
	switch v[0] {
	case '{':
		var obj map[string]json.RawMessage
		if json.Unmarshal(v, &obj) != nil {
			return ""
		}
		for _, k := range sortedKeys(obj) {
			if slices.Contains(cwdKeys, keyNorm(k)) {
				return at + "." + k
			}
			if w := nestedCwd(obj[k], at+"."+k, depth+1); w != "" {
				return w
			}
		}
	case '[':
		var arr []json.RawMessage
		if json.Unmarshal(v, &arr) != nil {
			return ""
		}
		for i, iv := range arr {
			if w := nestedCwd(iv, fmt.Sprintf("%s[%d]", at, i), depth+1); w != "" {
				return w
			}
		}
	case '"':
		s, ok := jsonString(v)
		if t := strings.TrimSpace(s); ok && (strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[")) {
			return nestedCwd(json.RawMessage(t), at+" (as JSON text)", depth+1)
		}
	}
	return ""
}

// withTouches adds what the call's rawInput touches to c.
func withTouches(c policy.Call, raw json.RawMessage) policy.Call {
	if len(raw) == 0 {
		return c
	}
	execLike := execLikeKind(c.Kind)
	// a shell beside the command is the program that runs it.
	c.Command = withShell(raw, c.Command, execLike)
	c = touchesOf(c, raw)
	// a command (or a relative path) is read where the tool runs it. A
	// call its adapter read as a path tool whose command member is only
	// that tool's sub-command (Goose's text_editor: command "view") runs
	// no command.
	runs := c.Command != "" || (hasCommandKey(raw, execLike) && !(pathTools[c.Tool] && editorSubcommand(raw, execLike)))
	cwd, doubt := callCwd(raw, runs)
	if runs && doubt == "" {
		doubt = besideCommand(raw, c.Command, cwd, execLike)
	}
	c.Cwd = cwd
	if doubt != "" {
		c.Unread = joinUnread(c.Unread, doubt)
	}
	return c
}

// touchesOf is withTouches past the call's directory.
func touchesOf(c policy.Call, raw json.RawMessage) policy.Call {
	if namedTools[c.Tool] {
		return c
	}
	t := readTouches(raw, execLikeKind(c.Kind))
	addURLs := func() {
		if c.Tool == "WebFetch" || c.Tool == "WebSearch" {
			return
		}
		for _, u := range dedupe(t.urls) {
			if c.URL == "" {
				c.URL = u
			} else if u != c.URL {
				c.URLs = append(c.URLs, u)
			}
		}
	}
	if pathTools[c.Tool] {
		addURLs()
		c.Paths = dedupe(append(c.Paths, t.keyPaths...))
		if t.unread != "" {
			c.Unread = t.unread
		}
		return c
	}
	// an MCP tool, an agent's own tool, a call no adapter understood
	c.Paths = dedupe(append(append(c.Paths, t.keyPaths...), t.shapePaths...))
	addURLs()
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

// joinUnread adds what could not be read to what already was.
func joinUnread(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// execLikeKind: a tool of this ACP kind may run a command (execute), or
// says nothing of what it does (other, none).
func execLikeKind(kind string) bool {
	return kind == "execute" || kind == "other" || kind == ""
}

// netSchemes are the schemes of a host a tool may reach.
var netSchemes = []string{"https", "http", "wss", "ws", "ftps", "ftp", "sftp", "ssh", "git", "gopher"}

// netURL reads s as a URL a tool may fetch, the way lenient URL parsers
// (WHATWG's, Python's) do: blanks around it trimmed, any number of slashes
// or backslashes after the scheme ("https:evil.com", "https:\\evil.com"),
// a scheme-relative "//host/x". It returns the URL spelled canonically
// (scheme://rest) and whether s is one; uncertain is set when s has a
// network scheme but a blank or control character inside (no two parsers
// agree where its host ends).
func netURL(s string) (u string, ok, uncertain bool) {
	t := strings.TrimSpace(s)
	lower := strings.ToLower(t)
	if strings.HasPrefix(t, "//") && len(t) > 2 && t[2] != '/' {
		t, lower = "https:"+t, "https:"+lower
	}
	for _, sc := range netSchemes {
		if !strings.HasPrefix(lower, sc+":") {
			continue
		}
		rest := strings.TrimLeft(t[len(sc)+1:], "/\\")
		if rest == "" {
			return "", false, false
		}
		if strings.IndexFunc(rest, func(r rune) bool { return r <= ' ' || r == 0x7f }) >= 0 {
			return "", false, true
		}
		return sc + "://" + strings.ReplaceAll(rest, "\\", "/"), true, false
	}
	return "", false, false
}
