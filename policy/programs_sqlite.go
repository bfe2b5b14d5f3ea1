package policy

import (
	"strings"
)

// sqlite3's own language (red team 16b): its SQL and dot-command arguments
// (plain arguments, -cmd values, standard input) are code. The reader
// parses them with sqlite's rules (shell.c's do_meta_command): a
// dot-command is any prefix of its name (`.she` is .shell), its arguments
// are '..', ".." (with backslash escapes) or unquoted; an argument line
// starting with '.' is one dot-command. What it reads:
//   - commands run: .shell/.system ARGS, a file operand starting with '|'
//     (.output "|CMD", .once |CMD, .read '|CMD', .import '|CMD' T), the
//     editor of edit(TEXT, EDITOR);
//   - files read and written: .output/.once/.log/.trace/.iotrace/.save/
//     .backup/.clone F (written), .open F and the database operand
//     (written), .import/.restore F (read), readfile('F') and fsdir('F')
//     (read), writefile('F', ..) (written), zipfile('F'), ATTACH 'F' and
//     VACUUM INTO 'F' (written): judged as any read or write (Read and
//     Edit rules, protected places, breakers);
//   - doubts (ask in every mode): code loaded or read from a file the
//     reader does not read (.load, load_extension(), .read F, -init F,
//     standard input from a file or pipe), a file function or ATTACH with
//     an argument that is not a literal, a URI filename, .cd, .archive,
//     a dot-command it does not know.

// sqliteEffects is what a piece of sqlite code does.
type sqliteEffects struct {
	code          []string // shell commands it runs
	reads, writes []string // literal files
	trees         []string // literal directories every file under which is read (fsdir)
	doubts        []string // why the reader cannot tell what it does
	// hidden: text that may hold commands the reader cannot place
	// (dynamic SQL): searched for denied commands (psql).
	hidden []string
}

// sqliteDot kinds: what a dot-command does with its arguments.
const (
	sqlDotHarmless = iota
	sqlDotShell    // .shell/.system: the arguments are a command
	sqlDotOut      // .output/.once: F written, |CMD run (with the rest)
	sqlDotWrite    // the last operand written (|CMD run)
	sqlDotRead     // the last operand read (|CMD run)
	sqlDotImport   // .import F T: F read (|CMD run)
	sqlDotReadCode // .read F: F's commands run (|CMD run)
	sqlDotOpen     // .open F: F written
	sqlDotDoubt    // loads code, changes directory, extracts files...
	sqlDotParam    // .parameter set NAME VALUE: VALUE is an SQL expression
)

// sqliteDotCmds: sqlite3's dot-commands (3.40 and later) and what they do.
var sqliteDotCmds = map[string]int{
	"shell": sqlDotShell, "system": sqlDotShell,
	"output": sqlDotOut, "once": sqlDotOut,
	"log": sqlDotWrite, "trace": sqlDotWrite, "iotrace": sqlDotWrite, "save": sqlDotWrite, "backup": sqlDotWrite,
	"clone": sqlDotWrite, "restore": sqlDotRead, "import": sqlDotImport, "read": sqlDotReadCode, "open": sqlDotOpen,
	"load": sqlDotDoubt, "cd": sqlDotDoubt, "archive": sqlDotDoubt, "ar": sqlDotDoubt, "excel": sqlDotDoubt,
	"www": sqlDotDoubt, "session": sqlDotDoubt, "filectrl": sqlDotDoubt, "testctrl": sqlDotDoubt, "testcase": sqlDotDoubt,
	"selftest": sqlDotDoubt,
	// these act on the open database only (written already).
	"imposter": sqlDotHarmless, "unmodule": sqlDotHarmless, "dbconfig": sqlDotHarmless, "expert": sqlDotHarmless,
	"check": sqlDotHarmless, "eqp": sqlDotHarmless,
	"auth": sqlDotHarmless, "bail": sqlDotHarmless, "binary": sqlDotHarmless, "changes": sqlDotHarmless,
	"connection": sqlDotHarmless, "crnl": sqlDotHarmless, "databases": sqlDotHarmless, "dbinfo": sqlDotHarmless,
	"dbtotxt": sqlDotHarmless, "dump": sqlDotHarmless, "echo": sqlDotHarmless, "exit": sqlDotHarmless,
	"explain": sqlDotHarmless, "fullschema": sqlDotHarmless, "headers": sqlDotHarmless, "help": sqlDotHarmless,
	"indexes": sqlDotHarmless, "indices": sqlDotHarmless, "limit": sqlDotHarmless, "lint": sqlDotHarmless,
	"mode": sqlDotHarmless, "nonce": sqlDotHarmless, "nullvalue": sqlDotHarmless, "parameter": sqlDotParam,
	"print": sqlDotHarmless, "progress": sqlDotHarmless, "prompt": sqlDotHarmless, "quit": sqlDotHarmless,
	"recover": sqlDotHarmless, "scanstats": sqlDotHarmless, "schema": sqlDotHarmless, "separator": sqlDotHarmless,
	"sha3sum": sqlDotHarmless, "show": sqlDotHarmless, "stats": sqlDotHarmless, "tables": sqlDotHarmless,
	"timeout": sqlDotHarmless, "timer": sqlDotHarmless, "version": sqlDotHarmless, "vfsinfo": sqlDotHarmless,
	"vfslist": sqlDotHarmless, "vfsname": sqlDotHarmless, "width": sqlDotHarmless,
}

// sqliteDotKinds: the kinds of every dot-command name is a prefix of
// (sqlite takes any prefix; the reader takes every command it could be).
// An empty answer: no command has that prefix.
func sqliteDotKinds(name string) []int {
	var kinds []int
	seen := map[int]bool{}
	for full, k := range sqliteDotCmds {
		if strings.HasPrefix(full, name) && !seen[k] {
			seen[k] = true
			kinds = append(kinds, k)
		}
	}
	return kinds
}

// sqliteRead reads text as sqlite code: an argument (or -cmd value)
// starting with '.' is one dot-command; any line starting with '.' is one
// too (standard input, -init files, multi-line arguments); the rest is SQL.
func sqliteRead(text string, e *sqliteEffects) {
	if strings.HasPrefix(strings.TrimLeft(text, " \t\r\n"), ".") {
		sqliteDot(strings.TrimLeft(text, " \t\r\n"), e)
	}
	var sql []string
	for _, line := range strings.Split(text, "\n") {
		if l := strings.TrimLeft(line, " \t\r"); strings.HasPrefix(l, ".") {
			sqliteDot(l, e)
			continue
		}
		sql = append(sql, line)
	}
	sqliteSQL(strings.Join(sql, "\n"), e)
}

// sqliteDotArgs splits a dot-command as do_meta_command does: after the
// dot, words at blanks; '..' is literal, ".." resolves backslash escapes
// (as does an unquoted word).
func sqliteDotArgs(s string) []string {
	var args []string
	h := 1 // past the dot
	for h < len(s) {
		for h < len(s) && isSQLSpace(s[h]) {
			h++
		}
		if h >= len(s) {
			break
		}
		if d := s[h]; d == '\'' || d == '"' {
			h++
			start := h
			for h < len(s) && s[h] != d {
				if s[h] == '\\' && d == '"' && h+1 < len(s) {
					h++
				}
				h++
			}
			a := s[start:min(h, len(s))]
			h++
			if d == '"' {
				a = sqliteBackslashes(a)
			}
			args = append(args, cString(a))
			continue
		}
		start := h
		for h < len(s) && !isSQLSpace(s[h]) {
			h++
		}
		args = append(args, cString(sqliteBackslashes(s[start:h])))
	}
	return args
}

// cString: the C string a byte string is: up to its first NUL (an escaped
// "\000" or "\0" ends the file name sqlite opens: red team 17).
func cString(s string) string {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return s[:i]
	}
	return s
}

func isSQLSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// sqliteBackslashes is resolve_backslashes: \a \b \t \n \v \f \r \\ \" \'
// and octal \NNN; another escaped character stands for itself.
func sqliteBackslashes(s string) string {
	if !strings.Contains(s, `\`) {
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
		switch c = s[i]; c {
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'v':
			b.WriteByte('\v')
		case 'f':
			b.WriteByte('\f')
		case 'r':
			b.WriteByte('\r')
		default:
			if c >= '0' && c <= '7' {
				v := int(c - '0')
				for k := 0; k < 2 && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '7'; k++ {
					i++
					v = v*8 + int(s[i]-'0')
				}
				b.WriteByte(byte(v))
				continue
			}
			b.WriteByte(c)
		}
	}
	return b.String()
}

// sqliteDot reads one dot-command.
func sqliteDot(line string, e *sqliteEffects) {
	args := sqliteDotArgs(line)
	if len(args) == 0 {
		return
	}
	name, rest := args[0], args[1:]
	if name == "" {
		e.doubts = append(e.doubts, "an empty sqlite3 dot-command")
		return
	}
	kinds := sqliteDotKinds(name)
	if len(kinds) == 0 {
		e.doubts = append(e.doubts, "sqlite3 dot-command ."+name+" is not one the reader knows")
	}
	for _, k := range kinds {
		sqliteDotKind(k, name, rest, e)
	}
}

// sqliteOperands: the arguments that are not options (-x, --csv), past
// the values of the options that take one.
func sqliteOperands(args []string, valued ...string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		if strings.HasPrefix(args[i], "-") && len(args[i]) > 1 {
			if containsStr(valued, strings.TrimLeft(args[i], "-")) {
				i++
			}
			continue
		}
		out = append(out, args[i])
	}
	return out
}

// sqliteFile: the special file names of output_file_open.
func sqliteSpecialFile(f string) bool {
	return f == "stdout" || f == "stderr" || f == "off" || f == "on" || f == "-" || f == "" || f == ":memory:"
}

func sqliteDotKind(k int, name string, rest []string, e *sqliteEffects) {
	switch k {
	case sqlDotHarmless:
	case sqlDotShell:
		// shell.c: an argument holding a blank is put in double quotes.
		var cmd []string
		for _, a := range rest {
			if strings.Contains(a, " ") {
				a = `"` + a + `"`
			}
			cmd = append(cmd, a)
		}
		e.code = append(e.code, strings.Join(cmd, " "))
	case sqlDotDoubt:
		e.doubts = append(e.doubts, "sqlite3 ."+name+" loads code, changes directory or touches files the reader does not follow")
	case sqlDotParam:
		// shell.c: REPLACE INTO temp.sqlite_parameters(key,value)
		// VALUES(%Q,%s): the value is evaluated as SQL (readfile(),
		// writefile(), edit(), load_extension() run). Every operand after
		// the subcommand is read so (list, clear and init take none).
		if len(rest) > 2 {
			for _, v := range rest[2:] {
				sqliteSQL(v, e)
			}
		}
	default:
		for _, a := range rest {
			if strings.HasPrefix(a, "-") && (strings.Contains(a, "x") || strings.Contains(a, "e")) && k == sqlDotOut {
				// .once -x / -e: opens the result in a spreadsheet program.
				e.doubts = append(e.doubts, "sqlite3 ."+name+" "+a+" opens another program")
			}
		}
		ops := sqliteOperands(rest, "skip", "schema", "maxsize")
		if len(ops) == 0 {
			return
		}
		f := ops[0]
		if k == sqlDotWrite || k == sqlDotRead {
			f = ops[len(ops)-1] // .backup ?DB? FILE
			for _, o := range ops {
				if strings.HasPrefix(o, "|") {
					f = o
				}
			}
		}
		if strings.HasPrefix(f, "|") {
			c := f[1:]
			if k == sqlDotOut {
				// .output |CMD ARGS: the rest of the words join the command.
				for i, o := range rest {
					if o == f {
						c = strings.Join(append([]string{c}, rest[i+1:]...), " ")
						break
					}
				}
			}
			e.code = append(e.code, c)
			return
		}
		if sqliteSpecialFile(f) {
			return
		}
		if strings.HasPrefix(strings.ToLower(f), "file:") {
			e.doubts = append(e.doubts, "sqlite3 ."+name+" names a URI filename")
			return
		}
		switch k {
		case sqlDotRead, sqlDotImport:
			e.reads = append(e.reads, f)
		case sqlDotReadCode:
			e.reads = append(e.reads, f)
			e.doubts = append(e.doubts, "sqlite3 ."+name+" runs the commands of "+f+", which the reader does not read")
		default:
			e.writes = append(e.writes, f)
		}
	}
}

// sqlTok is one SQL token: kind 's' string literal, 'i' identifier (its
// name unquoted), 'p' punctuation, 'o' anything else (numbers, blobs).
type sqlTok struct {
	kind byte
	s    string
}

// sqlTokens splits SQL as sqlite's tokenizer does, for what the reader
// needs: literals, (quoted) identifiers, comments skipped.
func sqlTokens(s string) []sqlTok {
	var out []sqlTok
	quoted := func(i int, q byte) (string, int) {
		var b strings.Builder
		j := i + 1
		for j < len(s) {
			if s[j] == q {
				if j+1 < len(s) && s[j+1] == q && q != ']' {
					b.WriteByte(q)
					j += 2
					continue
				}
				return b.String(), j + 1
			}
			b.WriteByte(s[j])
			j++
		}
		return b.String(), j
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case isSQLSpace(c):
			i++
		case c == '-' && i+1 < len(s) && s[i+1] == '-':
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(s) && s[i+1] == '*':
			if j := strings.Index(s[i+2:], "*/"); j >= 0 {
				i += j + 4
			} else {
				i = len(s)
			}
		case c == '\'':
			v, j := quoted(i, '\'')
			out = append(out, sqlTok{'s', v})
			i = j
		case c == '"' || c == '`':
			v, j := quoted(i, c)
			out = append(out, sqlTok{'i', v})
			i = j
		case c == '[':
			v, j := quoted(i, ']')
			out = append(out, sqlTok{'i', v})
			i = j
		case (c == 'x' || c == 'X') && i+1 < len(s) && s[i+1] == '\'':
			_, j := quoted(i+1, '\'')
			out = append(out, sqlTok{'o', "blob"})
			i = j
		case c == '_' || c == '$' || c >= 0x80 || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i
			for j < len(s) && (s[j] == '_' || s[j] == '$' || s[j] >= 0x80 || s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z' || s[j] >= '0' && s[j] <= '9') {
				j++
			}
			out = append(out, sqlTok{'i', s[i:j]})
			i = j
		default:
			out = append(out, sqlTok{'p', string(c)})
			i++
		}
	}
	return out
}

// sqlMatches gives, for each "(" of toks, the index of its matching ")"
// (len(toks) when it has none), in one pass: the arguments of every call
// are then read without scanning its nested calls again (red team 17:
// nested calls a(a(a(...))) made the reading quadratic in the text, 6 s
// for 12 KB).
func sqlMatches(toks []sqlTok) []int {
	match := make([]int, len(toks))
	var open []int
	for j, t := range toks {
		if t.kind != 'p' {
			continue
		}
		switch t.s {
		case "(":
			open = append(open, j)
		case ")":
			if n := len(open); n > 0 {
				match[open[n-1]] = j
				open = open[:n-1]
			}
		}
	}
	for _, j := range open {
		match[j] = len(toks)
	}
	return match
}

// sqlCallArgs: the arguments of the call whose '(' is toks[i], each as
// its tokens (nested parentheses kept together), as slices of toks. It
// visits only the tokens at the call's own depth: over all the calls of a
// text, each token once.
func sqlCallArgs(toks []sqlTok, i int, match []int) [][]sqlTok {
	end := match[i]
	var args [][]sqlTok
	start := i + 1
	for j := i + 1; j < end; j++ {
		t := toks[j]
		if t.kind != 'p' {
			continue
		}
		switch t.s {
		case "(":
			j = match[j] // its matching ")" (the loop's end if none)
		case ",":
			args = append(args, toks[start:j:j])
			start = j + 1
		}
	}
	if end >= len(toks) {
		return append(args, toks[start:]) // never closed
	}
	if end > start || len(args) > 0 {
		args = append(args, toks[start:end:end])
	}
	return args
}

// sqlLiteral: the argument is one string literal.
func sqlLiteral(arg []sqlTok) (string, bool) {
	if len(arg) == 1 && arg[0].kind == 's' {
		return arg[0].s, true
	}
	return "", false
}

// sqliteSQL reads the file functions, ATTACH and VACUUM INTO of SQL text.
func sqliteSQL(s string, e *sqliteEffects) {
	toks := sqlTokens(s)
	match := sqlMatches(toks)
	fileArg := func(what string, arg []sqlTok, write bool) {
		f, ok := sqlLiteral(arg)
		switch {
		case !ok:
			e.doubts = append(e.doubts, "sqlite3 "+what+" names a file known only at run time")
		case f == "" || f == ":memory:":
		case strings.HasPrefix(strings.ToLower(f), "file:"):
			e.doubts = append(e.doubts, "sqlite3 "+what+" names a URI filename")
		case write:
			e.writes = append(e.writes, f)
		default:
			e.reads = append(e.reads, f)
		}
	}
	for i, t := range toks {
		if t.kind != 'i' {
			continue
		}
		name := strings.ToLower(t.s)
		stmtStart := i == 0 || toks[i-1].kind == 'p' && toks[i-1].s == ";"
		call := i+1 < len(toks) && toks[i+1].kind == 'p' && toks[i+1].s == "("
		if !call && (name == "fsdir" || name == "zipfile") {
			// a table-valued function's argument may be a constraint
			// (SELECT data FROM fsdir WHERE path='.env' read .env:
			// red team 17's class, the real sqlite3 3.40 as control).
			e.doubts = append(e.doubts, "sqlite3 "+name+" names its file in a constraint the reader does not follow")
		}
		if call {
			args := sqlCallArgs(toks, i+1, match)
			first := func() []sqlTok {
				if len(args) > 0 {
					return args[0]
				}
				return nil
			}
			switch name {
			case "readfile":
				fileArg(name+"()", first(), false)
			case "fsdir":
				// fsdir(DIR) walks DIR and returns every file's content
				// (column data), hidden ones included: a read of the tree.
				n := len(e.reads)
				fileArg(name+"()", first(), false)
				if len(e.reads) > n {
					e.trees = append(e.trees, e.reads[n:]...)
					e.reads = e.reads[:n]
				}
			case "writefile":
				fileArg(name+"()", first(), true)
			case "zipfile":
				fileArg(name+"()", first(), false)
				fileArg(name+"()", first(), true)
			case "load_extension":
				e.doubts = append(e.doubts, "sqlite3 load_extension() loads code")
			case "edit":
				// edit(TEXT, EDITOR) runs EDITOR; with one argument,
				// $VISUAL or $EDITOR (known only at run time).
				if len(args) >= 2 {
					if ed, ok := sqlLiteral(args[1]); ok {
						e.code = append(e.code, ed+" /tmp/sqlite-edit")
						continue
					}
				}
				e.code = append(e.code, "$VISUAL /tmp/sqlite-edit")
			}
			continue
		}
		switch {
		case stmtStart && name == "attach":
			j := i + 1
			if j < len(toks) && toks[j].kind == 'i' && strings.EqualFold(toks[j].s, "database") {
				j++
			}
			k := j
			for k < len(toks) && !(toks[k].kind == 'i' && strings.EqualFold(toks[k].s, "as")) && !(toks[k].kind == 'p' && toks[k].s == ";") {
				k++
			}
			fileArg("ATTACH", toks[j:k], true)
		case stmtStart && name == "vacuum":
			for k := i + 1; k < len(toks) && !(toks[k].kind == 'p' && toks[k].s == ";"); k++ {
				if toks[k].kind == 'i' && strings.EqualFold(toks[k].s, "into") {
					end := k + 1
					for end < len(toks) && !(toks[end].kind == 'p' && toks[end].s == ";") {
						end++
					}
					fileArg("VACUUM INTO", toks[k+1:end], true)
					break
				}
			}
		}
	}
}

// sqliteShellCode: the shell commands sqlite code runs (the declaration's
// escape: .shell/.system in any spelling, pipes, edit()).
func sqliteShellCode(s string) (string, bool) {
	var e sqliteEffects
	sqliteRead(s, &e)
	return strings.Join(e.code, "\n"), len(e.code) > 0
}

// sqliteHook: the files sqlite3's code reads and writes, the database
// operand, -init, standard input and the doubts (the declaration's hook).
func sqliteHook(a *analyzer, sc *subCmd, opts []declOpt, plain []word, ctx walkCtx) {
	var e sqliteEffects
	var texts []word
	if len(plain) > 1 {
		texts = plain[1:]
	}
	for _, o := range opts {
		switch o.name {
		case "-cmd", "--cmd":
			if o.val != nil {
				texts = append(texts, *o.val)
			}
		case "-init", "--init":
			// its commands run first: the reader does not read the file.
			argFileDoubt(sc, o.name) // programs_argfiles.go
		}
		// shell.c reads --X as -X, and any option starting with -A
		// (-Ax, -AxC DIR, --AxC DIR) as the archive mode.
		if n := strings.TrimPrefix(o.name, "-"); strings.HasPrefix(n, "-A") || strings.HasPrefix(o.name, "-A") || n == "-archive" {
			a.setUncertain("sqlite3 -A creates or extracts archive files")
		}
	}
	for _, w := range texts {
		if w.static {
			sqliteRead(w.s, &e)
		}
	}
	if len(plain) > 0 {
		db := plain[0]
		switch {
		case !db.static:
			e.doubts = append(e.doubts, "sqlite3 opens a database known only at run time")
		case strings.HasPrefix(strings.ToLower(db.s), "file:"):
			e.doubts = append(e.doubts, "sqlite3 opens a URI filename")
		case sqliteSpecialFile(db.s):
		case hasDeclOpt(opts, []string{"-readonly", "--readonly"}):
			e.reads = append(e.reads, db.s)
		default:
			e.writes = append(e.writes, db.s)
		}
	}
	if len(plain) <= 1 {
		// no SQL on the command line: sqlite3 reads standard input.
		switch {
		case ctx.stdinSet && ctx.stdinStatic:
			sqliteRead(ctx.stdin, &e)
			if c := strings.Join(e.code, "\n"); c != "" {
				sc.readOnly = false
				sc.optDanger = append(sc.optDanger, "sqlite3 escape")
				a.shellCode(staticWord(c), "sqlite3", ctx)
			}
		case ctx.stdinSet || ctx.inPipe || ctx.stdinFile:
			e.doubts = append(e.doubts, "sqlite3 reads its commands from standard input, which the reader cannot see")
		}
	}
	for _, f := range e.reads {
		w := staticWordPath(f)
		a.optRead(sc, "sqlite3", &w) // programs_optreads.go
	}
	for _, f := range e.trees {
		w := staticWordPath(f)
		n := len(sc.reads)
		a.optRead(sc, "sqlite3 fsdir()", &w)
		for i := n; i < len(sc.reads); i++ {
			sc.reads[i].recursive, sc.reads[i].tree = true, true
		}
	}
	for _, f := range e.writes {
		sc.readOnly = false
		w := staticWordPath(f)
		a.plainWrite(sc, &w)
	}
	if len(e.doubts) > 0 {
		sc.readOnly = false
		a.setUncertain(e.doubts[0])
	}
}
