package policy

import (
	"strings"
	"testing"
)

// TestSQLClientFilesHoldRules: psql's and mysql's file options and
// meta-commands x {Edit-denied, protected} x every mode hold the rule or
// breaker; their pipes run commands a deny rule meets; the command files
// are doubts; the same forms on ordinary files stay allowed (the control).
func TestSQLClientFilesHoldRules(t *testing.T) {
	writes := func(f string) []string {
		return []string{"psql -o " + f + " -c 'select 1'", "psql --output=" + f + " -c 'select 1'", "psql -L " + f + " -c 'select 1'",
			"psql --log-file " + f, "psql -c '\\o " + f + "' -c 'select 1'", "psql -c 'select 1 \\g " + f + "'",
			"psql -c '\\w " + f + "'", "psql -c '\\s " + f + "'", "psql -c '\\lo_export 1 " + f + "'",
			"psql -c \"\\copy t to '" + f + "'\"", "psql -c \"\\copy t TO " + f + " csv\"",
			"mysql --tee=" + f + " -e 'select 1'", "mysql --tee " + f, "mysql -e 'tee " + f + "'", "mysql -e 'select 1; \\T " + f + "'",
			"mariadb -e 'TEE " + f + "'"}
	}
	type group struct {
		name        string
		cmds        []string
		allow, deny []string
		want        Decision
	}
	groups := []group{
		{"Edit-denied", writes("src/locked.go"), []string{"Bash"}, []string{"Edit(src/locked.go)"}, Deny},
		{"protected home", writes("/home/u/.bashrc"), []string{"Bash(psql *)", "Bash(mysql *)", "Bash(mariadb *)"}, nil, Ask},
		{"protected workspace", writes(".vscode/tasks.json"), []string{"Bash"}, nil, Ask},
		{"Read-denied", []string{"psql -c \"\\copy t from '.env'\"", "psql -c '\\lo_import .env'", "psql -f .env", "psql -c '\\i .env'",
			"mysql -e 'source .env'", "mysql -e '\\. .env'"}, []string{"Bash"}, []string{"Read(.env)"}, Deny},
		{"pipes", []string{"psql -o '|rm -rf x' -c 'select 1'", "psql --output='|rm -rf x'", "psql -L '|rm -rf x'",
			"mysql --pager='rm -rf x' -e 'select 1'", "mysql -e 'pager rm -rf x'", "mysql -e '\\P rm -rf x'"},
			[]string{"Bash"}, []string{"Bash(rm *)"}, Deny},
		{"doubts", []string{"psql -f x.sql", "psql --file=x.sql", "psql -f -", "psql -c '\\i x.sql'", "psql -c '\\ir x.sql'",
			"psql -c '\\include x.sql'", "psql -c '\\o `cat f`'", "psql -c '\\e'", "psql -c '\\setenv PAGER x'",
			"mysql -e 'source x.sql'", "mysql -e '\\. x.sql'", "psql -o \"$F\" -c 'select 1'"},
			[]string{"Bash(psql *)", "Bash(mysql *)"}, nil, Ask},
	}
	for _, g := range groups {
		for _, cmd := range g.cmds {
			pc := policyCase{Src: "sqlclients", Tool: "Bash", Cmd: cmd, Allow: g.allow, Deny: g.deny}
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
	controls := append(writes("out.txt"), "psql -c 'select 1'", "psql -c '\\dt'", "mysql -e 'select 1'", "psql -c \"\\copy t from 'data.csv'\"")
	for _, cmd := range controls {
		pc := policyCase{Src: "sqlclients", Tool: "Bash", Cmd: cmd, Allow: []string{"Bash(psql *)", "Bash(mysql *)", "Bash(mariadb *)"},
			Deny: []string{"Read(.env)", "Edit(src/locked.go)"}}
		for _, m := range adversarialModes {
			if m.mode != ModeDefault && m.mode != ModeBypass {
				continue
			}
			in := pc.input(t)
			in.Mode, in.AgentBypass = m.mode, m.agentBypass
			if v := Evaluate(in); v.Decision != Allow {
				t.Errorf("control: %s: %q: got %s (%s), want allow", m.name, cmd, v.Decision, strings.TrimSpace(v.Reason))
			}
		}
	}
}
