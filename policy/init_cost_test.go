package policy

import (
	"fmt"
	"strings"
	"testing"
)

// TestProgramsLongestFirst: declare keeps each name's declarations with the
// longest subcommand path first (lookupDecl takes the first that fits), in
// the order declared among equals, and every declaration was checked
// (checkDecl) when the package loaded.
func TestProgramsLongestFirst(t *testing.T) {
	n := 0
	for name, ds := range programs {
		for i, d := range ds {
			n++
			if got := len(strings.Fields(d.name)) - 1; got != len(d.sub) {
				t.Errorf("%q: sub %q has %d words, the name %d", name, d.sub, len(d.sub), got)
			}
			if i > 0 && len(ds[i-1].sub) < len(d.sub) {
				t.Errorf("%q: %q (%d words) after %q (%d)", name, d.name, len(d.sub), ds[i-1].name, len(ds[i-1].sub))
			}
			if err := checkDecl(d); err != nil {
				t.Errorf("declared: %v", err)
			}
		}
	}
	if n < 150 {
		t.Fatalf("only %d declarations", n)
	}
}

// TestWordFilterSound: a filter never turns away a word it was given, for
// every declared program name and every first word of the benchmark's and
// the corpus' Bash rules, and it does turn away most other words (else it
// saves nothing).
func TestWordFilterSound(t *testing.T) {
	for name := range programs {
		if !declNames.mayHave(name) {
			t.Errorf("declNames turns away the declared program %q", name)
		}
		if d, _ := lookupDecl(name, nil); d == nil && bareDecls[name] != nil {
			t.Errorf("%q: bare declaration not found", name)
		}
		if bareDecls[name] != bareDecl(name) {
			t.Errorf("bareDecl(%q) differs from the map", name)
		}
	}
	pol := benchPolicy(t)
	for _, set := range []*ruleSet{&pol.deny, &pol.ask, &pol.allow} {
		for w := range set.bashByWord {
			if !set.bashWords.mayHave(w) {
				t.Errorf("bashWords turns away the rule word %q", w)
			}
		}
	}
	var f wordFilter
	for i := 0; i < 200; i++ {
		f.add(fmt.Sprintf("word%d", i))
	}
	passed := 0
	for i := 0; i < 1000; i++ {
		if f.mayHave(fmt.Sprintf("other%d", i)) {
			passed++
		}
	}
	if passed > 150 {
		t.Errorf("the filter of 200 words lets %d of 1,000 others through", passed)
	}
}
