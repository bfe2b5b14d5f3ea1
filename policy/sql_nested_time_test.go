package policy

import (
	"strings"
	"testing"
	"time"
)

// Every SQL reader reads calls in one pass (sqlMatches): psql's and
// mysql's server SQL as sqlite3's (red team 17 found sqlite3's reader
// quadratic over nested calls; psql's, written after it, was too: 5 s for
// 12 KB). Same bound and control as TestRT17SQLiteNestedCallsDecisionTime:
// the text under echo is the control, and a decision must come in 2 s.
func TestSQLReadersNestedCallsDecisionTime(t *testing.T) {
	const n = 4000 // 12 KB
	sql := "select " + strings.Repeat("a(", n) + "1" + strings.Repeat(")", n)
	decide := func(cmd string) (time.Duration, bool) {
		c := adversarialCase{Tool: "Bash", Cmd: cmd, Allow: []string{"Bash(psql *)", "Bash(mysql *)", "Bash(sqlite3 *)", "Bash(echo *)"}}
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
	for _, cmd := range []string{`psql -c "` + sql + `"`, `psql <<< "` + sql + `"`, `mysql -e "` + sql + `"`, `sqlite3 db "` + sql + `"`} {
		if d, ok := decide(cmd); !ok {
			t.Errorf("%s with %d bytes of nested calls: no decision after %v", cmd[:9], len(sql), d)
		}
	}
}
