package policy

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
)

// Red team 6: a name that only looks like a read-only program (a versioned
// name, a path outside the system's directories) is never read-only: for
// every read-only program x every such spelling, it asks in default mode
// and is refused in plan, where the program itself is allowed (the control).
func TestLookalikeNamesAreNeverReadOnly(t *testing.T) {
	var names []string
	for n := range readOnlyCmds {
		names = append(names, n)
	}
	sort.Strings(names)
	spell := []string{"./%s", "scripts/%s", "/tmp/x/%s", "%s1", "./%s2", "%s-3", "%s3.12", "/home/u/bin/%s"}
	controls, checked := 0, 0
	for _, n := range names {
		if v := rt5Eval(t, n, nil, nil, ModeDefault, false); v.Decision != Allow || v.Source != SourceReadOnly {
			continue // needs arguments or is not read-only on its own
		}
		if v := rt5Eval(t, "/usr/bin/"+n, nil, nil, ModeDefault, false); v.Decision != Allow {
			t.Errorf("control: /usr/bin/%s got %s (%s), want allow (a system path names the program)", n, v.Decision, v.Reason)
		}
		controls++
		for _, f := range spell {
			cmd := sprintfName(f, n)
			if knownProgram(baseName(cmd)) {
				continue // a name of its own (ls -> no; pip3 is known as itself)
			}
			checked++
			for _, mode := range []Mode{ModeDefault, ModePlan} {
				if v := rt5Eval(t, cmd, nil, nil, mode, false); v.Decision == Allow {
					t.Errorf("%q in %s: allowed (%s: %s); a lookalike of %s must not be read-only", cmd, mode, v.Source, v.Reason, n)
				}
			}
		}
	}
	if controls < 20 || checked < 100 {
		t.Fatalf("only %d programs and %d spellings checked", controls, checked)
	}
}

// Rules written for a versioned name meet its longer versions: pip3 rules
// meet pip3.12, python3 rules meet python3.12 (and the control: another
// program's rule does not).
func TestVersionedNamesMeetRulesForShorterNames(t *testing.T) {
	for _, c := range []struct{ cmd, deny string }{
		{"pip3.12 install x", "Bash(pip3 install *)"},
		{"pip3.12 install x", "Bash(pip install *)"},
		{"/usr/bin/pip3.11 install x", "Bash(pip3:*)"},
		{"python3.12 x.py", "Bash(python3 *)"},
		{"python3.12 x.py", "Bash(python *)"},
	} {
		if v := rt5Eval(t, c.cmd, []string{"Bash"}, []string{c.deny}, ModeBypass, false); v.Decision != Deny {
			t.Errorf("%q under %s: got %s (%s), want deny", c.cmd, c.deny, v.Decision, v.Reason)
		}
		if v := rt5Eval(t, c.cmd, []string{"Bash"}, []string{"Bash(ruby *)"}, ModeBypass, false); v.Decision != Allow {
			t.Errorf("control %q under Bash(ruby *): got %s (%s), want allow", c.cmd, v.Decision, v.Reason)
		}
	}
}

func sprintfName(f, n string) string {
	out := make([]byte, 0, len(f)+len(n))
	for i := 0; i < len(f); i++ {
		if f[i] == '%' && i+1 < len(f) && f[i+1] == 's' {
			out = append(out, n...)
			i++
			continue
		}
		out = append(out, f[i])
	}
	return string(out)
}

// Red team 7: the same for the wrappers and builtins the reader handles in
// code of its own: a path runs the file, never the builtin or the installed
// wrapper. Control: the bare name with a read-only command is allowed.
func TestLookalikeWrappersAreNeverReadOnly(t *testing.T) {
	for _, n := range []string{"env", "xargs", "nohup", "nice", "timeout 5", "stdbuf -o0", "time", "exec", "command", "builtin", "noglob", "busybox", "cd /tmp &&", "pushd /tmp &&", "eval", "trap", "sudo"} {
		name, rest, _ := cutWord(n)
		for _, pre := range []string{"./", "scripts/", "/tmp/x/", "usr/bin/", "././"} {
			cmd := pre + name + rest + " echo hi"
			for _, mode := range []Mode{ModeDefault, ModePlan} {
				if v := rt5Eval(t, cmd, nil, nil, mode, false); v.Decision == Allow {
					t.Errorf("%q in %s: allowed (%s: %s); a file named like %s is not %s", cmd, mode, v.Source, v.Reason, name, name)
				}
			}
		}
	}
	if v := rt5Eval(t, "env echo hi", nil, nil, ModePlan, false); v.Decision != Allow {
		t.Errorf("control: env echo hi in plan: got %s (%s), want allow", v.Decision, v.Reason)
	}
}

func cutWord(s string) (first, rest string, ok bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == ' ' {
			return s[:i], s[i:], true
		}
	}
	return s, "", false
}

// TestNameMemoEqualsComputed: the remembered canonical name and name
// variants equal what is computed, for every declared and table-known
// program, their versioned, upper-case, prefixed and suffixed forms, on the
// first call (computed and kept) and the next (from the memo); past
// nameMemoMax names the answers stay right and the memo stops growing.
func TestNameMemoEqualsComputed(t *testing.T) {
	loadPrograms()
	var names []string
	for n := range programs {
		names = append(names, n)
	}
	for n := range readOnlyCmds {
		names = append(names, n)
	}
	for n := range netClients {
		names = append(names, n)
	}
	base := len(names)
	for _, n := range names[:base] {
		names = append(names, n+"3.12", strings.ToUpper(n), "x86_64-linux-gnu-"+n+"-12", "g"+n, n+"-3.12", n+"1.22rc1")
	}
	names = append(names, "tool501", "pip-3.12", "nodejs", "RM", "Git", "python3.12d", "", "a-b-c-d", "--", "-")
	check := func(n string) {
		t.Helper()
		if got, want := canonProgram(n), canonProgramOf(n); got != want {
			t.Fatalf("canonProgram(%q) = %q, computed %q", n, got, want)
		}
		got, want := nameVariants(n), nameVariantsOf(n)
		if !slices.Equal(got, want) {
			t.Fatalf("nameVariants(%q) = %q, computed %q", n, got, want)
		}
	}
	for round := 0; round < 2; round++ {
		for _, n := range names {
			check(n)
		}
	}
	if len(names) < 1000 {
		t.Fatalf("only %d names: the tables did not load", len(names))
	}
	for i := 0; i < nameMemoMax+100; i++ {
		check(fmt.Sprintf("junk%d-x-y-z", i))
	}
	nameMemo.RLock()
	n := len(nameMemo.m)
	nameMemo.RUnlock()
	if n > nameMemoMax {
		t.Fatalf("the memo holds %d names, more than %d", n, nameMemoMax)
	}
	for _, n := range names {
		check(n)
	}
}
