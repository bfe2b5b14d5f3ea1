package policy

import (
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
