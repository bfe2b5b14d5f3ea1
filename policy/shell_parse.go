package policy

import (
	"path"
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
	// skProbe is a command read in the arguments of a program the policy
	// does not know (programs_probe.go): a deny or ask rule or a breaker
	// that meets it makes the call ask in every mode; it needs no allow.
	skProbe
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
	// tree: a recursive read that reads every file below the path, hidden
	// ones included, with no way to leave one out (sqlite3's fsdir()): a
	// Read deny rule that may reach under it denies (red team 17b).
	tree bool
	// under: for a glob, raw is the directory every match lies in (the
	// path itself stays unknown).
	under bool
	// vardep: the path depends on a variable, a substitution or a
	// directory known only at run time (not merely a glob).
	vardep bool
	// pattern is the glob or brace word (quotes removed, ~ and $HOME
	// expanded) when the path is one; the breakers match it.
	pattern string
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
	// argReads: every argument that may name a file the command reads,
	// whatever the command (checked against Read deny and ask rules only;
	// shell_reads.go).
	argReads []pathRef
	// skipHidden: the recursive reads of the command skip hidden entries
	// (rg and ag by default).
	skipHidden bool
	// optDanger: options that make the command run a program or write a
	// file; an allow rule covers the command only if it names each one.
	optDanger []string
	// editReach: files the command changes beyond writes (a moved tree, a
	// checked-out path, the whole working tree of git reset --hard): met
	// by Edit deny and ask rules only (programs.go).
	editReach []pathRef
	// moved: places the command moves, renames or links, each with its
	// tree (mv, git mv, ln, rsync --remove-source-files): one a Read deny
	// rule's match passes through is denied (programs_optreads.go).
	moved []pathRef
	// optReads: files read through an option's value (git blame
	// --contents F, find -files0-from F), also in reads: outside the
	// workspace, an allow rule covers the command only if it names the
	// option.
	optReads []optRead
	// argFiles: options whose value is a file (or text) holding more of
	// the program's own arguments or configuration (curl -K, wget
	// --config, wget -e KEY=V): the call is a doubt unless an allow rule
	// names each (programs_argfiles.go).
	argFiles []string
	// proxies: hosts the command connects through besides its URLs (a
	// declared proxy option, git -c http.proxy, ssh -J): each meets the
	// WebFetch domain rules; "$" when one is known only at run time
	// (webhost_proxy.go).
	proxies []string
	// argv: the words of text, quotes removed, when known (grant_words.go):
	// an allow rule with a blank inside a word matches them word for word.
	// argvSplit: they are text split at its blanks (argv left nil); read
	// them with words().
	argv      []string
	argvSplit bool
}

// shellAnalysis is everything the evaluator needs to know about a command.
type shellAnalysis struct {
	subs []subCmd
	// redirect targets: checked like Read / Edit on their own.
	redirReads, redirWrites []pathRef
	// uncertain is why the command cannot be allowed without asking ("" if it can).
	uncertain string
	// proxies: proxy variables the line assigns as shell variables
	// (`https_proxy=h; export https_proxy`, `set -a; https_proxy=h`): hosts
	// every later program may connect through (webhost_proxy.go).
	proxies []string
	// assigned: the static values the line assigns to shell variables
	// (`H=evil.com; tool $H`): hosts they name meet the WebFetch deny and
	// ask rules (programs_hosts.go).
	assigned []string
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
	// runtimeNodes: collectVars met a node checkRuntimeCode acts on
	// (runtimeCodeNode); without one its walk is skipped.
	runtimeNodes bool
	// decl: the last lookupDecl answer of command, for declEffects, which
	// asks it again of the same program and the same argument slice
	// (lookupDeclOf).
	decl declAnswer
	// subSlab holds the sub-commands being classified (newSub), a block
	// at a time: one allocation per analysis, not one per command.
	subSlab []subCmd
	// refSlab is where newRefs carves the argument reads of the
	// sub-commands from: one allocation for many commands.
	refSlab []pathRef
	env     *envx
	an      *shellAnalysis
	line    string // the source being walked (fast path: offsets of words)
	// cwd is the effective working directory; cwdKnown false after a cd
	// whose target cannot be known.
	cwd      string
	cwdKnown bool
	fn       []string // names of the functions being defined (fork bombs)
	vt       varTable // variables the command sets (shell_vars.go)
	fnEdges  []fnEdge // calls made from function bodies (fork bombs by mutual recursion)
	// fnBodies: the functions defined so far, by name, re-read at a call
	// that gives them standard input (shell_stdin.go); fnRewalks counts
	// those re-readings.
	fnBodies  map[string][]*syntax.Stmt
	fnRewalks int
	fnCalls   []string // the functions being re-read, outermost first
	// execIn: standard input as `exec < F` (or a here-doc, or 0<&N) left
	// it for every later command (shell_stdin.go).
	execIn stdinState
	probes int // probes read (programs_probe.go)
	// cur: the words of the command being read (grant_words.go).
	cur curWords
	// ar: where the blocks come from when the caller pooled them (arena.go).
	ar *arena
}

type walkCtx struct {
	depth  int
	inPipe bool
	bg     bool
	gate   bool // everything found is only a deny/ask gate (under sudo)
	probe  bool // everything found is a probe (skProbe) in an unknown program's arguments
	// runtimeArgs: the command gets arguments only known at run time
	// (xargs, find -exec with {}, parallel): a destructive one is a breaker.
	runtimeArgs string
	// stdin is what a statement's here-doc or here-string feeds the
	// command (for a shell reading its commands from it); stdinSet says
	// there is one, stdinStatic that its text is known.
	stdin                 string
	stdinSet, stdinStatic bool
	// stdinFile: standard input is redirected from a file (< F).
	stdinFile bool
}

var parserPool = sync.Pool{New: func() any { return syntax.NewParser(syntax.Variant(syntax.LangBash)) }}

func (a *analyzer) setUncertain(why string) {
	if a.an.uncertain == "" {
		a.an.uncertain = why
	}
}

// newSub is a zeroed sub-command to classify (command): taken from a block
// (never a grown copy, so an earlier one stays where it is; none is reused).
func (a *analyzer) newSub() *subCmd {
	if len(a.subSlab) == cap(a.subSlab) {
		a.subSlab = make([]subCmd, 0, 1+2*cap(a.subSlab))
	}
	a.subSlab = a.subSlab[:len(a.subSlab)+1]
	return &a.subSlab[len(a.subSlab)-1]
}

// newRefs is an empty slice with room for n path refs, carved from a block
// shared by the analysis (an append past n gets its own array, as any
// append does; the regions carved never overlap).
func (a *analyzer) newRefs(n int) []pathRef {
	l := len(a.refSlab)
	if cap(a.refSlab)-l < n {
		a.refSlab = make([]pathRef, 0, max(n, 8))
		l = 0
	}
	a.refSlab = a.refSlab[:l+n]
	return a.refSlab[l : l : l+n]
}

// analyzeShell splits cmd into sub-commands with a real shell parser.
func analyzeShell(cmd string, e *envx) *shellAnalysis {
	return analyzeShellIn(cmd, e, nil)
}

// analyzeShellIn is analyzeShell taking its memory from ar (nil: from the
// heap); the analysis lives until ar is released.
func analyzeShellIn(cmd string, e *envx, ar *arena) *shellAnalysis {
	analyses.Add(1)
	var an *shellAnalysis
	var a *analyzer
	if ar != nil && ar.a.an == nil {
		an, a = &ar.an, &ar.a
		*a = analyzer{env: e, an: an, cwd: e.callCwd, cwdKnown: e.callCwdKnown, ar: ar,
			subSlab: ar.slab[:0], refSlab: ar.refs[:0]}
		an.subs = ar.subs[:0]
	} else {
		an = &shellAnalysis{}
		a = &analyzer{env: e, an: an, cwd: e.callCwd, cwdKnown: e.callCwdKnown}
	}
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
		a.finish()
		return an
	}
	a.parseAndVisit(cmd, walkCtx{})
	a.finish()
	a.forkBombs()
	return an
}

// finish marks the command uncertain for what only the whole shows: the
// variables it sets, and writes to paths that depend on variables.
func (a *analyzer) finish() {
	a.finishVars()
	check := func(refs []pathRef) {
		for _, r := range refs {
			if r.vardep {
				a.setUncertain("the command writes to " + r.raw + ", a path that depends on a variable, a substitution or a directory known only at run time")
				return
			}
		}
	}
	check(a.an.redirWrites)
	for i := range a.an.subs {
		check(a.an.subs[i].writes)
	}
}

// runsArgs are programs that run their arguments as a command.
var runsArgs = map[string]bool{
	"watch": true, "flock": true, "chroot": true, "ionice": true, "taskset": true, "strace": true,
	"ltrace": true, "setsid": true, "unbuffer": true, "runuser": true, "chrt": true, "nsenter": true,
	"unshare": true, "firejail": true, "systemd-run": true, "script": true, "su": true, "parallel": true,
	"caffeinate": true, "cgexec": true, "prlimit": true, "faketime": true, "proot": true, "fakeroot": true,
	"catchsegv": true, "valgrind": true, "gdb": true, "torsocks": true, "proxychains": true, "proxychains4": true,
	"chronic": true, "eatmydata": true, "nocache": true, "xvfb-run": true, "dbus-run-session": true, "sem": true,
	"flatpak-spawn": true, "host-spawn": true, "distrobox-host-exec": true, "toolbox": true, "nix-shell": true,
	"bwrap": true, "sg": true, "newgrp": true, "cpulimit": true, "numactl": true,
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
	if strings.Contains(src, "coproc") {
		coprocAssigns(f) // coproc NAME=V CMD (shell_vars_keyword.go)
	}
	saved := a.line
	a.line = src
	a.checkRuntimeCode(f, a.collectVars(f))
	nestedStdin(&ctx)
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
	if strings.Contains(src, "coproc") {
		coprocAssigns(f) // coproc NAME=V CMD (shell_vars_keyword.go)
	}
	saved := a.line
	a.line = src
	a.checkRuntimeCode(f, a.collectVars(f))
	nestedStdin(&ctx)
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
	// Each node below is written with one of these bytes in the source: an
	// extended glob @( ), an array assignment a=( ), [[ ]], (( )), ${ }
	// and $x. A source with none holds none of them: no walk.
	if strings.IndexByte(src, '$') < 0 && strings.IndexByte(src, '(') < 0 && strings.IndexByte(src, '[') < 0 {
		return ""
	}
	return unreliableWalk(f, src)
}

// unreliableWalk is unreliableReading's walk of the syntax tree.
func unreliableWalk(f *syntax.File, src string) string {
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
	var words []word
	if a.ar != nil && cap(a.ar.words) >= nWords {
		words = a.ar.words[:0]
	} else {
		words = make([]word, 0, nWords)
		if a.ar != nil {
			a.ar.words = words
		}
	}
	// pipe: the part is a side of a pipeline (its ctx.inPipe: a program
	// reading commands from standard input is fed by another).
	type part struct {
		lo, hi int
		pipe   bool
	}
	nextPipe := false
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
			if first := words[lo].s; reservedWords[first] || nameArgs[first] || first == "source" || first == "." || first == "command" || first == "builtin" ||
				strings.IndexByte(first, '=') >= 0 {
				return false
			}
			parts = append(parts, part{lo, hi, nextPipe})
			nextPipe = false
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
		if op == '|' && (n == 1 || cmd[i+1] == '&') {
			if hi > lo {
				parts[len(parts)-1].pipe = true
			}
			nextPipe = true
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
	// room for the parts and a few probes (programs_probe.go) without
	// growing: a subCmd is large, and a grown copy is most of the cost.
	nSubs := len(parts) + len(parts)/4
	if cap(a.an.subs) < nSubs {
		a.an.subs = make([]subCmd, 0, nSubs)
	}
	if cap(a.subSlab) < nSubs {
		a.subSlab = make([]subCmd, 0, nSubs)
	}
	if cap(a.refSlab) < len(words) {
		a.refSlab = make([]pathRef, 0, len(words)) // at most one argument read per word, mostly
	}
	for _, p := range parts {
		a.command(words[p.lo:p.hi:p.hi], walkCtx{inPipe: p.pipe})
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
