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

// nameref records declare -n REF=TARGET (typeset -n, local -n): bash
// assigns and exports TARGET when the command assigns or exports REF (red
// team 17: declare -n x=WGETRC; x=rc; export x; wget URL).
func (t *varTable) nameref(ref, target string) {
	if t.refs == nil {
		t.refs = map[string][]string{}
	}
	t.refs[ref] = append(t.refs[ref], target)
}

// followRefs gives every nameref's target what the command does to the
// reference (assigned, exported), through chains of references, before
// finishVars judges the names.
func (t *varTable) followRefs() {
	for changed := len(t.refs) > 0; changed; {
		changed = false
		for _, ref := range sortedKeys(t.refs) {
			v := t.vars[ref]
			if v == nil {
				continue
			}
			for _, target := range t.refs[ref] {
				tv := t.vars[target]
				if tv == nil {
					tv = &varState{}
					t.vars[target] = tv
				}
				if v.assigned && !tv.assigned || v.unsafe && !tv.unsafe || v.exported && !tv.exported {
					tv.assigned = tv.assigned || v.assigned
					tv.unsafe = tv.unsafe || v.unsafe
					tv.exported = tv.exported || v.exported
					changed = true
				}
			}
		}
	}
}
