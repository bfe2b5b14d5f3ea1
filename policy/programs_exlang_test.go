package policy

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// exJudge judges cmd in every adversarial mode and returns the decisions.
func exJudge(t *testing.T, cmd string, allow, deny []string) map[string]Decision {
	t.Helper()
	pc := policyCase{Src: "exlang", Tool: "Bash", Cmd: cmd, Allow: allow, Deny: deny}
	out := map[string]Decision{}
	for _, m := range adversarialModes {
		in := pc.input(t)
		in.Mode, in.AgentBypass = m.mode, m.agentBypass
		out[m.name] = Evaluate(in).Decision
	}
	return out
}

// vimShellSpellings: ex commands (with %s for a shell command) that run a
// shell, in the spellings vim accepts: modifiers, ranges, abbreviations,
// `|` separators, execute of string literals.
func vimShellSpellings() []string {
	var out []string
	cores := []string{"!@C@", "r !@C@", "r!@C@", "w !@C@", "g/x/!@C@", "v/x/!@C@", "g/x/exe \"!@C@\""}
	for _, n := range []string{"ter", "term", "termi", "termin", "termina", "terminal"} {
		cores = append(cores, n+" @C@", n+" ++close @C@")
	}
	for _, n := range []string{"exe", "exec", "execu", "execut", "execute"} {
		cores = append(cores, n+` "!@C@"`, n+" '!@C@'", n+` "!" . "@C@"`, n+` '!' .. '@C@'`)
	}
	prefixes := []string{"", ":", "::  ", "sil ", "sile ", "silent! ", "sil! exe 'sil' . ' ' . ", "keepj ", "noa ", "verb 2 ",
		"set nu | ", "set nonu|", "%s/a/b/g | "}
	ranges := []string{"1,$", "%", ".", "'a,'b", "/x/,/y/", "0;+2", "$-1"}
	for _, c := range cores {
		for _, p := range prefixes {
			if strings.HasPrefix(p, "sil! exe") {
				if strings.HasPrefix(c, "!") {
					out = append(out, p+`'`+strings.ReplaceAll(c, "'", "")+`'`)
				}
				continue
			}
			out = append(out, p+c)
		}
	}
	for _, r := range ranges {
		out = append(out, r+"!@C@", ":"+r+"!@C@", "sil "+r+"!@C@")
	}
	return out
}

// TestVimExShellSpellings: every spelling of a vim ex command that runs a
// shell, given by -c, --cmd, +CMD or after -es / -u NONE / -E -s, meets
// the deny rule for the command it runs, in every mode. Control: the
// same spellings running `echo hi` (not denied) are allowed under Bash in
// default mode, so the deny comes from reading the command, not from vim.
func TestVimExShellSpellings(t *testing.T) {
	deliveries := []string{"vim -c %s", "vim --cmd %s f", "vim -es -c %s -c q", "vim -u NONE -es -c %s", "vim -E -s -c %s",
		"nvim -es -c %s", "ex -s -c %s f", "vim -es +%s", "view f +%s"}
	n := 0
	for _, sp := range vimShellSpellings() {
		for _, dl := range deliveries {
			for _, inner := range []string{"rm -rf x", "echo hi"} {
				arg := sq(strings.ReplaceAll(sp, "@C@", inner))
				cmd := fmt.Sprintf(dl, arg)
				got := exJudge(t, cmd, []string{"Bash"}, []string{"Bash(rm *)"})
				n++
				for mode, d := range got {
					if inner == "rm -rf x" && d != Deny {
						t.Errorf("%s: %s: got %s, want deny (Bash(rm *))", mode, cmd, d)
					}
					if inner == "echo hi" && mode == "default" && d != Allow {
						t.Errorf("control: %s: %s: got %s, want allow (echo is allowed)", mode, cmd, d)
					}
				}
			}
		}
	}
	if n < 500 {
		t.Fatalf("only %d spellings judged", n)
	}
}

// TestVimExDoubts: ex commands that run code the reader cannot see (a
// sourced file, another language, an option naming a program, a call, an
// unknown command) and vim options loading a file are never allowed by
// Bash(vim *) (ask in default, deny in dontAsk, in bypass too); writes
// to a place an Edit deny rule names are denied. Control: harmless ex
// commands are allowed by the same rule.
func TestVimExDoubts(t *testing.T) {
	doubts := []string{"so x.vim", "sou x.vim", "source x.vim", "ru x.vim", "runtime x.vim", "sil! so x.vim", "1,2so",
		"lua os.execute('y')", "luado x", "py3 import os", "python3 import os", "py import os", "pyx import os", "pythonx 1",
		"pe system('y')", "perl 1", "rub 1", "ruby 1", "tcl 1", "mz 1", "mzscheme 1", "pyf x.py", "luafile x.lua",
		"norm :!y\r", "normal! gg", "cal system('y')", "call libcall('a','b','c')", "let &shell='./evil'", "let x = system('y')",
		"set shell=./evil", "se sh=./evil", "set makeprg=./evil", "set mp=./evil", "set grepprg=./evil", "set kp=./evil",
		"setl formatprg=./evil", "set fex=system('y')", "set rtp+=./x", "set nu sh=./evil", "au BufRead * !y", "com X !y",
		"mak", "make", "grep x", "sh", "shell", "exe g:x", "exe 'so' . ' x.vim'", "%s/x/\\=system('y')/", "redir > f",
		"mksession f", "e x.vim", "frobnicate", "echo system('y')", "if 1 | endif"}
	for _, dl := range []string{"vim -es -c %s -c q", "vim +%s f", "vim --cmd %s"} {
		for _, c := range doubts {
			cmd := fmt.Sprintf(dl, sq(c))
			for mode, d := range exJudge(t, cmd, []string{"Bash(vim *)"}, nil) {
				if d == Allow || mode == "dontAsk" && d != Deny {
					t.Errorf("%s: %s: got %s, want ask (deny in dontAsk)", mode, cmd, d)
				}
			}
		}
	}
	for _, cmd := range []string{"vim -s keys.txt f", "vim -es -S x.vim", "vim -S x.vim f", "vim -es -u x.vim", "vim -u x.vim f", "vim -U x.gvim f",
		"vim -es -c 'set shell=/w/proj/evil' -c 'r !ls' -c q"} {
		for mode, d := range exJudge(t, cmd, []string{"Bash(vim *)"}, nil) {
			if d == Allow {
				t.Errorf("%s: %s: got allow, want ask", mode, cmd)
			}
		}
	}
	for _, c := range []string{"let x = 1 | !rm -rf x", "windo !rm -rf x", "bufdo !rm -rf x", "au VimEnter * !rm -rf x",
		`exe "norm :!rm -rf x\<CR>"`, "norm :!rm -rf x\r", "lua print(1) | !rm -rf x", "cal foo() | sil !rm -rf x"} {
		cmd := "vim -es -c " + sq(c) + " -c q"
		for mode, d := range exJudge(t, cmd, []string{"Bash"}, []string{"Bash(rm *)"}) {
			if d != Deny {
				t.Errorf("%s: %s: got %s, want deny (Bash(rm *))", mode, cmd, d)
			}
		}
	}
	for _, w := range []string{"w secret/f", "w! secret/f", "w >> secret/f", "sav secret/f", "saveas secret/f", "up secret/f",
		"x secret/f", "wq secret/f", "sil w secret/f", "set nu | w secret/f", "1,2w secret/f", "exe 'w secret/f'"} {
		cmd := fmt.Sprintf("vim -es -c %s -c q f", sq(w))
		for mode, d := range exJudge(t, cmd, []string{"Bash"}, []string{"Edit(/secret/**)"}) {
			if d != Deny {
				t.Errorf("%s: %s: got %s, want deny (Edit(/secret/**))", mode, cmd, d)
			}
		}
	}
	for _, ok := range []string{"vim -es -c 'set nu' -c q f", "vim -es -c '%s/a/b/g' -c wq f", "vim -es -c 'g/x/d' -c x f",
		"vim -u NONE -es -c 'set ts=4 sw=4 et | retab' -c wq f", "vim +10 f", "vim '+/main' f", "vim -es -c 'echo \"hi\"' -c q",
		"vim -es -c 'normal' -c q f", "vim -es -c 'w' -c q f", "vim f"} {
		if ok == "vim -es -c 'normal' -c q f" {
			continue // :normal without keys still is :normal: a doubt
		}
		if d := exJudge(t, ok, []string{"Bash(vim *)"}, nil)["default"]; d != Allow {
			t.Errorf("control: %s: got %s, want allow", ok, d)
		}
	}
}

// gdbCodeOptionSpellings: every spelling gdb's getopt_long_only accepts
// for the options whose value is a gdb command, with %s for the value.
func gdbCodeOptionSpellings() []string {
	var out []string
	for _, long := range []string{"ex", "eval-command", "iex", "init-eval-command", "eiex", "early-init-eval-command"} {
		for k := 1; k <= len(long); k++ {
			p := long[:k]
			if full, ok := gdbResolve(p); !ok || full != gdbCanon(long) {
				continue
			}
			for _, dash := range []string{"-", "--"} {
				out = append(out, dash+p+"=%s", dash+p+" %s")
			}
		}
	}
	return out
}

func gdbCanon(long string) string {
	if c := gdbLongOptions[long]; c != "" {
		return c
	}
	return "-" + long
}

// gdbShellSpellings: gdb commands (with %s for a shell command) that run a
// shell: every prefix of shell gdb reads as shell, !, pipe and |.
var gdbShellSpellings = []string{"SHELL %s", "She %s", "sh %s", "she %s", "shel %s", "shell %s", "!%s", "! %s", "pipe echo | %s", "pip echo | %s",
	"| echo | %s", "|echo|%s", "pipe -d XX echo XX %s", "  shell %s"}

// TestGdbSpellings: every option spelling x every command spelling meets
// the deny rule for the shell command it runs, in every mode. Control:
// `echo hi` is allowed under Bash in default mode; the option spellings
// really are read by gdb (the real gdb, when installed, runs `touch` for
// a sample of them).
func TestGdbSpellings(t *testing.T) {
	opts := gdbCodeOptionSpellings()
	if len(opts) < 40 {
		t.Fatalf("only %d option spellings: %q", len(opts), opts)
	}
	for _, o := range opts {
		for _, c := range gdbShellSpellings {
			for _, inner := range []string{"rm -rf x", "echo hi"} {
				cmd := "gdb -batch " + strings.Replace(o, "%s", sq(fmt.Sprintf(c, inner)), 1)
				for mode, d := range exJudge(t, cmd, []string{"Bash"}, []string{"Bash(rm *)"}) {
					if inner == "rm -rf x" && d != Deny {
						t.Errorf("%s: %s: got %s, want deny (Bash(rm *))", mode, cmd, d)
					}
					if inner == "echo hi" && mode == "default" && d != Allow {
						t.Errorf("control: %s: got %s, want allow", cmd, d)
					}
				}
			}
		}
	}
	for _, cmd := range []string{"gdb -batch -x cmds.gdb", "gdb -batch -command=cmds.gdb", "gdb -batch --init-command cmds.gdb",
		"gdb -batch -ix cmds.gdb", "gdb -batch -eix cmds.gdb", "gdb -batch -ex 'source cmds.gdb'", "gdb -batch -ex 'so cmds.gdb'",
		"gdb -batch -ex 'python import os'", "gdb -batch -ex 'py import os'", "gdb -batch -ex 'pi'", "gdb -batch -ex 'gu 1'",
		"gdb -batch -ex 'compile code 1'", "gdb -batch -ex 'call system(\"y\")'", "gdb -batch -ex 'p system(\"y\")'",
		"gdb -batch -ex 'print $_shell(\"y\")'", "gdb -batch -ex 'p system (\"y\")'", "gdb -batch -ex 'output execl(\"/bin/sh\")'", "gdb -batch -ex 'set exec-wrapper ./evil' -ex run ./a.out",
		"gdb -batch -ex 'frobnicate'", "gdb -batch -in=x", "gdb -batch -ex 'define x'",
		"gdb -batch -ex 'set logging file /home/u/.bashrc' -ex 'set logging on'"} {
		for mode, d := range exJudge(t, cmd, []string{"Bash(gdb *)"}, nil) {
			if d == Allow {
				t.Errorf("%s: %s: got allow, want ask", mode, cmd)
			}
		}
	}
	for _, cmd := range []string{"gdb -q <<'EOF'\nshe rm -rf x\nEOF", "gdb -nx <<< 'pipe echo | rm -rf x'"} {
		for mode, d := range exJudge(t, cmd, []string{"Bash"}, []string{"Bash(rm *)"}) {
			if d != Deny {
				t.Errorf("%s: %s: got %s, want deny (Bash(rm *))", mode, cmd, d)
			}
		}
	}
	for _, c := range []string{"thread apply all shell rm -rf x", "with confirm off -- she rm -rf x", "taas !rm -rf x",
		"frame apply all | bt | rm -rf x"} {
		cmd := "gdb -batch -ex " + sq(c)
		for mode, d := range exJudge(t, cmd, []string{"Bash"}, []string{"Bash(rm *)"}) {
			if d != Deny {
				t.Errorf("%s: %s: got %s, want deny (Bash(rm *))", mode, cmd, d)
			}
		}
	}
	for _, w := range []string{"set logging file secret/log", "set logg file secret/log", "set log f secret/log",
		"set logging on secret/log"} {
		cmd := "gdb -batch -ex " + sq(w)
		for mode, d := range exJudge(t, cmd, []string{"Bash"}, []string{"Edit(/secret/**)"}) {
			if d != Deny {
				t.Errorf("%s: %s: got %s, want deny (Edit(/secret/**))", mode, cmd, d)
			}
		}
	}
	for _, ok := range []string{"gdb -batch -ex 'p 1+1'", "gdb -batch -ex 'print sizeof(int)' ./a.out", "gdb -batch -ex 'p (char)x' ./a.out", "gdb -batch -ex bt ./a.out core", "gdb -batch -ex 'info registers' -ex 'x/4x $sp' ./a.out core",
		"gdb -q -batch -ex 'set pagination off' -ex 'thread apply all bt' -p 1"} {
		if strings.Contains(ok, "thread apply") {
			continue // thread apply runs a command: a doubt
		}
		if d := exJudge(t, ok, []string{"Bash(gdb *)"}, nil)["default"]; d != Allow {
			t.Errorf("control: %s: got %s, want allow", ok, d)
		}
	}
	if _, err := exec.LookPath("gdb"); err != nil {
		t.Log("gdb not installed: no run control")
		return
	}
	for _, sample := range [][]string{{"-init-eval=shell touch MARK"}, {"--eval-comm", "she touch MARK"}, {"-eiex", "shel touch MARK"},
		{"-ex", "pipe echo | touch MARK"}, {"--ex=| echo | touch MARK"}, {"-iex", "!touch MARK"}} {
		dir := t.TempDir()
		cmd := exec.Command("gdb", append([]string{"-nx", "-batch"}, sample...)...)
		cmd.Dir = dir
		out, _ := cmd.CombinedOutput()
		if _, err := os.Stat(filepath.Join(dir, "MARK")); err != nil {
			t.Errorf("run control: gdb %q did not run touch (%s): the spelling table is wrong", sample, out)
		}
	}
}

// TestVimRunControl: the real vim (when installed) runs the shell for a
// sample of the spellings the reader denies.
func TestVimRunControl(t *testing.T) {
	if _, err := exec.LookPath("vim"); err != nil {
		t.Skip("vim not installed")
	}
	for _, c := range []string{`exe "!touch MARK"`, `sil exe '!' . 'touch MARK'`, "1,$!touch MARK", "r !touch MARK",
		"set nu | !touch MARK", "g/^/!touch MARK"} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "f"), []byte("a\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("vim", "-u", "NONE", "-es", "-c", c, "-c", "q!", "f")
		cmd.Dir = dir
		out, _ := cmd.CombinedOutput()
		if _, err := os.Stat(filepath.Join(dir, "MARK")); err != nil {
			t.Errorf("run control: vim -c %q did not run touch (%s)", c, out)
		}
		if got := exJudge(t, "vim -u NONE -es -c "+sq(strings.ReplaceAll(c, "touch MARK", "rm -rf x"))+" -c q! f",
			[]string{"Bash"}, []string{"Bash(rm *)"})["default"]; got != Deny {
			t.Errorf("vim -c %q: got %s, want deny", c, got)
		}
	}
}

// sq single-quotes s for a shell line.
func sq(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
