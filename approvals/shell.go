package approvals

import (
	"path"
	"strconv"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// Bounds on what the shell analyser will look at. Past them the command is
// uncertain: it asks, never allows.
const (
	maxCommandBytes = 64 << 10
	maxDepth        = 48
	maxSubCommands  = 512
)

type subKind uint8

const (
	// skNormal must be allowed (rule, session grant, read-only set, mode).
	skNormal subKind = iota
	// skGate is a wrapper form ("timeout 5 rm x", "bash -c '...'", the
	// command under sudo): checked against deny and ask rules only; what
	// it runs is a sub-command of its own.
	skGate
	// skNeedRule must be allowed by a rule, a session grant or bypass
	// (sudo, xargs with flags, env -S, assignments to PATH and the like).
	skNeedRule
)

// pathRef is a path a command reads or writes.
type pathRef struct {
	raw string // as the shell will see it (quotes removed, ~ kept)
	cwd string // directory a relative raw is relative to; "" unknown
	// unknown: the path is only known at run time (variable, glob,
	// substitution) or relative to an unknown directory.
	unknown bool
	// recursive: the command acts on everything below the path too
	// (rm -r, find -delete).
	recursive bool
	// under: for a glob, raw is the directory every match lies in (the
	// path itself stays unknown).
	under bool
	// info caches the canonical form (computed once by the evaluator).
	info *pathInfo
}

// subCmd is one simple command found in a command line.
type subCmd struct {
	text string   // words joined by one space, quotes removed
	alts []string // other forms checked against deny/ask only
	kind subKind
	// dynamic: the command word is only known at run time.
	dynamic  bool
	readOnly bool // in the read-only set, with arguments that do not write
	fileOp   bool // mkdir touch mv cp rm rmdir: acceptEdits may allow it
	reads    []pathRef
	writes   []pathRef // written by the command itself (rm, tee, sed -i ...)
	breaker  string
}

// shellAnalysis is everything the evaluator needs to know about a command.
type shellAnalysis struct {
	subs []subCmd
	// redirect targets: checked like Read / Edit on their own.
	redirReads, redirWrites []pathRef
	// uncertain is why the command cannot be allowed without asking ("" if it can).
	uncertain string
}

type word struct {
	s      string // value with quotes removed; source text for expansions
	static bool   // fully known before running (no expansion)
	glob   bool   // has unquoted *, ? or [ (pathname expansion)
	brace  bool   // has an unquoted {a,b} or {1..3}
	// path is the value usable as a path ($HOME and $PWD resolved);
	// pathOK false when the path cannot be known.
	path   string
	pathOK bool
	off    int // offset in line, -1 if not from a plain line
}

// analyzer walks one command line. Not safe for concurrent use; one per Evaluate.
type analyzer struct {
	env  *envx
	an   *shellAnalysis
	line string // the source being walked (fast path: offsets of words)
	// cwd is the effective working directory; cwdKnown false after a cd
	// whose target cannot be known.
	cwd      string
	cwdKnown bool
	fn       []string // names of the functions being defined (fork bombs)
}

type walkCtx struct {
	depth  int
	inPipe bool
	bg     bool
	gate   bool // everything found is only a deny/ask gate (under sudo)
}

var parserPool = sync.Pool{New: func() any { return syntax.NewParser(syntax.Variant(syntax.LangBash)) }}

func (a *analyzer) setUncertain(why string) {
	if a.an.uncertain == "" {
		a.an.uncertain = why
	}
}

// analyzeShell splits cmd into sub-commands with a real shell parser.
func analyzeShell(cmd string, e *envx) *shellAnalysis {
	an := &shellAnalysis{}
	a := &analyzer{env: e, an: an, cwd: e.cwd, cwdKnown: true}
	if len(cmd) > maxCommandBytes {
		a.setUncertain("the command is longer than 64 KiB")
		a.naiveSplit(cmd)
		return an
	}
	if strings.TrimSpace(cmd) == "" {
		a.setUncertain("the command is empty")
		return an
	}
	if a.fastPath(cmd) {
		return an
	}
	a.parseAndVisit(cmd, walkCtx{})
	return an
}

// runsArgs are programs that run their arguments as a command.
var runsArgs = map[string]bool{
	"watch": true, "flock": true, "chroot": true, "ionice": true, "taskset": true, "strace": true,
	"ltrace": true, "setsid": true, "unbuffer": true, "runuser": true, "chrt": true, "nsenter": true,
	"unshare": true, "firejail": true, "systemd-run": true, "script": true, "su": true, "parallel": true,
	"caffeinate": true, "cgexec": true, "prlimit": true, "faketime": true, "proot": true, "fakeroot": true,
	"catchsegv": true, "valgrind": true, "gdb": true, "torsocks": true, "proxychains": true, "proxychains4": true,
	"chronic": true, "eatmydata": true, "nocache": true, "xvfb-run": true, "dbus-run-session": true, "sem": true,
}

// parseAndVisitLenient walks src if it parses; a failure adds nothing (the
// caller already asks for a rule).
func (a *analyzer) parseAndVisitLenient(src string, ctx walkCtx) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		return
	}
	if why := unreliableReading(f, src); why != "" {
		a.setUncertain(why)
	}
	saved := a.line
	a.line = src
	a.visitStmts(f.Stmts, ctx)
	a.line = saved
}

// parseAndVisit parses src as a shell program and walks it.
func (a *analyzer) parseAndVisit(src string, ctx walkCtx) {
	if ctx.depth > maxDepth {
		a.setUncertain("the command is nested too deeply")
		return
	}
	var p *syntax.Parser
	if ctx.depth == 0 {
		p = parserPool.Get().(*syntax.Parser)
		defer parserPool.Put(p)
	} else {
		p = syntax.NewParser(syntax.Variant(syntax.LangBash))
	}
	f, err := p.Parse(strings.NewReader(src), "")
	if err != nil {
		a.setUncertain("the command does not parse: " + err.Error())
		a.naiveSplit(src)
		return
	}
	if why := unreliableReading(f, src); why != "" {
		// The parser's reading, where a command inside is mere data, cannot
		// be trusted to be what runs: ask, and keep the naive pieces so a
		// deny rule that names one still denies.
		a.setUncertain(why)
		a.naiveSplit(src)
	}
	saved := a.line
	a.line = src
	a.visitStmts(f.Stmts, ctx)
	a.line = saved
}

// unreliableReading says why the parse of f may not be what runs, or "":
//   - an extended glob anywhere (an argument, an assignment, a redirect):
//     bash reads @( ) !( ) only with extglob on; otherwise it is a syntax
//     error or something else entirely;
//   - an array assignment: its words are data now, but commands when a
//     later "${A[@]}" runs them, and a deny rule that names them should
//     not be dodged by storing the command first;
//   - a [[ ]] test or an (( )) command holding operators: bash reads one
//     test or arithmetic, a POSIX sh (dash, which agents may run commands
//     with) has neither and runs `[[` as a command, (( as nested
//     subshells, < and > as redirections (a > truncates a file) and what
//     follows ||, && or a newline as further commands: under dash
//     [[ -n x || cat == .env ]] prints .env and (( 0 || rm -rf *x ))
//     removes files;
//   - a parameter expansion whose pattern or operand holds shell operators
//     (`${0% & { rm -rf x; }`): where it ends depends on the shell.
func unreliableReading(f *syntax.File, src string) string {
	// inside is n's source without its first open and last close bytes.
	inside := func(n syntax.Node, open, close int) string {
		start, end := int(n.Pos().Offset()), int(n.End().Offset())
		if start < 0 || end > len(src) || start+open > end-close {
			return ""
		}
		return src[start+open : end-close]
	}
	why := ""
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.ExtGlob:
			why = "the command uses an extended glob, which shells read differently"
		case *syntax.Assign:
			if n.Array != nil {
				why = "the command assigns an array, whose words may be run later"
			}
		case *syntax.TestClause, *syntax.ArithmCmd:
			if strings.ContainsAny(inside(n, 2, 2), "<>;&|()\n`") {
				why = "a [[ ]] test or (( )) command holds operators that a POSIX shell runs as commands or redirections"
			}
		case *syntax.ParamExp:
			if !n.Short && strings.ContainsAny(inside(n, 2, 1), ";&|{}\n`") {
				why = "a parameter expansion holds shell operators, which shells read differently"
			}
		}
		return why == ""
	})
	return why
}

// naiveSplit cuts a command that could not be parsed at every operator and
// records the pieces as deny/ask gates, so a deny rule that clearly names
// a piece still denies.
func (a *analyzer) naiveSplit(src string) {
	if len(src) > 4*maxCommandBytes {
		src = src[:4*maxCommandBytes]
	}
	piece := func(s string) {
		s = strings.TrimSpace(s)
		if s == "" || len(a.an.subs) >= maxSubCommands {
			return
		}
		ws := lexWords(s)
		if len(ws) == 0 {
			return
		}
		ws = stripAssignWords(ws)
		if len(ws) == 0 {
			return
		}
		sc := subCmd{text: strings.Join(ws, " "), kind: skGate}
		if b := path.Base(ws[0]); b != ws[0] {
			sc.alts = append(sc.alts, strings.Join(append([]string{b}, ws[1:]...), " "))
		}
		a.an.subs = append(a.an.subs, sc)
	}
	start := 0
	for i := 0; i < len(src); i++ {
		switch src[i] {
		case ';', '&', '|', '\n', '(', ')', '`', '{', '}':
			piece(src[start:i])
			start = i + 1
		case '$':
			if i+1 < len(src) && src[i+1] == '(' {
				piece(src[start:i])
				start = i + 2
				i++
			}
		}
	}
	piece(src[start:])
}

// lexWords splits s into words like normalizePattern, leniently.
func lexWords(s string) []string {
	var out []string
	var b strings.Builder
	in := false
	flush := func() {
		if in {
			out = append(out, b.String())
			b.Reset()
			in = false
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case ' ', '\t', '\r', '\n':
			flush()
		case '\\':
			in = true
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i])
			}
		case '\'', '"':
			in = true
			j := strings.IndexByte(s[i+1:], c)
			if j < 0 {
				b.WriteString(s[i+1:])
				i = len(s)
				continue
			}
			b.WriteString(s[i+1 : i+1+j])
			i += j + 1
		default:
			in = true
			b.WriteByte(c)
		}
	}
	flush()
	return out
}

func stripAssignWords(ws []string) []string {
	for len(ws) > 0 && isAssignWord(ws[0]) {
		ws = ws[1:]
	}
	return ws
}

func isAssignWord(s string) bool {
	i := strings.IndexByte(s, '=')
	if i <= 0 {
		return false
	}
	for j := 0; j < i; j++ {
		c := s[j]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || j > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// reservedWords cannot be taken as plain command names by the fast path.
var reservedWords = map[string]bool{
	"if": true, "then": true, "elif": true, "else": true, "fi": true, "for": true, "while": true,
	"until": true, "do": true, "done": true, "case": true, "esac": true, "select": true,
	"function": true, "time": true, "coproc": true, "in": true,
	"cd": true, "pushd": true, "popd": true, // change the directory: slow path tracks it
	// Words bash parses with their own grammar (let, declaration clauses):
	// only the parser can say what they mean, or that they do not parse.
	"let": true, "declare": true, "local": true, "export": true, "readonly": true, "typeset": true, "nameref": true,
}

func fastByte(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	switch c {
	case ' ', '\t', '.', '_', '/', ':', '@', '%', '+', ',', '=', '-', ';', '&', '|', '\n':
		return true
	}
	return false
}

// fastPath handles command lines made only of plain words and the list
// operators (&& || ; | |& & newline), where no byte has a meaning the
// shell would expand. It returns false, having recorded nothing, when the
// line needs the real parser.
func (a *analyzer) fastPath(cmd string) bool {
	for i := 0; i < len(cmd); i++ {
		if !fastByte(cmd[i]) {
			return false
		}
	}
	// count words and parts for exact allocations.
	nWords, nParts := 0, 1
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		if c == ';' || c == '&' || c == '|' || c == '\n' {
			nParts++
		} else if c != ' ' && c != '\t' && (i == 0 || cmd[i-1] == ' ' || cmd[i-1] == '\t' || !fastWordByte(cmd[i-1])) {
			nWords++
		}
	}
	words := make([]word, 0, nWords)
	type part struct{ lo, hi int }
	var partsBuf [16]part
	parts := partsBuf[:0]
	i := 0
	needWord := true // a part must follow the previous operator
	for i < len(cmd) {
		// one part: words up to an operator.
		lo := len(words)
		for i < len(cmd) {
			c := cmd[i]
			if c == ' ' || c == '\t' {
				i++
				continue
			}
			if !fastWordByte(c) {
				break
			}
			j := i
			for j < len(cmd) && fastWordByte(cmd[j]) {
				j++
			}
			s := cmd[i:j]
			words = append(words, word{s: s, static: true, path: s, pathOK: true, off: i})
			i = j
		}
		hi := len(words)
		if hi > lo {
			if first := words[lo].s; reservedWords[first] || strings.IndexByte(first, '=') >= 0 {
				return false
			}
			parts = append(parts, part{lo, hi})
		}
		if i >= len(cmd) {
			break
		}
		// operator
		op := cmd[i]
		n := 1
		if i+1 < len(cmd) && (op == '&' && cmd[i+1] == '&' || op == '|' && (cmd[i+1] == '|' || cmd[i+1] == '&')) {
			n = 2
		}
		if hi == lo {
			// an operator with no command before it: only a newline may.
			if op != '\n' || (needWord && len(parts) > 0 && !lastOpAllowsNewline(cmd, i)) {
				return false
			}
		}
		if op != '\n' {
			needWord = !(op == ';' || op == '&') || n == 2
		}
		i += n
		// a following operator char right away (";;", "&;", "|||") is not for us.
		if i < len(cmd) && (cmd[i] == ';' || cmd[i] == '&' || cmd[i] == '|') {
			return false
		}
	}
	if len(parts) == 0 {
		return false
	}
	// the line must not end right after && || | |&.
	end := strings.TrimRight(cmd, " \t\n")
	if strings.HasSuffix(end, "|") || strings.HasSuffix(end, "&&") || strings.HasSuffix(end, "|&") {
		return false
	}
	a.line = cmd
	a.an.subs = make([]subCmd, 0, len(parts))
	for _, p := range parts {
		a.command(words[p.lo:p.hi:p.hi], walkCtx{})
	}
	return true
}

func lastOpAllowsNewline(cmd string, i int) bool {
	s := strings.TrimRight(cmd[:i], " \t\n")
	return strings.HasSuffix(s, "&&") || strings.HasSuffix(s, "||") || strings.HasSuffix(s, "|")
}

func fastWordByte(c byte) bool {
	return fastByte(c) && c != ' ' && c != '\t' && c != ';' && c != '&' && c != '|' && c != '\n'
}

// ---- the AST walk ----

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
	switch c := s.Cmd.(type) {
	case *syntax.CallExpr:
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
		cwd, known := a.cwd, a.cwdKnown
		fctx := ctx
		fctx.inPipe, fctx.bg = false, false
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
	if n == nil {
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

// nested visits the statements of a substitution (a subshell).
func (a *analyzer) nested(stmts []*syntax.Stmt, ctx walkCtx) {
	cwd, known := a.cwd, a.cwdKnown
	ctx.inPipe, ctx.bg = false, false
	a.visitStmts(stmts, ctx)
	a.cwd, a.cwdKnown = cwd, known
}

// dangerousVars change what a later command name or library means.
var dangerousVars = map[string]bool{
	"PATH": true, "LD_PRELOAD": true, "LD_LIBRARY_PATH": true, "LD_AUDIT": true,
	"DYLD_INSERT_LIBRARIES": true, "DYLD_LIBRARY_PATH": true, "BASH_ENV": true, "ENV": true,
	"PROMPT_COMMAND": true, "IFS": true, "SHELLOPTS": true, "BASHOPTS": true, "PS4": true,
	"GIT_EXTERNAL_DIFF": true, "GIT_PAGER": true, "PAGER": true, "GIT_SSH": true,
	"GIT_SSH_COMMAND": true, "GIT_EDITOR": true, "EDITOR": true, "VISUAL": true,
	"GIT_CONFIG_GLOBAL": true, "GIT_CONFIG_PARAMETERS": true, "GIT_DIR": true,
	"GIT_WORK_TREE": true, "PYTHONPATH": true, "PYTHONSTARTUP": true, "NODE_OPTIONS": true,
	"PERL5OPT": true, "RUBYOPT": true, "GIT_ASKPASS": true, "SSH_ASKPASS": true,
}

func (a *analyzer) declClause(c *syntax.DeclClause, ctx walkCtx) {
	for _, as := range c.Args {
		a.walkSubst(as.Value, ctx)
		if as.Array != nil {
			a.walkSubst(as.Array, ctx)
		}
		if as.Name != nil && dangerousVars[as.Name.Value] {
			a.addSub(subCmd{text: a.source(c), kind: skNeedRule}, ctx)
			return
		}
		if as.Naked && as.Value != nil && as.Name == nil {
			// export "$X" or export -f: could be anything.
			if w := a.word(as.Value); !w.static || isAssignWord(w.s) && dangerousVars[w.s[:strings.IndexByte(w.s, '=')]] {
				a.addSub(subCmd{text: a.source(c), kind: skNeedRule}, ctx)
				return
			}
		}
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
		if as.Value != nil {
			a.walkSubst(as.Value, ctx)
		}
		if as.Array != nil {
			a.walkSubst(as.Array, ctx)
		}
		if as.Index != nil {
			a.walkSubst(as.Index, ctx)
		}
		if as.Name != nil && dangerousVars[as.Name.Value] {
			danger = true
		}
	}
	if len(c.Args) == 0 {
		if danger {
			a.addSub(subCmd{text: a.source(c), kind: skNeedRule}, ctx)
		}
		return
	}
	ws := make([]word, len(c.Args))
	for i, arg := range c.Args {
		a.walkSubst(arg, ctx)
		ws[i] = a.word(arg)
	}
	if danger {
		// PATH=... cmd: the name may not mean the usual command.
		full := joinWords(ws, a.line)
		a.addSub(subCmd{text: a.source(c), alts: []string{full}, kind: skNeedRule}, ctx)
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
		if w.pathOK && w.glob && !w.brace {
			if dir, ok := globContainer(w.path); ok {
				ref.raw, ref.under = dir, true
			}
		}
	}
	if !a.cwdKnown && !path.IsAbs(ref.raw) && !strings.HasPrefix(ref.raw, "~") {
		ref.unknown, ref.under = true, false
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
func joinWords(ws []word, line string) string {
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
	if len(a.an.subs) >= maxSubCommands {
		a.setUncertain("the command has too many sub-commands")
		return
	}
	a.an.subs = append(a.an.subs, sc)
}

// ---- simple commands ----

// command handles one simple command: wrappers are peeled off (each outer
// form stays as a gate), then the command itself is classified.
func (a *analyzer) command(ws []word, ctx walkCtx) {
	ctx.depth++
	if ctx.depth > maxDepth {
		a.setUncertain("the command is nested too deeply")
		return
	}
	if len(ws) == 0 {
		return
	}
	text := joinWords(ws, a.line)
	name := ws[0]
	if !name.static || name.glob || name.brace || name.s == "" {
		a.setUncertain("the command name `" + name.s + "` is only known at run time")
		a.addSub(subCmd{text: text, dynamic: true}, ctx)
		return
	}
	cmd := name.s
	base := cmd
	var alts []string
	if strings.IndexByte(cmd, '/') >= 0 {
		base = path.Base(cmd)
		alts = append(alts, joinWords(append([]word{{s: base, static: true, off: -1}}, ws[1:]...), ""))
	}
	// a function being defined that calls itself in a pipe or in the
	// background: a fork bomb.
	for _, f := range a.fn {
		if f == cmd && f != "" && (ctx.inPipe || ctx.bg) {
			a.addSub(subCmd{text: text, breaker: "fork bomb: function " + f + " starts copies of itself"}, ctx)
			return
		}
	}
	gate := func() { a.addSub(subCmd{text: text, alts: alts, kind: skGate}, ctx) }
	args := ws[1:]
	switch base {
	case "timeout":
		if rest, ok := skipOpts(args, "-s --signal -k --kill-after", 1); ok {
			gate()
			a.command(rest, ctx)
			return
		}
	case "nice":
		if rest, ok := skipNice(args); ok {
			gate()
			a.command(rest, ctx)
			return
		}
	case "nohup", "builtin", "noglob":
		if len(args) > 0 {
			gate()
			a.command(args, ctx)
			return
		}
	case "exec":
		if rest, ok := skipOpts(args, "-a", 0); ok {
			gate()
			a.command(rest, ctx)
			return
		}
	case "command":
		if len(args) > 0 && (args[0].s == "-v" || args[0].s == "-V") {
			a.addSub(subCmd{text: text, alts: alts, readOnly: true}, ctx)
			return
		}
		if rest, ok := skipOpts(args, "", 0); ok {
			gate()
			a.command(rest, ctx)
			return
		}
	case "stdbuf":
		if rest, ok := skipOpts(args, "-i -o -e --input --output --error", 0); ok {
			gate()
			a.command(rest, ctx)
			return
		}
	case "time":
		if rest, ok := skipTime(a, args); ok {
			gate()
			a.command(rest, ctx)
			return
		}
	case "sudo", "doas", "run0", "pkexec":
		rest, _ := skipOpts(args, "-u -g -C -D -h -p -r -t -T -U -R --user --group --close-from --chdir --host --prompt --role --type --command-timeout --other-user --chroot", 0)
		a.addSub(subCmd{text: text, alts: alts, kind: skNeedRule}, ctx)
		if len(rest) > 0 {
			inner := ctx
			inner.gate = true
			a.command(rest, inner)
		}
		return
	case "xargs":
		rest, nflags, ok := skipXargs(args)
		if !ok {
			a.setUncertain("cannot tell which command xargs runs")
		}
		if len(rest) == 0 {
			a.addSub(subCmd{text: text, alts: alts, readOnly: nflags == 0}, ctx) // runs echo
			return
		}
		if nflags == 0 {
			gate()
		} else {
			a.addSub(subCmd{text: text, alts: alts, kind: skNeedRule}, ctx)
		}
		a.command(rest, ctx)
		return
	case "env":
		a.envCmd(ws, text, alts, ctx)
		return
	case "bash", "sh", "zsh", "dash", "ksh", "mksh", "fish", "ash", "busybox":
		if a.shellC(ws, text, alts, ctx) {
			return
		}
	case "eval":
		gate()
		src, ok := staticJoin(args)
		if !ok {
			a.setUncertain("eval runs a command known only at run time")
			return
		}
		ctx.depth++
		a.parseAndVisit(src, ctx)
		return
	case "find":
		a.findCmd(ws, text, alts, ctx)
		return
	case "git":
		a.gitCmd(ws, text, alts, ctx)
		return
	case "cd", "pushd", "popd", "chdir":
		a.cdCmd(args)
		a.addSub(subCmd{text: text, alts: alts, readOnly: true}, ctx)
		return
	case "source", ".":
		// runs a file's commands: never read-only (like `curl ... | sh`, what
		// it runs is the file's business: an allow rule decides).
	case "trap":
		// trap CODE SIGNAL...: CODE runs later, as eval would run it.
		if code, ok := trapCode(args); ok {
			gate()
			if !code.static {
				a.setUncertain("trap runs a command known only at run time")
				return
			}
			ctx.depth++
			a.parseAndVisit(code.s, ctx)
			return
		}
	}
	if runsArgs[base] {
		// a program that runs its arguments as a command: the whole needs
		// an allow rule, and every tail of it that starts with a plain word
		// is checked against deny and ask rules (and breakers), so
		// `watch -n1 rm -rf x` is still rm.
		a.addSub(subCmd{text: text, alts: alts, kind: skNeedRule}, ctx)
		inner := ctx
		inner.gate = true
		var plain []string
		for i := 1; i < len(ws); i++ {
			if !ws[i].static {
				break
			}
			plain = append(plain, ws[i].s)
			if strings.HasPrefix(ws[i].s, "-") || len(a.an.subs) >= maxSubCommands {
				continue
			}
			a.command(ws[i:], inner)
		}
		if len(plain) > 0 && ctx.depth < maxDepth/2 {
			// watch and su -c hand their arguments to sh -c.
			if src := strings.Join(plain, " "); strings.ContainsAny(src, ";&|$`()<>") {
				cwd, known := a.cwd, a.cwdKnown
				a.parseAndVisitLenient(src, inner)
				a.cwd, a.cwdKnown = cwd, known
			}
		}
		return
	}
	sc := subCmd{text: text, alts: alts}
	a.classify(&sc, base, args, ctx)
	a.addSub(sc, ctx)
}

// skipOpts skips leading options of a wrapper. valued lists the options
// that take a separate value; positional is how many plain arguments come
// before the command (timeout's duration).
func skipOpts(args []word, valued string, positional int) ([]word, bool) {
	i := 0
	for i < len(args) {
		s := args[i].s
		if !args[i].static {
			return nil, false
		}
		if s == "--" {
			i++
			break
		}
		if len(s) < 2 || s[0] != '-' {
			break
		}
		i++
		if strings.Contains(s, "=") {
			continue
		}
		if valued != "" && containsField(valued, s) {
			i++
		} else if len(s) > 2 && s[1] != '-' && valued != "" && containsField(valued, s[:2]) {
			// -ofoo: value attached
		}
	}
	for ; positional > 0 && i < len(args); positional-- {
		i++
	}
	if i >= len(args) {
		return nil, false
	}
	return args[i:], true
}

func containsField(list, s string) bool {
	for _, f := range strings.Fields(list) {
		if f == s {
			return true
		}
	}
	return false
}

func skipNice(args []word) ([]word, bool) {
	i := 0
	for i < len(args) && args[i].static {
		s := args[i].s
		switch {
		case s == "-n" || s == "--adjustment":
			i += 2
		case strings.HasPrefix(s, "--adjustment=") || (strings.HasPrefix(s, "-n") && len(s) > 2):
			i++
		case len(s) > 1 && s[0] == '-' && isDigits(strings.TrimPrefix(s[1:], "-")):
			i++
		case s == "--":
			i++
			if i < len(args) {
				return args[i:], true
			}
			return nil, false
		default:
			if i < len(args) {
				return args[i:], true
			}
		}
	}
	return nil, false
}

func skipTime(a *analyzer, args []word) ([]word, bool) {
	i := 0
	for i < len(args) && args[i].static && strings.HasPrefix(args[i].s, "-") {
		s := args[i].s
		i++
		switch s {
		case "-o", "--output":
			if i < len(args) {
				a.an.redirWrites = append(a.an.redirWrites, a.pathRef(args[i]))
			}
			i++
		case "-f", "--format":
			i++
		case "--":
			return args[i:], i < len(args)
		}
	}
	return args[i:], i < len(args)
}

// skipXargs returns the command xargs runs and how many options it had.
func skipXargs(args []word) (rest []word, nflags int, ok bool) {
	valued := map[string]bool{"-a": true, "-E": true, "-I": true, "-L": true, "-n": true, "-P": true, "-s": true, "-d": true}
	long := map[string]bool{"--arg-file": true, "--eof": true, "--replace": true, "--max-lines": true,
		"--max-args": true, "--max-procs": true, "--max-chars": true, "--delimiter": true, "--process-slot-var": true}
	flags := "0rtpxo"
	i := 0
	for i < len(args) {
		w := args[i]
		s := w.s
		if !w.static {
			return args[i:], nflags + 1, false
		}
		if s == "--" {
			return args[i+1:], nflags + 1, true
		}
		if len(s) < 2 || s[0] != '-' {
			break
		}
		nflags++
		i++
		switch {
		case strings.HasPrefix(s, "--"):
			if !strings.Contains(s, "=") && long[s] {
				i++ // the value is the next word (--max-args 5; --max-args=5 carries it)
			}
		case valued[s]:
			i++
		case valued[s[:2]], s[1] == 'e', s[1] == 'i', s[1] == 'l':
			// value attached (-n1), or optional-value options
		default:
			for _, c := range s[1:] {
				if !strings.ContainsRune(flags, c) {
					return args[i:], nflags, false
				}
			}
		}
	}
	if i > len(args) {
		i = len(args)
	}
	return args[i:], nflags, true
}

func staticJoin(ws []word) (string, bool) {
	parts := make([]string, len(ws))
	for i, w := range ws {
		if !w.static {
			return "", false
		}
		parts[i] = w.s
	}
	return strings.Join(parts, " "), true
}

func (a *analyzer) envCmd(ws []word, text string, alts []string, ctx walkCtx) {
	args := ws[1:]
	kind := skGate
	i := 0
	var split []word
	savedCwd, savedKnown := a.cwd, a.cwdKnown
	defer func() { a.cwd, a.cwdKnown = savedCwd, savedKnown }()
loop:
	for i < len(args) {
		w := args[i]
		if !w.static {
			break
		}
		s := w.s
		switch {
		case s == "--":
			i++
			break loop
		case s == "-u" || s == "--unset":
			i += 2
		case s == "-C" || s == "--chdir":
			if i+1 < len(args) {
				a.cdCmd(args[i+1 : i+2])
			}
			i += 2
		case strings.HasPrefix(s, "--chdir="):
			a.cdCmd([]word{{s: s[len("--chdir="):], static: true, path: s[len("--chdir="):], pathOK: true, off: -1}})
			i++
		case s == "-S" || s == "--split-string" || strings.HasPrefix(s, "-S") || strings.HasPrefix(s, "--split-string="):
			kind = skNeedRule
			v := ""
			switch {
			case s == "-S" || s == "--split-string":
				if i+1 < len(args) {
					v = args[i+1].s
				}
				i += 2
			case strings.HasPrefix(s, "--split-string="):
				v = s[len("--split-string="):]
				i++
			default:
				v = s[2:]
				i++
			}
			for _, f := range lexWords(v) {
				split = append(split, word{s: f, static: true, path: f, pathOK: true, off: -1})
			}
			break loop
		case strings.HasPrefix(s, "-") && len(s) > 1:
			i++
		case isAssignWord(s):
			if dangerousVars[s[:strings.IndexByte(s, '=')]] {
				kind = skNeedRule
			}
			i++
		default:
			break loop
		}
	}
	if i > len(args) {
		i = len(args)
	}
	rest := append(split, args[i:]...)
	if len(rest) == 0 {
		a.addSub(subCmd{text: text, alts: alts, readOnly: kind == skGate}, ctx) // prints the environment
		return
	}
	a.addSub(subCmd{text: text, alts: alts, kind: kind}, ctx)
	a.command(rest, ctx)
}

// shellC handles sh -c 'S': S is parsed as a command line of its own.
// It returns false for a shell run on a script or stdin (a plain command).
func (a *analyzer) shellC(ws []word, text string, alts []string, ctx walkCtx) bool {
	args := ws[1:]
	if path.Base(ws[0].s) == "busybox" {
		if len(args) == 0 || !args[0].static {
			return false
		}
		switch args[0].s {
		case "sh", "ash", "bash":
			args = args[1:]
		default:
			// busybox CMD args: the applet is the command.
			a.addSub(subCmd{text: text, alts: alts, kind: skGate}, ctx)
			a.command(args, ctx)
			return true
		}
	}
	hasC := false
	i := 0
	for i < len(args) {
		w := args[i]
		if !w.static {
			return false
		}
		s := w.s
		if s == "--" || s == "-" {
			i++
			break
		}
		if len(s) < 2 || (s[0] != '-' && s[0] != '+') {
			break
		}
		i++
		if strings.HasPrefix(s, "--") {
			if s == "--rcfile" || s == "--init-file" {
				i++
			}
			if s == "--command" {
				hasC = true
			}
			continue
		}
		for _, c := range s[1:] {
			switch c {
			case 'c':
				hasC = true
			case 'o', 'O':
				i++
			}
		}
	}
	if !hasC {
		return false
	}
	a.addSub(subCmd{text: text, alts: alts, kind: skGate}, ctx)
	if i >= len(args) {
		a.setUncertain("the shell's -c has no command")
		return true
	}
	if !args[i].static {
		a.setUncertain("the shell runs a command known only at run time")
		return true
	}
	ctx.depth++
	cwd, known := a.cwd, a.cwdKnown
	a.parseAndVisit(args[i].s, ctx)
	a.cwd, a.cwdKnown = cwd, known
	return true
}

// gitConfigCode checks what a git global option makes git run that the
// command line does not show: the shell code of an alias starting with "!"
// or of a config key whose value is a command (pager, editor, ssh command,
// diff and merge drivers, filters, credential helpers, ...) is parsed and
// checked like eval's; a value only known at run time, one taken from the
// environment (--config-env), another exec path, hooks or included config
// files cannot be checked: uncertain.
func (a *analyzer) gitConfigCode(opt string, val word, ctx walkCtx) {
	switch opt {
	case "--config-env", "--exec-path":
		a.setUncertain("git " + opt + " makes git run programs the command does not name")
		return
	case "-c":
	default:
		return
	}
	if !val.static {
		a.setUncertain("git -c sets configuration known only at run time")
		return
	}
	key, value, _ := strings.Cut(val.s, "=")
	key = strings.ToLower(key)
	code := ""
	switch {
	case strings.HasPrefix(key, "alias."):
		if v := strings.TrimSpace(value); strings.HasPrefix(v, "!") {
			code = v[1:]
		}
	case key == "core.hookspath" || key == "include.path" || key == "init.templatedir" || strings.HasPrefix(key, "includeif."):
		a.setUncertain("git -c " + key + " makes git run programs the command does not name")
		return
	case gitCodeKey(key):
		code = value
	}
	if strings.TrimSpace(code) == "" {
		return
	}
	ctx.depth++
	a.parseAndVisit(code, ctx)
}

// gitCodeKey reports whether git runs the value of config key as a command.
func gitCodeKey(key string) bool {
	switch key {
	case "core.pager", "core.editor", "core.sshcommand", "core.fsmonitor", "core.askpass", "core.gitproxy",
		"sequence.editor", "diff.external", "credential.helper", "gpg.program", "uploadpack.packobjectshook", "web.browser":
		return true
	}
	for _, suffix := range []string{".textconv", ".command", ".driver", ".clean", ".smudge", ".process", ".program", ".helper", ".cmd"} {
		if strings.HasSuffix(key, suffix) {
			return true
		}
	}
	return strings.HasPrefix(key, "pager.")
}

// trapCode returns the code of `trap [--] CODE SIGNAL...`; false for the
// forms that run nothing (trap, trap -l, trap -p, trap SIGNAL, trap - SIG).
func trapCode(args []word) (word, bool) {
	if len(args) > 0 && args[0].static && args[0].s == "--" {
		args = args[1:]
	} else if len(args) > 0 && args[0].static && strings.HasPrefix(args[0].s, "-") && args[0].s != "-" {
		return word{}, false // -l, -p
	}
	if len(args) < 2 || (args[0].static && (args[0].s == "-" || args[0].s == "")) {
		return word{}, false
	}
	return args[0], true
}

func (a *analyzer) cdCmd(args []word) {
	if len(args) > 0 && args[0].static && strings.HasPrefix(args[0].s, "-") && args[0].s != "-" {
		args = args[1:] // cd -P / -L
	}
	switch {
	case len(args) == 0:
		a.cwd, a.cwdKnown = a.env.home, a.env.home != ""
	case args[0].pathOK && !args[0].glob && !args[0].brace && args[0].s != "-" && a.cwdKnown:
		a.cwd = canonPath(args[0].path, a.cwd, a.env.home)
	default:
		a.cwd, a.cwdKnown = "", false
	}
}

// findCmd: -exec/-execdir/-ok/-okdir run a sub-command; -delete and
// -fprint* write.
func (a *analyzer) findCmd(ws []word, text string, alts []string, ctx walkCtx) {
	args := ws[1:]
	sc := subCmd{text: text, alts: alts, readOnly: true}
	var starts []word
	i := 0
	for i < len(args) && args[i].static && (args[i].s == "-H" || args[i].s == "-L" || args[i].s == "-P" || strings.HasPrefix(args[i].s, "-D") || strings.HasPrefix(args[i].s, "-O")) {
		i++
	}
	for i < len(args) {
		s := args[i].s
		if args[i].static && (strings.HasPrefix(s, "-") || s == "(" || s == "!" || s == ")") {
			break
		}
		starts = append(starts, args[i])
		i++
	}
	if len(starts) == 0 {
		starts = []word{{s: ".", static: true, path: ".", pathOK: true, off: -1}}
	}
	for _, st := range starts {
		sc.reads = append(sc.reads, a.pathRef(st))
	}
	var execs [][]word
	for i < len(args) {
		w := args[i]
		i++
		if !w.static {
			continue
		}
		switch w.s {
		case "-exec", "-execdir", "-ok", "-okdir":
			j := i
			for j < len(args) && !(args[j].static && (args[j].s == ";" || args[j].s == "+")) {
				j++
			}
			execs = append(execs, args[i:j])
			i = j + 1
		case "-delete":
			sc.readOnly = false
			for _, st := range starts {
				ref := a.pathRef(st)
				ref.recursive = true
				sc.writes = append(sc.writes, ref)
			}
		case "-fprint", "-fprint0", "-fprintf", "-fls":
			sc.readOnly = false
			if i < len(args) {
				sc.writes = append(sc.writes, a.pathRef(args[i]))
			}
			i++
		}
	}
	if !sc.readOnly {
		for _, wr := range sc.writes {
			if wr.recursive {
				if b := a.protectedTarget(wr); b != "" {
					sc.breaker = "find -delete of " + b
				}
			}
		}
	}
	a.addSub(sc, ctx)
	for _, ex := range execs {
		if len(ex) == 0 {
			a.setUncertain("find -exec with no command")
			continue
		}
		a.command(ex, ctx)
	}
}

// gitCmd strips git's global options: -C dir is matched as plain git (the
// directory is tracked); -c and --git-dir stay in the text (they can make
// git run other programs) but not in the deny/ask alternatives.
func (a *analyzer) gitCmd(ws []word, text string, alts []string, ctx walkCtx) {
	args := ws[1:]
	if len(args) == 0 || !args[0].static || !strings.HasPrefix(args[0].s, "-") {
		// no global options: the common case.
		a.addSub(subCmd{text: text, alts: alts, readOnly: gitReadOnly(args)}, ctx)
		return
	}
	kept := []word{ws[0]}
	stripped := []word{{s: "git", static: true, off: -1}}
	cwd, known := a.cwd, a.cwdKnown
	defer func() { a.cwd, a.cwdKnown = cwd, known }()
	risky := false
	var gitDirs []pathRef
	i := 0
	for i < len(args) && args[i].static && strings.HasPrefix(args[i].s, "-") {
		s := args[i].s
		switch {
		case s == "-C":
			if i+1 < len(args) {
				a.cdCmd(args[i+1 : i+2])
				gitDirs = append(gitDirs, a.pathRef(args[i+1]))
			}
			i += 2
			continue
		case s == "--no-pager" || s == "-P" || s == "--no-optional-locks" || s == "--literal-pathspecs" ||
			s == "--no-replace-objects" || s == "--glob-pathspecs" || s == "--noglob-pathspecs" || s == "--icase-pathspecs":
			i++
			continue
		case s == "-c" || s == "--git-dir" || s == "--work-tree" || s == "--namespace" || s == "--exec-path" || s == "--config-env":
			risky = true
			if i+1 < len(args) {
				kept = append(kept, args[i], args[i+1])
				a.gitConfigCode(s, args[i+1], ctx)
			}
			i += 2
			continue
		case strings.HasPrefix(s, "--exec-path=") || strings.HasPrefix(s, "--config-env="):
			a.gitConfigCode(s[:strings.IndexByte(s, '=')], word{}, ctx)
			risky = true
			kept = append(kept, args[i])
			i++
			continue
		default:
			risky = true
			kept = append(kept, args[i])
			i++
		}
	}
	if i > len(args) {
		i = len(args)
	}
	rest := args[i:]
	kept = append(kept, rest...)
	stripped = append(stripped, rest...)
	sc := subCmd{text: joinWords(kept, a.line)}
	st := joinWords(stripped, "")
	if st != sc.text {
		sc.alts = append(sc.alts, st)
	}
	if sc.text != text {
		sc.alts = append(sc.alts, text)
	}
	sc.alts = append(sc.alts, alts...)
	if !risky {
		sc.readOnly = gitReadOnly(rest)
	}
	if sc.readOnly {
		sc.reads = gitDirs // git -C dir reads that repository
	}
	a.addSub(sc, ctx)
}

// ---- classification of plain commands ----

// readOnlyCmds need no prompt when their arguments do not write. The value
// says whether non-option arguments are files the command reads.
var readOnlyCmds = map[string]bool{
	"ls": true, "cat": true, "head": true, "tail": true, "wc": true, "grep": true, "egrep": true,
	"fgrep": true, "rg": true, "stat": true, "file": true, "diff": true, "cmp": true, "sort": true,
	"uniq": true, "cut": true, "nl": true, "du": true, "tac": true, "rev": true, "strings": true,
	"od": true, "hexdump": true, "md5sum": true, "sha1sum": true, "sha256sum": true, "sha512sum": true,
	"cksum": true, "comm": true, "paste": true, "fold": true, "column": true, "jq": true, "tree": true,
	"readlink": true, "realpath": true, "less": false, "more": false,
	"pwd": false, "echo": false, "printf": false, "which": false, "type": false, "tr": false,
	"basename": false, "dirname": false, "date": false, "true": false, "false": false, "test": false,
	"[": false, "whoami": false, "id": false, "uname": false, "hostname": false, "printenv": false,
	"df": false, "seq": false, "sleep": false, "expr": false, "nproc": false, "locale": false,
	"go": false, ":": false, "tee": false,
}

// fileOpCmds are the commands acceptEdits allows inside the workspace.
// tee is one too: writing with tee is writing with a redirect.
var fileOpCmds = map[string]bool{"mkdir": true, "touch": true, "mv": true, "cp": true, "rm": true, "rmdir": true, "tee": true}

// writerCmds write to their non-option arguments (all, or the last).
var writerCmds = map[string]string{
	"rm": "all", "rmdir": "all", "mkdir": "all", "touch": "all", "mv": "all", "cp": "last",
	"ln": "last", "chmod": "skip1", "chown": "skip1", "chgrp": "skip1", "truncate": "all",
	"install": "last", "shred": "all", "unlink": "all", "tee": "all", "rsync": "last", "scp": "last",
}

func (a *analyzer) classify(sc *subCmd, base string, args []word, ctx walkCtx) {
	if strings.HasPrefix(base, "mkfs") || base == "mke2fs" || base == "wipefs" || base == "mkswap" {
		sc.breaker = base + " formats a file system"
	}
	if fileOpCmds[base] {
		sc.fileOp = true
	}
	if mode, ok := writerCmds[base]; ok {
		a.writerArgs(sc, base, mode, args)
	}
	switch base {
	case "dd":
		for _, w := range args {
			if v, ok := strings.CutPrefix(w.s, "of="); ok {
				ww := w
				ww.s, ww.path = v, strings.TrimPrefix(w.path, "of=")
				ref := a.pathRef(ww)
				sc.writes = append(sc.writes, ref)
				if strings.HasPrefix(v, "/dev/") && !isHarmlessDevice(v) {
					sc.breaker = "dd writes to the device " + v
				}
			}
		}
		return
	case "sed":
		for _, w := range args {
			if w.s == "-i" || strings.HasPrefix(w.s, "-i") || strings.HasPrefix(w.s, "--in-place") ||
				(len(w.s) > 1 && w.s[0] == '-' && w.s[1] != '-' && strings.ContainsRune(w.s, 'i')) {
				a.fileArgs(sc, args, true)
				return
			}
		}
		return
	}
	ro, isRO := readOnlyCmds[base]
	if !isRO {
		return
	}
	if !a.readOnlyArgs(sc, base, args) {
		return
	}
	sc.readOnly = true
	if ro {
		a.fileArgs(sc, args, false)
	}
}

// readOnlyArgs rejects the arguments that make a read-only command write
// or run something; it may add writes (sort -o, uniq OUT, tree -o).
func (a *analyzer) readOnlyArgs(sc *subCmd, base string, args []word) bool {
	positional := 0
	for i, w := range args {
		s := w.s
		if !strings.HasPrefix(s, "-") || s == "-" {
			positional++
			continue
		}
		switch base {
		case "sort":
			if s == "-o" || s == "--output" || strings.HasPrefix(s, "--output=") || strings.HasPrefix(s, "--compress-program") ||
				(strings.HasPrefix(s, "-o") || (s[1] != '-' && strings.ContainsRune(s, 'o'))) {
				if s == "-o" && i+1 < len(args) {
					sc.writes = append(sc.writes, a.pathRef(args[i+1]))
				}
				return false
			}
		case "tree":
			if s == "-o" || strings.HasPrefix(s, "-o") {
				return false
			}
		case "rg":
			if strings.HasPrefix(s, "--pre") && !strings.HasPrefix(s, "--pre-glob") {
				return false
			}
		case "date":
			if s == "-s" || strings.HasPrefix(s, "--set") || strings.HasPrefix(s, "-s") {
				return false
			}
		case "file":
			if s == "-C" || s == "--compile" {
				return false
			}
		case "less", "more":
			return false
		case "go":
			if s == "-w" || s == "-u" {
				return false
			}
		}
	}
	switch base {
	case "uniq":
		return positional <= 1
	case "hostname":
		return positional == 0
	case "go":
		if len(args) == 0 || (args[0].s != "version" && args[0].s != "env") {
			return false
		}
	case "less", "more":
		return false
	}
	return true
}

// fileArgs records the non-option arguments of a command as reads (or writes).
func (a *analyzer) fileArgs(sc *subCmd, args []word, write bool) {
	afterDD := false
	for _, w := range args {
		s := w.s
		if !afterDD && w.static && s == "--" {
			afterDD = true
			continue
		}
		if !afterDD && w.static && strings.HasPrefix(s, "-") && s != "-" {
			// --file=/x: the value may be a path.
			if j := strings.IndexByte(s, '='); j > 0 && strings.ContainsAny(s[j+1:], "/~.") {
				ww := w
				ww.s, ww.path = s[j+1:], w.path[min(len(w.path), j+1):]
				if write {
					sc.writes = append(sc.writes, a.pathRef(ww))
				} else {
					sc.reads = append(sc.reads, a.pathRef(ww))
				}
			}
			continue
		}
		if s == "-" || s == "" {
			continue
		}
		if write {
			sc.writes = append(sc.writes, a.pathRef(w))
		} else {
			sc.reads = append(sc.reads, a.pathRef(w))
		}
	}
}

func (a *analyzer) writerArgs(sc *subCmd, base, mode string, args []word) {
	var pos []word
	recursive := false
	afterDD := false
	target := -1
	for i, w := range args {
		s := w.s
		if !afterDD && w.static && s == "--" {
			afterDD = true
			continue
		}
		if !afterDD && w.static && strings.HasPrefix(s, "-") && s != "-" {
			if s == "--recursive" || (s[1] != '-' && strings.ContainsAny(s[1:], "rR")) {
				if base == "rm" || base == "chmod" || base == "chown" || base == "chgrp" {
					recursive = true
				}
			}
			if (s == "-t" || s == "--target-directory") && i+1 < len(args) {
				target = i + 1
			}
			continue
		}
		if i == target {
			continue
		}
		pos = append(pos, w)
	}
	switch mode {
	case "skip1":
		if len(pos) > 0 {
			pos = pos[1:]
		}
	case "last":
		if target >= 0 {
			pos = []word{args[target]}
		} else if len(pos) > 1 {
			for _, r := range pos[:len(pos)-1] {
				sc.reads = append(sc.reads, a.pathRef(r))
			}
			pos = pos[len(pos)-1:]
		}
	}
	for _, w := range pos {
		ref := a.pathRef(w)
		ref.recursive = recursive
		sc.writes = append(sc.writes, ref)
		if recursive {
			if b := a.protectedTarget(ref); b != "" && sc.breaker == "" {
				sc.breaker = base + " -R of " + b
				if base == "rm" {
					sc.breaker = "rm -r of " + b
				}
			}
		}
	}
}

// protectedTarget names the protected directory a recursive operation on
// ref would destroy: /, the home directory, the workspace root or a parent
// of them, a glob over one of them, or a path known only at run time.
func (a *analyzer) protectedTarget(ref pathRef) string {
	e := a.env
	if ref.unknown {
		dir, ok := globDir(ref.raw)
		if !ok {
			return "a path known only at run time (" + ref.raw + ")"
		}
		if !a.cwdKnown && !path.IsAbs(dir) && !strings.HasPrefix(dir, "~") {
			return "a path relative to a directory known only at run time (" + ref.raw + ")"
		}
		if dir == "" {
			return ""
		}
		abs := canonPath(dir, ref.cwd, e.home)
		if n := e.protectedName(abs); n != "" {
			return "everything in " + n + " (" + ref.raw + ")"
		}
		return ""
	}
	abs := canonPath(ref.raw, ref.cwd, e.home)
	if n := e.protectedName(abs); n != "" {
		return n
	}
	if real := resolveReal(e.fs, abs); real != abs {
		if n := e.protectedName(real); n != "" {
			return n + " (through a symlink)"
		}
	}
	return ""
}

// globDir returns the directory part of a glob whose last segment is all
// wildcard (/*, ~/.*, ./*), or false when the path is not such a glob.
func globDir(raw string) (string, bool) {
	if strings.ContainsAny(raw, "$`") {
		return "", false
	}
	dir, last := path.Split(raw)
	if last == "" {
		return "", false
	}
	for _, r := range last {
		if !strings.ContainsRune("*?.[]{},!", r) {
			// a named glob (build/*.o) leaves the directory itself alone;
			// if the directory part is itself a glob, it is unknown.
			if strings.ContainsAny(dir, "*?[{") {
				return "", false
			}
			return "", true
		}
	}
	if strings.ContainsAny(dir, "*?[{") {
		return "", false
	}
	if dir == "" {
		dir = "."
	}
	return dir, true
}
