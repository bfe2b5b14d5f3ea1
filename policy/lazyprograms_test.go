package policy

import (
	"fmt"
	"os"
	"os/exec"
	"testing"
)

// TestProgramsIndexedAtFirstLookup: a process that has read no command
// has indexed no program declaration (they wait, in the order the inits
// declared them); its first decision indexes them all, and that decision
// already reads them: git apply --unsafe-paths, which a declaration marks
// as writing anywhere, asks under an allow rule of git apply, and the
// same call without the option is allowed. It runs in a fresh process (a
// test binary running only this test), where nothing else has looked a
// program up first.
func TestProgramsIndexedAtFirstLookup(t *testing.T) {
	if os.Getenv("ACP_BRIDGE_LAZY_PROGRAMS_CHILD") == "1" {
		lazyProgramsChild()
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestProgramsIndexedAtFirstLookup$", "-test.count=1")
	cmd.Env = append(os.Environ(), "ACP_BRIDGE_LAZY_PROGRAMS_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}

func lazyProgramsChild() {
	fail := func(format string, args ...any) {
		fmt.Printf(format+"\n", args...)
		os.Exit(3)
	}
	if programsLoaded || len(programs) != 0 || len(pendingDecls) < 150 {
		fail("before any decision: loaded %v, %d programs indexed, %d declarations waiting (want false, 0, >= 150)",
			programsLoaded, len(programs), len(pendingDecls))
	}
	waiting := len(pendingDecls)
	pol, errs := Compile([]RuleText{{List: "allow", Text: "Bash(git apply *)"}})
	if len(errs) > 0 {
		fail("compile: %v", errs)
	}
	env := Env{Cwd: "/w/p", ProjectRoot: "/w/p", Home: "/home/u"}
	v := Evaluate(Input{Call: Call{Tool: "Bash", Command: "git apply --unsafe-paths --directory=/home/u p.diff"}, Mode: ModeDefault, Env: env, Policy: pol})
	if v.Decision != Ask {
		fail("git apply --unsafe-paths under Bash(git apply *): %s (%s), want ask", v.Decision, v.Reason)
	}
	if v := Evaluate(Input{Call: Call{Tool: "Bash", Command: "git apply p.diff"}, Mode: ModeDefault, Env: env, Policy: pol}); v.Decision != Allow {
		fail("git apply p.diff under Bash(git apply *): %s (%s), want allow", v.Decision, v.Reason)
	}
	n := 0
	for _, ds := range programs {
		n += len(ds)
	}
	if !programsLoaded || len(pendingDecls) != 0 || n < waiting {
		fail("after a decision: loaded %v, %d declarations indexed of %d waiting, %d still waiting", programsLoaded, n, waiting, len(pendingDecls))
	}
	fmt.Printf("%d declarations waited for the first decision, and were all indexed by it\n", waiting)
}
