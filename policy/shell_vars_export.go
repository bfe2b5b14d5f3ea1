package policy

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// The export attribute of shell variables (shell_vars.go): a variable
// exported by name (export X; declare -x X) or under set -a passes its
// value to every program the command runs, as a prefix assignment does
// (red team 16b: WGETRC=rc; export WGETRC; wget URL).

// export gives name the export attribute: the value it has or gets
// reaches every program the command runs.
func (t *varTable) export(name string) {
	if t.vars == nil {
		t.vars = map[string]*varState{}
	}
	if t.vars[name] == nil {
		t.vars[name] = &varState{}
	}
	t.vars[name].exported = true
}

// setsAllExport: set's arguments turn on allexport (-a, -ea, -o allexport).
func setsAllExport(args []*syntax.Word) bool {
	for i, w := range args {
		s, ok := staticLit(w)
		if !ok {
			return true // a flag known only at run time
		}
		if s == "--" || !strings.HasPrefix(s, "-") {
			return false
		}
		if s == "-o" && i+1 < len(args) {
			if o, ok := staticLit(args[i+1]); !ok || o == "allexport" {
				return true
			}
		}
		if !strings.HasPrefix(s, "--") && strings.ContainsRune(s[1:], 'a') {
			return true
		}
	}
	return false
}
