package policy

import (
	"strings"
	"testing"
)

// mysqlRT17Writes: the spellings of a mysql write of f: the client's
// commands in -e, --init-command, a here-string or a here-doc (long
// forms, short forms anywhere on a line), and for an absolute f the
// server's SELECT ... INTO OUTFILE|DUMPFILE (also through PREPARE FROM a
// literal and an executable comment).
func mysqlRT17Writes(f string) []string {
	var out []string
	for _, c := range []string{"tee " + f, "select 1; TEE " + f, `select 1 \T ` + f, "ssl_session_data_print " + f} {
		out = append(out, "mysql -e '"+c+"'", "mysql <<< '"+c+"'", "mysql <<'EOF'\n"+c+"\nEOF", "mariadb <<EOF\nselect 1;\n"+c+"\nEOF")
	}
	if strings.HasPrefix(f, "/") {
		for _, c := range []string{"select 1 into outfile '" + f + "'", "SELECT x FROM t INTO DUMPFILE \"" + f + "\"",
			"prepare s from 'select 1 into outfile ''" + f + "'''", "select 1 /*!50000 into outfile '" + f + "' */"} {
			out = append(out, "mysql -e "+shellQuote(c, false), "mysql --init-command="+shellQuote(c, false), "mysql <<< "+shellQuote(c, false))
		}
	}
	return out
}

// mysqlRT17Reads: the same for reads (source, \., LOAD DATA LOCAL
// INFILE; for an absolute f the server's LOAD DATA INFILE, LOAD_FILE).
func mysqlRT17Reads(f string) []string {
	var out []string
	for _, c := range []string{"load data local infile '" + f + "' into table t", "LOAD XML LOCAL INFILE \"" + f + "\" INTO TABLE t"} {
		out = append(out, "mysql -e "+shellQuote(c, false), "mysql <<< "+shellQuote(c, false))
	}
	if strings.HasPrefix(f, "/") {
		for _, c := range []string{"load data infile '" + f + "' into table t", "select load_file('" + f + "')", "SELECT LOAD_FILE(\"" + f + "\")"} {
			out = append(out, "mysql -e "+shellQuote(c, false), "mysql <<< "+shellQuote(c, false))
		}
	}
	return out
}

// TestMysqlRT17FormsHoldRules: every spelling x {Edit-denied,
// Read-denied, protected} x every mode holds the rule or asks; commands
// (system, \!, pager, \P, sys_exec) meet a deny rule; what the reader
// cannot know is a doubt; the same spellings on ordinary files are
// allowed (the control that the property can fail).
func TestMysqlRT17FormsHoldRules(t *testing.T) {
	type group struct {
		name        string
		cmds        []string
		allow, deny []string
		want        Decision
	}
	groups := []group{
		{"Edit-denied", append(mysqlRT17Writes("src/locked.go"), mysqlRT17Writes("/w/proj/src/locked.go")...), []string{"Bash"},
			[]string{"Edit(src/locked.go)"}, Deny},
		{"protected home", mysqlRT17Writes("/home/u/.bashrc"), []string{"Bash(mysql *)", "Bash(mariadb *)"}, nil, Ask},
		{"Read-denied", append(mysqlRT17Reads(".env"), "mysql <<< 'source .env'", `mysql <<< 'select 1 \. .env'`), []string{"Bash"},
			[]string{"Read(.env)"}, Deny},
		{"Read-denied home", mysqlRT17Reads("/home/u/.ssh/id_rsa"), []string{"Bash(mysql *)"}, []string{"Read(~/.ssh/**)"}, Deny},
		{"commands", []string{"mysql <<< 'system rm -rf y'", `mysql <<< 'select 1 \! rm -rf y'`, "mysql <<< 'pager rm -rf y'",
			`mysql -e 'select 1 \P rm -rf y'`, `mysql -e "select sys_exec('rm -rf y')"`, "mysql <<EOF\n\\! rm -rf y\nEOF"},
			[]string{"Bash"}, []string{"Bash(rm *)"}, Deny},
		{"doubts", []string{"mysql -e \"select 1 into outfile 'rel.csv'\"", "mysql -e \"select load_file(concat('/etc/','passwd'))\"",
			"mysql -e \"prepare s from @q\"", "mysql -e \"CREATE FUNCTION sys_exec RETURNS int SONAME 'lib.so'\"",
			"mysql -e \"INSTALL PLUGIN x SONAME 'x.so'\"", "mysql -e \"SET GLOBAL general_log_file = '/home/u/.bashrc'\"",
			"mysql -e \"select 1 into outfile '/home/u/.bash\\\\x72c'\"", "mysql --defaults-extra-file=my.cnf -e 'select 1'", "mysql --plugin-dir=. --default-auth=evil -e 'select 1'",
			"mariadb --default-auth evil",
			"mysql -e 'edit'", "mysql < s.sql", "echo 'select 1' | mysql", "mysql -e \"select sys_eval(x) from t\""},
			[]string{"Bash(mysql *)", "Bash(echo *)"}, nil, Ask},
	}
	for _, g := range groups {
		for _, cmd := range g.cmds {
			pc := policyCase{Src: "mysql-rt17", Tool: "Bash", Cmd: cmd, Allow: g.allow, Deny: g.deny}
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
	controls := append(append(mysqlRT17Writes("out.txt"), mysqlRT17Reads("data.csv")...), mysqlRT17Writes("/w/proj/out.txt")...)
	controls = append(controls, "mysql <<< 'select 1'", `mysql -e "select 'a\tb', \"c\""`, "mysql -e 'show tables'",
		"mysql -e \"select * from t where name = 'tee x'\"", "mysql <<EOF\nselect 1;\nEOF")
	for _, cmd := range controls {
		pc := policyCase{Src: "mysql-rt17", Tool: "Bash", Cmd: cmd, Allow: []string{"Bash(mysql *)", "Bash(mariadb *)"},
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
