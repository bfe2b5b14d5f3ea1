package policy

import (
	"fmt"
	"strings"
	"testing"
)

// psqlEscapedSpellings: f with its last letter written as psql's octal
// and hex escapes in a single-quoted meta-command argument.
func psqlEscapedSpellings(f string) []string {
	c := f[len(f)-1]
	return []string{"'" + f[:len(f)-1] + fmt.Sprintf(`\%o`, c) + "'", "'" + f[:len(f)-1] + fmt.Sprintf(`\x%x`, c) + "'", "'" + f + "'"}
}

// psqlRT17Writes: red team 17's spellings of a psql write of f: through
// variables (-v, --set, --variable, \set; :f, :'f', :"f"), escapes in
// quoted arguments, \g's options, standard input (here-string, here-doc)
// and, for an absolute f, the server's COPY TO and lo_export.
func psqlRT17Writes(f string) []string {
	out := []string{"psql -v f=" + f + ` -c '\o :f' -c 'select 1'`, "psql --set=f=" + f + ` -c "\o :'f'"`,
		"psql --variable f=" + f + ` -c '\o :"f"'`, `psql -c '\set f ` + f + `' -c '\o :f' -c 'select 1'`,
		`psql -c '\set f ` + f + `' -c 'select 1 \g :f'`, "psql -v f=" + f + ` -c '\lo_export 1 :f'`,
		"psql -v f=" + f + ` -c '\copy t to :f'`, `psql -c "\g (format=unaligned tuples_only) ` + f + `"`,
		`psql -c "select 1 \gx (expanded) ` + f + `"`, `psql <<< "select 'x' \g ` + f + `"`, `psql <<< "\o ` + f + `"`,
		"psql <<'EOF'\nselect 1 \\g " + f + "\nEOF", "psql <<EOF\n\\o " + f + "\nselect 1;\nEOF",
		`psql -c '\set d x' -c '\o ` + f + `'`}
	for _, q := range psqlEscapedSpellings(f) {
		out = append(out, `psql -c "\o `+q+`" -c 'select 1'`, `psql -c "\w `+q+`"`, `psql <<< "select 1 \g `+q+`"`)
	}
	if strings.HasPrefix(f, "/") {
		out = append(out, `psql -c "COPY (select 'x') TO '`+f+`'"`, `psql -c "copy t to '`+f+`' with (format csv)"`,
			`psql -c "select lo_export(1, '`+f+`')"`, `psql <<< "COPY t TO '`+f+`';"`, `psql -c "COPY t TO'`+f+`'"`)
	}
	return out
}

// psqlRT17Reads: the same for reads.
func psqlRT17Reads(f string) []string {
	out := []string{"psql -v f=" + f + ` -c '\copy t from :f'`, "psql -v f=" + f + ` -c '\lo_import :f'`,
		`psql <<< "\copy t from '` + f + `'"`}
	for _, q := range psqlEscapedSpellings(f) {
		out = append(out, `psql -c "\lo_import `+q+`"`)
	}
	if strings.HasPrefix(f, "/") {
		out = append(out, `psql -c "COPY t FROM '`+f+`'"`, `psql -Atc "select pg_read_file('`+f+`')"`,
			`psql -c "SELECT pg_catalog.pg_read_binary_file('`+f+`', 0, 10)"`, `psql -c "select lo_import('`+f+`')"`,
			"psql <<EOF\nselect pg_read_file('"+f+"');\nEOF")
	}
	return out
}

// TestPsqlRT17FormsHoldRules: every spelling x {Edit-denied, Read-denied,
// protected} x every mode holds the rule or asks; what psql cannot know
// before it runs (unset or run-time variables, SQL built at run time,
// the server's data directory) is a doubt, and a denied command inside
// dynamic SQL is denied; the same spellings on ordinary files are allowed
// (the control that the property can fail).
func TestPsqlRT17FormsHoldRules(t *testing.T) {
	type group struct {
		name        string
		cmds        []string
		allow, deny []string
		want        Decision
	}
	groups := []group{
		{"Edit-denied", append(psqlRT17Writes("src/locked.go"), psqlRT17Writes("/w/proj/src/locked.go")...), []string{"Bash"},
			[]string{"Edit(src/locked.go)"}, Deny},
		{"protected home", psqlRT17Writes("/home/u/.bashrc"), []string{"Bash(psql *)"}, nil, Ask},
		{"protected git hooks", psqlRT17Writes(".git/hooks/pre-commit"), []string{"Bash"}, nil, Ask},
		{"Read-denied", append(psqlRT17Reads(".env"), `psql -c '\set f .env' -c '\i :f'`), []string{"Bash"}, []string{"Read(.env)"}, Deny},
		{"Read-denied home", psqlRT17Reads("/home/u/.ssh/id_rsa"), []string{"Bash(psql *)"}, []string{"Read(~/.ssh/**)"}, Deny},
		{"denied in dynamic SQL", []string{
			`psql -c "DO \$\$BEGIN EXECUTE 'COPY (select 1) TO PRO'||'GRAM ''rm -rf y''';END\$\$"`,
			`psql -c "do \$b\$ begin execute 'copy t to program ''rm -rf y'''; end \$b\$"`,
			`psql -c "CREATE FUNCTION f() RETURNS void LANGUAGE plpgsql AS 'BEGIN EXECUTE ''COPY t TO PROGRAM ''''rm -rf y''''''; END'"`,
			`psql -c "COPY (select 1) TO PROGRAM 'rm -rf y'"`, `psql <<< "select 1; copy t from program 'rm -rf y';"`,
			`psql -c '\! rm -rf y'`, `psql -c 'select 1 \g |rm -rf y'`, `psql -c '\g (format=csv) |rm -rf y'`,
			`psql -c "\copy t to program 'rm -rf y'"`, `psql -c "\o '|rm -rf y'"`, `psql -v "f=|rm -rf y" -c '\o :f'`,
			`psql -c "select 1 \g '|rm -rf y'"`, "psql <<EOF\nselect 1;\n\\! rm -rf y\nEOF"},
			[]string{"Bash"}, []string{"Bash(rm *)"}, Deny},
		{"doubts", []string{`psql -c '\o :f'`, `psql -c "select '/x' as f \gset" -c '\o :f'`, `psql -v f=x -c '\getenv f HOME' -c '\o :f'`,
			`psql -c '\prompt f' -c '\o :f'`, `psql -v f=x -c "\set f :g" -c '\o :f'`, `psql -c "select 'copy t to program ''x''' \gexec"`,
			`psql -c "DO \$\$BEGIN PERFORM 1; END\$\$"`, `psql -c "CREATE OR REPLACE FUNCTION f() RETURNS int LANGUAGE plpython3u AS 'return 1'"`,
			`psql -c "select query_to_xml('select 1', true, true, '')"`, `psql -c "select dblink_exec('x', 'select 1')"`,
			`psql -c "LOAD 'evil'"`, `psql -c "ALTER SYSTEM SET archive_command = 'x'"`, `psql -c "SET session_preload_libraries = 'x'"`,
			`psql -c "COPY (select 1) TO PROGRAM 'touch '||'pwn'"`, `psql -c "COPY t TO 'rel.csv'"`, `psql -c "select pg_read_file('pg_hba.conf')"`,
			`psql -c "COPY t TO E'/home/u/.bash\\x72c'"`, "psql -c \"COPY t TO '/home/u/.bash'\n'rc'\"", `psql -c "COPY t TO '/home/u/.bash' || 'rc'"`,
			`psql -c "select pg_read_file(name) from t"`, `psql -c "SET standard_conforming_strings = off"`,
			`psql -c '\o ~root/.bashrc'`, `psql -o '~root/.bashrc' -c 'select 1'`, `psql -c "\copy t to '~root/x'"`,
			`psql -c "COPY t TO \$\$/home/u/.bashrc\$\$"`, `PGOPTIONS='-c session_preload_libraries=x' psql -c 'select 1'`,
			`psql "dbname=x options='-c session_preload_libraries=y'" -c 'select 1'`,
			`psql -d 'postgresql:///x?options=-c%20session_preload_libraries%3Dy'`,
			`psql -c "select U&\"pg_read_fil\\0065\"('/etc/shadow')"`, `psql -c "select u&'\\0041'"`, `psql -c "COPY t TO U&'/home/u/.bash\0072c'"`},
			[]string{"Bash(psql *)"}, nil, Ask},
	}
	for _, g := range groups {
		for _, cmd := range g.cmds {
			pc := policyCase{Src: "psql-rt17", Tool: "Bash", Cmd: cmd, Allow: g.allow, Deny: g.deny}
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
	controls := append(append(psqlRT17Writes("out.txt"), psqlRT17Reads("data.csv")...), psqlRT17Writes("/w/proj/out.txt")...)
	controls = append(controls, `psql <<< 'select 1'`, `psql -c "select pg_size_pretty(1::bigint)"`, `psql -c "COPY t TO STDOUT"`,
		`psql -c "copy t from stdin"`, `psql -c "select 'hello; world \o x'"`, `psql -c "select copy from t"`,
		`psql -c "insert into t values ('do it')"`, `psql -c "select 1 -- \o /home/u/.bashrc"`, `psql -c "select \$\$ \o /home/u/.bashrc \$\$"`,
		`psql -c "create table t(x int)"`, `psql -d 'postgresql:///app' -c 'select 1'`, `psql "dbname=app host=db" -c 'select 1'`, `psql -c "alter table t add column y int"`, `psql -c '\dt'`)
	for _, cmd := range controls {
		pc := policyCase{Src: "psql-rt17", Tool: "Bash", Cmd: cmd, Allow: []string{"Bash(psql *)"},
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

// TestPsqlMetaArgsAsPsql: the reader's split of meta-command arguments is
// psql's (escapes in '..', variables, \g's options, the end of a
// meta-command at the next backslash, SQL quotes hiding backslashes).
func TestPsqlMetaArgsAsPsql(t *testing.T) {
	vars := &psqlVars{}
	vars.set("f", "/x/y")
	for _, c := range []struct {
		in     string
		writes []string
	}{
		{`\o '/home/u/.bash\162c'`, []string{"/home/u/.bashrc"}},
		{`\o '/home/u/.pro\x66ile'`, []string{"/home/u/.profile"}},
		{`\o 'a''b'`, []string{"a'b"}},
		{`\o 'a\000b'`, []string{"a"}},
		{`\o :f`, []string{"/x/y"}},
		{`\o pre:'f'post`, []string{"pre/x/ypost", "pre'/x/y'post"}},
		{`select 1 \g (format=csv tuples_only) out.csv`, []string{"out.csv"}},
		{`\o a \w b`, []string{"a", "b"}},
		{`select E'\\o x', 'y\' \w z`, []string{"z"}},
		{`select $$ \o x $$; \w z`, []string{"z"}},
		{`select '\'' \w z '`, []string{"z"}}, // standard_conforming_strings off: '\'' is one string
		{`select 'a\b', 1`, nil},
		// the controls (psql 15, a local server): \o "dq" wrote "dq"
		// with its quotes, \o :'f' wrote 'qf', \o "x:f" wrote "x:f".
		{`\o "dq"`, []string{`"dq"`}},
		{`\o :'f'`, []string{"/x/y", "'/x/y'"}},
		{`\o :"f"`, []string{"/x/y", `"/x/y"`}},
		{`\o "x:f"`, []string{`"x:f"`}},
	} {
		var e sqliteEffects
		psqlText(c.in, vars, &e)
		if strings.Join(e.writes, "\x00") != strings.Join(c.writes, "\x00") {
			t.Errorf("psqlText(%q) writes %q, want %q", c.in, e.writes, c.writes)
		}
	}
}

// FuzzSQLClientText: the readers of psql, mysql and sqlite3 text never
// panic, and a psql meta-command that writes F, appended after any text
// on a new line, is always read (a write, a doubt or the code of a pipe;
// the property fails if the lexer lets earlier text swallow a line end).
func FuzzSQLClientText(f *testing.F) {
	for _, s := range []string{`select 1`, `\o x`, `select $$ \o $$`, `/* /* */`, `E'\''`, `'\'' \g`, `:'f' :"g" :h`,
		`\set f 'a\x41' \o :f`, `COPY t TO PROGRAM 'x'`, "select 1 into outfile '/x'", `.parameter set @x "readfile('y')"`,
		`--`, "$a$ x", `\g (x y`, `'`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var e sqliteEffects
		vars := &psqlVars{}
		_, metas := psqlLex(s)
		psqlSetVars(metas, vars)
		psqlText(s, vars, &e)
		mysqlText(s, &e)
		sqliteRead(s, &e)
		if strings.Count(s, "$") > 0 || strings.Contains(s, "/*") {
			return // an open dollar quote or comment may hold the next line, as in psql
		}
		var e2 sqliteEffects
		psqlText(s+"\n\\o /fz/target", &psqlVars{}, &e2)
		found := len(e2.doubts) > 0
		for _, w := range e2.writes {
			found = found || w == "/fz/target"
		}
		if !found && !strings.ContainsAny(s, `'"`) {
			t.Errorf("psqlText(%q + \\o F): F not read (writes %q)", s, e2.writes)
		}
	})
}
