package policy

import "testing"

// Red team 17b: xargs appends the words it reads (standard input, -a
// FILE, --arg-file=FILE) to the command it runs; in the place of a code
// option's value (psql -c, gdb -ex, sqlite3 DB SQL, sh -c) they are code
// the reader cannot see (shell_wrappers.go, xargsRuns).

var xargsSpellings = []string{
	"xargs",
	"xargs -a cmds",
	"xargs -a cmds -d '\\n'",
	"xargs -d '\\n' -a cmds",
	"xargs --arg-file=cmds",
	"xargs --arg-file cmds",
	"xargs -acmds",
	"xargs -0",
	"xargs -r",
	"xargs -n1",
	"xargs -L 1 -a cmds",
	"xargs -P4 -a cmds --",
	"cat cmds | xargs",
	"xargs -a cmds -E END",
}

var xargsCodePrograms = []string{
	"psql -c", "psql --command", "psql -d db -c", "gdb -batch -ex", "gdb -ex", "sqlite3 x.db", "sqlite3 -batch x.db",
	"mysql -e", "sh -c", "bash -c", "python3 -c", "perl -e", "node -e", "ruby -e",
}

// TestXargsCodeOperand: every spelling of xargs running every program whose
// next word is code is a doubt under an allow-all rule. Control: the same
// spellings running programs whose next word is a file or text (cat, wc
// -l, grep foo, echo) are allowed, and a deny rule on what xargs runs
// still holds (xargs rm: denied).
func TestXargsCodeOperand(t *testing.T) {
	for _, x := range xargsSpellings {
		for _, p := range xargsCodePrograms {
			rt16bDoubt(t, x+" "+p, []string{"Bash"})
		}
		for _, p := range []string{"cat", "wc -l", "grep -n foo", "echo", "ls -l"} {
			cmd := x + " " + p
			if v := rt17bDecide(t, cmd, []string{"Bash"}, nil, ModeDefault); v.Decision != Allow {
				t.Errorf("control %q: %s (%s), want allow", cmd, v.Decision, v.Reason)
			}
		}
		for _, p := range []string{"rm", "rm -f", "rm -rf --"} {
			cmd := x + " " + p
			if v := rt17bDecide(t, cmd, []string{"Bash"}, []string{"Bash(rm *)"}, ModeDefault); v.Decision != Deny {
				t.Errorf("%q under Bash(rm *): %s (%s), want deny", cmd, v.Decision, v.Reason)
			}
		}
	}
}
