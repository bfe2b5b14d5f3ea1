package policy

import "mvdan.cc/sh/v3/syntax"

// Standard input of compound commands, function bodies and `exec`.
//
// A here-doc, here-string or file given to a statement is the standard
// input of every command it runs: a group, a subshell, a loop, an if, a
// case, a function body (its definition's redirect or its call's), and,
// after `exec < F` with no command, every later command. The walk context
// carries it (walkCtx.stdin*), so the readers of programs that take their
// commands from standard input (stdinNames, sqlite3, psql, the shells) see
// it wherever it comes from (red team 17b, corpora 165 and 167).

// maxFnRewalks bounds the re-readings of function bodies at calls that
// give them standard input; past it the command is a doubt.
const maxFnRewalks = 64

// stdinState is the standard input a statement leaves for what follows
// (exec): a here-doc's or here-string's text, or a file or descriptor.
type stdinState struct {
	set, static, file bool
	text              string
}

// stdinRedir: r redirects standard input (no descriptor, or 0).
func stdinRedir(r *syntax.Redirect) bool {
	return r.N == nil || r.N.Value == "0"
}

// stmtStdin records in ctx what a redirect of s feeds standard input (the
// last one wins, as in the shell); without one, ctx keeps what the
// enclosing statement gave.
func (a *analyzer) stmtStdin(s *syntax.Stmt, ctx *walkCtx) {
	for _, r := range s.Redirs {
		if !stdinRedir(r) {
			continue
		}
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			ctx.stdinSet, ctx.stdinFile = true, false
			ctx.stdin, ctx.stdinStatic = a.hdocText(r)
		case syntax.WordHdoc:
			ctx.stdinSet, ctx.stdinFile = true, false
			w := a.word(r.Word)
			ctx.stdin, ctx.stdinStatic = w.s+"\n", w.static
		case syntax.RdrIn, syntax.RdrInOut, syntax.DplIn:
			ctx.stdinSet, ctx.stdinFile = false, true
		}
	}
}

// execStdinSet: `exec` with no command and a redirect of standard input
// changes it for every later command (`exec < F`, `exec 0<&3`,
// `exec <<< TEXT`). Kept for the rest of the command, wherever the exec
// was (a subshell's ends with it: more doubts, never fewer).
func (a *analyzer) execStdinSet(s *syntax.Stmt, c *syntax.CallExpr, ctx walkCtx) {
	args := unwrapBuiltin(c.Args) // builtin exec, command exec
	if len(args) != 1 || args[0].Lit() != "exec" {
		return
	}
	for _, r := range s.Redirs {
		if stdinRedir(r) && r.Op != syntax.RdrOut && r.Op != syntax.AppOut && r.Op != syntax.DplOut &&
			r.Op != syntax.ClbOut && r.Op != syntax.RdrAll && r.Op != syntax.AppAll {
			a.execIn = stdinState{set: ctx.stdinSet, static: ctx.stdinStatic, file: ctx.stdinFile, text: ctx.stdin}
		}
	}
}

// execStdinInto gives ctx the standard input an earlier `exec` left when
// the enclosing statements give none.
func (a *analyzer) execStdinInto(ctx *walkCtx) {
	if ctx.stdinSet || ctx.stdinFile || !(a.execIn.set || a.execIn.file) {
		return
	}
	ctx.stdinSet, ctx.stdinStatic, ctx.stdinFile, ctx.stdin = a.execIn.set, a.execIn.static, a.execIn.file, a.execIn.text
}

// defineFunction remembers a function's body for its calls.
func (a *analyzer) defineFunction(name string, body *syntax.Stmt) {
	if name == "" || body == nil {
		return
	}
	if a.fnBodies == nil {
		a.fnBodies = map[string][]*syntax.Stmt{}
	}
	// every definition is kept: which one a call runs may depend on a
	// branch (if ...; then f() { gdb; }; else f() { cat; }; fi; f < F).
	a.fnBodies[name] = append(a.fnBodies[name], body)
}

// callFunction: a call of a defined function that gives it standard input
// (a redirect, an enclosing statement's, exec's, a pipe) runs its body
// with that input: the body is read again with it (at its definition it
// was read with none).
func (a *analyzer) callFunction(c *syntax.CallExpr, ctx walkCtx) {
	if len(c.Args) == 0 || a.fnBodies == nil || !(ctx.stdinSet || ctx.stdinFile || ctx.inPipe) {
		return
	}
	name := c.Args[0].Lit()
	bodies := a.fnBodies[name]
	if len(bodies) == 0 {
		return
	}
	if containsStr(a.fnCalls, name) {
		// a function calling itself (or back through another) with
		// standard input: what each level reads is not followed.
		a.setUncertain("function " + name + " calls itself with standard input")
		return
	}
	a.fnRewalks += len(bodies)
	if a.fnRewalks > maxFnRewalks {
		a.setUncertain("the command calls functions with standard input too many times to read")
		return
	}
	// read as the function's own body: its calls are edges from it alone
	// (fork bombs, breakers.go), not from the functions being defined
	// around the call.
	fns := a.fn
	a.fn = []string{name}
	a.fnCalls = append(a.fnCalls, name)
	cwd, known := a.cwd, a.cwdKnown
	for _, body := range bodies {
		a.visitStmt(body, ctx)
		a.cwd, a.cwdKnown = cwd, known
	}
	a.fnCalls = a.fnCalls[:len(a.fnCalls)-1]
	a.fn = fns
}

// nestedStdin: the commands of code read from a word or a here-doc (eval
// CODE, sh -c CODE, a shell reading its script from standard input, gdb's
// `shell CMD`) share the standard input of the program that runs them; a
// here-doc's text given to it (or the rest of a script read from it) is not
// followed into them, so a program there that reads its commands from
// standard input is a doubt (`eval gdb <<< 'shell rm ...'`,
// `bash <<'EOF'` with `gdb` and then gdb's commands).
func nestedStdin(ctx *walkCtx) {
	if ctx.stdinSet {
		ctx.stdinSet, ctx.stdinFile = false, true
	}
}
