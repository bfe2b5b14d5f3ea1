package policy

import "strings"

// Programs with their own shell escapes (class 3) and git subcommands
// that run shell code (class 4): the escaped code is read as shell code.

func init() {
	declare(programsEscapesDecls[:]...)
}

// backslashBang: mysql's and psql's `\! cmd` and mysql's `system cmd`.
func backslashBang(s string) (string, bool) {
	var code []string
	for _, stmt := range strings.FieldsFunc(s, func(c rune) bool { return c == '\n' || c == ';' }) {
		l := strings.TrimSpace(stmt)
		if rest, ok := strings.CutPrefix(l, "\\!"); ok {
			code = append(code, rest)
		} else if rest, ok := strings.CutPrefix(l, "system "); ok {
			code = append(code, rest)
		}
	}
	return strings.Join(code, "\n"), len(code) > 0
}

var vimValued = []string{"-c", "--cmd", "-S", "-u", "-U", "-i", "-T", "-w", "-W", "-s", "-t", "-q", "-r", "--servername", "--remote-send",
	"--remote-expr", "--server", "--listen", "--startuptime", "--log", "-V"}

// programsEscapesDecls: the declarations of this file, as data the linker lays out
// (no allocation at start-up); declared by init, in this order.
var programsEscapesDecls = [...]*progDecl{
	&progDecl{name: "sqlite3", aliases: []string{"sqlite"}, valued: []string{"-cmd", "--cmd", "-init", "--init",
		"-separator", "--separator", "-newline", "--newline", "-nullvalue", "--nullvalue", "-vfs", "--vfs", "-maxsize", "--maxsize",
		"-mmap", "--mmap", "-nonce", "--nonce", "-heap", "--heap", "-threadsafe", "--threadsafe", "-sorterref", "--sorterref",
		"-lookaside", "--lookaside", "-pagecache", "--pagecache", "-escape", "--escape"},
		// -lookaside SIZE N and -pagecache SIZE N take two values (red
		// team 17: read as one, the database operand was the second).
		pairs: []string{"-lookaside", "--lookaside", "-pagecache", "--pagecache"},
		// programs_sqlite.go: its SQL and dot-commands, in every spelling.
		escape: sqliteShellCode, escapeOpts: []string{"-cmd", "--cmd"}, reads: []string{"-init", "--init"}, hook: sqliteHook,
		forms: []string{"sqlite3 x.db '.shell %s'", "sqlite3 x.db '.system %s'", "sqlite3 -cmd '.shell %s' x.db",
			"sqlite3 x.db '.she %s'", "sqlite3 x.db '.sy %s'", "sqlite3 --cmd '.sys %s' x.db"},
		match: []string{"sqlite3 x.db '.shell rm -rf x'"}, noMatch: []string{"sqlite3 x.db 'select 1'"}},
	&progDecl{name: "vim", aliases: []string{"vi", "nvim", "ex", "view", "gvim", "vimdiff", "nvi", "evim", "rvim"}, valued: vimValued,
		escape: vimEscapeCode, exRead: vimExRead, escapeOpts: []string{"-c", "--cmd", "--remote-send", "--remote-expr"},
		// --remote-send, --remote-expr, --remote FILES (+CMD), the other
		// --remote-* and --servername/--server drive another running vim
		// (the person's own editor, outside the agent's sandbox): a doubt
		// in every spelling (vimOptions lowercases them, as vim compares
		// them without case); the keys' and expression's code is read too.
		uncertainPrefix: []string{"--remote", "--server"},
		// -i FILE (viminfo, nvim's shada: registers written at exit),
		// -w/-W FILE (typed keys), -V[N]FILE (verbose messages, vimOptions
		// splits it), --startuptime FILE, --log FILE: files vim writes,
		// judged as any write (red team 17).
		writes: []string{"-i", "-w", "-W", "-V", "--startuptime", "--log"},
		// -S, -u, -U and --cmd's `source` read ex commands from a file
		// the reader does not judge: a doubt an allow rule must name.
		// -s (outside Ex mode) feeds Normal-mode keys from a file, which
		// can type `:!CMD`.
		// nvim's -l/-ll run a Lua script: vimOptions reads them as -S
		// (and drops vim's -l, lisp mode).
		argFiles: []string{"-S", "-u", "-U", "-s"},
		// ex and vim -e/-E read Ex commands from standard input.
		stdinNames: []string{"ex"}, stdinWith: []string{"-e", "-E", "-es", "-Es"},
		forms: []string{"vim -c '!%s'", "vim -c ':silent !%s' f", "vim '+!%s' f", "nvim --cmd '!%s'", "vim -es -c 'exe \"!%s\"' -c q",
			"vim -es -c 'sil! exe \"!%s\"'", "vim -es -c '1,$!%s' f", "vim -es -c 'ter ++close %s'", "vim -es '+term %s'",
			"vim -es -c 'set nu | r !%s' f", "vim -es -c 'g/x/!%s' f"},
		match: []string{"vim -c '!rm -rf x'"}, noMatch: []string{"vim -c 'set nu' f"}},
	&progDecl{name: "mapfile", aliases: []string{"readarray"}, valued: []string{"-C", "-c", "-d", "-n", "-O", "-s", "-u"},
		code: []string{"-C"}, forms: []string{"mapfile -C '%s' -c 1 arr < f"},
		match: []string{"mapfile -C 'rm -rf y' -c 1 arr < f"}, noMatch: []string{"mapfile -t arr < f"}},
	&progDecl{name: "make", aliases: []string{"gmake", "bmake"}, valued: []string{"-f", "--file", "--makefile", "-C", "--directory",
		"-I", "--include-dir", "-j", "--jobs", "-l", "--load-average", "-o", "--old-file", "-W", "--what-if", "--eval"},
		stdinCode: []string{"-f", "--file", "--makefile"}, code: nil, scriptOpts: []string{"-f", "--file", "--makefile"},
		reads: []string{"-f", "--file", "--makefile"},
		match: []string{"make -f - <<< $'all:\\n\\trm -rf x'", "make -f <(printf 'a:\\n\\trm -rf x\\n')"}, noMatch: []string{"make -n", "make -f Makefile.ci test"}},
	&progDecl{name: "mysql", aliases: []string{"mariadb"}, valued: []string{"-e", "--execute", "-u", "--user", "-h", "--host", "-P", "--port", "-D", "--database",
		"--tee", "--pager", "--init-command", "--defaults-file", "--defaults-extra-file", "--defaults-group-suffix", "--login-path",
		"-S", "--socket", "--plugin-dir", "--default-auth"},
		// hook: programs_sqlclients.go (--tee, --pager, option files) and
		// programs_mysql.go (client commands, the server's files).
		escape: backslashBang, hook: mysqlHook, escapeOpts: []string{"-e", "--execute"},
		// mysql reads statements from standard input (a here-doc is read
		// line by line; a pipe or a file asks).
		stdinNames: []string{"mysql", "mariadb"},
		forms:      []string{"mysql -e '\\! %s'", "mysql --pager='%s' -e 'select 1'", "mysql -e 'pager %s'"},
		match:      []string{"mysql -e 'system rm -rf x'"}},
	&progDecl{name: "psql", valued: []string{"-c", "--command", "-U", "--username", "-h", "--host", "-p", "--port", "-d", "--dbname", "-f", "--file",
		"-o", "--output", "-L", "--log-file", "-v", "--set", "--variable", "-P", "--pset"},
		// hook: programs_sqlclients.go (-o, -L, -f, -v) and programs_pgsql.go
		// (meta-commands, variables, the server's SQL: programs_pgserver.go).
		escape: psqlEscape, hook: psqlHook, reads: []string{"-f", "--file"}, escapeOpts: []string{"-c", "--command"},
		// psql reads meta-commands and SQL from standard input (a here-doc
		// is read line by line; a pipe or a file asks).
		stdinNames: []string{"psql"},
		forms:      []string{"psql -c '\\! %s'", "psql -c '\\o |%s'", "psql -o '|%s' -c 'select 1'"},
		match:      []string{"psql -c '\\! rm -rf x'"}},
	// gdb's options are canonicalised first (gdbOptions, programs_gdb.go);
	// -x, -ix, -eix read gdb commands from a file: a doubt. -D
	// (--data-directory, any prefix) names the directory gdb loads its
	// Python package, system-gdbinit and auto-load scripts from at
	// start-up; -cd runs gdb elsewhere (its .gdbinit, and the files its
	// commands name relative to the reader's directory): doubts (red team 17).
	// -p/--pid (and a process id as a plain argument or -c's value,
	// gdbExRead) attach to another process: doubts (red team 17).
	&progDecl{name: "gdb", valued: gdbValued, uncertainWith: []string{"-D", "-cd", "-p"},
		escape: gdbEscapeCode, exRead: gdbExRead, escapeOpts: []string{"-ex", "-iex", "-eiex"}, argFiles: []string{"-x", "-ix", "-eix"},
		// gdb reads commands from standard input (unless -batch; read
		// always: a here-doc is read line by line, a pipe asks).
		stdinNames: []string{"gdb"},
		forms: []string{"gdb -ex 'shell %s'", "gdb -batch -eval-comm='shell %s'", "gdb --init-eval-command 'she %s'", "gdb -ex '!%s'",
			"gdb -ex 'pipe echo | %s'", "gdb -ex '| p 1 | %s'"},
		match: []string{"gdb -ex 'shell rm -rf x'"}, noMatch: []string{"gdb -batch -ex bt ./a.out core"}},
	// git subcommands that run shell code.
	&progDecl{name: "git submodule foreach", codeArgs: true, forms: []string{"git submodule foreach '%s'", "git submodule foreach --recursive '%s'"},
		match: []string{"git submodule foreach 'rm -rf build'"}, noMatch: []string{"git submodule status"}},
	&progDecl{name: "git bisect run", codeArgs: true, forms: []string{"git bisect run %s"},
		match: []string{"git bisect run rm -rf x"}, noMatch: []string{"git bisect good"}},
	&progDecl{name: "git rebase", valued: []string{"-x", "--exec", "-s", "--strategy", "-X", "--strategy-option", "--onto", "-C", "--whitespace", "-S"},
		code: []string{"-x", "--exec"}, forms: []string{"git rebase --exec '%s' main", "git rebase -x '%s' main"},
		match: []string{"git rebase -x 'rm -rf x' main"}, noMatch: []string{"git rebase main"}},
	&progDecl{name: "git difftool", valued: []string{"-x", "--extcmd", "-t", "--tool"},
		code: []string{"-x", "--extcmd"}, forms: []string{"git difftool -x '%s'"}, match: []string{"git difftool -x 'rm -rf x'"}},
	&progDecl{name: "git filter-branch", valued: []string{"--tree-filter", "--index-filter", "--msg-filter", "--env-filter",
		"--commit-filter", "--parent-filter", "--tag-name-filter", "--subdirectory-filter", "-d", "--original", "--setup"},
		code: []string{"--tree-filter", "--index-filter", "--msg-filter", "--env-filter", "--commit-filter", "--parent-filter",
			"--tag-name-filter", "--setup"},
		forms: []string{"git filter-branch --tree-filter '%s' HEAD"}, match: []string{"git filter-branch --index-filter 'rm -rf x' HEAD"}},
	&progDecl{name: "git diff", valued: []string{"-O", "--output", "-U", "--unified", "--src-prefix", "--dst-prefix"},
		writes: []string{"--output"}, reads: []string{"-O"}, plainReadsWith: []string{"--no-index"},
		match: []string{"git diff --no-index /etc/shadow /dev/null"}, noMatch: []string{"git diff --stat"}},
}
