package policy

import (
	"fmt"
	"path"
	"reflect"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// The AST walk: statements, redirects, words and their expansions.

func (a *analyzer) visitStmts(stmts []*syntax.Stmt, ctx walkCtx) {
	for _, s := range stmts {
		a.visitStmt(s, ctx)
	}
}

func (a *analyzer) visitStmt(s *syntax.Stmt, ctx walkCtx) {
	if s == nil {
		return
	}
	ctx.depth++
	if ctx.depth > maxDepth {
		a.setUncertain("the command is nested too deeply")
		return
	}
	if len(a.an.subs) >= maxSubCommands {
		a.setUncertain("the command has too many sub-commands")
		return
	}
	if s.Background {
		ctx.bg = true
	}
	for _, r := range s.Redirs {
		a.redirect(r, ctx)
	}
	if s.Cmd == nil {
		return
	}
	// Standard input flows into every command inside a compound one, a
	// function body and what follows `exec < F` (shell_stdin.go).
	a.execStdinInto(&ctx)
	a.stmtStdin(s, &ctx)
	switch c := s.Cmd.(type) {
	case *syntax.CallExpr:
		a.execStdinSet(s, c, ctx)
		a.callFunction(c, ctx)
		a.callExpr(c, ctx)
	case *syntax.BinaryCmd:
		sub := ctx
		if c.Op == syntax.Pipe || c.Op == syntax.PipeAll {
			sub.inPipe = true
			cwd, known := a.cwd, a.cwdKnown
			a.visitStmt(c.X, sub)
			a.cwd, a.cwdKnown = cwd, known
			a.visitStmt(c.Y, sub)
			a.cwd, a.cwdKnown = cwd, known
			return
		}
		a.visitStmt(c.X, ctx)
		cwd, known := a.cwd, a.cwdKnown
		a.visitStmt(c.Y, ctx)
		a.mergeCwd(cwd, known)
	case *syntax.Subshell:
		cwd, known := a.cwd, a.cwdKnown
		a.visitStmts(c.Stmts, ctx)
		a.cwd, a.cwdKnown = cwd, known
	case *syntax.Block:
		a.visitStmts(c.Stmts, ctx)
	case *syntax.IfClause:
		cwd, known := a.cwd, a.cwdKnown
		for ic := c; ic != nil; ic = ic.Else {
			a.visitStmts(ic.Cond, ctx)
			a.visitStmts(ic.Then, ctx)
		}
		a.mergeCwd(cwd, known)
	case *syntax.WhileClause:
		cwd, known := a.cwd, a.cwdKnown
		a.visitStmts(c.Cond, ctx)
		a.visitStmts(c.Do, ctx)
		a.mergeCwd(cwd, known)
	case *syntax.ForClause:
		cwd, known := a.cwd, a.cwdKnown
		a.walkSubst(c.Loop, ctx)
		a.visitStmts(c.Do, ctx)
		a.mergeCwd(cwd, known)
	case *syntax.CaseClause:
		cwd, known := a.cwd, a.cwdKnown
		a.walkSubst(c.Word, ctx)
		for _, it := range c.Items {
			for _, p := range it.Patterns {
				a.walkSubst(p, ctx)
			}
			a.visitStmts(it.Stmts, ctx)
		}
		a.mergeCwd(cwd, known)
	case *syntax.FuncDecl:
		name := ""
		if c.Name != nil {
			name = c.Name.Value
		}
		a.fn = append(a.fn, name)
		a.defineFunction(name, c.Body)
		cwd, known := a.cwd, a.cwdKnown
		fctx := ctx
		// defined, not run: the input it gets is its call's (callFunction).
		fctx.inPipe, fctx.bg, fctx.stdinSet, fctx.stdinFile = false, false, false, false
		a.visitStmt(c.Body, fctx)
		a.cwd, a.cwdKnown = cwd, known
		a.fn = a.fn[:len(a.fn)-1]
	case *syntax.TimeClause:
		a.visitStmt(c.Stmt, ctx)
	case *syntax.CoprocClause:
		cctx := ctx
		cctx.bg = true
		a.visitStmt(c.Stmt, cctx)
	case *syntax.DeclClause:
		a.declClause(c, ctx)
	default: // [[ ]], (( )), let, ...: only substitutions can run anything
		a.walkSubst(c, ctx)
	}
}

// mergeCwd: after a part that may or may not have run, a changed directory
// is no longer known.
func (a *analyzer) mergeCwd(cwd string, known bool) {
	if a.cwd != cwd || a.cwdKnown != known {
		a.cwd, a.cwdKnown = "", false
	}
}

// walkSubst visits every command substitution, process substitution and
// nested statement inside n.
func (a *analyzer) walkSubst(n syntax.Node, ctx walkCtx) {
	if w, ok := n.(*syntax.Word); ok && w != nil && literalWord(w) {
		return // nothing inside to run: the walk would find nothing
	}
	if isNilNode(n) {
		return
	}
	syntax.Walk(n, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CmdSubst:
			a.nested(n.Stmts, ctx)
			return false
		case *syntax.ProcSubst:
			a.nested(n.Stmts, ctx)
			return false
		case *syntax.Stmt:
			a.visitStmt(n, ctx)
			return false
		}
		return true
	})
}

// literalWord: w is made of literal text only (plain, single-quoted, or
// double-quoted with no expansion inside), so it holds no statement, command
// or process substitution for walkSubst to find.
func literalWord(w *syntax.Word) bool {
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit, *syntax.SglQuoted:
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if _, ok := q.(*syntax.Lit); !ok {
					return false
				}
			}
		default:
			return false
		}
	}
	return true
}

// isNilNode: n is nil or a typed nil pointer (an Assign's missing Value
// or Array: `export X`, `declare -a X`), which syntax.Walk would
// dereference.
func isNilNode(n syntax.Node) bool {
	if n == nil {
		return true
	}
	switch n := n.(type) {
	case *syntax.Word:
		return n == nil
	case *syntax.ArrayExpr:
		return n == nil
	case *syntax.Lit:
		return n == nil
	case *syntax.Stmt:
		return n == nil
	}
	v := reflect.ValueOf(n)
	return v.Kind() == reflect.Pointer && v.IsNil()
}

// nested visits the statements of a substitution (a subshell).
func (a *analyzer) nested(stmts []*syntax.Stmt, ctx walkCtx) {
	cwd, known := a.cwd, a.cwdKnown
	ctx.inPipe, ctx.bg, ctx.stdinSet, ctx.stdinFile = false, false, false, false
	a.visitStmts(stmts, ctx)
	a.cwd, a.cwdKnown = cwd, known
}

// hdocText: the text a here-doc feeds, as bash does: with a quoted
// delimiter the body as written; unquoted, a backslash escapes only $, `,
// \ and a newline (`\!` stays `\!`: psql's shell escape). A body with
// expansions is not static.
func (a *analyzer) hdocText(r *syntax.Redirect) (string, bool) {
	if r.Hdoc == nil {
		return "", true
	}
	quoted := false
	if r.Word != nil {
		for _, p := range r.Word.Parts {
			if l, ok := p.(*syntax.Lit); !ok || strings.ContainsAny(l.Value, `\'"`) {
				quoted = true
			}
		}
	}
	var b strings.Builder
	for _, p := range r.Hdoc.Parts {
		l, ok := p.(*syntax.Lit)
		if !ok {
			w := a.word(r.Hdoc)
			return w.s, w.static
		}
		if quoted {
			b.WriteString(l.Value)
			continue
		}
		v := l.Value
		for i := 0; i < len(v); i++ {
			if v[i] == '\\' && i+1 < len(v) && strings.IndexByte("$`\\\n", v[i+1]) >= 0 {
				i++
				if v[i] == '\n' {
					continue
				}
			}
			b.WriteByte(v[i])
		}
	}
	return b.String(), true
}

// declClause: export NAME=value (or declare -x) passes NAME to every later
// program; outside the safe set (shell_env.go) the declaration needs an
// allow rule that names it. The dangerous names and what bash evaluates
// as code are judged for the whole command (shell_vars.go).
func (a *analyzer) declClause(c *syntax.DeclClause, ctx walkCtx) {
	exports := c.Variant.Value == "export" || strings.ContainsRune(declFlags(c), 'x')
	need := false
	for _, as := range c.Args {
		a.walkSubst(as.Value, ctx)
		a.walkSubst(as.Array, ctx)
		a.walkSubst(as.Index, ctx)
		if exports && as.Name != nil && !envSafe(as.Name.Value) && !(as.Naked && as.Value == nil) {
			need = true
		}
	}
	if need {
		a.addSub(subCmd{text: a.source(c), kind: skNeedRule}, ctx)
	}
}

func (a *analyzer) source(n syntax.Node) string {
	lo, hi := int(n.Pos().Offset()), int(n.End().Offset())
	if lo < 0 || hi > len(a.line) || lo > hi {
		return ""
	}
	return a.line[lo:hi]
}

func (a *analyzer) callExpr(c *syntax.CallExpr, ctx walkCtx) {
	danger := false
	for _, as := range c.Assigns {
		a.walkSubst(as.Value, ctx)
		a.walkSubst(as.Array, ctx)
		a.walkSubst(as.Index, ctx)
		if as.Name != nil && !envSafe(as.Name.Value) && !prefixHarmless(c) {
			danger = true
		}
	}
	if len(c.Args) == 0 {
		// a shell variable: what bash does with it is judged for the
		// whole command (shell_vars.go).
		return
	}
	ws := make([]word, len(c.Args))
	for i, arg := range c.Args {
		a.walkSubst(arg, ctx)
		ws[i] = a.word(arg)
	}
	if danger {
		// X=... cmd: the program sees X; an allow rule must name it.
		full := joinWords(ws, a.line)
		a.addSub(subCmd{text: a.source(c), alts: []string{full}, kind: skNeedRule}, ctx)
		a.probeEnvValues(c.Assigns, ctx) // programs_rt4.go
	}
	a.command(ws, ctx)
}

func (a *analyzer) redirect(r *syntax.Redirect, ctx walkCtx) {
	if r.Word != nil {
		a.walkSubst(r.Word, ctx)
	}
	if r.Hdoc != nil {
		a.walkSubst(r.Hdoc, ctx) // an unquoted heredoc expands $( )
	}
	var write bool
	switch r.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.RdrAll, syntax.AppAll,
		syntax.RdrAllClob, syntax.AppAllClob, syntax.RdrInOut:
		write = true
	case syntax.RdrIn:
		write = false
	case syntax.DplOut:
		w := a.word(r.Word)
		if w.static && (w.s == "-" || isDigits(w.s)) {
			return
		}
		write = true // >&file is &>file
	default: // <&n, heredocs, here-strings
		return
	}
	if r.Word == nil {
		return
	}
	w := a.word(r.Word)
	if w.pathOK && isHarmlessDevice(w.path) {
		return
	}
	ref := a.pathRef(w)
	if write {
		a.an.redirWrites = append(a.an.redirWrites, ref)
	} else {
		a.an.redirReads = append(a.an.redirReads, ref)
	}
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// isHarmlessDevice: writing there destroys nothing.
func isHarmlessDevice(p string) bool {
	switch p {
	case "/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/zero", "/dev/stdin":
		return true
	}
	return strings.HasPrefix(p, "/dev/fd/")
}

func (a *analyzer) pathRef(w word) pathRef {
	ref := pathRef{raw: w.path, cwd: a.cwd}
	if !w.pathOK || w.glob || w.brace {
		ref.unknown = true
		ref.raw = w.s
		if w.pathOK && (w.glob || w.brace) {
			ref.pattern = w.path
		}
		if w.pathOK && w.glob && !w.brace {
			if dir, ok := globContainer(w.path); ok {
				ref.raw, ref.under = dir, true
			}
		}
	}
	if !w.pathOK {
		ref.vardep = true
	}
	if len(ref.raw) > MaxPathLen {
		// evaluate.go, MaxPathLen: not read, uncertain.
		ref.raw = ref.raw[:MaxPathLen]
		ref.unknown, ref.under, ref.vardep, ref.pattern = true, false, true, ""
		a.setUncertain(fmt.Sprintf("a path argument of %d bytes is longer than the %d the system opens", len(w.s), MaxPathLen))
	}
	if !a.cwdKnown && !path.IsAbs(ref.raw) && !strings.HasPrefix(ref.raw, "~") {
		ref.unknown, ref.under, ref.vardep = true, false, true
	}
	return ref
}

// globContainer returns the directory every match of glob p lies in: the
// segments before the first one with a wildcard, provided no later segment
// could match "..".
func globContainer(p string) (string, bool) {
	segs := strings.Split(p, "/")
	k := -1
	for i, s := range segs {
		if strings.ContainsAny(s, "*?[") {
			if k < 0 {
				k = i
			}
			if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "[") || strings.HasPrefix(s, "?") {
				return "", false // could match ..
			}
		} else if k >= 0 && s == ".." {
			return "", false
		}
	}
	if k < 0 {
		return "", false
	}
	dir := strings.Join(segs[:k], "/")
	switch {
	case dir == "" && strings.HasPrefix(p, "/"):
		dir = "/"
	case dir == "":
		dir = "."
	}
	return dir, true
}

// word converts a syntax word: quotes and escapes removed, expansions kept
// as their source text and flagged.
func (a *analyzer) word(w *syntax.Word) word {
	out := word{static: true, pathOK: true, off: -1}
	if w == nil {
		return out
	}
	if len(w.Parts) == 1 {
		// one part of plain text (the common case): the text itself, which
		// the loop below would copy byte by byte into the same string.
		switch p := w.Parts[0].(type) {
		case *syntax.Lit:
			if plainLit(p.Value) && !strings.HasPrefix(p.Value, "~") {
				out.s, out.path = p.Value, p.Value
				return out
			}
		case *syntax.SglQuoted:
			if !p.Dollar {
				out.s, out.path = p.Value, p.Value
				return out
			}
		case *syntax.DblQuoted:
			if len(p.Parts) == 1 {
				if l, ok := p.Parts[0].(*syntax.Lit); ok && strings.IndexByte(l.Value, '\\') < 0 {
					out.s, out.path = l.Value, l.Value
					return out
				}
			}
		}
	}
	var b, pb strings.Builder
	for i, part := range w.Parts {
		a.wordPart(part, i == 0, false, &out, &b, &pb)
	}
	out.s = b.String()
	if out.pathOK {
		out.path = pb.String()
	}
	return out
}

// plainLit: an unquoted literal wordPart copies as it is (no escape, no
// glob or brace byte).
func plainLit(v string) bool {
	for i := 0; i < len(v); i++ {
		switch v[i] {
		case '\\', '*', '?', '[', '{':
			return false
		}
	}
	return true
}

func (a *analyzer) wordPart(part syntax.WordPart, first, dq bool, out *word, b, pb *strings.Builder) {
	add := func(s string) { b.WriteString(s); pb.WriteString(s) }
	switch p := part.(type) {
	case *syntax.Lit:
		v := p.Value
		if !dq && first && strings.HasPrefix(v, "~") {
			rest := v[1:]
			if rest == "" || rest[0] == '/' {
				b.WriteString("~")
				pb.WriteString(a.env.home)
				v = rest
			} else {
				out.pathOK = false
			}
		}
		for i := 0; i < len(v); i++ {
			c := v[i]
			if c == '\\' && i+1 < len(v) {
				if dq && strings.IndexByte("$`\"\\\n", v[i+1]) < 0 {
					add("\\")
					continue
				}
				i++
				if v[i] == '\n' {
					continue
				}
				b.WriteByte(v[i])
				pb.WriteByte(v[i])
				continue
			}
			if !dq {
				switch c {
				case '*', '?', '[':
					out.glob = true
				case '{':
					if j := strings.IndexByte(v[i:], '}'); j > 0 && (strings.Contains(v[i:i+j], ",") || strings.Contains(v[i:i+j], "..")) {
						out.brace = true
					}
				}
			}
			b.WriteByte(c)
			pb.WriteByte(c)
		}
	case *syntax.SglQuoted:
		if p.Dollar {
			add(ansiC(p.Value))
		} else {
			add(p.Value)
		}
	case *syntax.DblQuoted:
		for _, q := range p.Parts {
			a.wordPart(q, false, true, out, b, pb)
		}
	case *syntax.ParamExp:
		out.static = false
		src := a.source(p)
		b.WriteString(src)
		if p.Param != nil && p.Exp == nil && p.Repl == nil && p.Slice == nil && p.Index == nil &&
			!p.Length && !p.Excl && !p.Width && !p.IsSet && p.NestedParam == nil && len(p.Modifiers) == 0 {
			switch p.Param.Value {
			case "HOME":
				pb.WriteString(a.env.home)
				return
			case "PWD":
				if a.cwdKnown {
					pb.WriteString(a.cwd)
					return
				}
			}
		}
		out.pathOK = false
	default: // $( ), ` `, $(( )), <( ), extglob
		out.static = false
		out.pathOK = false
		if _, ok := p.(*syntax.ExtGlob); ok {
			// bash reads @( ) !( ) only with extglob on; otherwise it is a
			// syntax error or something else entirely: do not guess.
			out.glob = true
			a.setUncertain("the command uses an extended glob, which shells read differently")
		}
		b.WriteString(a.source(p))
	}
}

// ansiC decodes the escapes of a $'...' string.
func ansiC(s string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch s[i] {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'a':
			b.WriteByte(7)
		case 'b':
			b.WriteByte(8)
		case 'e', 'E':
			b.WriteByte(27)
		case 'f':
			b.WriteByte(12)
		case 'v':
			b.WriteByte(11)
		case 'x', 'u', 'U':
			max := map[byte]int{'x': 2, 'u': 4, 'U': 8}[s[i]]
			j := i + 1
			for j < len(s) && j-i-1 < max && isHex(s[j]) {
				j++
			}
			if j == i+1 {
				b.WriteByte('\\')
				b.WriteByte(s[i])
				continue
			}
			n, _ := strconv.ParseUint(s[i+1:j], 16, 32)
			if s[i] == 'x' {
				b.WriteByte(byte(n))
			} else {
				b.WriteRune(rune(n))
			}
			i = j - 1
		case '0', '1', '2', '3', '4', '5', '6', '7':
			j := i
			for j < len(s) && j-i < 3 && s[j] >= '0' && s[j] <= '7' {
				j++
			}
			n, _ := strconv.ParseUint(s[i:j], 8, 32)
			b.WriteByte(byte(n))
			i = j - 1
		case 'c':
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i] & 0x1f)
			}
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// joinWords joins the values of ws with single spaces. When the words are a
// single-spaced run of line, the result is a slice of line (no allocation).
// joinNamed is joinWords of the word name followed by args, with no line
// (the words joined by one space), without building that word list.
func joinNamed(name string, args []word) string {
	n := len(name) + len(args)
	for _, w := range args {
		n += len(w.s)
	}
	var b strings.Builder
	b.Grow(n)
	b.WriteString(name)
	for _, w := range args {
		b.WriteByte(' ')
		b.WriteString(w.s)
	}
	return b.String()
}

func joinWords(ws []word, line string) string {
	if n := len(ws); n > 1 && ws[n-1].off < 0 && ws[n-1].s == "" {
		ws = ws[:n-1] // xargsInput: the words xargs appends are not text
	}
	if len(ws) == 0 {
		return ""
	}
	if ws[0].off >= 0 {
		ok := true
		for i := 1; i < len(ws); i++ {
			sep := ws[i-1].off + len(ws[i-1].s)
			if ws[i].off != sep+1 || sep >= len(line) || line[sep] != ' ' {
				ok = false
				break
			}
		}
		if last := ws[len(ws)-1]; ok && last.off+len(last.s) <= len(line) {
			return line[ws[0].off : last.off+len(last.s)]
		}
	}
	if len(ws) == 1 {
		return ws[0].s
	}
	n := len(ws) - 1
	for _, w := range ws {
		n += len(w.s)
	}
	var b strings.Builder
	b.Grow(n)
	for i, w := range ws {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(w.s)
	}
	return b.String()
}

func (a *analyzer) addSub(sc subCmd, ctx walkCtx) {
	if ctx.gate && sc.kind == skNormal {
		sc.kind = skGate
	}
	if ctx.probe {
		// a guess at a command: only its text and breaker are judged.
		sc.kind = skProbe
		sc.reads, sc.writes, sc.argReads, sc.optDanger, sc.editReach = nil, nil, nil, nil, nil
		sc.moved, sc.optReads = nil, nil
	}
	if len(a.an.subs) >= maxSubCommands {
		a.setUncertain("the command has too many sub-commands")
		return
	}
	if sc.argv == nil && !sc.argvSplit && sc.text == a.cur.text {
		sc.argv, sc.argvSplit = a.cur.words, a.cur.split
	}
	a.an.subs = append(a.an.subs, sc)
}
