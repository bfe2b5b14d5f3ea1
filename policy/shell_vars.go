package policy

import (
	"maps"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Variables: what the command sets, and where bash turns a variable's
// value into code (docs/policy.md, "What the static reading holds").
//
// The reader cannot see a variable's value, only where the command itself
// sets it. Three uses matter:
//   - bash evaluates a value as arithmetic in $(( )), (( )), let, [[ -eq ]],
//     array subscripts, slice offsets, test -v, printf -v, read, declare -n
//     and integer variables; an arithmetic value that names an array element
//     (`a[$(cmd)]`) runs cmd. So an arithmetic use of a variable is safe
//     only when the command itself gave it a plain number before the use;
//   - a few names change what later commands run or where paths point
//     (PATH, LD_PRELOAD, GIT_*, HOME, PWD, CDPATH, ...): setting them in
//     any way makes the command uncertain;
//   - other names passed to a command's environment (a prefix `X=1 cmd`,
//     `export X=1`, `env X=1 cmd`) make that command need a rule that names
//     them, unless they are in the small safe set (LANG, TZ, ...).

// varState is what the command does to one variable, over every piece of
// shell code it holds (eval, bash -c, functions).
type varState struct {
	assigned bool // set somewhere (any form)
	unsafe   bool // some assignment gives it a value that is not a plain number
	exported bool // passed to a program's environment (prefix, export, env)
}

// varTable is per analyzer: names set, names relied on, integer names.
type varTable struct {
	vars map[string]*varState
	// relied: names whose arithmetic use was judged safe; if the command
	// turns out to give one an unsafe value elsewhere, it is uncertain.
	relied map[string]bool
	// ints: names declared integer (declare -i): every assignment to them
	// is evaluated as arithmetic.
	ints map[string]bool
	// opaque: the command runs code that may set anything (source FILE).
	opaque bool
	// allExport: set -a (set -o allexport) exports every assignment.
	allExport bool
	// keyword: set -k may be on, and keywordWords are the names of the
	// NAME=V arguments it would put in a command's environment
	// (shell_vars_keyword.go).
	keyword      bool
	keywordWords []string
	// refs: namerefs (declare -n REF=TARGET) and their targets: a value
	// given to REF, or its export, is TARGET's (finishVars).
	refs map[string][]string
}

func (t *varTable) setEnv(name string) {
	t.set(name, false)
	t.vars[name].exported = true
}

func (t *varTable) set(name string, safe bool) {
	if t.vars == nil {
		t.vars = map[string]*varState{}
	}
	v := t.vars[name]
	if v == nil {
		v = &varState{}
		t.vars[name] = v
	}
	v.assigned = true
	if !safe {
		v.unsafe = true
	}
}

func isName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// plainVarRef: a name bash can take as a variable without evaluating
// anything: NAME, NAME[digits], NAME[@], NAME[*].
func plainVarRef(s string) bool {
	name, sub, ok := strings.Cut(s, "[")
	if !ok {
		return isName(s)
	}
	if !isName(name) || !strings.HasSuffix(sub, "]") {
		return false
	}
	sub = sub[:len(sub)-1]
	return sub == "@" || sub == "*" || (sub != "" && isDigits(sub))
}

// numericParams are parameters whose value is always a number.
var numericParams = map[string]bool{
	"#": true, "?": true, "$": true, "!": true, "RANDOM": true, "LINENO": true, "SECONDS": true,
	"EPOCHSECONDS": true, "BASHPID": true, "PPID": true, "UID": true, "EUID": true, "SRANDOM": true,
}

// numericParamExp: the expansion always yields a number: $#, $?, ${#x}.
func numericParamExp(p *syntax.ParamExp) bool {
	if p.Length && p.Index == nil {
		return true
	}
	return p.Param != nil && numericParams[p.Param.Value] && !p.Excl && p.Index == nil &&
		p.Exp == nil && p.Repl == nil && p.Slice == nil && p.NestedParam == nil
}

// numericWord: the word's value is a plain number (or empty).
func numericWord(w *syntax.Word) bool {
	if w == nil {
		return true
	}
	var ok func(parts []syntax.WordPart) bool
	ok = func(parts []syntax.WordPart) bool {
		for _, part := range parts {
			switch p := part.(type) {
			case *syntax.Lit:
				v := strings.TrimLeft(p.Value, "+-")
				if v != "" && !isDigits(v) {
					return false
				}
			case *syntax.SglQuoted:
				if v := strings.TrimLeft(p.Value, "+-"); p.Dollar || v != "" && !isDigits(v) {
					return false
				}
			case *syntax.DblQuoted:
				if !ok(p.Parts) {
					return false
				}
			case *syntax.ArithmExp:
				// its result is a number (its own inputs are checked where it is).
			case *syntax.ParamExp:
				if !numericParamExp(p) {
					return false
				}
			default:
				return false
			}
		}
		return true
	}
	return ok(w.Parts)
}

// staticLit returns the value of a word made only of literal text and
// quotes, or false.
func staticLit(w *syntax.Word) (string, bool) {
	if w == nil {
		return "", false
	}
	if len(w.Parts) == 1 {
		// one part of plain text: its text as it is, without a copy (the
		// common case; the loop below gives the same string).
		switch p := w.Parts[0].(type) {
		case *syntax.Lit:
			if strings.IndexByte(p.Value, '\\') < 0 {
				return p.Value, true
			}
		case *syntax.SglQuoted:
			if !p.Dollar {
				return p.Value, true
			}
		case *syntax.DblQuoted:
			if len(p.Parts) == 1 {
				if l, ok := p.Parts[0].(*syntax.Lit); ok {
					return l.Value, true
				}
			}
		}
	}
	var b strings.Builder
	for _, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			b.WriteString(strings.ReplaceAll(p.Value, "\\", ""))
		case *syntax.SglQuoted:
			if p.Dollar {
				b.WriteString(ansiC(p.Value))
			} else {
				b.WriteString(p.Value)
			}
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok {
					return "", false
				}
				b.WriteString(l.Value)
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// nameArgs are builtins that take variable names as arguments and set them
// (from input, so never a known number); the value says how to find them.
var nameArgs = map[string]bool{
	"read": true, "mapfile": true, "readarray": true, "getopts": true, "printf": true, "wait": true,
	"unset": true, "test": true, "[": true, "select": true,
}

// nameOperands returns the words of a call that bash takes as variable
// names, and whether each is set (false: only looked up, test -v).
func nameOperands(name string, args []*syntax.Word) (names []*syntax.Word, sets bool) {
	optVal := func(opts string, i int, s string) (skip int, isOpt bool) {
		if len(s) < 2 || s[0] != '-' {
			return 0, false
		}
		if s == "--" {
			return 1, true
		}
		for j := 1; j < len(s); j++ {
			if strings.IndexByte(opts, s[j]) >= 0 {
				if j == len(s)-1 {
					return 2, true // value in the next word
				}
				return 1, true // value attached
			}
		}
		return 1, true
	}
	switch name {
	case "read":
		// -a NAME is a name too; -d -i -n -N -p -t -u take values.
		for i := 0; i < len(args); {
			s, _ := staticLit(args[i])
			if s == "--" {
				names = append(names, args[i+1:]...)
				break
			}
			if strings.HasPrefix(s, "-") && len(s) > 1 {
				if strings.HasSuffix(s, "a") && i+1 < len(args) {
					names = append(names, args[i+1])
					i += 2
					continue
				}
				n, _ := optVal("dinNptu", i, s)
				i += n
				continue
			}
			names = append(names, args[i])
			i++
		}
		return names, true
	case "mapfile", "readarray":
		var last *syntax.Word
		for i := 0; i < len(args); {
			s, _ := staticLit(args[i])
			if strings.HasPrefix(s, "-") && len(s) > 1 {
				n, _ := optVal("dnOsuCc", i, s)
				i += n
				continue
			}
			last = args[i]
			i++
		}
		if last != nil {
			names = append(names, last)
		}
		return names, true
	case "getopts":
		if len(args) >= 2 {
			names = append(names, args[1])
		}
		return names, true
	case "printf", "wait":
		for i := 0; i < len(args); i++ {
			s, ok := staticLit(args[i])
			if !ok {
				// -v"$x": an option whose name is known only at run time.
				if len(args[i].Parts) == 0 {
					break
				}
				if l, isLit := args[i].Parts[0].(*syntax.Lit); isLit && strings.HasPrefix(l.Value, "-") {
					names = append(names, args[i])
				}
				break
			}
			if !strings.HasPrefix(s, "-") || s == "--" {
				break
			}
			want := "-v"
			if name == "wait" {
				want = "-p"
			}
			if s == want && i+1 < len(args) {
				names = append(names, args[i+1])
				i++
			} else if strings.HasPrefix(s, want) && len(s) > 2 {
				// -vNAME: the rest of the word is the name (its offset is
				// the option's, before any use).
				names = append(names, &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{ValuePos: args[i].Pos(), Value: s[2:]}}})
			}
		}
		return names, true
	case "unset":
		for _, w := range args {
			s, _ := staticLit(w)
			if s == "-f" {
				return nil, true
			}
			if strings.HasPrefix(s, "-") {
				continue
			}
			names = append(names, w)
		}
		return names, true
	case "test", "[":
		for i, w := range args {
			if s, _ := staticLit(w); s == "-v" && i+1 < len(args) {
				names = append(names, args[i+1])
			}
		}
		return names, false
	}
	return nil, false
}

// proxyAssign records the host a shell assignment of a proxy variable
// names (webhost_proxy.go): a later export, set -a, or the variable being
// exported already makes every program connect through it.
func (a *analyzer) proxyAssign(as *syntax.Assign, seen map[string]bool) {
	if as.Name != nil && as.Value != nil && !strings.HasSuffix(strings.ToLower(as.Name.Value), "no_proxy") {
		if v, ok := staticLit(as.Value); ok {
			a.an.assigned = append(a.an.assigned, v) // programs_hosts.go
		}
	}
	if as.Name == nil || !proxyVar(as.Name.Value) || as.Value == nil && as.Naked {
		return
	}
	seen[as.Name.Value] = true
	if v, ok := staticLit(as.Value); ok && as.Array == nil {
		a.an.proxies = append(a.an.proxies, v)
	} else {
		a.an.proxies = append(a.an.proxies, "$")
	}
}

// collectVars records every variable f sets and returns, per name, the
// offset of its first assignment in f.
func (a *analyzer) collectVars(f *syntax.File) map[string]int {
	first := map[string]int{}
	proxySeen := map[string]bool{}
	defer func() {
		// a proxy variable set another way (read, printf -v, for, a
		// declaration the parser saw as a call): its value is known only
		// at run time.
		for name := range first {
			if proxyVar(name) && !proxySeen[name] {
				a.an.proxies = append(a.an.proxies, "$")
			}
		}
	}()
	t := &a.vt
	mark := func(name string, off int, safe bool) {
		t.set(name, safe)

		if o, ok := first[name]; !ok || off < o {
			first[name] = off
		}
	}
	arithAssign := func(x syntax.ArithmExpr) {
		if w, ok := x.(*syntax.Word); ok {
			if s, ok := staticLit(w); ok && isName(s) {
				mark(s, int(w.Pos().Offset()), true)
			}
		}
	}
	a.runtimeNodes = false
	syntax.Walk(f, func(n syntax.Node) bool {
		if !a.runtimeNodes && runtimeCodeNode(n) {
			a.runtimeNodes = true
		}
		switch n := n.(type) {
		case *syntax.CallExpr:
			for _, as := range n.Assigns {
				// IFS= read -r X: the prefix is only for the builtin, but
				// its names are set like plain read's (red team 17b).
				if as.Name != nil && !prefixHarmless(n) {
					safe := as.Index == nil && as.Array == nil && numericWord(as.Value)
					mark(as.Name.Value, int(as.Pos().Offset()), safe)
					if len(n.Args) == 0 {
						a.proxyAssign(as, proxySeen)
					} else {
						proxySeen[as.Name.Value] = true // a prefix: read with its command (webhost_proxy.go)
					}
					if len(n.Args) > 0 {
						t.vars[as.Name.Value].exported = true
					}
				}
			}
			args := unwrapBuiltin(n.Args)
			if len(args) == 0 {
				break
			}
			cmd, ok := staticLit(args[0])
			if !ok {
				break
			}
			cmd = baseName(cmd)
			if cmd == "source" || cmd == "." {
				t.opaque = true
			}
			if cmd == "set" && setsAllExport(args[1:]) {
				t.allExport = true // set -a: every assignment is exported
			}
			if declBuiltins[cmd] {
				// command export PATH=., builtin declare ...: a declaration
				// the parser saw as a plain call.
				exported, ref := cmd == "export", false
				for _, w := range args[1:] {
					s, ok := staticLit(w)
					if !ok {
						a.setUncertain(cmd + " takes a name or assignment known only at run time")
						continue
					}
					if strings.HasPrefix(s, "-") && strings.ContainsRune(s, 'x') {
						exported = true
					}
					if strings.HasPrefix(s, "-") && strings.ContainsRune(s, 'n') {
						ref = true
					}
					if i := strings.IndexByte(s, '='); i > 0 {
						name := strings.TrimSuffix(s[:i], "+")
						mark(name, int(w.Pos().Offset()), false)
						if exported {
							t.vars[name].exported = true
						}
						if target, _, _ := strings.Cut(s[i+1:], "["); ref && isName(target) {
							mark(target, int(w.Pos().Offset()), false)
							t.nameref(name, target)
						} else if ref {
							a.setUncertain(cmd + " -n makes a reference to a name the reader cannot see")
						}
					} else if exported && isName(s) {
						t.export(s)
					} else if ref && isName(s) {
						a.setUncertain(cmd + " -n " + s + " makes a reference whose target the reader cannot see")
					}
				}
			}
			names, sets := nameOperands(cmd, args[1:])
			for _, w := range names {
				if s, ok := staticLit(w); ok && sets {
					name, _, _ := strings.Cut(s, "[")
					if isName(name) {
						mark(name, int(w.Pos().Offset()), false)
					}
				}
			}
			if cmd == "getopts" {
				mark("OPTARG", int(n.Pos().Offset()), false)
				mark("OPTIND", int(n.Pos().Offset()), false)
			}
		case *syntax.DeclClause:
			flags := declFlags(n)
			for _, as := range n.Args {
				if as.Name == nil {
					continue
				}
				if strings.ContainsRune(flags, 'i') {
					if t.ints == nil {
						t.ints = map[string]bool{}
					}
					t.ints[as.Name.Value] = true
				}
				if as.Naked && as.Value == nil && as.Array == nil {
					if strings.ContainsRune(flags, 'n') {
						// declare -n x: x's value, or the first value
						// given to it, names the target (shell_vars_export.go).
						a.setUncertain(n.Variant.Value + " -n " + as.Name.Value + " makes a reference whose target the reader cannot see")
					}
					// export X, local x: no new value (local x is empty);
					// export X and declare -x X export the value X has or
					// gets (X=v; export X; curl: red team 16b).
					if n.Variant.Value == "export" || strings.ContainsRune(flags, 'x') {
						t.export(as.Name.Value)
					}
					if n.Variant.Value == "local" || n.Variant.Value == "declare" || n.Variant.Value == "typeset" {
						mark(as.Name.Value, int(as.Pos().Offset()), true)
					}
					continue
				}
				mark(as.Name.Value, int(as.Pos().Offset()), as.Index == nil && as.Array == nil && numericWord(as.Value) && !strings.ContainsRune(flags, 'n'))
				a.proxyAssign(as, proxySeen)
				if strings.ContainsRune(flags, 'n') {
					// declare -n ref=PATH: assigning ref assigns PATH.
					if target, ok := staticLit(as.Value); ok {
						target, _, _ = strings.Cut(target, "[")
						if isName(target) {
							mark(target, int(as.Pos().Offset()), false)
							t.nameref(as.Name.Value, target)
						}
					}
				}
				if n.Variant.Value == "export" || strings.ContainsRune(flags, 'x') {
					t.vars[as.Name.Value].exported = true
				}
			}
		case *syntax.ForClause:
			if wi, ok := n.Loop.(*syntax.WordIter); ok && wi.Name != nil {
				safe := true
				for _, w := range wi.Items {
					s, ok := staticLit(w)
					if !ok || strings.Trim(s, "0123456789{}.,+-") != "" {
						safe = false
					}
				}
				if !wi.InPos.IsValid() {
					safe = false // for x; do: the positional parameters
				}
				mark(wi.Name.Value, int(wi.Name.Pos().Offset()), safe)
			}
		case *syntax.ParamExp:
			// ${X:=V} and ${X=V}, in any word (`: ${X:=V}`, "${X=V}"):
			// an assignment of X (red team 17b).
			if n.Exp != nil && (n.Exp.Op == syntax.AssignUnset || n.Exp.Op == syntax.AssignUnsetOrNull) && n.Param != nil {
				if n.Excl {
					a.setUncertain("${!" + n.Param.Value + ":=...} assigns a variable whose name the reader cannot see")
				} else if isName(n.Param.Value) {
					mark(n.Param.Value, int(n.Pos().Offset()), n.Index == nil && numericWord(n.Exp.Word))
				}
			}
		case *syntax.BinaryArithm:
			switch n.Op {
			case syntax.Assgn, syntax.AddAssgn, syntax.SubAssgn, syntax.MulAssgn, syntax.QuoAssgn, syntax.RemAssgn,
				syntax.AndAssgn, syntax.OrAssgn, syntax.XorAssgn, syntax.ShlAssgn, syntax.ShrAssgn:
				arithAssign(n.X)
			}
		case *syntax.UnaryArithm:
			if n.Op == syntax.Inc || n.Op == syntax.Dec {
				arithAssign(n.X)
			}
		}
		return true
	})
	return first
}

// runtimeCodeNode: n is a node checkRuntimeCode's walk acts on (or may:
// every for loop, every declaration builtin). It errs towards true.
func runtimeCodeNode(n syntax.Node) bool {
	switch n := n.(type) {
	case *syntax.ArithmExp, *syntax.ArithmCmd, *syntax.LetClause, *syntax.ForClause, *syntax.BinaryTest,
		*syntax.UnaryTest, *syntax.ParamExp, *syntax.DeclClause:
		return true
	case *syntax.Assign:
		return n.Index != nil
	case *syntax.CallExpr:
		args := unwrapBuiltin(n.Args)
		if len(args) == 0 {
			return false
		}
		cmd, ok := staticLit(args[0])
		if !ok {
			return false // checkRuntimeCode reads no call whose name is not literal
		}
		b := baseName(cmd)
		if declBuiltins[b] {
			return true
		}
		names, _ := nameOperands(b, args[1:])
		return len(names) > 0
	}
	return false
}

// quietBuiltins run no program and read no path through the environment:
// a prefix assignment to them (`IFS= read -r line`) changes only how they
// split their input. (Not the special builtins such as `:`, after which a
// POSIX shell keeps the assignment: `PATH=. :; ls` under dash.)
var quietBuiltins = map[string]bool{"read": true, "mapfile": true, "readarray": true, "printf": true,
	"echo": true, "test": true, "[": true, "true": true, "false": true}

// prefixHarmless: c is `NAME=value... builtin args` for a quiet builtin.
func prefixHarmless(c *syntax.CallExpr) bool {
	if len(c.Assigns) == 0 || len(c.Args) == 0 {
		return false
	}
	name, ok := staticLit(c.Args[0])
	return ok && quietBuiltins[name]
}

// declBuiltins declare variables.
var declBuiltins = map[string]bool{"export": true, "declare": true, "typeset": true, "local": true, "readonly": true}

// unwrapBuiltin skips `command [-p]` and `builtin` before a builtin's name.
func unwrapBuiltin(args []*syntax.Word) []*syntax.Word {
	for len(args) > 0 {
		s, ok := staticLit(args[0])
		if !ok || s != "command" && s != "builtin" {
			return args
		}
		args = args[1:]
		for len(args) > 0 {
			o, ok := staticLit(args[0])
			if !ok || !strings.HasPrefix(o, "-") || o == "-v" || o == "-V" {
				break
			}
			args = args[1:]
		}
	}
	return args
}

func baseName(s string) string {
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// declFlags returns the option letters of a declaration (declare -ix: "ix").
func declFlags(d *syntax.DeclClause) string {
	var b strings.Builder
	for _, as := range d.Args {
		if as.Naked && as.Name == nil && as.Value != nil {
			if s, ok := staticLit(as.Value); ok && len(s) > 1 && (s[0] == '-' || s[0] == '+') {
				b.WriteString(s[1:])
			}
		}
	}
	return b.String()
}

// checkRuntimeCode marks the command uncertain where bash would evaluate
// a value the reader cannot see as arithmetic or code.
func (a *analyzer) checkRuntimeCode(f *syntax.File, first map[string]int) {
	if !a.runtimeNodes {
		// collectVars, which walked the same tree just before (every
		// node), met no node the walk below acts on: no second walk.
		return
	}
	t := &a.vt
	nameSafe := func(name string, off int) bool {
		if numericParams[name] {
			return true
		}
		if fa, ok := first[name]; ok && fa < off {
			if v := t.vars[name]; v != nil && !v.unsafe {
				if t.relied == nil {
					t.relied = map[string]bool{}
				}
				t.relied[name] = true
				return true
			}
		}
		return false
	}
	var arith func(x syntax.ArithmExpr, why string)
	arith = func(x syntax.ArithmExpr, why string) {
		if isNilNode(x) || a.an.uncertain != "" {
			return
		}
		syntax.Walk(x, func(n syntax.Node) bool {
			switch n := n.(type) {
			case *syntax.BinaryArithm:
				if w, ok := n.X.(*syntax.Word); ok && n.Op == syntax.Assgn {
					if s, ok := staticLit(w); ok && isName(s) {
						// i=...: the target is set, not read.
						arith(n.Y, why)
						return false
					}
				}
			case *syntax.Word:
				a.arithWord(n.Parts, int(n.Pos().Offset()), why, nameSafe)
				return false
			case *syntax.ParamExp:
				a.arithPart(n, why, nameSafe)
				return false
			}
			return true
		})
	}
	checkName := func(w *syntax.Word, what string) {
		s, ok := staticLit(w)
		if !ok || !plainVarRef(s) {
			a.setUncertain(what + " takes a variable name known only at run time or with a subscript, which bash evaluates as code")
		}
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		if a.an.uncertain != "" {
			return false
		}
		switch n := n.(type) {
		case *syntax.ArithmExp:
			arith(n.X, "an arithmetic expansion")
		case *syntax.ArithmCmd:
			arith(n.X, "an (( )) command")
		case *syntax.LetClause:
			for _, x := range n.Exprs {
				arith(x, "let")
			}
		case *syntax.ForClause:
			if c, ok := n.Loop.(*syntax.CStyleLoop); ok {
				arith(c.Init, "a for (( )) loop")
				arith(c.Cond, "a for (( )) loop")
				arith(c.Post, "a for (( )) loop")
			}
		case *syntax.BinaryTest:
			switch n.Op {
			case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
				if w, ok := n.X.(*syntax.Word); ok {
					arith(w, "a [[ ]] arithmetic comparison")
				}
				if w, ok := n.Y.(*syntax.Word); ok {
					arith(w, "a [[ ]] arithmetic comparison")
				}
			}
		case *syntax.UnaryTest:
			if n.Op == syntax.TsVarSet {
				if w, ok := n.X.(*syntax.Word); ok {
					checkName(w, "[[ -v ]]")
				}
			}
		case *syntax.ParamExp:
			a.paramCode(n, arith)
		case *syntax.Assign:
			if n.Index != nil {
				arith(n.Index, "an array subscript")
			}
		case *syntax.DeclClause:
			flags := declFlags(n)
			for _, as := range n.Args {
				if as.Naked && as.Name == nil && as.Value != nil {
					if s, ok := staticLit(as.Value); !ok || !(strings.HasPrefix(s, "-") || strings.HasPrefix(s, "+") || plainVarRef(s)) {
						a.setUncertain(n.Variant.Value + " takes a name or assignment known only at run time, which bash evaluates as code")
					}
				}
				if strings.ContainsRune(flags, 'n') && as.Name != nil && as.Value != nil {
					if s, ok := staticLit(as.Value); !ok || !plainVarRef(s) {
						a.setUncertain(n.Variant.Value + " -n makes a reference to a name known only at run time, which bash evaluates as code")
					}
				}
			}
		case *syntax.CallExpr:
			args := unwrapBuiltin(n.Args)
			if len(args) == 0 {
				break
			}
			cmd, ok := staticLit(args[0])
			if !ok {
				break
			}
			if declBuiltins[baseName(cmd)] {
				for _, w := range args[1:] {
					if s, ok := staticLit(w); ok && !strings.HasPrefix(s, "-") {
						name, _, _ := strings.Cut(s, "=")
						if !plainVarRef(strings.TrimSuffix(name, "+")) {
							a.setUncertain(cmd + " takes a name with a subscript, which bash evaluates as code")
						}
					}
				}
			}
			names, _ := nameOperands(baseName(cmd), args[1:])
			for _, w := range names {
				checkName(w, baseName(cmd))
			}
		}
		return true
	})
}

// arithWord checks the parts of a word bash evaluates as arithmetic: in its
// literal text (quoted or not: `let 'y = x + 1'`) every variable name must
// hold a known number, and a $ or ` in literal text (which arithmetic
// expands again) is uncertain.
func (a *analyzer) arithWord(parts []syntax.WordPart, off int, why string, nameSafe func(string, int) bool) {
	text := func(s string) {
		if strings.ContainsAny(s, "$`") {
			a.setUncertain(why + " evaluates text holding an expansion")
			return
		}
		for i := 0; i < len(s); {
			c := s[i]
			switch {
			case c >= '0' && c <= '9':
				for i < len(s) && (isNameByte(s[i]) || s[i] == '#' || s[i] == '@') {
					i++
				}
			case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
				j := i
				for j < len(s) && isNameByte(s[j]) {
					j++
				}
				if name := s[i:j]; !nameSafe(name, off) {
					a.setUncertain(why + " evaluates the variable " + name + ", whose value the command does not set to a number (a value like a[$(cmd)] runs cmd)")
					return
				}
				i = j
			default:
				i++
			}
		}
	}
	for _, part := range parts {
		switch p := part.(type) {
		case *syntax.Lit:
			text(p.Value)
		case *syntax.SglQuoted:
			if p.Dollar {
				text(ansiC(p.Value))
			} else {
				text(p.Value)
			}
		case *syntax.DblQuoted:
			a.arithWord(p.Parts, off, why, nameSafe)
		default:
			a.arithPart(part, why, nameSafe)
		}
	}
}

func isNameByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// arithPart checks one part of a word bash evaluates as arithmetic.
func (a *analyzer) arithPart(part syntax.WordPart, why string, nameSafe func(string, int) bool) {
	switch p := part.(type) {
	case *syntax.Lit:
		// literal text joined to an expansion ("1$x"): the expansion decides.
	case *syntax.SglQuoted:
	case *syntax.DblQuoted:
		for _, q := range p.Parts {
			a.arithPart(q, why, nameSafe)
		}
	case *syntax.ArithmExp:
		// checked on its own.
	case *syntax.ParamExp:
		if numericParamExp(p) {
			return
		}
		simple := p.Param != nil && !p.Excl && p.Exp == nil && p.Repl == nil && p.Slice == nil &&
			p.NestedParam == nil && !p.Length && !p.Width && !p.IsSet && len(p.Modifiers) == 0
		if simple && p.Index == nil && isName(p.Param.Value) && nameSafe(p.Param.Value, int(p.Pos().Offset())) {
			return
		}
		if simple && p.Index != nil && isName(p.Param.Value) && nameSafe(p.Param.Value, int(p.Pos().Offset())) {
			return // the subscript is checked as a ParamExp of its own
		}
		a.setUncertain(why + " evaluates the value of " + a.source(p) + ", which the reader cannot see (a value like a[$(cmd)] runs cmd)")
	default: // $( ), ` `: their output is evaluated as arithmetic.
		a.setUncertain(why + " evaluates the output of a substitution as arithmetic (an output like a[$(cmd)] runs cmd)")
	}
}

// paramCode checks the parts of a parameter expansion bash evaluates:
// subscripts and slice offsets (arithmetic), indirection and @P.
func (a *analyzer) paramCode(p *syntax.ParamExp, arith func(syntax.ArithmExpr, string)) {
	if p.Excl && p.Names == 0 {
		// ${!x}: the value of x names the variable to expand, and a name
		// like a[$(cmd)] runs cmd. ${!a[@]} lists keys and is fine.
		if w, ok := p.Index.(*syntax.Word); !ok || !isAllIndex(w) {
			a.setUncertain("an indirect expansion " + a.source(p) + " expands a name known only at run time")
			return
		}
	}
	if p.Exp != nil && p.Exp.Op == syntax.OtherParamOps {
		if s, _ := staticLit(p.Exp.Word); s == "P" {
			a.setUncertain(a.source(p) + " expands a value like a prompt, which runs its $( )")
			return
		}
	}
	if p.Index != nil {
		if w, ok := p.Index.(*syntax.Word); !ok || !isAllIndex(w) {
			arith(p.Index, "an array subscript")
		}
	}
	if p.Slice != nil {
		arith(p.Slice.Offset, "a ${x:offset:length} slice")
		arith(p.Slice.Length, "a ${x:offset:length} slice")
	}
}

func isAllIndex(w *syntax.Word) bool {
	s, ok := staticLit(w)
	return ok && (s == "@" || s == "*")
}

// finishVars marks the command uncertain for what the whole command does
// to variables, once every piece of it has been read.
// Names are visited in order, so the reason names the same variable every
// time (a map's order would change it from one call to the next).
func (a *analyzer) finishVars() {
	t := &a.vt
	a.finishKeyword()
	t.followRefs()
	for _, name := range sortedKeys(t.vars) {
		if v := t.vars[name]; v.assigned && (shellVarDangerous(name) || (v.exported || t.allExport) && envDangerous(name)) {
			a.setUncertain("the command sets " + name + ", which changes what programs run or where paths point")
			return
		}
	}
	for _, name := range sortedKeys(t.relied) {
		if v := t.vars[name]; v != nil && v.unsafe {
			a.setUncertain("arithmetic evaluates the variable " + name + ", which the command also sets to a value the reader cannot see")
			return
		}
		if t.opaque {
			a.setUncertain("arithmetic evaluates the variable " + name + ", which a sourced file may set")
			return
		}
	}
	for _, name := range sortedKeys(t.ints) {
		if v := t.vars[name]; v != nil && v.unsafe {
			a.setUncertain("the integer variable " + name + " is given a value bash evaluates as arithmetic")
			return
		}
	}
}

// sortedKeys are m's keys in order (nil for an empty map).
func sortedKeys[V any](m map[string]V) []string {
	if len(m) == 0 {
		return nil
	}
	return slices.Sorted(maps.Keys(m))
}
