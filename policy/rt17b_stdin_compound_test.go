package policy

import (
	"strconv"
	"strings"
	"testing"
)

// Red team 17b: standard input given to a compound command, a function
// (its definition or its call) or left by `exec` reaches every command
// inside (shell_stdin.go).

// rt17bDecide evaluates cmd under allow and deny rules in mode.
func rt17bDecide(t *testing.T, cmd string, allow, deny []string, mode Mode) Verdict {
	t.Helper()
	var rules []RuleText
	for _, r := range allow {
		rules = append(rules, RuleText{List: "allow", Text: r})
	}
	for _, r := range deny {
		rules = append(rules, RuleText{List: "deny", Text: r})
	}
	pol, errs := Compile(rules)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	return Evaluate(Input{Call: Call{Tool: "Bash", Command: cmd}, Mode: mode, Env: rt16bEnv, Policy: pol})
}

// stdinForms: every statement that gives CMD the standard input R; "R" is
// replaced by a redirect (`< cmds`, `<<< TEXT`, a here-doc), "CMD" by the
// program. A here-doc's body follows the line (hdocTail).
var stdinForms = []string{
	"{ CMD; } R",
	"{ true; CMD; } R",
	"{ true && CMD; } R",
	"{ { CMD; }; } R",
	"(CMD) R",
	"( (CMD) ) R",
	"if true; then CMD; fi R",
	"if false; then true; else CMD; fi R",
	"if CMD; then true; fi R",
	"for i in 1; do CMD; done R",
	"for ((i=0; i<1; i++)); do CMD; done R",
	"while true; do CMD; break; done R",
	"until false; do CMD; break; done R",
	"case x in x) CMD;; esac R",
	"select i in 1; do CMD; break; done R",
	"time { CMD; } R",
	"f() { CMD; } R; f",
	"function f { CMD; } R; f",
	"f() { CMD; }; f R",
	"f() { CMD; }; { f; } R",
	"g() { CMD; }; f() { g; }; f R",
	"f() { true; CMD; }; f R",
	"exec R; CMD",
	"builtin exec R; CMD",
	"command exec R; CMD",
	"exec R; { CMD; }",
	"exec R; f() { CMD; }; f",
	"{ exec R; CMD; }",
}

// stdinProgram: a program that reads its commands from standard input,
// with the line that makes it run `rm -rf /w/proj/src`.
type stdinProgram struct {
	cmd, line string
}

var stdinPrograms = []stdinProgram{
	{"gdb", "shell rm -rf /w/proj/src"},
	{"gdb -q", "shell rm -rf /w/proj/src"},
	{"sqlite3 x.db", ".shell rm -rf /w/proj/src"},
	{"sqlite3 x.db", ".system rm -rf /w/proj/src"},
	{"psql", `\! rm -rf /w/proj/src`},
	{"mysql", `\! rm -rf /w/proj/src`},
	{"ed -s x", "!rm -rf /w/proj/src"},
	{"ed x", "!rm -rf /w/proj/src"},
	{"vim -es x", "!rm -rf /w/proj/src"},
	{"ex x", "!rm -rf /w/proj/src"},
	{"bash", "rm -rf /w/proj/src"},
	{"sh", "rm -rf /w/proj/src"},
}

// stdinCmd builds form with program p and redirect r (a here-doc's body
// after the line).
func stdinCmd(form, p, r, tail string) string {
	c := strings.Replace(strings.Replace(form, "CMD", p, 1), "R", r, 1)
	return c + tail
}

// TestStdinCompoundText: a here-string or here-doc on any of the forms is
// read through the program's reader: a deny rule on the command it runs
// holds. Control: the same forms with `cat` are allowed (the forms parse
// and are read as commands that run), and the text is what is denied
// (`echo` there instead of rm: allowed).
func TestStdinCompoundText(t *testing.T) {
	for _, f := range stdinForms {
		for _, p := range stdinPrograms {
			for _, r := range []struct{ redir, tail string }{
				{"<<< '" + strings.ReplaceAll(p.line, "'", `'\''`) + "'", ""},
				{"0<<< '" + p.line + "'", ""},
				{"<<'EOF'", "\n" + p.line + "\nEOF"},
				{"<<EOF", "\n" + strings.ReplaceAll(p.line, `\`, `\\`) + "\nEOF"},
			} {
				cmd := stdinCmd(f, p.cmd, r.redir, r.tail)
				for _, m := range []Mode{ModeDefault, ModeBypass} {
					if v := rt17bDecide(t, cmd, []string{"Bash"}, []string{"Bash(rm *)"}, m); v.Decision != Deny {
						t.Errorf("%q in %s: %s (%s), want deny", cmd, m, v.Decision, v.Reason)
					}
				}
			}
		}
		cmd := stdinCmd(f, "cat", "<<< 'rm -rf /w/proj/src'", "")
		if v := rt17bDecide(t, cmd, []string{"Bash"}, []string{"Bash(rm *)"}, ModeDefault); v.Decision != Allow {
			t.Errorf("control %q: %s (%s), want allow", cmd, v.Decision, v.Reason)
		}
	}
}

// TestStdinCompoundFile: a file, a descriptor or a pipe as the standard
// input of any of the forms is a doubt for a program that reads its
// commands from it (corpus 150's rule). Control: the same forms with a
// filter (cat, sort, grep) are allowed, and so is a redirect of another
// descriptor (3< F) to the program.
func TestStdinCompoundFile(t *testing.T) {
	redirs := []string{"< cmds", "0< cmds", "<cmds.sql", "<> cmds", "<&3", "0<&3"}
	for _, f := range stdinForms {
		for _, p := range stdinPrograms {
			for _, r := range redirs {
				cmd := stdinCmd(f, p.cmd, r, "")
				if strings.Contains(r, "&3") {
					cmd = "exec 3<cmds; " + cmd
				}
				rt16bDoubt(t, cmd, []string{"Bash"})
			}
		}
		for _, prog := range []string{"cat", "sort", "grep x"} {
			cmd := stdinCmd(f, prog, "< cmds", "")
			if v := rt17bDecide(t, cmd, []string{"Bash"}, nil, ModeDefault); v.Decision != Allow {
				t.Errorf("control %q: %s (%s), want allow", cmd, v.Decision, v.Reason)
			}
		}
	}
	for _, cmd := range []string{
		"f() { gdb; }; echo 'shell rm' | f",
		"f() { gdb; }; cat cmds | { f; }",
		"exec 3<cmds; exec 0<&3; gdb",
		"exec <cmds; exec 3<x; gdb",
		"if x; then f() { gdb; }; else f() { cat; }; fi; f < cmds",
		"f() { gdb; }; f() { cat; }; true || f < cmds",
	} {
		rt16bDoubt(t, cmd, []string{"Bash"})
	}
	for _, cmd := range []string{
		"exec 3<cmds; gdb -batch -ex 'info functions'",
		"exec 2>/dev/null; sort x",
		"exec 3<cmds; f() { cat; }; f",
		"f() { gdb; }; f",
		"f() { gdb; } 3< cmds; f",
	} {
		if v := rt17bDecide(t, cmd, []string{"Bash"}, nil, ModeDefault); v.Decision != Allow {
			t.Errorf("control %q: %s (%s), want allow", cmd, v.Decision, v.Reason)
		}
	}
}

// TestStdinFunctionCallsBounded: functions that call each other with
// standard input many times are read a bounded number of times (a doubt
// past it), not exponentially.
func TestStdinFunctionCallsBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("f0() { cat; }; ")
	for i := 1; i < 30; i++ {
		b.WriteString("f" + strconv.Itoa(i) + "() { f" + strconv.Itoa(i-1) + " < x; f" + strconv.Itoa(i-1) + " < x; }; ")
	}
	b.WriteString("f29 < x")
	v := rt17bDecide(t, b.String(), []string{"Bash"}, nil, ModeDefault)
	if v.Decision != Ask {
		t.Errorf("nested function calls: %s (%s), want ask (bounded)", v.Decision, v.Reason)
	}
}

// nestedStdinForms: code read from a word (eval, sh -c) shares the
// standard input R of the command that runs it.
var nestedStdinForms = []string{
	"eval 'CMD' R",
	"eval 'true; CMD' R",
	"sh -c 'CMD' R",
	"bash -c 'true && CMD' R",
	"{ eval 'CMD'; } R",
}

// TestStdinNestedCode: a file or a here-doc's text given to eval or sh -c
// around a program that reads its commands from standard input is a doubt
// (the text is not followed into the nested code: ask, never allow).
// Control: the same forms with cat are allowed.
func TestStdinNestedCode(t *testing.T) {
	for _, f := range nestedStdinForms {
		for _, p := range stdinPrograms {
			for _, r := range []string{"< cmds", "<<< '" + strings.ReplaceAll(p.line, "'", "") + "'"} {
				rt16bDoubt(t, stdinCmd(f, p.cmd, r, ""), []string{"Bash"})
			}
		}
		cmd := stdinCmd(f, "cat", "< cmds", "")
		if v := rt17bDecide(t, cmd, []string{"Bash"}, nil, ModeDefault); v.Decision != Allow {
			t.Errorf("control %q: %s (%s), want allow", cmd, v.Decision, v.Reason)
		}
	}
}
