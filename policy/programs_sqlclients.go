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

// psqlHook: psql's files, command files and doubts; the -c values and a
// here-doc or here-string on standard input are read by psqlText
// (programs_pgsql.go), with the variables -v/--set/--variable and \set give.
func psqlHook(a *analyzer, sc *subCmd, opts []declOpt, plain []word, ctx walkCtx) {
	write := func(f string) {
		sc.readOnly = false
		if tildeUser(f) {
			a.setUncertain("psql writes " + f + ", in a home directory the reader does not resolve")
			return
		}
		w := staticWordPath(f)
		a.plainWrite(sc, &w)
	}
	vars := &psqlVars{}
	var texts []string
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
		case "-v", "--set", "--variable":
			switch {
			case o.val == nil:
			case !o.val.static:
				vars.dynamic = "psql " + o.name + " sets a variable known only at run time"
			default:
				if n, v, ok := strings.Cut(o.val.s, "="); ok {
					vars.set(n, v)
				}
			}
		case "-c", "--command":
			if o.val != nil && o.val.static {
				texts = append(texts, o.val.s)
			}
		}
	}
	// a connection string's options= are the server's settings, as
	// PGOPTIONS's (session_preload_libraries loads code there).
	conn := append([]word(nil), plain...)
	for _, o := range opts {
		if (o.name == "-d" || o.name == "--dbname") && o.val != nil {
			conn = append(conn, *o.val)
		}
	}
	for _, w := range conn {
		if strings.Contains(strings.ToLower(w.s), "options") {
			sc.readOnly = false
			a.setUncertain("psql's connection string sets server options")
		}
	}
	if ctx.stdinSet && ctx.stdinStatic {
		texts = append(texts, ctx.stdin)
	}
	// every text's variables first: a \set in one -c names the file of a
	// meta-command in the next.
	for _, t := range texts {
		_, metas := psqlLex(t)
		psqlSetVars(metas, vars)
	}
	var e sqliteEffects
	for _, t := range texts {
		psqlText(t, vars, &e)
	}
	a.sqlEffects(sc, "psql", &e, ctx)
}

// sqlEffects judges what an SQL client's text does: its commands as
// shell code, its files as reads and writes, its doubts, and the text
// where commands hide searched for denied ones.
func (a *analyzer) sqlEffects(sc *subCmd, prog string, e *sqliteEffects, ctx walkCtx) {
	if c := strings.Join(e.code, "\n"); c != "" {
		sc.readOnly = false
		sc.optDanger = append(sc.optDanger, prog+" escape")
		a.shellCode(staticWord(c), prog, ctx)
	}
	for _, f := range e.reads {
		if tildeUser(f) {
			e.doubts = append(e.doubts, prog+" reads "+f+", in a home directory the reader does not resolve")
			continue
		}
		w := staticWordPath(f)
		a.optRead(sc, prog, &w) // programs_optreads.go
	}
	for _, f := range e.writes {
		sc.readOnly = false
		if tildeUser(f) {
			e.doubts = append(e.doubts, prog+" writes "+f+", in a home directory the reader does not resolve")
			continue
		}
		w := staticWordPath(f)
		a.plainWrite(sc, &w)
	}
	if len(e.doubts) > 0 {
		sc.readOnly = false
		a.setUncertain(e.doubts[0])
	}
	for _, h := range e.hidden {
		a.naiveSplit(h)
	}
}

// mysqlHook: mysql's files, command files and pagers; its -e values,
// --init-command and a here-doc or here-string on standard input are
// read by mysqlText (programs_mysql.go).
func mysqlHook(a *analyzer, sc *subCmd, opts []declOpt, plain []word, ctx walkCtx) {
	var texts []string
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
		case "--defaults-file", "--defaults-extra-file":
			// an option file may set pager, tee, init-command...
			argFileDoubt(sc, o.name) // programs_argfiles.go
		case "--plugin-dir", "--default-auth":
			// the client loads an authentication plugin (a shared
			// library) from the directory or by the name given.
			sc.readOnly = false
			a.setUncertain("mysql " + o.name + " loads a client plugin the reader does not judge")
		case "-e", "--execute", "--init-command":
			switch {
			case o.val == nil:
			case !o.val.static:
				sc.readOnly = false
				a.setUncertain("mysql " + o.name + " runs SQL known only at run time")
			default:
				texts = append(texts, o.val.s)
			}
		}
	}
	if ctx.stdinSet && ctx.stdinStatic {
		texts = append(texts, ctx.stdin)
	}
	var e sqliteEffects
	for _, t := range texts {
		mysqlText(t, &e)
	}
	a.sqlEffects(sc, "mysql", &e, ctx)
}

// tildeUser: f starts with ~USER (psql expands it as the shell does; the
// reader resolves only ~ and ~/).
func tildeUser(f string) bool {
	return strings.HasPrefix(f, "~") && f != "~" && !strings.HasPrefix(f, "~/")
}
