package policy

import "strings"

// A shell whose script operand is a process substitution (docs/policy.md,
// "A shell reading its script from a process substitution"): `bash <(CMD)`
// runs what CMD prints, as `source <(CMD)` does. CMD's own commands are
// judged where the walk meets the substitution; here the call is uncertain
// (the script is known only at run time: ask), and when CMD only prints
// literal text (echo, printf), that text is read as the shell code it is,
// so its commands meet deny rules and breakers.

// procSubstText returns the command text of a process substitution word
// (`<(CMD)`, zsh's `=(CMD)`, `>(CMD)`), or false.
func procSubstText(w word) (string, bool) {
	if w.static {
		return "", false
	}
	s := w.s
	for _, p := range []string{"<(", "=(", ">("} {
		if strings.HasPrefix(s, p) && strings.HasSuffix(s, ")") {
			return s[len(p) : len(s)-1], true
		}
	}
	return "", false
}

// shellScriptSubst handles a shell's script operand that is a process
// substitution. It returns true when it recorded the call.
func (a *analyzer) shellScriptSubst(base string, w word, text string, alts []string, ctx walkCtx) bool {
	inner, ok := procSubstText(w)
	if !ok {
		return false
	}
	a.addSub(subCmd{text: text, alts: alts, kind: skGate}, ctx)
	a.setUncertain("`" + base + "` runs a script read from a process substitution, known only at run time")
	a.printedCode(inner, ctx)
	return true
}

// printedCode reads what a command that only prints literal text prints
// (echo ARGS, printf FORMAT) as shell code; the naive pieces of the
// command text meet deny rules too.
func (a *analyzer) printedCode(src string, ctx walkCtx) {
	a.naiveSplit(src)
	if ctx.depth >= maxDepth || strings.ContainsAny(src, ";&|`\n") {
		return
	}
	ws := lexWords(src)
	if len(ws) < 2 || ws[0] != "echo" && ws[0] != "printf" {
		return
	}
	args := ws[1:]
	for len(args) > 0 && strings.HasPrefix(args[0], "-") && len(args[0]) > 1 {
		args = args[1:]
	}
	code := strings.Join(args, " ")
	if ws[0] == "printf" || strings.Contains(src, "-e") {
		code = strings.NewReplacer(`\n`, "\n", `\t`, "\t").Replace(code)
	}
	if strings.TrimSpace(code) == "" {
		return
	}
	inner := ctx
	inner.depth++
	inner.gate = true
	cwd, known := a.cwd, a.cwdKnown
	a.parseAndVisitLenient(code, inner)
	a.cwd, a.cwdKnown = cwd, known
}
