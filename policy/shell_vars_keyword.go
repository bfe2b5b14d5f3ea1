package policy

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Shell options that move assignments into a program's environment where
// the reader would not see one (red team 17, docs/policy.md, "Environment
// that changes what runs"):
//   - keyword (set -k, set -o keyword, bash -k, shopt -so keyword): every
//     NAME=VALUE word of a command, not only those in front of it, is put
//     in the command's environment and removed from its arguments, so
//     `set -k; ls LD_PRELOAD=./evil.so` runs ls with LD_PRELOAD set;
//   - allexport (set -a, bash -a, sh -ac, shopt -so allexport): every
//     assignment is exported (varTable.allExport, shell_vars_export.go).
//
// Options turned on anywhere in the command (in a nested bash -c, a
// function, eval) count for the whole command: the reader does not follow
// the order in which they run. An option set by a word known only at run
// time (set "$x", shopt -so "$o") may be either.

// shellOptsOn is what a set, shopt or shell invocation may turn on.
type shellOptsOn struct{ keyword, allExport bool }

// setOptions reads set's arguments (or a shell's options before -c or its
// script): -k, -a, clusters (-ek), -o NAME, +k turns off. A word
// known only at run time may be any option. Options stop at --, at - and at
// the first word that is not an option (the positional parameters).
func setOptions(args []word) shellOptsOn {
	var on shellOptsOn
	for i := 0; i < len(args); i++ {
		w := args[i]
		if !w.static {
			return shellOptsOn{true, true}
		}
		s := w.s
		if s == "--" || s == "-" || len(s) < 2 || s[0] != '-' && s[0] != '+' {
			break
		}
		if strings.HasPrefix(s, "--") {
			// a shell's long options (bash --norc -k); --rcfile and
			// --init-file take a file.
			if s == "--rcfile" || s == "--init-file" {
				i++
			}
			continue
		}
		turnsOn := s[0] == '-'
		for _, c := range s[1:] {
			switch c {
			case 'k':
				on.keyword = on.keyword || turnsOn
			case 'a':
				on.allExport = on.allExport || turnsOn
			case 'O':
				i++ // a shell's -O/+O SHOPT_NAME (bash -O extglob -k)
			case 'o':
				if i+1 >= len(args) {
					continue
				}
				i++
				o := args[i]
				if !o.static {
					return shellOptsOn{true, true}
				}
				on.keyword = on.keyword || turnsOn && optName(o.s) == "keyword"
				on.allExport = on.allExport || turnsOn && optName(o.s) == "allexport"
			}
		}
	}
	return on
}

// shoptOptions reads shopt's arguments: with -o, the names are set -o
// options, and -s turns them on (shopt -so keyword, shopt -o -s allexport).
func shoptOptions(args []word) shellOptsOn {
	setO, turnOn := false, false
	var names []word
	for i, w := range args {
		if !w.static {
			return shellOptsOn{true, true}
		}
		if w.s == "--" {
			names = append(names, args[i+1:]...)
			break
		}
		if len(w.s) > 1 && w.s[0] == '-' && len(names) == 0 {
			setO = setO || strings.ContainsRune(w.s, 'o')
			turnOn = turnOn || strings.ContainsRune(w.s, 's')
			continue
		}
		names = append(names, w)
	}
	var on shellOptsOn
	if !setO || !turnOn {
		return on
	}
	for _, n := range names {
		if !n.static {
			return shellOptsOn{true, true}
		}
		on.keyword = on.keyword || n.s == "keyword"
		on.allExport = on.allExport || n.s == "allexport"
	}
	return on
}

// optName: an option's name as zsh compares it (ALL_EXPORT, AllExport and
// allexport are one); bash's names are lower case already.
func optName(s string) string {
	return strings.ToLower(strings.ReplaceAll(s, "_", ""))
}

// zshSetopt reads zsh's setopt NAME... (unsetopt: unset is true): a name
// with "no" in front turns the option off, and so on the other way.
func zshSetopt(unset bool, args []word) shellOptsOn {
	var on shellOptsOn
	for _, w := range args {
		if !w.static {
			return shellOptsOn{true, true}
		}
		n := optName(w.s)
		if unset {
			n = "no" + n
		}
		n = strings.TrimPrefix(n, "nono")
		on.allExport = on.allExport || n == "allexport"
		on.keyword = on.keyword || n == "keyword"
	}
	return on
}

// turnOn records options a command may turn on.
func (t *varTable) turnOn(on shellOptsOn) {
	t.keyword = t.keyword || on.keyword
	t.allExport = t.allExport || on.allExport
}

// noteShellOptions records the options set and shopt turn on, and the
// words of a command that are assignments under keyword (kept until the
// end: set -k may come after them in the line, in a function called later).
func (a *analyzer) noteShellOptions(base string, args []word) {
	switch base {
	case "set":
		a.vt.turnOn(setOptions(args))
	case "shopt":
		a.vt.turnOn(shoptOptions(args))
	case "setopt", "unsetopt":
		a.vt.turnOn(zshSetopt(base == "unsetopt", args))
	}
	for _, w := range args {
		// the word's source text: an assignment is recognised before
		// expansion (LD_PRELOAD=$x is one); a quoted name is not one, but
		// the reader counts it too.
		if name, ok := keywordAssignName(w.s); ok {
			a.vt.keywordWords = append(a.vt.keywordWords, name)
		}
	}
}

// finishKeyword: under keyword, an argument NAME=VALUE of any command is an
// assignment to that command's environment. A name outside the safe set is
// a doubt: the rule that matched the command did not name it.
func (a *analyzer) finishKeyword() {
	t := &a.vt
	if !t.keyword {
		return
	}
	for _, name := range t.keywordWords {
		if !envSafe(name) {
			a.setUncertain("under set -k (keyword) the argument " + name + "=... is an assignment in the command's environment, which the rule did not name")
			return
		}
	}
}

// keywordAssignName: s has the shape of an assignment word, NAME=V,
// NAME+=V or NAME[I]=V; it returns NAME.
func keywordAssignName(s string) (string, bool) {
	i := strings.IndexByte(s, '=')
	if i <= 0 {
		return "", false
	}
	name := strings.TrimSuffix(s[:i], "+")
	if j := strings.IndexByte(name, '['); j > 0 && strings.HasSuffix(name, "]") {
		name = name[:j]
	}
	return name, isName(name)
}

// coprocAssigns gives back the assignments the parser takes as words in
// `coproc NAME=V CMD` (mvdan.cc/sh reads the first word after coproc as
// a possible coprocess name, and keeps NAME=V as the command's first
// argument): bash puts them in CMD's environment, as in front of any
// command (red team 17: coproc WGETRC=rc wget URL). They move to the
// command's assignments, where every reader sees them. f is the caller's
// fresh parse.
func coprocAssigns(f *syntax.File) {
	syntax.Walk(f, func(n syntax.Node) bool {
		cp, ok := n.(*syntax.CoprocClause)
		if !ok || cp.Stmt == nil {
			return true
		}
		call, ok := cp.Stmt.Cmd.(*syntax.CallExpr)
		if !ok {
			return true
		}
		var lead []*syntax.Assign
		for len(call.Args) > 0 {
			as := assignOfWord(call.Args[0])
			if as == nil {
				break
			}
			lead = append(lead, as)
			call.Args = call.Args[1:]
		}
		if len(lead) > 0 {
			call.Assigns = append(lead, call.Assigns...)
		}
		return true
	})
}

// assignOfWord: the assignment a word NAME=V (or NAME+=V) stands for, or
// nil. The name must be unquoted text, as bash wants it.
func assignOfWord(w *syntax.Word) *syntax.Assign {
	if len(w.Parts) == 0 {
		return nil
	}
	lit, ok := w.Parts[0].(*syntax.Lit)
	if !ok {
		return nil
	}
	i := strings.IndexByte(lit.Value, '=')
	if i <= 0 {
		return nil
	}
	name, appendOp := lit.Value[:i], false
	if strings.HasSuffix(name, "+") {
		name, appendOp = name[:len(name)-1], true
	}
	if !isName(name) {
		return nil
	}
	at := func(k int) syntax.Pos { // the position k bytes into the text
		p := lit.ValuePos
		return syntax.NewPos(p.Offset()+uint(k), p.Line(), p.Col()+uint(k))
	}
	rest := &syntax.Lit{ValuePos: at(i + 1), ValueEnd: lit.ValueEnd, Value: lit.Value[i+1:]}
	val := &syntax.Word{Parts: append([]syntax.WordPart{rest}, w.Parts[1:]...)}
	return &syntax.Assign{Append: appendOp, Name: &syntax.Lit{ValuePos: lit.ValuePos, ValueEnd: at(len(name)), Value: name}, Value: val}
}

// keywordAlts: the command's text without its NAME=V arguments, as bash
// runs it under keyword (under its name and, for a path, its base name);
// none when it has no such argument.
func keywordAlts(cmd, base string, args []word) []string {
	var kept []word
	for i, w := range args {
		if _, ok := keywordAssignName(w.s); ok {
			if kept == nil {
				kept = append(make([]word, 0, len(args)), args[:i]...)
			}
			continue
		}
		if kept != nil {
			kept = append(kept, w)
		}
	}
	if kept == nil {
		return nil
	}
	if base != cmd {
		return []string{joinNamed(cmd, kept), joinNamed(base, kept)}
	}
	return []string{joinNamed(cmd, kept)}
}
