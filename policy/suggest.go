package policy

import (
	"path"
	"strings"
)

// Specifier renders a call the way a rule would name it: Bash(npm run
// build), Edit(/abs/path), WebFetch(domain:example.com), mcp__s__t.
func Specifier(call Call) string {
	tool := canonicalTool(call.Tool)
	switch tool {
	case "":
		if call.Title != "" {
			return "unknown(" + call.Title + ")"
		}
		return "unknown"
	case "Bash":
		return "Bash(" + strings.TrimSpace(call.Command) + ")"
	case "WebFetch":
		if h := hostOf(call.URL); h != "" {
			return "WebFetch(domain:" + h + ")"
		}
		return "WebFetch(" + call.URL + ")"
	case "WebSearch":
		if call.Query != "" {
			return "WebSearch(" + call.Query + ")"
		}
		return "WebSearch"
	}
	if len(call.Paths) > 0 {
		return tool + "(" + strings.Join(call.Paths, ", ") + ")"
	}
	if call.Command != "" {
		return tool + "(" + strings.TrimSpace(call.Command) + ")"
	}
	if call.URL != "" {
		return tool + "(" + call.URL + ")"
	}
	return tool
}

// Grants keep quoting (docs/policy.md, "Grants keep quoting"). A rule made
// from a command the person saw (an "Allow for this session" grant, an
// "Always allow" suggestion) names that command literally: a * or ? that
// was quoted in the command (curl -s 'https://x/?fields=*') must not turn
// into a wildcard in the rule. The Bash rule grammar escapes with a
// backslash: \* is a literal *, \\ a backslash, \' and \" quotes, and a
// backslash before a blank keeps it inside the word.

// BashLiteral renders the normalised text of a command (words joined by
// one blank, as the shell reader builds sub-command texts) as a Bash rule
// specifier that matches exactly that text: every character the pattern
// lexer would read as a wildcard, quote, escape or word break is escaped.
func BashLiteral(text string) string {
	var b strings.Builder
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c == '*' || c == '\\' || c == '\'' || c == '"' || c == '\t' || c == '\n' || c == '\r':
			b.WriteByte('\\')
		case c == ' ' && (i == 0 || i == len(text)-1 || text[i-1] == ' '):
			// a leading, trailing or repeated blank is part of a word
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	return b.String()
}

// pathLiteral escapes the glob characters of an absolute path for a
// Read/Edit rule that names exactly that file.
func pathLiteral(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if strings.IndexByte("*?[\\", p[i]) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(p[i])
	}
	return b.String()
}

// bashRuleOfCommand is the literal Bash rule of a whole command line as
// typed (quotes read as the pattern lexer reads them, every * literal);
// "" when it cannot be lexed.
func bashRuleOfCommand(cmd string) string {
	g, err := normalizePattern(cmd)
	if err != nil || g == "" {
		return ""
	}
	return "Bash(" + BashLiteral(strings.ReplaceAll(g, string(wild), "*")) + ")"
}

// nameRule: a rule naming a tool by name; "" for a name that a rule would
// read as a pattern or could not hold.
func nameRule(tool string) string {
	if strings.ContainsAny(tool, "*()\\ \t\r\n") {
		return ""
	}
	return tool
}

// noBroadening: commands for which a wildcard suggestion would hand out
// far more than the person approved.
var noBroadening = map[string]bool{
	"rm": true, "rmdir": true, "sudo": true, "doas": true, "su": true, "dd": true, "chmod": true,
	"chown": true, "bash": true, "sh": true, "zsh": true, "dash": true, "eval": true, "exec": true,
	"xargs": true, "env": true, "kill": true, "pkill": true, "killall": true, "curl": true,
	"wget": true, "ssh": true, "scp": true, "mv": true, "cp": true, "find": true, "python": true,
	"python3": true, "node": true, "perl": true, "ruby": true, "git": false, "source": true, ".": true,
}

// SuggestRules proposes rules for the "Always allow" / "Always deny"
// options: the exact rule first, then a broader one when it is safe to
// offer. For a compound command, the rules for its sub-commands.
// Paths are suggested absolute (//), since a rule may be stored in a
// settings layer whose "/" anchor is another directory.
func SuggestRules(call Call, env Env) []string {
	e := newEnvxFor(call, env)
	return suggestRules(call, &e, nil)
}

// suggestRules is SuggestRules in the environment e; an is the analysis of
// the call's command as given (what Evaluate read: blanks around a command
// can matter to the shell, e.g. a trailing backslash-newline) when the
// caller has it (nil: read it here). Only the whole-command rule of a call
// with no sub-command to name is written from the trimmed text.
func suggestRules(call Call, e *envx, an *shellAnalysis) []string {
	var out []string
	seen := map[string]bool{}
	add := func(r string) {
		if r != "" && !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	tool := canonicalTool(call.Tool)
	switch {
	case isShellCall(call):
		cmd := strings.TrimSpace(call.Command)
		if an == nil {
			an = analyzeShell(call.Command, e)
		}
		var subs []*subCmd
		for i := range an.subs {
			sc := &an.subs[i]
			if sc.kind == skGate || sc.kind == skProbe || sc.dynamic {
				continue
			}
			if sc.readOnly && len(sc.writes) == 0 && len(an.subs) > 1 {
				continue // needs no rule
			}
			subs = append(subs, sc)
		}
		if an.uncertain != "" {
			return nil // no rule can allow a command that cannot be checked
		}
		if len(subs) == 0 {
			add(bashRuleOfCommand(cmd))
			return out
		}
		for _, sc := range subs {
			add("Bash(" + grantLiteral(sc) + ")")
		}
		for _, sc := range subs {
			if len(sc.optDanger) > 0 {
				continue // a prefix rule would not cover its options (shell_options.go)
			}
			add(broaderBash(sc.text))
		}
	case tool == "Read" || tool == "Edit" || categorize(&call) == catRead || categorize(&call) == catWrite:
		rt := "Read"
		if tool == "Edit" || categorize(&call) == catWrite {
			rt = "Edit"
		}
		var dirs []string
		for _, p := range call.Paths {
			if e.callRef(p, false).unknown {
				return nil // relative to a directory that cannot be known
			}
			abs := canonPath(p, e.callCwd, e.home)
			add(rt + "(/" + pathLiteral(abs) + ")")
			dirs = append(dirs, path.Dir(abs))
		}
		for _, d := range dirs {
			if d == "/" || d == e.home {
				continue // never suggest a whole-disk or whole-home rule
			}
			add(rt + "(/" + pathLiteral(d) + "/**)")
		}
	case tool == "WebFetch":
		h := hostOf(call.URL)
		if h == "" {
			return nil
		}
		add("WebFetch(domain:" + h + ")")
		if parts := strings.Split(h, "."); len(parts) >= 3 {
			add("WebFetch(domain:*." + strings.Join(parts[1:], ".") + ")")
		}
	case strings.HasPrefix(tool, "mcp__"):
		if nameRule(tool) == "" {
			return nil
		}
		add(tool)
		if p := mcpServerPrefix(tool); p+"*" != tool && strings.Count(tool, "__") >= 2 {
			add(p + "*")
		}
	case tool == "":
		return nil
	default:
		add(nameRule(tool))
	}
	return out
}

// broaderBash: "npm run build" -> "Bash(npm run *)"; "make test" ->
// "Bash(make *)". "" when broadening would be unsafe or pointless.
func broaderBash(text string) string {
	ws := strings.Split(text, " ")
	if len(ws) < 2 || noBroadening[ws[0]] {
		return ""
	}
	keep := 1
	if len(ws) >= 3 && !strings.HasPrefix(ws[1], "-") {
		keep = 2
	}
	return "Bash(" + BashLiteral(strings.Join(ws[:keep], " ")) + " *)"
}

// SessionGrantRules are the rules an "Allow for this session" of call
// grants when the person did not edit the rule: the call as it was asked,
// so the identical call is allowed next time and nothing else is. For a
// shell command that is a Bash rule per sub-command and an Edit (Read) rule
// per file a redirect writes (reads), absolute: `echo hi > out.txt` grants
// Bash(echo hi) and Edit(//<cwd>/out.txt), which cover that command again but
// not a redirect to another file. Glob characters in a command or a path
// are escaped (BashLiteral, pathLiteral): the rule names that command and
// that file only. Any part that cannot be checked gives no rule for the
// whole call (nil): the person is asked again. Protected files and circuit breakers ask whatever
// a grant says (the engine checks them first).
func SessionGrantRules(call Call, env Env) []string {
	e := newEnvxFor(call, env)
	if !isShellCall(call) {
		return sessionGrantOf(call, &e, nil, suggestRules(call, &e, nil))
	}
	return sessionGrantOf(call, &e, nil, nil)
}

// isShellCall: the call is read as a shell command (Evaluate's bash, the
// suggestions' and grants' Bash rules).
func isShellCall(call Call) bool {
	return canonicalTool(call.Tool) == "Bash" || (call.Command != "" && categorize(&call) == catExec)
}

// sessionGrantOf is SessionGrantRules in the environment e. For a shell
// call, an is the analysis of the command when the caller has it
// (nil: read it here; the command as given, as Evaluate reads it); for any other call, suggested is SuggestRules'
// answer (the grant is its first rule).
func sessionGrantOf(call Call, e *envx, an *shellAnalysis, suggested []string) []string {
	if !isShellCall(call) {
		if len(suggested) > 0 {
			return suggested[:1:1]
		}
		return nil
	}
	cmd := strings.TrimSpace(call.Command)
	if an == nil {
		an = analyzeShell(call.Command, e)
	}
	if an.uncertain != "" {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	add := func(r string) {
		if !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	for i := range an.subs {
		sc := &an.subs[i]
		if sc.kind == skGate || sc.kind == skProbe {
			continue
		}
		if sc.dynamic {
			return nil
		}
		add("Bash(" + grantLiteral(sc) + ")")
	}
	paths := func(list string, refs []pathRef) bool {
		for j := range refs {
			if refs[j].unknown {
				return false
			}
			abs := e.infoRef(&refs[j]).abs
			if abs == "" {
				return false
			}
			add(list + "(/" + pathLiteral(abs) + ")")
		}
		return true
	}
	if !paths("Edit", an.redirWrites) || !paths("Read", an.redirReads) {
		return nil
	}
	if len(out) == 0 {
		r := bashRuleOfCommand(cmd)
		if r == "" {
			return nil
		}
		add(r)
	}
	return out
}
