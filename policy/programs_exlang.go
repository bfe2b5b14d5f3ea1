package policy

import "strings"

// Programs whose commands are code in their own language (red team 16b):
// vim's ex commands (-c, --cmd, +CMD) and gdb's commands (-ex, -iex,
// -eiex in every spelling gdb accepts). Each is read with the program's
// own rules: vim's ranges, `|` separators and command abbreviations; gdb's
// unique command prefixes. A command the reader knows runs a shell gives
// its shell code (read as any shell code: deny rules hold); one that
// writes a file gives the file (checked as any write); anything the reader
// cannot prove harmless (code in another language, a sourced file, an
// expression calling functions, an unknown command word) is a doubt: ask.
// docs/policy.md, "What the static reading holds".

// exReading is what one argument in a program's command language does.
type exReading struct {
	code   []string // shell code it runs
	writes []string // files it writes
	reads  []string // files it may read (string literals of code it doubts)
	doubt  string   // why it may do more than the reader can tell
}

// doubtLiterals: the string literals of code the reader does not follow
// (a call, an expression, another language) are read as shell code and
// as files read, for deny rules (`:pu =readfile("~/.ssh/id_rsa")`,
// `:cal system("rm -rf x")`): more candidates, never fewer.
func (r *exReading) doubtLiterals(s string) {
	lits := quotedLiterals(s)
	r.code = append(r.code, lits...)
	r.reads = append(r.reads, lits...)
}

func (r *exReading) setDoubt(why string) {
	if r.doubt == "" {
		r.doubt = why
	}
}

// exCmd is a command name with its shortest accepted spelling (vim's
// `:h :command` notation ter[minal]: min "ter", full "terminal").
type exCmd struct{ min, full string }

// exMatch: w spells c (a prefix of the full name, at least the minimum).
func exMatch(w string, c exCmd) bool {
	return len(w) >= len(c.min) && strings.HasPrefix(c.full, w)
}

func exFind(w string, table []exCmd) (exCmd, bool) {
	for _, c := range table {
		if exMatch(w, c) {
			return c, true
		}
	}
	return exCmd{}, false
}

// vimModifiers: commands that run the command after them.
var vimModifiers = []exCmd{{"sil", "silent"}, {"uns", "unsilent"}, {"keepj", "keepjumps"}, {"keepp", "keeppatterns"},
	{"keepa", "keepalt"}, {"keepm", "keepmarks"}, {"kee", "keepmarks"}, {"loc", "lockmarks"}, {"noa", "noautocmd"},
	{"verb", "verbose"}, {"vert", "vertical"}, {"bo", "botright"}, {"to", "topleft"}, {"abo", "aboveleft"},
	{"lefta", "leftabove"}, {"bel", "belowright"}, {"rightb", "rightbelow"}, {"tab", "tab"}, {"hid", "hide"},
	{"san", "sandbox"}, {"hor", "horizontal"}, {"noswap", "noswapfile"}, {"filt", "filter"}, {"legacy", "legacy"}, {"vim9", "vim9cmd"}}

// vimDanger: ex commands that run code or read code from a file, by kind.
var vimShellCmds = []exCmd{{"ter", "terminal"}, {"sh", "shell"}, {"mak", "make"}, {"lmak", "lmake"}, {"gr", "grep"},
	{"lgr", "lgrep"}, {"grepa", "grepadd"}, {"lgrepa", "lgrepadd"}}
var vimOtherLang = []exCmd{{"lua", "lua"}, {"luad", "luado"}, {"luaf", "luafile"}, {"py", "python"}, {"py3", "py3"},
	{"python3", "python3"}, {"pyx", "pyx"}, {"pythonx", "pythonx"}, {"pyd", "pydo"}, {"py3d", "py3do"}, {"pyxd", "pyxdo"},
	{"pyf", "pyfile"}, {"py3f", "py3file"}, {"pyxf", "pyxfile"}, {"pe", "perl"}, {"perld", "perldo"}, {"mzsc", "mzscheme"}, {"rub", "ruby"},
	{"rubyd", "rubydo"}, {"rubyf", "rubyfile"}, {"tc", "tcl"}, {"tcld", "tcldo"}, {"tclf", "tclfile"}, {"mz", "mzscheme"},
	{"mzf", "mzfile"}}
var vimDoubtCmds = []exCmd{{"so", "source"}, {"ru", "runtime"}, {"pa", "packadd"}, {"norm", "normal"}, {"e", "edit"},
	{"ex", "ex"}, {"vi", "visual"}, {"sp", "split"}, {"new", "new"}, {"vs", "vsplit"}, {"r", "read"}, {"redi", "redir"},
	{"mks", "mksession"}, {"mkvie", "mkview"}, {"mkv", "mkvimrc"}, {"mk", "mkexrc"}, {"wv", "wviminfo"}, {"wsh", "wshada"},
	{"au", "autocmd"}, {"com", "command"}, {"fu", "function"}, {"def", "def"}, {"let", "let"}, {"cal", "call"},
	{"exe", "execute"}, {"ec", "echo"}, {"echom", "echomsg"}, {"echon", "echon"}, {"echoe", "echoerr"}, {"ev", "eval"},
	{"if", "if"}, {"wh", "while"}, {"for", "for"}, {"try", "try"}, {"cex", "cexpr"}, {"cg", "cgetfile"}, {"cf", "cfile"},
	{"lex", "lexpr"}, {"bufdo", "bufdo"}, {"windo", "windo"}, {"tabdo", "tabdo"}, {"argdo", "argdo"}, {"cdo", "cdo"},
	{"ldo", "ldo"}, {"cfdo", "cfdo"}, {"lfdo", "lfdo"}, {"diffp", "diffpatch"}, {"dif", "diffupdate"}, {"ha", "hardcopy"},
	{"scr", "scriptnames"}, {"scripte", "scriptencoding"}, {"im", "imap"}, {"map", "map"}, {"no", "noremap"}, {"nn", "nnoremap"},
	{"nm", "nmap"}, {"ino", "inoremap"}, {"cno", "cnoremap"}, {"cm", "cmap"}, {"ab", "abbreviate"}, {"X", "X"},
	{"cs", "cscope"}, {"lcs", "lcscope"}, {"scs", "scscope"}, {"sign", "sign"}, {"helpg", "helpgrep"}, {"vim", "vimgrep"},
	{"lv", "lvimgrep"}, {"argu", "argument"}, {"ar", "args"}, {"n", "next"}, {"cd", "cd"}, {"lc", "lcd"}, {"tc", "tcd"},
	{"chd", "chdir"}}

// vimWriteCmds: commands that write the buffer to a file they are given
// (`w F`, `w >> F`, `w !CMD` runs CMD); without a file they write the
// file being edited.
var vimWriteCmds = []exCmd{{"w", "write"}, {"sav", "saveas"}, {"up", "update"}, {"x", "xit"}, {"exi", "exit"}, {"wq", "wq"},
	{"wn", "wnext"}, {"wN", "wNext"}, {"wp", "wprevious"}, {"wa", "wall"}, {"wqa", "wqall"}, {"xa", "xall"}}

// vimSafeOptions: options `set` may change without running or naming a
// program, file or expression (with no/inv/! and =VALUE). Any other
// option is a doubt ('shell', 'makeprg', '*expr', '*func', 'rtp', ...).
var vimSafeOptions = map[string]bool{"nu": true, "number": true, "rnu": true, "relativenumber": true, "ts": true, "tabstop": true,
	"sw": true, "shiftwidth": true, "sts": true, "softtabstop": true, "et": true, "expandtab": true, "ff": true, "fileformat": true,
	"fenc": true, "fileencoding": true, "enc": true, "encoding": true, "tw": true, "textwidth": true, "ai": true, "autoindent": true,
	"si": true, "smartindent": true, "list": true, "wrap": true, "paste": true, "hls": true, "hlsearch": true, "ic": true,
	"ignorecase": true, "scs": true, "smartcase": true, "bin": true, "binary": true, "eol": true, "endofline": true, "fixeol": true,
	"fixendofline": true, "bomb": true, "ft": true, "filetype": true, "syn": true, "syntax": true, "cp": true, "compatible": true,
	"more": true, "ro": true, "readonly": true, "ma": true, "modifiable": true, "ul": true, "undolevels": true, "bg": true,
	"background": true, "ws": true, "wrapscan": true, "is": true, "incsearch": true, "ru": true, "ruler": true, "sm": true,
	"showmatch": true, "magic": true, "ls": true, "laststatus": true, "cul": true, "cursorline": true, "js": true, "joinspaces": true,
	"sr": true, "shiftround": true, "ve": true, "virtualedit": true, "wm": true, "wrapmargin": true, "fo": true, "formatoptions": true,
	"cc": true, "colorcolumn": true, "ffs": true, "fileformats": true, "fencs": true, "fileencodings": true, "lbr": true,
	"linebreak": true, "hid": true, "hidden": true, "swf": true, "swapfile": true, "bk": true, "backup": true, "wb": true,
	"writebackup": true, "aw": true, "autowrite": true, "ar": true, "autoread": true, "vb": true, "visualbell": true, "eb": true,
	"errorbells": true, "tgc": true, "termguicolors": true, "mouse": true, "sol": true, "startofline": true, "nf": true,
	"nrformats": true, "ci": true, "cindent": true, "lisp": true, "spell": true, "spl": true, "spelllang": true}

// vimRead reads ex commands (the value of -c or --cmd, or a +CMD plain
// argument without its +).
func vimRead(s string) exReading {
	var r exReading
	vimReadInto(&r, s, 0)
	return r
}

func vimReadInto(r *exReading, s string, depth int) {
	if depth > 8 {
		r.setDoubt("vim ex commands nested too deep")
		return
	}
	for s != "" {
		var rest string
		s, rest = vimOneCmd(r, s, depth)
		s = rest
	}
}

// vimOneCmd reads the first command of s and returns what is left after
// its `|` or newline (commands that take `|` as their argument keep it).
func vimOneCmd(r *exReading, s string, depth int) (string, string) {
	s = strings.TrimLeft(s, " \t:\n\r")
	if s == "" {
		return "", ""
	}
	if strings.HasPrefix(s, "\"") {
		// a comment: to the end of the line.
		_, after, _ := strings.Cut(s, "\n")
		return "", after
	}
	s = vimSkipRange(s)
	s = strings.TrimLeft(s, " \t")
	if s == "" || s[0] == '|' || s[0] == '\n' {
		return "", strings.TrimPrefix(strings.TrimPrefix(s, "|"), "\n") // a range alone moves the cursor
	}
	if s[0] == '!' {
		// :!CMD and :{range}!CMD (a filter): the rest is shell code,
		// `|` included.
		r.code = append(r.code, s[1:])
		return "", ""
	}
	n := 0
	for n < len(s) && (s[n] >= 'a' && s[n] <= 'z' || s[n] >= 'A' && s[n] <= 'Z' || n > 0 && s[n] >= '0' && s[n] <= '9') {
		n++
	}
	if n == 0 {
		switch s[0] {
		case '&', '~', '<', '>', '=', '#':
			line, after := vimCutBar(s[1:])
			if s[0] == '=' && strings.TrimSpace(line) != "" {
				// `:= EXPR` is :echo in later vims (9.0 refuses it).
				r.setDoubt("vim := with an expression")
				r.doubtLiterals(line)
			}
			return "", after
		}
		r.setDoubt("vim ex command " + strings.Fields(s)[0] + " is not one the reader knows")
		return "", ""
	}
	name := s[:n]
	args := s[n:]
	bang := strings.HasPrefix(args, "!")
	if bang {
		args = args[1:]
	}
	if c, ok := exFind(name, vimModifiers); ok {
		if c.full == "verbose" || c.full == "tab" {
			args = strings.TrimLeft(args, "0123456789")
		}
		if c.full == "filter" {
			r.setDoubt("vim :filter")
			return "", ""
		}
		vimReadInto(r, args, depth+1)
		return "", ""
	}
	if c, ok := exFind(name, vimShellCmds); ok {
		r.code = append(r.code, vimTermCode(args))
		if c.full != "terminal" || strings.TrimSpace(args) == "" {
			r.setDoubt("vim :" + name + " runs a shell or a program the options name")
		}
		return "", ""
	}
	if c, ok := exFind(name, vimOtherLang); ok {
		r.setDoubt("vim :" + c.full + " runs code in another language")
		r.doubtLiterals(args)
		_, after := vimCutBar(args)
		return "", after
	}
	if c, ok := exFind(name, vimWriteCmds); ok {
		line, after := vimCutBar(args)
		line = strings.TrimLeft(line, " \t")
		for strings.HasPrefix(line, "++") {
			_, line, _ = strings.Cut(line, " ")
			line = strings.TrimLeft(line, " \t")
		}
		switch {
		case strings.HasPrefix(line, "!"):
			_, code, _ := strings.Cut(args, "!")
			r.code = append(r.code, code)
			return "", ""
		case strings.HasPrefix(line, ">>"):
			line = strings.TrimSpace(line[2:])
		}
		if f := strings.TrimSpace(line); f != "" {
			if c.full == "wall" || c.full == "wqall" || c.full == "xall" {
				r.setDoubt("vim :" + c.full + " writes a file the reader cannot name")
			} else {
				vimFileName(r, c.full, f)
			}
		}
		return "", after
	}
	if c, ok := exFind(name, vimDoubtCmds); ok {
		if c.full == "execute" {
			// exe "literal" . "literal": read the string as ex commands.
			if lits, ok := onlyLiterals(args); ok {
				vimReadInto(r, lits, depth+1)
				return "", ""
			}
		}
		if c.full == "read" {
			// :r !CMD and :r!CMD read what CMD prints.
			if a := strings.TrimSpace(args); bang || strings.HasPrefix(a, "!") {
				r.code = append(r.code, strings.TrimPrefix(a, "!"))
				return "", ""
			}
		}
		if strings.HasPrefix(c.full, "echo") && !strings.ContainsAny(args, "()&$@") {
			_, after := vimCutBar(args)
			return "", after // an expression without calls, options, variables of the environment or registers
		}
		r.setDoubt("vim :" + c.full + " may run code the reader cannot see")
		r.doubtLiterals(args)
		vimBangCode(r, args)
		vimPlusCmds(r, args, depth)
		// The reading goes on after a `|` (commands that take `|` as an
		// argument are over-read: more code for deny rules, never less).
		_, after := vimCutBar(args)
		return "", after
	}
	if c, ok := vimFindHarmless(name); ok {
		return vimHarmlessArgs(r, c, args, depth) // programs_vimsafe.go
	}
	r.setDoubt("vim ex command " + name + " is not one the reader knows")
	// Read on for deny rules, as for the doubts above (red team 17:
	// `:tabe +!CMD f`, `:sb +CMD`, `:frob | !CMD`).
	r.doubtLiterals(args)
	vimBangCode(r, args)
	vimPlusCmds(r, args, depth)
	_, after := vimCutBar(args)
	return "", after
}

// vimPlusCmds: the `+CMD` words of a command the reader doubts (:e, :sp,
// :new, :tabe, :n ... run CMD after loading the file) read as ex
// commands too, for deny rules.
func vimPlusCmds(r *exReading, args string, depth int) {
	line, _ := vimCutBar(args)
	for _, w := range vimArgWords(line) {
		if strings.HasPrefix(w, "+") && !strings.HasPrefix(w, "++") {
			vimReadInto(r, vimUnescape(w[1:]), depth+1)
		}
	}
}

// vimBangCode: a command the reader cannot follow (autocmd, windo,
// normal, command) whose text holds `!CMD`: CMD (to the end of the line
// or a typed <CR>) is read as shell code too, for deny rules.
func vimBangCode(r *exReading, args string) {
	_, c, ok := strings.Cut(args, "!")
	if !ok {
		return
	}
	for _, end := range []string{`\<CR>`, `<CR>`, `\r`, `\n`, `\<NL>`, "\r", "\n"} {
		c, _, _ = strings.Cut(c, end)
	}
	c = strings.TrimRight(c, `"'`)
	if strings.TrimSpace(c) != "" {
		r.code = append(r.code, c)
	}
}

// vimSkipRange skips an ex range: numbers, . $ % , ; + - marks 'x,
// patterns /../ and ?..?, \/ \? \&.
func vimSkipRange(s string) string {
	for len(s) > 0 {
		switch c := s[0]; {
		case c >= '0' && c <= '9', c == '.', c == '$', c == '%', c == ',', c == ';', c == '+', c == '-', c == ' ', c == '\t', c == '*':
			s = s[1:]
		case c == '\'' && len(s) > 1:
			s = s[2:]
		case c == '\\' && len(s) > 1:
			s = s[2:]
		case c == '/' || c == '?':
			i := 1
			for i < len(s) && s[i] != c {
				if s[i] == '\\' {
					i++
				}
				i++
			}
			if i >= len(s) {
				return ""
			}
			s = s[i+1:]
		default:
			return s
		}
	}
	return s
}

// vimCutBar splits a command's arguments at an unescaped `|` or newline.
func vimCutBar(s string) (string, string) {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\', 0x16:
			i++
		case '|', '\n':
			return s[:i], s[i+1:]
		}
	}
	return s, ""
}

// vimTermCode: the command of :terminal (after its ++options).
func vimTermCode(args string) string {
	a := strings.TrimLeft(args, " \t")
	for strings.HasPrefix(a, "++") {
		_, a, _ = strings.Cut(a, " ")
		a = strings.TrimLeft(a, " \t")
	}
	return a
}

// vimSetOptions: a doubt unless every option set is in vimSafeOptions.
func vimSetOptions(r *exReading, line string) {
	for _, f := range strings.Fields(line) {
		name := f
		if i := strings.IndexAny(name, "=:+-^!&?<"); i >= 0 {
			name = name[:i]
		}
		if !vimSafeOptions[name] {
			for _, p := range []string{"no", "inv"} {
				if vimSafeOptions[strings.TrimPrefix(name, p)] && strings.HasPrefix(name, p) {
					name = strings.TrimPrefix(name, p)
				}
			}
		}
		if name == "all" && !strings.ContainsAny(f, "=:") {
			continue
		}
		if !vimSafeOptions[name] {
			r.setDoubt("vim :set " + name + " may name a program, file or expression")
		}
	}
}

// onlyLiterals: s is string literals joined by `.` or `..` (vim script);
// their concatenated text.
func onlyLiterals(s string) (string, bool) {
	s = strings.TrimSpace(s)
	var b strings.Builder
	for s != "" {
		if s[0] != '"' && s[0] != '\'' {
			return "", false
		}
		q := s[0]
		i := 1
		for i < len(s) && s[i] != q {
			if q == '"' && s[i] == '\\' && i+1 < len(s) {
				i++
			}
			b.WriteByte(s[i])
			i++
		}
		if i >= len(s) {
			return "", false
		}
		s = strings.TrimSpace(s[i+1:])
		if s == "" {
			break
		}
		s = strings.TrimSpace(strings.TrimLeft(s, "."))
	}
	return b.String(), true
}

// quotedLiterals: the text of every quoted string in s (the shell code a
// call in another language most likely runs).
func quotedLiterals(s string) []string {
	var out []string
	for {
		i := strings.IndexAny(s, "\"'")
		if i < 0 {
			return out
		}
		q := s[i]
		j := strings.IndexByte(s[i+1:], q)
		if j < 0 {
			return out
		}
		if lit := s[i+1 : i+1+j]; strings.TrimSpace(lit) != "" {
			out = append(out, lit)
		}
		s = s[i+2+j:]
	}
}

// vimPlainRead: a plain argument of vim is a file, but +CMD is an ex
// command (+N and +/PAT move the cursor).
func vimPlainRead(s string) exReading {
	if !strings.HasPrefix(s, "+") {
		return exReading{}
	}
	return vimRead(s[1:])
}

// vimEscapeCode: the escape of the vim declaration (its forms and match
// lists): the shell code vimRead finds.
func vimEscapeCode(s string) (string, bool) {
	r := vimRead(strings.TrimPrefix(s, "+"))
	return strings.Join(r.code, "\n"), len(r.code) > 0
}

// declExRead records what one argument in a program's command language
// does: its shell code is read as shell code, its files written are
// writes, its doubt asks.
func (a *analyzer) declExRead(d *progDecl, sc *subCmd, r exReading, ctx walkCtx) {
	if len(r.code) > 0 || len(r.writes) > 0 || len(r.reads) > 0 || r.doubt != "" {
		sc.readOnly = false
		sc.optDanger = append(sc.optDanger, d.name+" escape")
	}
	for _, c := range r.code {
		a.shellCode(staticWord(c), d.name, ctx)
	}
	for _, f := range r.writes {
		w := staticWordPath(f)
		a.plainWrite(sc, &w)
	}
	for _, f := range r.reads {
		w := staticWordPath(f)
		a.optRead(sc, d.name, &w) // programs_optreads.go
	}
	if r.doubt != "" {
		a.setUncertain(r.doubt)
	}
}

// vimExRead: vim's exRead (-c and --cmd values are ex commands; a plain
// word only when it is +CMD; --remote-send KEYS and --remote-expr EXPR
// are typed into, or evaluated by, another running vim: a doubt, their
// `!CMD` and string literals read as shell code for deny rules).
func vimExRead(opt, s string) exReading {
	switch opt {
	case "":
		return vimPlainRead(s)
	case "--remote-send", "--remote-expr":
		r := exReading{doubt: "vim " + opt + " sends keys or an expression to another running vim"}
		vimBangCode(&r, s)
		r.doubtLiterals(s)
		return r
	}
	return vimRead(s)
}

// gdbExRead: gdb's exRead (its plain arguments are files: the program,
// a core, a process id).
func gdbExRead(opt, s string) exReading {
	if opt == "" {
		// A process id (`gdb PROG PID`, `-c PID`, `-p PID`): gdb attaches
		// to that process, whose memory it then reads or kills (red
		// team 17): a doubt.
		if s != "" && strings.Trim(s, "0123456789") == "" {
			return exReading{doubt: "gdb attaches to process " + s}
		}
		return exReading{}
	}
	return gdbRead(s)
}

// vimNames: the names of the vim declaration (vimOptions rewrites their
// options).
var vimNames = map[string]bool{"vim": true, "vi": true, "nvim": true, "ex": true, "view": true, "gvim": true, "vimdiff": true,
	"nvi": true, "evim": true, "rvim": true}

// vimOptions rewrites vim's options as vim reads them, for the option
// scan: vim groups single-letter options (-eR) and in Ex mode (after -e or
// -E, or as ex) -s is silent mode, which takes no value (`vim -es -c CMD`
// must not read -c as -s's script file): that -s is dropped; --remote*
// and --server* are lowercased (vim compares them without case);
// -V[N]FILE (verbose messages written to FILE) becomes `-V FILE` and a
// -V[N] without a file is dropped; -l is lisp mode for vim (dropped),
// but runs a Lua script for nvim (-ll too): read as -S, an argument file. `-u NONE`,
// `-u NORC`, `-u DEFAULTS` and `-U NONE` load no file: dropped too.
func vimOptions(base string, args []word) []word {
	ex := base == "ex"
	var out []word
	changed := false
	for i := 0; i < len(args); i++ {
		w := args[i]
		if !w.static || w.s == "--" {
			out = append(out, args[i:]...)
			break
		}
		s := w.s
		if l := strings.ToLower(s); l != s && (strings.HasPrefix(l, "--remote") || strings.HasPrefix(l, "--server")) {
			nw := w
			nw.s, nw.path = l, l
			w, s, changed = nw, l, true
		}
		if (s == "-u" || s == "-U") && i+1 < len(args) && args[i+1].static {
			switch args[i+1].s {
			case "NONE", "NORC", "DEFAULTS":
				i++
				changed = true
				continue
			}
		}
		if s == "-V" {
			changed = true
			continue // verbose, no file: takes no value
		}
		if (s == "-l" || s == "-ll") && base != "nvim" {
			changed = true
			continue // vim's lisp mode; nvim's -l runs a Lua script (an argument file)
		}
		if s == "-l" || s == "-ll" {
			nw := w
			nw.s, nw.path = "-S", "-S"
			w, s, changed = nw, "-S", true // nvim runs the script as -S sources one
		}
		if len(s) >= 2 && s[0] == '-' && s[1] != '-' && !containsStr(vimValued, s) {
			var b strings.Builder
			var verboseFile string
			b.WriteByte('-')
			for j := 1; j < len(s); j++ {
				c := s[j]
				if c == 'e' || c == 'E' {
					ex = true
				}
				if c == 's' && ex {
					changed = true
					continue
				}
				if c == 'V' {
					// -V[N][FILE]: the rest after the level is the
					// 'verbosefile' vim writes (red team 17).
					verboseFile = strings.TrimLeft(s[j+1:], "0123456789")
					changed = true
					break
				}
				b.WriteByte(c)
				if strings.IndexByte("cSuUiTwWstqr", c) >= 0 {
					b.WriteString(s[j+1:]) // a valued option: the rest is its value
					break
				}
			}
			if verboseFile != "" {
				vf := w
				vf.s, vf.path = verboseFile, verboseFile
				if b.Len() > 1 {
					g := w
					g.s, g.path = b.String(), b.String()
					out = append(out, g)
				}
				v := w
				v.s, v.path = "-V", "-V"
				out = append(out, v, vf)
				continue
			}
			if b.Len() == 1 {
				continue // -s alone or -V[N], in Ex mode
			}
			if b.String() != s {
				nw := w
				nw.s, nw.path = b.String(), b.String()
				w = nw
			}
		} else if s == "-s" && ex {
			changed = true
			continue
		}
		out = append(out, w)
	}
	if !changed && len(out) == len(args) {
		return args
	}
	return out
}
