package policy

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// TestLiteralWordHoldsNothing: a word literalWord lets walkSubst skip holds
// nothing the walk looks for (a statement, a command or process
// substitution), for words plain, quoted both ways, mixed, escaped and
// empty; and the words that do hold one are not skipped.
func TestLiteralWordHoldsNothing(t *testing.T) {
	for _, tc := range []struct {
		src     string
		literal bool
	}{
		{"build", true}, {"'a b'", true}, {`"done"`, true}, {`a'b'"c"`, true}, {`""`, true}, {`a\ b`, true},
		{`"$(rm -rf /)"`, false}, {"$(id)", false}, {"`id`", false}, {"<(cat .env)", false}, {`"a$(id)"`, false},
		{"${x:-$(id)}", false}, {"$HOME", false}, {`"$HOME"`, false}, {"*.go", true}, {"$((1+2))", false},
		{`"${x:-$(id)}"`, false}, {"{a,b}", true},
	} {
		f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader("echo "+tc.src), "")
		if err != nil {
			t.Fatalf("%s: %v", tc.src, err)
		}
		w := f.Stmts[0].Cmd.(*syntax.CallExpr).Args[1]
		found := false
		syntax.Walk(w, func(n syntax.Node) bool {
			switch n.(type) {
			case *syntax.CmdSubst, *syntax.ProcSubst, *syntax.Stmt:
				found = true
			}
			return true
		})
		got := literalWord(w)
		if got != tc.literal {
			t.Errorf("literalWord(%s) = %v, want %v", tc.src, got, tc.literal)
		}
		if got && found {
			t.Errorf("%s: skipped, but holds something to walk", tc.src)
		}
	}
}
