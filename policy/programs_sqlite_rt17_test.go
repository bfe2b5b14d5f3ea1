package policy

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// sqliteRT17Writes: red team 17's classes of sqlite3 writes of F:
// .parameter set's value is SQL (every prefix of .parameter), an escaped
// NUL ends a dot-command's file name (quoted or not, \0 and \000), and
// options taking one or two values before the database operand.
func sqliteRT17Writes(f string) []string {
	var out []string
	for _, p := range []string{".parameter", ".param", ".para"} {
		out = append(out, "sqlite3 db "+shellQuote(p+` set @x "writefile('`+f+`','x')"`, false),
			"sqlite3 -cmd "+shellQuote(p+` set @x "writefile('`+f+`','x')"`, false)+" db")
	}
	for _, d := range []string{".output", ".once", ".backup", ".save"} {
		for _, q := range []string{`"` + f + `\000"`, `"` + f + `\0"`, f + `\000`, `"` + f + `\000x"`} {
			out = append(out, "sqlite3 db "+shellQuote(d+" "+q, false)+" 'select 1'")
		}
	}
	for _, o := range []string{"-lookaside 0 0", "--lookaside 0 0", "-pagecache 0 0", "--pagecache 0 0", "-heap 1000000",
		"--heap 1000000", "-threadsafe 1", "-mmap 0", "-lookaside 0 0 -pagecache 0 0"} {
		out = append(out, "sqlite3 "+o+" "+f+" 'create table t(x)'")
	}
	return out
}

// sqliteRT17Reads: the same classes reading F.
func sqliteRT17Reads(f string) []string {
	var out []string
	for _, p := range []string{".parameter", ".param", ".para"} {
		out = append(out, "sqlite3 db "+shellQuote(p+` set @x "readfile('`+f+`')"`, false)+" '.parameter list'")
	}
	for _, q := range []string{`"` + f + `\000"`, `"` + f + `\0"`, f + `\000`} {
		out = append(out, "sqlite3 db "+shellQuote(".import "+q+" t", false), "sqlite3 db "+shellQuote(".restore "+q, false))
	}
	return out
}

// TestSQLiteRT17FormsHoldRules: red team 17's sqlite3 forms x {Edit- or
// Read-denied, protected} x every mode hold the rule or ask; .parameter
// set running edit() meets Bash(rm *); load_extension in it and archive
// mode in every spelling (-A..., --A...) are doubts; the same forms on
// ordinary files are allowed (the control that the property can fail).
// Where sqlite3 is installed, each write form first runs unsandboxed in a
// temporary directory and must create its file (the forms are sqlite's).
func TestSQLiteRT17FormsHoldRules(t *testing.T) {
	if _, err := exec.LookPath("sqlite3"); err == nil {
		for _, cmd := range sqliteRT17Writes("w.out") {
			dir := t.TempDir()
			c := exec.Command("bash", "-c", cmd)
			c.Dir, c.Env = dir, append(os.Environ(), "HOME="+dir)
			out, _ := c.CombinedOutput()
			if _, err := os.Stat(filepath.Join(dir, "w.out")); err != nil {
				t.Errorf("control: sqlite3 did not write w.out with %q (%s)", cmd, out)
			}
		}
		// fsdir's file given as a constraint is read.
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "r.txt"), []byte("MARK"), 0o600); err != nil {
			t.Fatal(err)
		}
		c := exec.Command("sqlite3", ":memory:", "select data from fsdir where path='r.txt'")
		c.Dir = dir
		if out, _ := c.CombinedOutput(); !bytes.Contains(out, []byte("MARK")) {
			t.Errorf("control: fsdir with a path constraint did not read r.txt (%s)", out)
		}
	}
	type group struct {
		name        string
		cmds        []string
		allow, deny []string
		want        Decision
	}
	groups := []group{
		{"Edit-denied", sqliteRT17Writes("src/locked.go"), []string{"Bash"}, []string{"Edit(src/locked.go)"}, Deny},
		{"protected home", sqliteRT17Writes("/home/u/.bashrc"), []string{"Bash(sqlite3 *)"}, nil, Ask},
		{"protected git hooks", sqliteRT17Writes(".git/hooks/pre-commit"), []string{"Bash"}, nil, Ask},
		{"Read-denied", sqliteRT17Reads(".env"), []string{"Bash"}, []string{"Read(.env)"}, Deny},
		{"edit in .parameter", []string{`sqlite3 db ".param set @x \"edit('x','rm -rf y')\""`,
			`sqlite3 db ".parameter set @x \"edit('x', 'rm -rf y')\""`, `sqlite3 -cmd ".para set @x \"edit('x','rm -rf y')\"" db`},
			[]string{"Bash"}, []string{"Bash(rm *)"}, Deny},
		{"doubts", []string{`sqlite3 db ".para set @x \"load_extension('./evil')\""`, `sqlite3 db ".parameter set @x \"readfile(name)\""`,
			"sqlite3 a.sqlar --Ax", "sqlite3 a.sqlar --AxC /home/u", "sqlite3 a.sqlar -AxC /home/u", "sqlite3 a.sqlar --A -x",
			"sqlite3 a.sqlar --Axv", "sqlite3 -Ax a.sqlar", `sqlite3 db "select name, data from fsdir where path='.env'"`,
			`sqlite3 db "SELECT * FROM FSDIR WHERE path = '/home/u/.ssh'"`, `sqlite3 db "select * from zipfile where file='x.zip'"`},
			[]string{"Bash(sqlite3 *)"}, nil, Ask},
	}
	for _, g := range groups {
		for _, cmd := range g.cmds {
			pc := policyCase{Src: "sqlite-rt17", Tool: "Bash", Cmd: cmd, Allow: g.allow, Deny: g.deny}
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
	controls := append(append(sqliteRT17Writes("out.db"), sqliteRT17Reads("data.csv")...),
		`sqlite3 db ".parameter set @x 42"`, `sqlite3 db ".param set @x \"upper('a')\""`, "sqlite3 db '.parameter list'",
		"sqlite3 db '.output out.txt' 'select 1'")
	for _, cmd := range controls {
		pc := policyCase{Src: "sqlite-rt17", Tool: "Bash", Cmd: cmd, Allow: []string{"Bash(sqlite3 *)"},
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

// TestSQLiteDotArgsEndAtNUL: an escaped NUL ends the argument, as the C
// string sqlite opens does.
func TestSQLiteDotArgsEndAtNUL(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`.once "/home/u/.profile\0"`, "/home/u/.profile"}, {`.import ".env\000" t`, ".env"},
		{`.backup ".git/config\000x"`, ".git/config"}, {`.save a\000b`, "a"}, {`.output "a\\000"`, `a\000`},
	} {
		if got := sqliteDotArgs(c.in); len(got) < 2 || got[1] != c.want {
			t.Errorf("sqliteDotArgs(%q) = %q, want the file %q", c.in, got, c.want)
		}
	}
}
