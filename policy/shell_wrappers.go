package policy

import (
	"path"
	"strings"
)

// Simple commands: wrappers peeled off (sudo, env, shells with -c, find, git, xargs, ...).

// prefixWrappers run the command that follows their own options
// (`timeout 5 cmd`, `nice -n 5 cmd`, `stdbuf -oL cmd`): each returns the
// wrapped command's words, or false when it cannot tell where they start
// (the wrapper is then judged as a command of its own). The wrapper stays
// as a gate: an allow rule must cover it too.
var prefixWrappers = map[string]func(a *analyzer, args []word) ([]word, bool){
	"timeout": func(_ *analyzer, args []word) ([]word, bool) { return skipOpts(args, "-s --signal -k --kill-after", 1) },
	"nice":    func(_ *analyzer, args []word) ([]word, bool) { return skipNice(args) },
	"nohup":   runsRest,
	"builtin": runsRest,
	"noglob":  runsRest,
	"exec":    func(_ *analyzer, args []word) ([]word, bool) { return skipOpts(args, "-a", 0) },
	"command": func(_ *analyzer, args []word) ([]word, bool) { return skipOpts(args, "", 0) },
	"stdbuf": func(_ *analyzer, args []word) ([]word, bool) {
		return skipOpts(args, "-i -o -e --input --output --error", 0)
	},
	"time": skipTime,
}

// runsRest is a wrapper without options of its own: it runs its arguments.
func runsRest(_ *analyzer, args []word) ([]word, bool) { return args, len(args) > 0 }

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
	defer a.cur.leave(a.cur.enter(text, ws))
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
		alts = append(alts, joinNamed(base, ws[1:]))
	}
	untrusted := !nameTrusted(cmd)
	// every name the program may also go by meets deny and ask rules
	// (pip-3.12 meets rules for pip3 and pip, nodejs for node, RM for rm,
	// x86_64-linux-gnu-gcc-12 for gcc): programs_names.go
	// one lookup for what the tables say of the name (nameFacts)
	facts := memoName(base)
	if !facts.plain {
		for _, n := range facts.variants {
			alts = append(alts, joinNamed(n, ws[1:]))
		}
	}
	if c := facts.canon; c != base {
		// pip3.12 is read as pip
		base = c
		untrusted = true
		facts = memoName(base)
	}
	if untrusted {
		// ./scripts/date1, ./ls, ./nohup, ./cd: the known program's (or
		// wrapper's, or builtin's) reading applies, and it is also a
		// program the policy does not know (programs_names.go): a path runs
		// the file, never a builtin or the installed wrapper.
		a.addSub(subCmd{text: text, alts: alts}, ctx)
	}
	// a function being defined that calls itself in a pipe or in the
	// background: a fork bomb.
	for _, f := range a.fn {
		if f == cmd && f != "" && (ctx.inPipe || ctx.bg) {
			a.addSub(subCmd{text: text, breaker: "fork bomb: function " + f + " starts copies of itself"}, ctx)
			return
		}
	}
	a.noteCall(cmd, ctx)
	a.noteShellOptions(base, ws[1:]) // set -k, shopt -so allexport (shell_vars_keyword.go)
	if a.vt.keyword {
		// set -k before it: bash drops NAME=V from the arguments, so deny
		// and ask rules meet the command as it runs too (rm X=1 -rf d
		// is rm -rf d).
		alts = append(alts, keywordAlts(cmd, base, ws[1:])...)
	}
	gate := func() { a.addSub(subCmd{text: text, alts: alts, kind: skGate}, ctx) }
	args := ws[1:]
	// abbreviated long options read as their full names (programs_abbrev.go)
	if exp, amb := expandOptions(base, args); amb != "" {
		a.setUncertain(base + " " + amb + " abbreviates several options")
	} else if len(exp) > 0 && &exp[0] != &args[0] {
		args = exp
		ws = append([]word{ws[0]}, exp...)
	}
	if base == "git" {
		for _, w := range args {
			if w.static && strings.Contains(w.s, "ext::") {
				a.setUncertain("git's ext:: transport runs a command")
				break
			}
		}
	}
	if base == "command" && len(args) > 0 && (args[0].s == "-v" || args[0].s == "-V") {
		// command -v NAME: says what NAME is, runs nothing.
		a.addSub(subCmd{text: text, alts: alts, readOnly: true}, ctx)
		return
	}
	if facts.tables.prefixWrapper {
		if rest, ok := prefixWrappers[base](a, args); ok {
			gate()
			a.command(rest, ctx)
			return
		}
	}
	if d, rest := a.lookupDeclOf(base, args); d != nil && a.declaredGuess(d, base, rest, args, text, alts, ctx) {
		return
	}
	switch base {
	case "sudo", "doas", "run0", "pkexec", "sudoedit":
		a.sudoCmd(base, args, text, alts, ctx)
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
		// the command gets its arguments (or, with -I, parts of its words)
		// from the input, at run time.
		ctx.runtimeArgs = "xargs"
		n := len(a.an.subs)
		a.command(xargsRuns(rest, xargsReplace(args[:len(args)-len(rest)])), ctx)
		a.stdinArgs(n, args) // its arguments come from standard input (shell_reads.go)
		a.xargsWrites(n, rest)
		return
	case "env":
		a.envCmd(ws, text, alts, ctx)
		return
	case "bash", "sh", "zsh", "dash", "ksh", "mksh", "fish", "ash", "busybox", "toybox", "yash", "posh", "rbash", "tcsh", "csh":
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
	if n := len(a.an.subs); a.runsCode(base, facts.tables.interp, ws, text, alts, ctx) {
		// Code the reader cannot see is uncertain; the files its arguments
		// name are still read (class 6): they meet Read deny rules.
		if n < len(a.an.subs) && !facts.tables.noFileArgs {
			a.argReadsOf(&a.an.subs[n], ws[1:], nil)
		}
		return
	}
	if facts.tables.runsArgs {
		// a program that runs its arguments as a command: the whole needs
		// an allow rule, and every tail of it that starts with a plain word
		// is checked against deny and ask rules (and breakers), so
		// `watch -n1 rm -rf x` is still rm.
		rsc := subCmd{text: text, alts: alts, kind: skNeedRule}
		a.declEffects(&rsc, base, ws[1:], ctx) // its escapes (gdb -ex 'shell ...')
		a.addSub(rsc, ctx)
		inner := ctx
		inner.gate = true
		if base == "parallel" || base == "sem" {
			inner.runtimeArgs = base
		}
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
			// (parallel and sem too, with {} standing for each input.)
			if src := strings.Join(plain, " "); strings.ContainsAny(src, ";&|$`()<>") || base == "watch" || base == "parallel" || base == "sem" {
				cwd, known := a.cwd, a.cwdKnown
				a.parseAndVisitLenient(src, inner)
				a.cwd, a.cwdKnown = cwd, known
			}
		}
		return
	}
	sc := a.newSub()
	sc.text, sc.alts = text, alts
	a.classify(sc, base, &facts.tables, args, ctx)
	if ctx.runtimeArgs != "" && facts.tables.destructive && sc.breaker == "" {
		sc.breaker = base + " on targets supplied at run time (by " + ctx.runtimeArgs + ")"
	}
	a.addSub(*sc, ctx)
	if !facts.known && sc.breaker == "" {
		a.probe(ws, ctx)
	}
}

// destructiveCmds destroy or give away what they are pointed at: with
// targets only known at run time (xargs, find -exec {}, parallel) they are
// circuit breakers.
var destructiveCmds = map[string]bool{
	"rm": true, "rmdir": true, "unlink": true, "shred": true, "wipe": true, "srm": true, "truncate": true,
	"mv": true, "dd": true, "chmod": true, "chown": true, "chgrp": true, "chattr": true, "setfacl": true,
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

// envCmd: env [opts] [NAME=value...] [cmd]. Options in every getopt form
// (-i, -, -u NAME, -C DIR, -S 'cmd', -iS'cmd', --split-string=, ...).
// NAME=value outside the safe set needs an allow rule that names it; a
// dangerous NAME makes the command uncertain (shell_vars.go).
func (a *analyzer) envCmd(ws []word, text string, alts []string, ctx walkCtx) {
	args := ws[1:]
	kind := skGate
	savedCwd, savedKnown := a.cwd, a.cwdKnown
	defer func() { a.cwd, a.cwdKnown = savedCwd, savedKnown }()
	var split []word
	rest := args
	for {
		// "-" alone is -i.
		for len(rest) > 0 && rest[0].static && rest[0].s == "-" {
			rest = rest[1:]
		}
		opts, r, ok := parseOpts(rest, optSpec{short: "uCSPa", long: []string{"unset", "chdir", "split-string",
			"argv0", "default-signal", "ignore-signal", "block-signal"}})
		if !ok {
			a.setUncertain("env takes an option known only at run time")
			a.addSub(subCmd{text: text, alts: alts, kind: skNeedRule}, ctx)
			return
		}
		rest = r
		for _, o := range opts {
			switch o.name {
			case "-C", "--chdir":
				a.cdCmd([]word{o.val})
			case "-S", "--split-string":
				kind = skNeedRule
				if !o.val.static {
					a.setUncertain("env -S splits a command known only at run time")
				}
				for _, f := range lexWords(o.val.s) {
					split = append(split, staticWord(f))
				}
			case "-P", "-a", "--argv0":
				kind = skNeedRule // another program search path or argv[0]
			case "-i", "--ignore-environment", "-0", "--null", "-v", "--debug", "-u", "--unset",
				"--default-signal", "--ignore-signal", "--block-signal", "--list-signal-handling":
			default:
				a.setUncertain("env has an option the reader does not know: " + o.name)
			}
		}
		if len(split) > 0 {
			// GNU env reads the words of -S in its place, as options,
			// assignments and the command (env -S 'WGETRC=rc wget URL':
			// red team 17), then the words after it.
			rest = append(split, rest...)
			split = nil
			continue
		}
		// NAME=value words, then maybe more options? No: env stops at the
		// first assignment or command.
		for len(rest) > 0 && rest[0].static && isAssignWord(rest[0].s) {
			name := rest[0].s[:strings.IndexByte(rest[0].s, '=')]
			a.vt.setEnv(name)
			if !envSafe(name) {
				kind = skNeedRule
			}
			a.probeAssignWords(rest[:1], ctx) // programs_rt4.go
			rest = rest[1:]
		}
		break
	}
	if len(rest) > 0 && !rest[0].static {
		// env "$X" cmd: an assignment or the command, unknown.
		a.setUncertain("env runs a command or sets a variable known only at run time")
	}
	if len(rest) == 0 {
		a.addSub(subCmd{text: text, alts: alts, readOnly: kind == skGate}, ctx) // prints the environment
		return
	}
	a.addSub(subCmd{text: text, alts: alts, kind: kind}, ctx)
	a.command(rest, ctx)
}

// sudoCmd: sudo/doas/run0/pkexec [opts] [NAME=value...] cmd. The whole
// needs its own allow rule; the command under it is a deny/ask gate.
func (a *analyzer) sudoCmd(base string, args []word, text string, alts []string, ctx walkCtx) {
	spec := optSpec{short: "ugCDhprtTUR", long: []string{"user", "group", "close-from", "chdir", "host", "prompt",
		"role", "type", "command-timeout", "other-user", "chroot"}}
	switch base {
	case "doas":
		spec = optSpec{short: "uC"}
	case "pkexec":
		spec = optSpec{long: []string{"user"}}
	case "run0":
		spec = optSpec{short: "uDg", long: []string{"user", "group", "chdir", "setenv", "nice", "property",
			"description", "slice", "unit", "machine", "background", "pty"}}
	}
	a.addSub(subCmd{text: text, alts: alts, kind: skNeedRule}, ctx)
	opts, rest, ok := parseOpts(args, spec)
	if !ok {
		a.setUncertain(base + " takes an option known only at run time")
		return
	}
	savedCwd, savedKnown := a.cwd, a.cwdKnown
	defer func() { a.cwd, a.cwdKnown = savedCwd, savedKnown }()
	for _, o := range opts {
		switch o.name {
		case "-D", "--chdir":
			// sudo -D DIR / run0 -D DIR: the command runs in DIR, as
			// with env -C and git -C (red team 4, gitallow).
			if base == "sudo" || base == "run0" {
				a.cdCmd([]word{o.val})
			}
		case "-e", "--edit":
			if base == "sudo" {
				a.setUncertain("sudo -e edits files as another user")
			}
		case "--setenv":
			if n, _, ok := strings.Cut(o.val.s, "="); ok {
				a.vt.setEnv(n)
			}
		}
	}
	if base == "sudoedit" {
		a.setUncertain("sudoedit edits files as another user")
	}
	for len(rest) > 0 && rest[0].static && isAssignWord(rest[0].s) {
		a.vt.setEnv(rest[0].s[:strings.IndexByte(rest[0].s, '=')])
		a.probeAssignWords(rest[:1], ctx) // programs_rt4.go
		rest = rest[1:]
	}
	if len(rest) > 0 {
		inner := ctx
		inner.gate = true
		a.command(rest, inner)
	}
}

// shellC handles sh -c 'S': S is parsed as a command line of its own.
// It returns false for a shell run on a script or stdin (a plain command).
func (a *analyzer) shellC(ws []word, text string, alts []string, ctx walkCtx) bool {
	args := ws[1:]
	if b := path.Base(ws[0].s); b == "busybox" || b == "toybox" {
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
	// bash -k, sh -ac, bash -o allexport: the options of the new shell
	// (shell_vars_keyword.go).
	a.vt.turnOn(setOptions(args))
	hasC := false
	i := 0
	for i < len(args) {
		w := args[i]
		if !w.static {
			if hasC {
				break // the command string, known only at run time
			}
			// the script operand: a process substitution runs what it prints.
			return a.shellScriptSubst(path.Base(ws[0].s), w, text, alts, ctx)
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
		if i < len(args) && i > 0 {
			// after -- or options: the script operand (bash -x -- <(CMD)).
			if !args[i].static {
				return a.shellScriptSubst(path.Base(ws[0].s), args[i], text, alts, ctx)
			}
		}
		if i < len(args) && fdPath(args[i]) && args[i].s != "/dev/stdin" {
			// bash /dev/fd/3 3< <(CMD): the script is a redirect's
			// descriptor (programs_rt3.go).
			a.addSub(subCmd{text: text, alts: alts, kind: skGate}, ctx)
			a.setUncertain("`" + path.Base(ws[0].s) + "` runs a script read from a file descriptor, known only at run time")
			return true
		}
		return a.stdinShell(args, text, alts, ctx)
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
	a.positional(args[i].s, args[i+1:], ctx)
	return true
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
	physical := false
	for len(args) > 0 && args[0].static && strings.HasPrefix(args[0].s, "-") && args[0].s != "-" && args[0].s != "--" {
		// cd -L (the shell cleans .. lexically), -P (the kernel resolves
		// the links first), -e, -@
		physical = physical || strings.Contains(args[0].s, "P")
		args = args[1:]
	}
	if len(args) > 0 && args[0].static && args[0].s == "--" {
		args = args[1:]
	}
	switch {
	case len(args) == 0:
		a.cwd, a.cwdKnown = a.env.home, a.env.home != ""
	case args[0].pathOK && !args[0].glob && !args[0].brace && args[0].s != "-" && a.cwdKnown:
		if physical {
			real, unsure := realPath(a.env.fs, args[0].path, a.cwd, a.env.home)
			if unsure {
				a.cwd, a.cwdKnown = "", false
				return
			}
			a.cwd = real
			return
		}
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
	a.findEffects(&sc, args, starts)      // shell_reads.go
	a.declEffects(&sc, "find", args, ctx) // its declaration: -files0-from F is a read (programs_optreads.go)
	for _, w := range args {
		if w.static && w.s == "-files0-from" {
			// the start points are F's lines: what it walks (and deletes,
			// and hands to -exec) is known only at run time.
			optUnknownRead(&sc, w.s)
			if !sc.readOnly || len(execs) > 0 {
				a.setUncertain("find -files0-from acts on start points known only at run time")
			}
		}
	}
	if sc.breaker == "" {
		sc.breaker = a.findExecBreaker(starts, execs, args)
	}
	a.addSub(sc, ctx)
	for _, ex := range execs {
		if len(ex) == 0 {
			a.setUncertain("find -exec with no command")
			continue
		}
		// {} is a file under the start paths: when they are all known,
		// the breakers judge those trees (findExecBreaker); when one is
		// not, the targets are unknown (class 4).
		known := len(starts) > 0
		for _, st := range starts {
			if !st.static || !st.pathOK || st.glob || st.brace {
				known = false
			}
		}
		ectx := ctx
		for _, w := range ex {
			if strings.Contains(w.s, "{}") && !known {
				ectx.runtimeArgs = "find -exec"
			}
		}
		n := len(a.an.subs)
		a.command(ex, ectx)
		a.findExecArgs(n, starts) // {} is any file under the start paths (shell_reads.go)
	}
}
