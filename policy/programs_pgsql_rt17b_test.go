package policy

import (
	"fmt"
	"strings"
	"testing"
)

// Red team 17b's psql classes (programs_pgsql.go, programs_pgserver.go):
// a statement after a forced semicolon (\;), strings read with backslash
// escapes after set_config('standard_conforming_strings', 'off'), a
// variable whose value is SQL interpolated into SQL (:c), and variables
// with more values than the reader follows.

// psqlRT17bStmtForms: every spelling of these classes that sends stmt to
// the server.
func psqlRT17bStmtForms(stmt string) []string {
	dq := strings.ReplaceAll(stmt, "'", "''")
	scs := "select set_config('standard_conforming_strings','off',false)"
	hidden := "select 'a\\', '; " + stmt + "; --'"
	return []string{
		"psql <<'EOF'\nselect 1 \\; " + stmt + "\nEOF",
		"psql <<< " + shellQuote("select 1 \\; "+stmt, false),
		"psql <<'EOF'\nselect 1 \\;" + stmt + " \\; select 2;\nEOF",
		"psql -c " + shellQuote(scs, false) + " -c " + shellQuote(hidden, false),
		"psql <<'EOF'\n" + scs + ";\n" + hidden + ";\nEOF",
		"psql <<'EOF'\nselect set_config('STANDARD_CONFORMING_STRINGS', 'off', false);\n" + hidden + ";\nEOF",
		"psql <<'EOF'\nset standard_conforming_strings = off;\n" + hidden + ";\nEOF",
		"psql -v c=" + shellQuote(stmt, false) + " <<< ':c;'",
		"psql --set=c=" + shellQuote(stmt, false) + " <<< ':c;'",
		"psql --variable c=" + shellQuote(stmt, false) + " <<'EOF'\nselect 1;\n:c;\nEOF",
		"psql <<'EOF'\n\\set c '" + dq + "'\n:c;\nEOF",
		"psql <<'EOF'\n\\set c x\n\\set c '" + dq + "'\nselect 1; :c\n;\nEOF",
	}
}

// psqlManyValues: n harmless values of f, then f, then a write of :f by
// each meta-command that writes it.
func psqlManyValues(n int, f string) []string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "\\set f x%d\n", i)
	}
	pre := "psql <<'EOF'\n" + b.String() + "\\set f " + f + "\n"
	return []string{pre + "\\o :f\nselect 1;\nEOF", pre + "select 1 \\g :f\nEOF", pre + "select 1\n\\w :f\nEOF",
		pre + "\\o :'f'\nselect 1;\nEOF"}
}

// TestPsqlRT17bClassesHoldRules: each spelling with a denied command or
// file in its statement is denied in every mode, with a protected file in
// \o :f never allowed; the same spellings with ordinary statements and
// values are allowed (the controls that the property can fail).
func TestPsqlRT17bClassesHoldRules(t *testing.T) {
	type group struct {
		name        string
		cmds        []string
		allow, deny []string
		want        Decision
	}
	var many []string
	for _, n := range []int{16, 17, 20, 40} {
		many = append(many, psqlManyValues(n, "/home/u/.bashrc")...)
		many = append(many, psqlManyValues(n, ".git/hooks/pre-commit")...)
	}
	groups := []group{
		{"COPY PROGRAM denied", psqlRT17bStmtForms("copy (select 1) to program 'rm -rf /w/proj/src'"), []string{"Bash"}, []string{"Bash(rm *)"}, Deny},
		{"COPY PROGRAM dollar-quoted", psqlRT17bStmtForms("COPY (select 1) TO PROGRAM $q$rm -rf y$q$"), []string{"Bash(psql *)"}, []string{"Bash(rm *)"}, Deny},
		{"pg_read_file denied", psqlRT17bStmtForms("select pg_read_file('/w/proj/.env')"), []string{"Bash(psql *)"}, []string{"Read(./.env)"}, Deny},
		{"COPY TO protected", psqlRT17bStmtForms("copy t to '/home/u/.bashrc'"), []string{"Bash(psql *)"}, nil, Ask},
		{"many values", many, []string{"Bash(psql *)"}, nil, Ask},
		{"the setting in a string", []string{`psql -c "select set_config('standard_conforming_strings','off',false)"`,
			`psql -c "select set_config('session_preload_libraries','x',false)"`, `psql -c "select set_config(\$\$standard_conforming_strings\$\$,'off',false)"`},
			[]string{"Bash(psql *)"}, nil, Ask},
	}
	for _, g := range groups {
		for _, cmd := range g.cmds {
			pc := policyCase{Src: "psql-rt17b", Tool: "Bash", Cmd: cmd, Allow: g.allow, Deny: g.deny}
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
	controls := []string{"psql <<'EOF'\nselect 1 \\; select 2\nEOF", "psql <<< 'select 1 \\; select now()'",
		"psql <<'EOF'\nselect 'a\\', 'b';\nEOF", `psql -c "select 'a\\b'"`, "psql -c \"select current_setting('standard_conforming_strings')\"",
		"psql -v id=5 <<< 'select * from t where id = :id;'", "psql -v name=bob <<< \"select * from t where name = :'name';\"",
		"psql <<'EOF'\n\\set t users\nselect * from :t;\nselect :\"t\";\nEOF", "psql <<< 'select 1::int, :undefined'",
		"psql <<< 'select now()::date'"}
	controls = append(controls, psqlManyValues(3, "out.txt")...)
	controls = append(controls, psqlManyValues(14, "out.txt")[:1]...)
	for _, cmd := range controls {
		pc := policyCase{Src: "psql-rt17b", Tool: "Bash", Cmd: cmd, Allow: []string{"Bash(psql *)"},
			Deny: []string{"Read(./.env)", "Bash(rm *)"}}
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
