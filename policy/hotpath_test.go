package policy

import (
	"strings"
	"testing"
)

// TestBareDeclIndex: the index declare keeps answers, for every declared
// name, what a scan of the name's declarations does (the first
// declaration without a subcommand word, under its name or an alias), and
// nothing for an undeclared name.
func TestBareDeclIndex(t *testing.T) {
	loadPrograms()
	scan := func(base string) *progDecl {
		for _, d := range programs[base] {
			if !strings.Contains(d.name, " ") && (d.name == base || containsStr(d.aliases, base)) {
				return d
			}
		}
		return nil
	}
	withBare := 0
	for name := range programs {
		want := scan(name)
		if got := bareDecl(name); got != want {
			t.Errorf("bareDecl(%q) = %v, the scan finds %v", name, got, want)
		}
		if want != nil {
			withBare++
		}
	}
	if len(programs) < 100 || withBare < 50 {
		t.Fatalf("%d programs, %d with a bare declaration: the declarations did not load", len(programs), withBare)
	}
	for _, name := range []string{"", "no-such-program", "git status"} {
		if d := bareDecl(name); d != nil {
			t.Errorf("bareDecl(%q) = %q, want none", name, d.name)
		}
	}
}
