package policy

import (
	"math/rand"
	"reflect"
	"testing"
)

// refSQLCallArgs is the reading of a call's arguments before red team 17
// (a scan to the matching parenthesis per call, quadratic over nested
// calls): the linear one must give the same arguments on every text.
func refSQLCallArgs(toks []sqlTok, i int) [][]sqlTok {
	var args [][]sqlTok
	var cur []sqlTok
	depth := 0
	for j := i + 1; j < len(toks); j++ {
		t := toks[j]
		if t.kind == 'p' {
			switch t.s {
			case "(":
				depth++
			case ")":
				if depth == 0 {
					if len(cur) > 0 || len(args) > 0 {
						args = append(args, cur)
					}
					return args
				}
				depth--
			case ",":
				if depth == 0 {
					args = append(args, cur)
					cur = nil
					continue
				}
			}
		}
		cur = append(cur, t)
	}
	return append(args, cur)
}

// TestSQLCallArgsMatchesReference: on random token sequences (balanced,
// unbalanced, empty arguments, nesting), every call's arguments are the
// reference's.
func TestSQLCallArgsMatchesReference(t *testing.T) {
	pieces := []sqlTok{{kind: 'p', s: "("}, {kind: 'p', s: ")"}, {kind: 'p', s: ","}, {kind: 'i', s: "a"}, {kind: 's', s: "f"}}
	r := rand.New(rand.NewSource(17))
	norm := func(args [][]sqlTok) [][]sqlTok {
		out := make([][]sqlTok, len(args))
		for k, a := range args {
			out[k] = append([]sqlTok{}, a...)
		}
		return out
	}
	for n := 0; n < 4000; n++ {
		toks := make([]sqlTok, r.Intn(14))
		for k := range toks {
			toks[k] = pieces[r.Intn(len(pieces))]
		}
		match := sqlMatches(toks)
		for i, tk := range toks {
			if tk.kind != 'p' || tk.s != "(" {
				continue
			}
			got, want := norm(sqlCallArgs(toks, i, match)), norm(refSQLCallArgs(toks, i))
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%v, call at %d: got %v, want %v", toks, i, got, want)
			}
		}
	}
}
