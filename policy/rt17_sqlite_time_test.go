package policy

import (
	"strings"
	"testing"
	"time"
)

// Red team 17 (Resources: an input that makes a decision slow). The
// sqlite3 reader (programs_sqlite.go, sqliteSQL) collects the arguments of
// every `name(` it meets by scanning to the matching parenthesis
// (sqlCallArgs), so nested calls `a(a(a(...)))` cost more than the square
// of their length. Measured here (default mode, one Evaluate): 1.5 KB 47
// ms, 3 KB 122 ms, 6 KB 684 ms, 12 KB 6.0 s; a 60 KB command (under the 64
// KiB limit, docs/policy.md "longer than 64 KiB ... asks") did not finish
// 6 evaluations in 300 s. The same text as an argument of echo (the
// control) is decided in under a millisecond. The decision blocks the
// agent's tool call while it runs.
func TestRT17SQLiteNestedCallsDecisionTime(t *testing.T) {
	const n = 4000 // 12 KB
	sql := "select " + strings.Repeat("a(", n) + "1" + strings.Repeat(")", n)
	decide := func(cmd string) (time.Duration, bool) {
		c := adversarialCase{Tool: "Bash", Cmd: cmd, Allow: []string{"Bash(sqlite3 *)", "Bash(echo *)"}}
		in := c.input(t, ModeDefault, false)
		done := make(chan struct{})
		st := time.Now()
		go func() { Evaluate(in); close(done) }()
		select {
		case <-done:
			return time.Since(st), true
		case <-time.After(2 * time.Second):
			return time.Since(st), false
		}
	}
	if d, ok := decide(`echo "` + sql + `"`); !ok {
		t.Fatalf("control: echo of the same %d bytes took over %v", len(sql), d)
	}
	if d, ok := decide(`sqlite3 db "` + sql + `"`); !ok {
		t.Errorf("sqlite3 with %d bytes of nested calls: no decision after %v (the echo control: under 2 s)", len(sql), d)
	}
}
