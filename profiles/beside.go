package profiles

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/acp-bridge/acp-bridge/policy"
)

// The members beside a command (docs/policy.md, "The members beside a
// command"). The policy judges a command on its text, in the one directory
// the reader took (cwdKeys). A tool reads its other members as it likes: a
// directory under a key no reader knows (Zed's terminal tool: cd; others:
// wd, dir_path, project_root, workspace, options.cd, a JSON text), the
// arguments of the command (args, files, input_file: red team 15, an MCP
// spawn tool {command: cat, args: [/ws/secret/passwd]} was judged on cat
// alone). So, beside a command, the reader is closed: a string anywhere in
// a member (at any depth, in arrays, in JSON text) is a doubt unless
//   - the member is one known to carry no place (noPlaceKeys: a
//     description, a reason, an id, a timeout; wrapperKeys), or
//   - the string is the directory read (not as an argument), or an
//     environment's PATH, or
//   - the member is a program (or a shell) that is the command's first
//     word byte for byte, or an argument list that is a JSON array of the
//     command's words after it (argvMember), or
//   - the member holds the command's own words (the command member itself:
//     wordMember) and the string is one word of the command, or it is an
//     agent's echo of the command (echoKeys) and every word of the string
//     is a word of the command.
// Numbers, booleans and null carry no place, except as words of an argv
// (args: [5] is an argument the command text does not hold).

// noPlaceKeys (normalised) are members known to carry no place: text for
// the user, identifiers, time limits, flags, and the exec approval event's
// own members that name no file (codex-acp: available decisions, the hosts
// of a network approval; the server and tool of an MCP call it wraps).
var noPlaceKeys = map[string]bool{
	"description": true, "title": true, "reason": true, "justification": true, "explanation": true,
	"summary": true, "comment": true, "id": true, "callid": true, "turnid": true, "approvalid": true,
	"toolcallid": true, "isbackground": true, "runinbackground": true, "availabledecisions": true,
	"networkapprovalcontext": true, "proposednetworkpolicyamendments": true,
	"timeout": true, "timeoutms": true, "timeoutsec": true, "timeoutsecs": true, "timeoutseconds": true, "timeoutmillis": true,
}

// structuredNoPlace are the noPlaceKeys that carry no place as a list or
// an object too; any other is one only as text, a number or a flag (a
// description holding {cwd: ...} is read).
var structuredNoPlace = map[string]bool{"availabledecisions": true, "networkapprovalcontext": true, "proposednetworkpolicyamendments": true}

// scalar: v is no object and no list.
func scalar(v any) bool {
	switch v.(type) {
	case map[string]any, []any:
		return false
	}
	return true
}

// wrapperKeys (normalised) carry no place at the top level of rawInput:
// the server and tool of an MCP call codex-acp wraps ({server, tool,
// arguments}).
var wrapperKeys = map[string]bool{"server": true, "servername": true, "tool": true, "toolname": true}

// echoKeys (normalised) are members in which an agent repeats the command
// it runs, in its own words: codex-acp's parsed_cmd and the execpolicy
// amendment it proposes (a prefix of the argv).
var echoKeys = map[string]bool{"parsedcmd": true, "proposedexecpolicyamendment": true}

// wordMember: a member (normalised key) whose strings are read as words of
// the command: the command itself, an echo. A program, a shell and an
// argument list are judged whole by argvMember; an object under one is no
// list of words (red team 16: args {"0": cat, "1": X} beside "echo X
// cat" was read as two words the command holds).
func wordMember(nk string, execLike bool) bool {
	if programMember(nk) || slices.Contains(argsKeys, nk) {
		return false
	}
	return commandKeys[nk] || (execLike && (execCommandKeys[nk] || execCommandListKeys[nk])) || echoKeys[nk]
}

// besideCommand is the doubt a call that runs command (rawInput raw, the
// directory read cwd) gives by its other members, "" if none.
func besideCommand(raw json.RawMessage, command, cwd string, execLike bool) string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var top any
	if dec.Decode(&top) != nil {
		return ""
	}
	obj, ok := top.(map[string]any)
	if !ok {
		return ""
	}
	// the command's words, read once and only if a member needs them (a
	// command can be a long script).
	var words, echoWords map[string]bool
	readWords := func() {
		if words != nil {
			return
		}
		words = commandWords(command)
		// a command given as an argv: its words are the argv's too (an
		// argv [bash, -lc, SCRIPT] is read as SCRIPT; an echo may repeat
		// the argv).
		for k, v := range obj {
			if nk := keyNorm(k); commandKeys[nk] || (execLike && execCommandKeys[nk]) {
				if argv, ok := v.([]any); ok {
					if cmd, ok := commandFromInput(mustJSON(v)); ok && cmd == command {
						for _, a := range argv {
							if as, ok := a.(string); ok {
								words[as] = true
							}
						}
					}
				}
			}
		}
		// a shell's -c script (an argv [bash, -lc, S], a shell member
		// beside S): an echo may repeat S's words.
		if s, ok := shellScript(shellWords(command)); ok {
			maps.Copy(words, commandWords(s))
		}
		// an echo may name a word by its last element (codex's
		// parsed_cmd: {path: src/a.go, name: a.go}).
		echoWords = maps.Clone(words)
		for w := range words {
			echoWords[path.Base(w)] = true
		}
	}
	nodes := 0
	// walk reports the first value under at that could name a place.
	// inWords: its strings are read as words of the command; echo: it is
	// an agent's echo of the command; env: it is an environment (its PATH
	// is a search list).
	var walk func(v any, at string, inWords, echo, env bool, depth int) string
	walk = func(v any, at string, inWords, echo, env bool, depth int) string {
		nodes++
		if depth > maxCwdDepth || nodes > touchMaxNodes {
			return at + " (too deep or too large to read)"
		}
		switch x := v.(type) {
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(x)) {
				nk := keyNorm(k)
				switch {
				case noPlaceKeys[nk] && (scalar(x[k]) || structuredNoPlace[nk]), depth == 0 && wrapperKeys[nk]:
					continue
				case depth == 0 && slices.Contains(cwdKeys, nk):
					continue // the directory read
				case echo && nk == "type":
					continue // codex's parsed_cmd: {type: read, cmd, name, path}
				}
				if !echo {
					if d, handled := argvMember(nk, x[k], command); handled {
						if d != "" {
							return k + " (" + d + ")"
						}
						continue
					}
				}
				words := (inWords || wordMember(nk, execLike)) && !programMember(nk) && !slices.Contains(argsKeys, nk)
				if commandKeys[nk] || (execLike && execCommandKeys[nk]) {
					if cmd, ok := commandFromInput(mustJSON(x[k])); ok && cmd == command {
						continue // the command itself
					}
				}
				if execLike && execCommandListKeys[nk] {
					if l, ok := x[k].([]any); ok && len(l) == 1 && l[0] == any(command) {
						continue // the command itself, alone in its list
					}
				}
				child := k
				if at != "" {
					child = at + "." + k
				}
				if w := walk(x[k], child, words, echo || echoKeys[nk], slices.Contains(envKeys, nk), depth+1); w != "" {
					return w
				}
			}
		case []any:
			for i, e := range x {
				if w := walk(e, fmt.Sprintf("%s[%d]", at, i), inWords, echo, env, depth+1); w != "" {
					return w
				}
			}
		case string:
			s := strings.TrimSpace(x)
			switch {
			case s == "":
				return ""
			case cwd != "" && s == cwd && (!inWords || echo):
				// the directory read, repeated (an argument naming it is
				// still an argument the command text does not hold)
				return ""
			}
			if inWords {
				readWords()
				switch {
				case !echo && words[x]:
					return "" // one word of the command, as it is
				case echo && allWords(s, echoWords):
					return ""
				}
			}
			return fmt.Sprintf("%s (%q)", at, x)
		case json.Number:
			if inWords {
				if readWords(); !words[x.String()] {
					return fmt.Sprintf("%s (%s)", at, x)
				}
			}
		case bool:
			if inWords {
				if readWords(); !words[fmt.Sprint(x)] {
					return fmt.Sprintf("%s (%v)", at, x)
				}
			}
		}
		return ""
	}
	if w := walk(obj, "", false, false, false, 0); w != "" {
		return "the command's directory or arguments may be named at " + w + ", which this reader does not judge with the command"
	}
	return ""
}

// allWords: every word of s (split as a shell would, quotes removed) is
// one of words.
func allWords(s string, words map[string]bool) bool {
	ws := shellWords(s)
	if len(ws) == 0 {
		return false
	}
	for _, w := range ws {
		if !words[w] {
			return false
		}
	}
	return true
}

// commandWords is the set of the words of a command line.
func commandWords(command string) map[string]bool {
	out := map[string]bool{}
	for _, w := range shellWords(command) {
		out[w] = true
	}
	return out
}

// shellWords splits s into words at unquoted blanks, removing quotes
// ('...', "...", backslash). It is no shell parser: a word it reads wrong
// only fails to match (a doubt), never matches more.
func shellWords(s string) []string {
	var out []string
	var cur strings.Builder
	in := false
	quote := byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote == '\'':
			if c == '\'' {
				quote = 0
			} else {
				cur.WriteByte(c)
			}
		case quote == '"':
			switch {
			case c == '"':
				quote = 0
			case c == '\\' && i+1 < len(s) && strings.IndexByte("\\\"$`", s[i+1]) >= 0:
				i++
				cur.WriteByte(s[i])
			default:
				cur.WriteByte(c)
			}
		case c == '\'' || c == '"':
			quote, in = c, true
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			in = true
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if in {
		out = append(out, cur.String())
	}
	return out
}

// editorSubcommand: every command member at the top level of rawInput is
// a file tool's sub-command (gooseEditorCommands: view, write...), not a
// command line.
func editorSubcommand(raw json.RawMessage, execLike bool) bool {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return false
	}
	n := 0
	for k, v := range obj {
		if nk := keyNorm(k); commandKeys[nk] || (execLike && execCommandKeys[nk]) {
			s, ok := jsonString(v)
			if _, sub := gooseEditorCommands[s]; !ok || !sub {
				return false
			}
			n++
		}
	}
	return n > 0
}

// programMember: nk (normalised) names the program that runs the command:
// programKeys, and shell, the interpreter a tool runs the command with
// ({command: C, shell: S} runs S -c C: shellBeside).
func programMember(nk string) bool {
	return nk == "shell" || slices.Contains(programKeys, nk)
}

// argvMember judges a program or argument list beside a command, at any
// depth (red team 15b: {command: "echo rm -rf /ws/secret", program: rm,
// args: [-rf, /ws/secret]} was read as words the command holds, and a
// tool that runs program and args ran rm; red team 16: a program whose
// base name was the first word's, {command: "git status", program:
// /ws/evil/git}, was judged as git). A program (programMember) must be the
// command's first word byte for byte: a tool execs that path, and the
// policy judges a path program as that path. A shell member at the top
// level is the first word of the command it wraps (shellBeside); a
// boolean shell (Node's spawn option: /bin/sh -c the command, or the
// command run as a file) names no program. An argument list must be a
// JSON array of the command's words after its first, in order (null: no
// arguments); a string, number or boolean is a doubt. handled is false
// for any other member, and for an object (read as any member, its
// strings doubts unless they are the command itself); d says why a
// handled one is a doubt ("" when it is the command's own).
func argvMember(nk string, v any, command string) (d string, handled bool) {
	isProg, isArgs := programMember(nk), slices.Contains(argsKeys, nk)
	if !isProg && !isArgs {
		return "", false
	}
	switch v.(type) {
	case map[string]any:
		return "", false
	case bool:
		if nk == "shell" {
			return "", true
		}
	}
	if cmd, ok := commandFromInput(mustJSON(v)); ok && cmd == command {
		return "", true // the command itself (a shell alone, an argv)
	}
	argv := shellWords(command)
	switch {
	case isProg:
		p, ok := v.(string)
		if !ok || len(argv) == 0 || p != argv[0] {
			return "a program other than the command's first word", true
		}
	case isArgs:
		var l []any
		switch x := v.(type) {
		case nil:
		case []any:
			l = x
		default:
			return "arguments that are not a list of the command's words", true
		}
		if len(argv) == 0 || len(l) != len(argv)-1 {
			return "arguments other than the command's own", true
		}
		for i, e := range l {
			es, ok := e.(string)
			if n, isNum := e.(json.Number); isNum {
				es, ok = n.String(), true
			}
			if !ok || es != argv[i+1] {
				return "arguments other than the command's own", true
			}
		}
	}
	return "", true
}

// shellBeside is the interpreter a top-level shell member names beside a
// command member of rawInput (Desktop Commander's start_process: {command,
// shell, timeout_ms}; Node's spawn(command, {shell})): the tool runs
// [shell, -c, command], so the shell is the program judged (red team 16:
// {command: "echo /ws/evil.sh", shell: /ws/evil.sh} was judged as the
// echo). "" when there is none (a shell alone is the command itself).
func shellBeside(obj map[string]any, execLike bool) string {
	shell, other := "", false
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		nk := keyNorm(k)
		switch {
		case nk == "shell":
			if s, ok := obj[k].(string); ok && strings.TrimSpace(s) != "" && shell == "" {
				shell = s
			}
		case commandKeys[nk] || (execLike && (execCommandKeys[nk] || execCommandListKeys[nk])):
			other = true
		}
	}
	if !other {
		return ""
	}
	return shell
}

// withShell is command as the shell beside it in rawInput runs it.
func withShell(raw json.RawMessage, command string, execLike bool) string {
	var obj map[string]any
	if command == "" || json.Unmarshal(raw, &obj) != nil {
		return command
	}
	if sh := shellBeside(obj, execLike); sh != "" {
		return policy.ShellJoin(sh, []string{"-c", command})
	}
	return command
}
