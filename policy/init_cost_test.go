package policy

import (
	"fmt"
	"path"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// TestProgramsLongestFirst: declare keeps each name's declarations with the
// longest subcommand path first (lookupDecl takes the first that fits), in
// the order declared among equals, and every declaration was checked
// (checkDecl) when the package loaded.
func TestProgramsLongestFirst(t *testing.T) {
	loadPrograms()
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
	loadPrograms()
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

// TestUnreliableReadingSkipSound: a source without $, ( or [ is not walked
// by unreliableReading; the walk finds nothing in any such source of the
// corpora (and the control: it finds something in some with them).
func TestUnreliableReadingSkipSound(t *testing.T) {
	var cmds []string
	for _, pc := range loadCases(t) {
		cmds = append(cmds, pc.Cmd)
	}
	for _, cs := range loadAdversarial(t) {
		for _, c := range cs {
			cmds = append(cmds, c.Cmd)
		}
	}
	cmds = append(cmds, "a=(x y) b", "[[ -n x || cat == .env ]]", "(( 0 || rm -rf *x ))", "echo ${0% & { rm -rf x; }",
		"ls @(a|b)", "echo \"${x//;/|}\"")
	found := 0
	for _, c := range cmds {
		if c == "" {
			continue
		}
		f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(c), "")
		if err != nil {
			continue
		}
		walked := unreliableWalk(f, c)
		if walked != "" {
			found++
		}
		if got := unreliableReading(f, c); got != walked {
			t.Errorf("%q: unreliableReading %q, the walk %q", c, got, walked)
		}
	}
	if found < 5 {
		t.Fatalf("the walk found only %d unreliable readings", found)
	}
}

// TestIsCleanAbs: isCleanAbs(p) is exactly path.Clean(p) == p for absolute
// paths, over every path shape of a few elements.
func TestIsCleanAbs(t *testing.T) {
	elems := []string{"", ".", "..", "a", "ab", ".a", "a.", "..a", "/"}
	var gen func(p string, n int)
	checked := 0
	gen = func(p string, n int) {
		for _, p := range []string{p, "/" + p} {
			want := len(p) > 0 && p[0] == '/' && path.Clean(p) == p
			if got := isCleanAbs(p); got != want {
				t.Errorf("isCleanAbs(%q) = %v, path.Clean gives %q", p, got, path.Clean(p))
			}
			checked++
		}
		if n == 0 {
			return
		}
		for _, e := range elems {
			gen(p+"/"+e, n-1)
			gen(p+e, n-1)
		}
	}
	gen("", 3)
	if checked < 1000 {
		t.Fatalf("only %d paths checked", checked)
	}
}

// TestRuntimeWalkSkipSound: where collectVars met no node checkRuntimeCode
// acts on, its walk (run here anyway) changes nothing, for every command of
// both corpora; the control: where it met one, the walk does mark some
// commands uncertain.
func TestRuntimeWalkSkipSound(t *testing.T) {
	var cmds []string
	for _, pc := range loadCases(t) {
		cmds = append(cmds, pc.Cmd)
	}
	for _, cs := range loadAdversarial(t) {
		for _, c := range cs {
			cmds = append(cmds, c.Cmd)
		}
	}
	e := newEnvx(benchEnv)
	skipped, acted := 0, 0
	for _, c := range cmds {
		if c == "" {
			continue
		}
		f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(c), "")
		if err != nil {
			continue
		}
		an := &shellAnalysis{}
		a := &analyzer{env: &e, an: an, cwd: e.cwd, cwdKnown: true}
		first := a.collectVars(f)
		if a.runtimeNodes {
			a.checkRuntimeCode(f, first)
			if an.uncertain != "" {
				acted++
			}
			continue
		}
		skipped++
		a.runtimeNodes = true // the walk the skip saves
		a.checkRuntimeCode(f, first)
		if an.uncertain != "" || a.vt.relied != nil {
			t.Errorf("%q: skipped, but the walk finds %q (relied %v)", c, an.uncertain, a.vt.relied)
		}
	}
	if skipped < 100 || acted < 5 {
		t.Fatalf("skipped %d commands, the walk acted on %d: the corpora no longer test the skip", skipped, acted)
	}
}
