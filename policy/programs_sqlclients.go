package policy

import (
	"strings"
)

// psql's and mysql's files and command files (red team 16b, 115): the
// files their options and meta-commands write or read, and the commands
// they take from a file (docs/policy.md, "sqlite3's language").
//
// psql: -o/--output F and -L/--log-file F write F (-o '|CMD' runs CMD);
// -f/--file F runs F's commands (an argument file a rule may name); in a
// -c value, \o \out \g \gx \w \write \s F and \lo_export OID F write F,
// \copy ... to 'F' writes and \copy ... from 'F' reads, \lo_import F reads,
// \i \include \ir \include_relative F run F's commands (a doubt), \e \edit
// \ef \ev \cd \setenv are doubts, and text in backquotes in a meta-command
// is a shell command.
//
// mysql: --tee=F and `tee F` / `\T F` write F; `source F` / `\. F` run
// F's commands (a doubt); --pager=CMD and `pager CMD` / `\P CMD` run CMD.

// psqlMeta: the meta-commands of psql text, each as its words (name
// first, without the backslash).
func psqlMeta(s string) [][]string {
	var out [][]string
	for _, line := range strings.Split(s, "\n") {
		for _, seg := range strings.Split(line, `\`)[1:] {
			if ws := lexWords(seg); len(ws) > 0 {
				out = append(out, ws)
			}
		}
	}
	return out
}

// psqlHook: psql's files, command files and doubts.
func psqlHook(a *analyzer, sc *subCmd, opts []declOpt, plain []word, ctx walkCtx) {
	write := func(f string) {
		sc.readOnly = false
		w := staticWordPath(f)
		a.plainWrite(sc, &w)
	}
	read := func(f string) {
		w := staticWordPath(f)
		a.optRead(sc, "psql", &w)
	}
	for _, o := range opts {
		switch o.name {
		case "-o", "--output", "-L", "--log-file":
			switch {
			case o.val == nil:
			case !o.val.static:
				sc.readOnly = false
				a.setUncertain("psql " + o.name + " writes a file known only at run time")
			case strings.HasPrefix(o.val.s, "|"):
				sc.readOnly = false
				sc.optDanger = append(sc.optDanger, o.name)
				a.shellCode(staticWord(o.val.s[1:]), "psql "+o.name, ctx)
			default:
				write(o.val.s)
			}
		case "-f", "--file":
			if o.val != nil && o.val.static && o.val.s == "-" {
				a.setUncertain("psql -f - reads its commands from standard input")
				continue
			}
			argFileDoubt(sc, o.name) // programs_argfiles.go
		case "-c", "--command":
			if o.val == nil || !o.val.static {
				continue
			}
			if strings.Contains(o.val.s, "`") {
				a.setUncertain("psql runs a backquoted shell command")
			}
			for _, m := range psqlMeta(o.val.s) {
				name, args := m[0], m[1:]
				switch name {
				case "o", "out", "g", "gx", "w", "write", "s":
					if len(args) > 0 && !strings.HasPrefix(args[0], "|") {
						write(args[0])
					}
				case "lo_export":
					if len(args) > 1 {
						write(args[1])
					}
				case "lo_import":
					if len(args) > 0 {
						read(args[0])
					}
				case "i", "include", "ir", "include_relative":
					if len(args) > 0 {
						read(args[0])
					}
					sc.readOnly = false
					a.setUncertain("psql \\" + name + " runs the commands of a file the reader does not read")
				case "e", "edit", "ef", "ev", "cd", "setenv":
					sc.readOnly = false
					a.setUncertain("psql \\" + name + " runs an editor or changes what later commands do")
				case "copy":
					psqlCopyFiles(args, write, read)
				}
			}
		}
	}
}

// psqlCopyFiles: \copy TABLE to|from 'F' (or F): the client's file.
func psqlCopyFiles(args []string, write, read func(string)) {
	for i, w := range args {
		lw := strings.ToLower(w)
		if (lw == "to" || lw == "from") && i+1 < len(args) {
			f := args[i+1]
			switch lf := strings.ToLower(f); lf {
			case "program", "stdin", "stdout", "pstdin", "pstdout":
				continue
			}
			if lw == "to" {
				write(f)
			} else {
				read(f)
			}
		}
	}
}

// mysqlHook: mysql's files, command files and pagers.
func mysqlHook(a *analyzer, sc *subCmd, opts []declOpt, plain []word, ctx walkCtx) {
	for _, o := range opts {
		switch o.name {
		case "--tee":
			sc.readOnly = false
			a.plainWrite(sc, o.val)
		case "--pager":
			sc.readOnly = false
			sc.optDanger = append(sc.optDanger, o.name)
			if o.val != nil {
				a.shellCode(*o.val, "mysql --pager", ctx)
			}
		case "-e", "--execute":
			if o.val == nil || !o.val.static {
				continue
			}
			for _, stmt := range strings.FieldsFunc(o.val.s, func(c rune) bool { return c == '\n' || c == ';' }) {
				l := strings.TrimSpace(stmt)
				name, rest, _ := strings.Cut(l, " ")
				if strings.HasPrefix(l, `\`) && len(l) >= 2 {
					name, rest = l[:2], l[2:]
				}
				ws := append([]string{name}, lexWords(rest)...)
				if name != `\P` && name != `\T` {
					name = strings.ToLower(name)
				}
				switch name {
				case "tee", `\T`:
					if len(ws) > 1 {
						sc.readOnly = false
						w := staticWordPath(ws[1])
						a.plainWrite(sc, &w)
					}
				case "pager", `\P`:
					sc.readOnly = false
					sc.optDanger = append(sc.optDanger, "mysql pager")
					if len(ws) > 1 {
						a.shellCode(staticWord(strings.Join(ws[1:], " ")), "mysql pager", ctx)
					}
				case "source", `\.`:
					sc.readOnly = false
					if len(ws) > 1 {
						w := staticWordPath(ws[1])
						a.optRead(sc, "mysql", &w)
					}
					a.setUncertain("mysql source runs the commands of a file the reader does not read")
				}
			}
		}
	}
}
