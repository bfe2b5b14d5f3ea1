package policy

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Red team 16b: a program's own shell escape, spelled as the program
// accepts it but not as the reader knows it. Each case first runs the real
// program (when installed) in a temp directory to show the spelling runs
// a command (the unsandboxed control), then judges the same call with
// Bash allowed and Bash(rm *) denied: it must not be allowed.
func TestRT16bReplSpellings(t *testing.T) {
	cases := []struct {
		prog string
		argv func(marker string) []string // the control: runs `touch marker`
		cmd  string                       // the judged call
	}{
		{"sqlite3", func(m string) []string { return []string{"sqlite3", "db", ".she touch " + m} }, "sqlite3 db '.she rm -rf x'"},
		{"sqlite3", func(m string) []string { return []string{"sqlite3", "db", ".shel touch " + m} }, "sqlite3 db '.shel rm -rf x'"},
		{"sqlite3", func(m string) []string { return []string{"sqlite3", "db", ".sy touch " + m} }, "sqlite3 db '.sy rm -rf x'"},
		{"sqlite3", func(m string) []string { return []string{"sqlite3", "db", `.output "|touch ` + m + `"`, "select 1"} }, `sqlite3 db '.output "|rm -rf x"' 'select 1'`},
		{"sqlite3", func(m string) []string { return []string{"sqlite3", "db", `.once "|touch ` + m + `"`, "select 1"} }, `sqlite3 db '.once "|rm -rf x"' 'select 1'`},
		{"sqlite3", func(m string) []string {
			return []string{"sh", "-c", "printf '.shell touch " + m + "\\n' > x.sql && sqlite3 -init x.sql db 'select 1'"}
		}, "sqlite3 -init x.sql db 'select 1'"},
		{"gdb", func(m string) []string { return []string{"gdb", "-batch", "-init-eval-command=shell touch " + m} }, "gdb -batch -init-eval-command='shell rm -rf x'"},
		{"gdb", func(m string) []string { return []string{"gdb", "-batch", "-eval-comm=shell touch " + m} }, "gdb -batch -eval-comm='shell rm -rf x'"},
		{"gdb", func(m string) []string { return []string{"gdb", "-batch", "-ex", "she touch " + m} }, "gdb -batch -ex 'she rm -rf x'"},
	}
	for _, c := range cases {
		t.Run(c.cmd, func(t *testing.T) {
			if _, err := exec.LookPath(c.prog); err == nil {
				dir := t.TempDir()
				argv := c.argv("MARK")
				cmd := exec.Command(argv[0], argv[1:]...)
				cmd.Dir = dir
				_ = cmd.Run()
				if _, err := os.Stat(filepath.Join(dir, "MARK")); err != nil {
					t.Logf("control: %v did not run its command here (%v)", argv, err)
				} else {
					t.Logf("control: %v ran `touch MARK`", argv)
				}
			}
			// -init x.sql runs code from a file the reader does not read:
			// a doubt, never allowed (ask; deny in dontAsk and plan), as
			// nothing names rm to deny (rt16bsql).
			doubt := strings.Contains(c.cmd, " -init ")
			pc := policyCase{Src: "rt16b", Tool: "Bash", Cmd: c.cmd, Allow: []string{"Bash"}, Deny: []string{"Bash(rm *)"}}
			for _, m := range adversarialModes {
				in := pc.input(t)
				in.Mode, in.AgentBypass = m.mode, m.agentBypass
				if v := Evaluate(in); doubt && v.Decision == Allow || !doubt && v.Decision != Deny {
					t.Errorf("%s: %s: got %s (%s), want deny (Bash(rm *))", m.name, c.cmd, v.Decision, v.Reason)
				}
			}
		})
	}
}
