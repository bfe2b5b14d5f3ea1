package policy

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Red team 16b: a program's own shell escape, spelled as the program
// accepts it but not as the reader knows it. Each case first runs the real
// program (when installed) in a temp directory to show the spelling runs
// a command (the unsandboxed control), then judges the same call with
// Bash allowed and Bash(rm *) denied: it must not be allowed.
func TestRT16bReplSpellings(t *testing.T) {
	// The sqlite3 cases are brought in by the sqlite helper's branch (rt16bsql).
	cases := []struct {
		prog string
		argv func(marker string) []string // the control: runs `touch marker`
		cmd  string                       // the judged call
	}{
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
			pc := policyCase{Src: "rt16b", Tool: "Bash", Cmd: c.cmd, Allow: []string{"Bash"}, Deny: []string{"Bash(rm *)"}}
			for _, m := range adversarialModes {
				in := pc.input(t)
				in.Mode, in.AgentBypass = m.mode, m.agentBypass
				if v := Evaluate(in); v.Decision != Deny {
					t.Errorf("%s: %s: got %s (%s), want deny (Bash(rm *))", m.name, c.cmd, v.Decision, v.Reason)
				}
			}
		})
	}
}
