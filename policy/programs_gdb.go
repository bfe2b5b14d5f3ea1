package policy

import (
	"regexp"
	"strings"
	"sync"
)

// gdb's own commands and options, read with gdb's rules (red team 16b;
// programs_exlang.go says why). gdb accepts any unique prefix of a command
// (`she CMD` is `shell CMD`) and parses its options with getopt_long_only
// and no short options: `-ex`, `--ex`, `-eval-command`, `-eval-comm=V`,
// `--init-eval=V` are all one option. gdbOptions canonicalises them before
// the declaration reads them (expandOptions, programs_abbrev.go).

// gdbLongOptions: gdb's options (gdb/main.c), each with the name the
// declaration knows it by ("" when it is the name itself).
var gdbLongOptions = map[string]string{
	"tui": "", "dbx": "", "readnow": "", "r": "-readnow", "readnever": "", "quiet": "", "q": "-quiet", "silent": "-quiet",
	"nh": "", "nx": "", "n": "-nx", "batch-silent": "", "batch": "", "fullname": "", "f": "-fullname", "annotate": "",
	"help": "", "se": "", "symbols": "-s", "s": "", "exec": "-e", "e": "", "core": "-c", "c": "", "pid": "-p", "p": "",
	"command": "-x", "eval-command": "-ex", "version": "", "configuration": "", "x": "", "ex": "",
	"init-command": "-ix", "init-eval-command": "-iex", "ix": "", "iex": "", "early-init-command": "-eix",
	"early-init-eval-command": "-eiex", "eix": "", "eiex": "", "directory": "-d", "d": "", "data-directory": "-D", "D": "",
	"cd": "", "tty": "", "baud": "-b", "b": "", "nw": "", "nowindows": "-nw", "w": "", "windows": "-w", "statistics": "",
	"write": "", "args": "", "l": "", "return-child-result": "", "interpreter": "", "i": "-interpreter", "ui": "-interpreter",
	"async": "", "noasync": "", "nosync": "", "nyms": "", "xdb": "", "epoch": "",
}

// gdbValued: the canonical options that take a value.
var gdbValued = []string{"-ex", "-iex", "-eiex", "-x", "-ix", "-eix", "-p", "-s", "-e", "-c", "-d", "-D", "-cd", "-tty", "-b",
	"-l", "-se", "-annotate", "-interpreter"}

// gdbOptions rewrites every gdb option to its canonical name, its value in
// the next word; an ambiguous prefix is returned (gdb refuses it; the
// reader asks). Words after -args are the program's.
func gdbOptions(args []word) (out []word, ambiguous string) {
	for i := 0; i < len(args); i++ {
		w := args[i]
		if !w.static || !strings.HasPrefix(w.s, "-") || w.s == "-" || w.s == "--" {
			out = append(out, w)
			continue
		}
		body := strings.TrimPrefix(strings.TrimPrefix(w.s, "-"), "-")
		name, val, hasVal := strings.Cut(body, "=")
		full, ok := gdbResolve(name)
		if !ok {
			if ambiguous == "" {
				ambiguous = w.s
			}
			out = append(out, w)
			continue
		}
		nw := w
		nw.s = full
		nw.path = full
		out = append(out, nw)
		if hasVal {
			vw := w
			vw.s, vw.path = val, val
			if w.pathOK {
				vw.path = val
			}
			out = append(out, vw)
		}
		if full == "-args" {
			return append(out, args[i+1:]...), ambiguous
		}
	}
	return out, ambiguous
}

// gdbResolve: the canonical spelling of gdb's option name (an exact name
// or a unique prefix, as getopt_long does); false when none or several fit.
func gdbResolve(name string) (string, bool) {
	canon := func(n string) string {
		if c := gdbLongOptions[n]; c != "" {
			return c
		}
		return "-" + n
	}
	if _, ok := gdbLongOptions[name]; ok {
		return canon(name), true
	}
	found := ""
	for n := range gdbLongOptions {
		if strings.HasPrefix(n, name) && name != "" {
			c := canon(n)
			if found != "" && found != c {
				return "", false
			}
			found = c
		}
	}
	return found, found != ""
}

// gdbHarmless: gdb commands and aliases that run nothing and write no
// file (expressions aside: see gdbExprDoubt). A word that is exactly one
// of these is that command; any other word is read as every command it
// is a prefix of.
var gdbHarmless = []string{"backtrace", "bt", "where", "info", "i", "list", "l", "x", "quit", "q", "echo", "show", "help", "h",
	"break", "b", "br", "tbreak", "continue", "c", "cont", "next", "n", "step", "s", "stepi", "si", "nexti", "ni", "finish", "fin",
	"disassemble", "ptype", "whatis", "up", "down", "display", "undisplay", "delete", "d", "disable", "enable", "detach", "kill",
	"k", "file", "core-file", "core", "symbol-file", "directory", "dir", "watch", "rwatch", "awatch", "until", "u", "advance",
	"pwd", "version", "apropos", "complete", "layout", "focus", "refresh", "handle", "exec-file", "sharedlibrary",
	"add-symbol-file", "info", "disas", "tui"}

// gdbDangerous: commands that run a shell, code in another language or a
// command file, or evaluate expressions that can call functions.
var gdbShell = []string{"shell", "pipe", "make", "edit"}
var gdbDoubt = []string{"source", "python", "python-interactive", "pi", "py", "guile", "guile-repl", "gr", "gu", "compile",
	"define", "document", "dump", "append", "restore", "run", "start", "starti",
	"eval", "interpreter-exec", "with", "if", "while", "commands", "alias", "frame", "thread", "taas", "faas", "tfaas", "save",
	"generate-core-file", "gcore", "jit-reader-load", "add-auto-load-safe-path", "add-auto-load-scripts-directory", "explore",
	"target", "remote", "signal", "queue-signal", "jump", "return", "demangle", "tee", "record", "checkpoint", "dprintf",
	"condition", "ignore", "tstart", "actions", "agent-printf",
	// attach PID: another process's memory, read (x, info registers)
	// or killed (red team 17).
	"attach"}

// gdbExpr: commands that evaluate an expression (a function call in it
// is a doubt: print system("..."), call $_shell("...")).
var gdbExpr = []string{"print", "p", "printf", "output", "inspect", "call"}

// gdbSafeSets: `set` subcommands that name no program, file or code.
var gdbSafeSets = []string{"pagination", "confirm", "width", "height", "listsize", "print", "p", "disassembly-flavor", "style",
	"verbose", "language", "architecture", "osabi", "breakpoint", "charset", "trace-commands", "non-stop", "scheduler-locking",
	"step-mode", "disassemble-next-line", "max-value-size", "auto-solib-add", "backtrace", "filename-display", "complaints",
	"can-use-hw-watchpoints", "startup-with-shell", "disable-randomization", "follow-fork-mode", "detach-on-fork", "logging"}

// gdbRead reads gdb commands (the value of -ex, -iex or -eiex; one per line).
func gdbRead(s string) exReading {
	var r exReading
	for _, line := range strings.Split(s, "\n") {
		gdbReadLine(&r, line, 0)
	}
	return r
}

func gdbReadLine(r *exReading, line string, depth int) {
	l := strings.TrimSpace(line)
	if l == "" || l[0] == '#' {
		return
	}
	if depth > 4 {
		r.setDoubt("gdb commands nested too deep")
		return
	}
	if strings.Contains(l, "$_shell") || strings.Contains(l, "$_as_string") && strings.Contains(l, "(") {
		r.setDoubt("gdb $_shell runs a shell")
		r.code = append(r.code, quotedLiterals(l)...)
	}
	if l[0] == '!' {
		r.code = append(r.code, l[1:])
		return
	}
	if l[0] == '|' {
		gdbPipe(r, l[1:], depth)
		return
	}
	n := 0
	for n < len(l) && (isAlnum(l[n]) || l[n] == '-' || l[n] == '_') {
		n++
	}
	if n == 0 {
		r.setDoubt("gdb command " + strings.Fields(l)[0] + " is not one the reader knows")
		return
	}
	// gdb retries an unknown command word in lower case.
	w, rest := strings.ToLower(l[:n]), strings.TrimSpace(l[n:])
	if w == "mt" || strings.HasPrefix("maintenance", w) {
		gdbMaint(r, rest, depth)
		if w == "mt" || len(w) >= 3 {
			return // `ma` and `m` are ambiguous: read as every command below too
		}
	}
	if containsStr(gdbHarmless, w) {
		gdbExprDoubt(r, rest)
		return
	}
	// An exact name or alias is that command (`p` is print, `pi` is
	// python-interactive), whatever longer names it is a prefix of.
	switch {
	case containsStr(gdbExpr, w):
		gdbExprDoubt(r, rest)
		return
	case containsStr(gdbDoubt, w):
		r.setDoubt("gdb " + w + " may run code the reader cannot see")
		r.code = append(r.code, quotedLiterals(rest)...)
		gdbInnerShell(r, rest, depth)
		return
	}
	matched := false
	for _, c := range gdbShell {
		if strings.HasPrefix(c, w) {
			matched = true
			switch c {
			case "pipe":
				gdbPipe(r, rest, depth)
			case "shell":
				r.code = append(r.code, rest)
			default:
				r.setDoubt("gdb " + c + " runs a program")
				r.code = append(r.code, rest)
			}
		}
	}
	for _, c := range gdbExpr {
		if strings.HasPrefix(c, w) {
			matched = true
			gdbExprDoubt(r, rest)
		}
	}
	for _, c := range gdbDoubt {
		if strings.HasPrefix(c, w) {
			matched = true
			r.setDoubt("gdb " + c + " may run code the reader cannot see")
			r.code = append(r.code, quotedLiterals(rest)...)
			gdbInnerShell(r, rest, depth)
		}
	}
	if strings.HasPrefix("set", w) && len(w) >= 2 || w == "set" {
		matched = true
		gdbSet(r, rest)
	}
	if matched {
		return
	}
	for _, c := range gdbHarmless {
		if strings.HasPrefix(c, w) {
			gdbExprDoubt(r, rest)
			return
		}
	}
	r.setDoubt("gdb command " + w + " is not one the reader knows")
}

// gdbInnerShell: a command that runs another command (`thread apply all
// CMD`, `with SETTING -- CMD`, `frame apply`, `define`): every word from
// which a shell command starts (a prefix of shell or pipe, `!`, `|`) is
// read from there, for deny rules.
func gdbInnerShell(r *exReading, rest string, depth int) {
	if _, cmd, ok := strings.Cut(" "+rest+" ", " -- "); ok {
		gdbReadLine(r, cmd, depth+1) // with SETTING -- CMD, thread apply all -- CMD
	}
	f := strings.Fields(rest)
	for i, w := range f {
		if strings.HasPrefix(w, "!") || strings.HasPrefix(w, "|") || len(w) >= 2 && (strings.HasPrefix("shell", w) || strings.HasPrefix("pipe", w)) {
			gdbReadLine(r, strings.Join(f[i:], " "), depth+1)
			return
		}
	}
}

// gdbMaint: `maintenance` (`mt`, any prefix from `mai`): its `info`
// (`i`) and `show` subcommands print; any other is a doubt (red team 17:
// `maint with SETTING -- CMD` runs CMD, read for deny rules as `with`'s;
// `maint print msymbols|symbols|registers... FILE` writes FILE, each word
// after the subcommand a candidate write).
func gdbMaint(r *exReading, rest string, depth int) {
	f := strings.Fields(rest)
	if len(f) == 0 {
		return // lists the maintenance commands
	}
	sub := strings.ToLower(f[0])
	switch {
	case sub == "i" || len(sub) >= 3 && strings.HasPrefix("info", sub), len(sub) >= 3 && strings.HasPrefix("show", sub):
		gdbExprDoubt(r, strings.Join(f[1:], " "))
		return
	case strings.HasPrefix("print", sub):
		if len(f) > 2 {
			r.writes = append(r.writes, f[2:]...)
		}
	}
	r.setDoubt("gdb maintenance " + sub + " may run code or write a file the reader cannot see")
	r.code = append(r.code, quotedLiterals(rest)...)
	gdbInnerShell(r, rest, depth)
}

// gdbPipe: `pipe [-d DELIM] CMD DELIM SHELL_CMD` (and `| ...`): the gdb
// command is read, the shell command is shell code.
func gdbPipe(r *exReading, rest string, depth int) {
	rest = strings.TrimSpace(rest)
	delim := "|"
	if strings.HasPrefix(rest, "-d") {
		f := strings.Fields(rest[2:])
		if len(f) == 0 {
			r.setDoubt("gdb pipe without a delimiter")
			return
		}
		delim = f[0]
		rest = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(rest[2:]), delim))
	}
	cmd, sh, ok := strings.Cut(rest, delim)
	if !ok {
		r.setDoubt("gdb pipe repeats the last command into a shell")
		r.code = append(r.code, rest)
		return
	}
	gdbReadLine(r, cmd, depth+1)
	r.code = append(r.code, sh)
}

// gdbSet: `set logging file F` (and gdb < 12's `set logging on F`)
// writes F; `set` of anything but a known plain setting is a doubt.
func gdbSet(r *exReading, rest string) {
	f := strings.Fields(rest)
	if len(f) == 0 {
		return
	}
	if len(f[0]) >= 3 && strings.HasPrefix("logging", f[0]) || f[0] == "lo" || f[0] == "log" {
		if len(f) >= 3 && (strings.HasPrefix("file", f[1]) || strings.HasPrefix("on", f[1])) {
			r.writes = append(r.writes, strings.TrimSpace(strings.Join(f[2:], " ")))
		}
		return
	}
	safe := false
	for _, s := range gdbSafeSets {
		if s == f[0] || len(f[0]) >= 3 && strings.HasPrefix(s, f[0]) {
			safe = true
		}
	}
	if !safe {
		r.setDoubt("gdb set " + f[0] + " may name a program, file or expression")
		return
	}
	gdbExprDoubt(r, strings.Join(f[1:], " "))
}

// gdbCallRe: a name followed by `(`: a function call (or sizeof);
// compiled at first use (no start-up cost).
var gdbCallRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`([A-Za-z_$][A-Za-z0-9_$]*)\s*\(`) })

// gdbExprDoubt: an expression that calls a function (in the inferior, or
// gdb's $_shell) is a doubt.
func gdbExprDoubt(r *exReading, expr string) {
	call := false
	for _, m := range gdbCallRe().FindAllStringSubmatch(expr, -1) {
		switch m[1] {
		case "sizeof", "alignof", "_Alignof", "typeof", "__typeof__", "decltype":
		default:
			call = true
		}
	}
	if call {
		r.setDoubt("gdb evaluates an expression that may call a function")
		r.code = append(r.code, quotedLiterals(expr)...)
	}
}

// gdbEscapeCode: the escape of the gdb declaration (its forms and match
// lists): the shell code gdbRead finds.
func gdbEscapeCode(s string) (string, bool) {
	r := gdbRead(s)
	return strings.Join(r.code, "\n"), len(r.code) > 0
}
