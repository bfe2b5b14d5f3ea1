package policy

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// sqliteSpellings: every spelling of a dot-command that runs CMD: each
// prefix of .shell/.system (and of .output/.once/.read/.import with a
// '|CMD' operand), with the name unquoted, quoted or escaped, and the
// operand in each of sqlite's quotings.
func sqliteSpellings(cmd string) []string {
	var out []string
	names := func(full string) []string {
		var ns []string
		for i := 1; i <= len(full); i++ {
			p := full[:i]
			ns = append(ns, "."+p, ".'"+p+"'", `."`+p+`"`, ". "+p)
		}
		return append(ns, "."+strings.Replace(full, "e", `\145`, 1)) // octal escape
	}
	w := strings.Fields(cmd)
	for _, full := range []string{"shell", "system"} {
		for _, n := range names(full) {
			out = append(out, n+" "+cmd, n+" '"+w[0]+"' "+strings.Join(w[1:], " "), n+` "`+w[0]+`" `+strings.Join(w[1:], " "))
		}
	}
	for _, full := range []string{"output", "once", "read", "import"} {
		for _, n := range names(full) {
			if strings.HasPrefix(full, "o") && len(n) > 1 && n[1] == 'o' {
				out = append(out, n+" |"+cmd) // .output |CMD ARGS: the words join
			}
			out = append(out, n+" '|"+cmd+"' t", n+` "|`+cmd+`" t`)
		}
	}
	return out
}

// sqlitePositions: where sqlite code can stand in a call.
var sqlitePositions = []func(code string) string{
	func(c string) string { return "sqlite3 db " + shellQuote(c, false) },
	func(c string) string { return "sqlite3 db 'select 1' " + shellQuote(c, false) },
	func(c string) string { return "sqlite3 -cmd " + shellQuote(c, false) + " db" },
	func(c string) string { return "sqlite3 --cmd " + shellQuote(c, false) + " db 'select 1'" },
	func(c string) string { return "sqlite3 db <<'EOF'\nselect 1;\n" + c + "\nEOF" },
	func(c string) string { return "sqlite3 db <<< " + shellQuote(c, false) },
}

// TestSQLiteDotCommandSpellingsRunDeniedCommands: every spelling x every
// position x every mode: a dot-command running `rm -rf x` is denied by
// Bash(rm *). Where sqlite3 is installed, each spelling is first run with
// `touch M` (the control: sqlite3 does run it, or the spelling is only the
// reader's over-reach); harmless commands in the same positions stay
// allowed (the control that the property can fail).
func TestSQLiteDotCommandSpellingsRunDeniedCommands(t *testing.T) {
	_, lookErr := exec.LookPath("sqlite3")
	ran := 0
	for _, code := range sqliteSpellings("rm -rf x") {
		if lookErr == nil {
			dir := t.TempDir()
			c := exec.Command("sqlite3", "db", strings.ReplaceAll(code, "rm -rf x", "touch M"), "select 1")
			c.Dir = dir
			_ = c.Run()
			if _, err := os.Stat(filepath.Join(dir, "M")); err == nil {
				ran++
			}
		}
		for _, pos := range sqlitePositions {
			cmd := pos(code)
			pc := policyCase{Src: "sqlite", Tool: "Bash", Cmd: cmd, Allow: []string{"Bash"}, Deny: []string{"Bash(rm *)"}}
			for _, m := range adversarialModes {
				in := pc.input(t)
				in.Mode, in.AgentBypass = m.mode, m.agentBypass
				v := Evaluate(in)
				if v.Decision != Deny {
					t.Errorf("%s: %q: got %s (%s), want deny (Bash(rm *))", m.name, cmd, v.Decision, v.Reason)
				}
			}
		}
	}
	if lookErr == nil {
		t.Logf("control: sqlite3 ran `touch M` for %d of %d spellings", ran, len(sqliteSpellings("x")))
		if ran < 40 {
			t.Errorf("control: sqlite3 ran only %d spellings: the spellings are not sqlite's", ran)
		}
	}
	for _, code := range []string{".schema", ".tables", ".mode csv", ".headers on", "select 1", ".sc", ".print shell rm -rf x",
		"select 'readfile(1)'", "select 1 -- readfile(x)", ".output stdout", ".once off", "create table t(x)"} {
		for _, pos := range sqlitePositions {
			cmd := pos(code)
			pc := policyCase{Src: "sqlite", Tool: "Bash", Cmd: cmd, Allow: []string{"Bash(sqlite3 *)"}}
			for _, m := range adversarialModes {
				if m.mode != ModeDefault && m.mode != ModeBypass {
					continue
				}
				in := pc.input(t)
				in.Mode, in.AgentBypass = m.mode, m.agentBypass
				if v := Evaluate(in); v.Decision != Allow {
					t.Errorf("control: %s: %q: got %s (%s), want allow", m.name, cmd, v.Decision, v.Reason)
				}
			}
		}
	}
}

// TestSQLiteFileFormsHoldRules: every form that reads or writes a file x
// {Read-denied, Edit-denied, protected} x every mode: the rule or breaker
// holds; the forms that load or run code from a place the reader does not
// read are doubts (never allowed); the same forms on an ordinary file
// are allowed (the control).
func TestSQLiteFileFormsHoldRules(t *testing.T) {
	quotings := func(f string) []string { return []string{f, "'" + f + "'", `"` + f + `"`} }
	reads := func(f string) []string {
		var out []string
		for _, q := range quotings(f) {
			out = append(out, "sqlite3 db "+shellQuote(".import "+q+" t", false), "sqlite3 db "+shellQuote(".im --csv "+q+" t", false),
				"sqlite3 db "+shellQuote(".restore "+q, false), "sqlite3 db "+shellQuote(".rest main "+q, false),
				"sqlite3 -cmd "+shellQuote(".import "+q+" t", false)+" db")
		}
		for _, s := range []string{"select readfile('%s')", "SELECT ReadFile ( '%s' )", `select "readfile"('%s')`, "select [readfile]('%s')",
			"select readfile(/* c */ '%s')", "select * from fsdir('%s')", "select 1; select readfile('%s')"} {
			out = append(out, "sqlite3 db "+shellQuote(strings.ReplaceAll(s, "%s", f), false))
		}
		return out
	}
	writes := func(f string) []string {
		out := []string{"sqlite3 " + f + " 'create table t(x)'", "sqlite3 " + f}
		for _, q := range quotings(f) {
			for _, d := range []string{".output", ".o", ".once", ".on", ".log", ".save", ".backup", ".backup main", ".b", ".open", ".open --new", ".clone", ".iotrace"} {
				out = append(out, "sqlite3 db "+shellQuote(d+" "+q, false)+" 'select 1'", "sqlite3 -cmd "+shellQuote(d+" "+q, false)+" db 'select 1'")
			}
		}
		for _, s := range []string{"select writefile('%s','x')", "SELECT WRITEFILE('%s', 'x')", "ATTACH '%s' AS b", "attach database '%s' as b",
			"select 1; ATTACH '%s' AS b; create table b.t(x)", "VACUUM INTO '%s'", "vacuum main into '%s'"} {
			out = append(out, "sqlite3 db "+shellQuote(strings.ReplaceAll(s, "%s", f), false))
		}
		return out
	}
	type group struct {
		name        string
		cmds        []string
		allow, deny []string
		want        Decision // Deny: every mode; Ask: never allowed
	}
	groups := []group{
		{"Read-denied", reads(".env"), []string{"Bash"}, []string{"Read(.env)"}, Deny},
		{"Read-denied database", []string{"sqlite3 -readonly .env 'select 1'", "sqlite3 .env 'select 1'", "sqlite3 --readonly .env"},
			[]string{"Bash"}, []string{"Read(.env)"}, Deny},
		{"Read-denied home", reads("/home/u/.ssh/id_rsa"), []string{"Bash(sqlite3 *)"}, []string{"Read(~/.ssh/**)"}, Deny},
		{"Edit-denied", writes("src/locked.go"), []string{"Bash"}, []string{"Edit(src/locked.go)"}, Deny},
		{"protected home", writes("/home/u/.bashrc"), []string{"Bash(sqlite3 *)"}, nil, Ask},
		{"protected workspace", writes(".vscode/tasks.json"), []string{"Bash(sqlite3 *)"}, nil, Ask},
		{"protected git hooks", writes(".git/hooks/pre-commit"), []string{"Bash"}, nil, Ask},
		{"doubts", []string{"sqlite3 db '.load ./evil'", "sqlite3 db '.lo ./evil'", "sqlite3 -cmd '.load ./evil' db",
			"sqlite3 db \"select load_extension('./evil')\"", "sqlite3 -init x.sql db 'select 1'", "sqlite3 --init x.sql db",
			"sqlite3 db '.read x.sql'", "sqlite3 db '.rea x.sql'", "sqlite3 db < x.sql", "cat x.sql | sqlite3 db",
			"sqlite3 db \"select readfile(name) from t\"", "sqlite3 db \"select readfile(X'2e656e76')\"",
			"sqlite3 db \"select readfile('.e'||'nv')\"", "sqlite3 db \"select writefile(char(46),'x')\"",
			"sqlite3 db \"ATTACH 'file:x.db?mode=rwc' AS b\"", "sqlite3 'file:x.db' 'select 1'", "sqlite3 \"$DB\" 'select 1'",
			"sqlite3 db '.cd /tmp'", "sqlite3 db '.ar -x'", "sqlite3 -Ax db", "sqlite3 db '.once -x'", "sqlite3 db '.SHELL ls'",
			"sqlite3 db '.zzz'", "sqlite3 db '.e'"},
			[]string{"Bash(sqlite3 *)"}, nil, Ask},
	}
	for _, g := range groups {
		for _, cmd := range g.cmds {
			pc := policyCase{Src: "sqlite", Tool: "Bash", Cmd: cmd, Allow: g.allow, Deny: g.deny}
			for _, m := range adversarialModes {
				in := pc.input(t)
				in.Mode, in.AgentBypass = m.mode, m.agentBypass
				v := Evaluate(in)
				if g.want == Deny && v.Decision != Deny || v.Decision == Allow {
					t.Errorf("%s: %s: %q: got %s (%s), want %s", g.name, m.name, cmd, v.Decision, v.Reason, g.want)
				}
			}
		}
	}
	// The control: the same forms on ordinary workspace files, with the
	// same rules, are allowed (so the groups above can fail).
	for _, cmd := range append(append(reads("data.csv"), writes("out.db")...), "sqlite3 -readonly data.db 'select 1'") {
		if strings.Contains(cmd, "fsdir") {
			// a read of the tree under data.csv, which Read(.env) (any
			// .env) may reach: asked, as grep -r is (red team 17b;
			// TestSQLiteFsdirTreeReadHoldsReadDeny has its controls).
			continue
		}
		pc := policyCase{Src: "sqlite", Tool: "Bash", Cmd: cmd, Allow: []string{"Bash(sqlite3 *)"},
			Deny: []string{"Read(.env)", "Edit(src/locked.go)"}}
		for _, m := range adversarialModes {
			if m.mode != ModeDefault && m.mode != ModeBypass {
				continue
			}
			in := pc.input(t)
			in.Mode, in.AgentBypass = m.mode, m.agentBypass
			if v := Evaluate(in); v.Decision != Allow {
				t.Errorf("control: %s: %q: got %s (%s), want allow", m.name, cmd, v.Decision, v.Reason)
			}
		}
	}
}

// TestSQLiteDotArgsAsSqlite: the reader's split of a dot-command is
// shell.c's (quotes, backslash escapes, a blank after the dot).
func TestSQLiteDotArgsAsSqlite(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{".shell rm -rf x", []string{"shell", "rm", "-rf", "x"}},
		{`. 'she' "a b" c\tx`, []string{"she", "a b", "c\tx"}},
		{`.sh\145ll x`, []string{"shell", "x"}},
		{`.output "|rm \"q\""`, []string{"output", `|rm "q"`}},
		{`.read '|a\tb'`, []string{"read", `|a\tb`}},
		{".once 'unterminated", []string{"once", "unterminated"}},
	} {
		got := sqliteDotArgs(c.in)
		if strings.Join(got, "\x00") != strings.Join(c.want, "\x00") {
			t.Errorf("sqliteDotArgs(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
