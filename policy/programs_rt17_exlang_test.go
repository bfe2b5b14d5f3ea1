package policy

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Red team 17's classes in the readers of vim's ex commands and gdb's
// commands (programs_vimsafe.go, programs_exlang.go, programs_gdb.go).

// vimAbbrevs: every spelling of a command vim accepts from min to full.
func vimAbbrevs(c exCmd) []string {
	var out []string
	for k := len(c.min); k <= len(c.full); k++ {
		out = append(out, c.full[:k])
	}
	return out
}

// vimModes: deliveries of ex commands to vim (%s: the quoted command).
var vimDeliveries = []string{"vim -u NONE -es -c %s -c 'q!' f", "vim -es +%s f", "nvim --headless -c %s f g", "ex -s -c %s f",
	"vim -es -c 'set nu' -c %s f"}

// TestVimHarmlessShapes: a harmless command is harmless only with
// arguments of its shape. Every spelling of :put with `=EXPR`, :syntax
// include, :file NAME, and the buffer commands with +CMD (in every
// delivery, with modifiers and ranges) is never allowed by Bash(vim *),
// Bash(nvim *), Bash(ex *); the shell code they carry meets a deny rule,
// a file :file names meets an Edit deny rule, a file an expression names
// meets a Read deny rule. Controls: the same commands with arguments of
// their shape are allowed.
func TestVimHarmlessShapes(t *testing.T) {
	type tc struct {
		cmd   string // ex command, @N@ the command's spelling
		allow []string
		deny  []string
		want  Decision // in every mode (Ask: never allowed, deny in dontAsk)
	}
	allowVim := []string{"Bash(vim *)", "Bash(nvim *)", "Bash(ex *)"}
	var cases []tc
	for _, n := range vimAbbrevs(exCmd{"pu", "put"}) {
		for _, p := range []string{"", "0", "$", "sil! ", "2,3"} {
			cases = append(cases,
				tc{p + n + ` =system("rm -rf x")`, []string{"Bash"}, []string{"Bash(rm *)"}, Deny},
				tc{p + n + `! =system('rm -rf x')`, []string{"Bash"}, []string{"Bash(rm *)"}, Deny},
				tc{p + n + `=system("touch y")`, allowVim, nil, Ask},
				tc{p + n + ` =readfile("secret/id")`, []string{"Bash"}, []string{"Read(/secret/**)"}, Deny},
				tc{p + n + " =x", allowVim, nil, Ask},
				tc{p + n + " a", allowVim, nil, Allow}, tc{p + n, allowVim, nil, Allow})
		}
	}
	for _, n := range vimAbbrevs(exCmd{"sy", "syntax"}) {
		cases = append(cases, tc{n + " include @X x.vim", allowVim, nil, Ask}, tc{"sil " + n + " include x.vim", allowVim, nil, Ask},
			tc{n + " frobnicate", allowVim, nil, Ask},
			tc{n + " on", allowVim, nil, Allow}, tc{n + " clear", allowVim, nil, Allow}, tc{n + " keyword Todo TODO", allowVim, nil, Allow})
	}
	for _, n := range vimAbbrevs(exCmd{"f", "file"}) {
		cases = append(cases, tc{n + " secret/x", []string{"Bash"}, []string{"Edit(/secret/**)"}, Deny},
			tc{n + "! secret/x", []string{"Bash"}, []string{"Edit(/secret/**)"}, Deny},
			tc{"keepalt " + n + " secret/x | w", []string{"Bash"}, []string{"Edit(/secret/**)"}, Deny},
			tc{n + " .git/hooks/pre-commit", allowVim, nil, Ask}, tc{n + " ~/.profile", allowVim, nil, Ask},
			tc{n + " $HOME/.profile", allowVim, nil, Ask}, tc{n, allowVim, nil, Allow})
		// :file NAME is judged as :w NAME (a write of NAME) in every mode.
		f, w := exJudge(t, "vim -es -c "+sq(n+" other.txt")+" f", allowVim, nil), exJudge(t, "vim -es -c 'w other.txt' f", allowVim, nil)
		if fmt.Sprint(f) != fmt.Sprint(w) {
			t.Errorf(":%s other.txt judged %v, :w other.txt %v", n, f, w)
		}
	}
	for _, c := range []exCmd{{"b", "buffer"}, {"bn", "bnext"}, {"bp", "bprevious"}, {"bN", "bNext"}, {"bf", "bfirst"},
		{"br", "brewind"}, {"bl", "blast"}} {
		for _, n := range vimAbbrevs(c) {
			cases = append(cases, tc{n + ` +!rm\ -rf\ x 1`, []string{"Bash"}, []string{"Bash(rm *)"}, Deny},
				tc{n + `! +sil\ !rm\ -rf\ x`, []string{"Bash"}, []string{"Bash(rm *)"}, Deny},
				tc{n + ` +!touch\ y`, allowVim, nil, Ask}, tc{n + ` +call\ system("y") 2`, allowVim, nil, Ask},
				tc{n + ` +w\ secret/x`, []string{"Bash"}, []string{"Edit(/secret/**)"}, Deny},
				tc{n + " ++ff=dos", allowVim, nil, Ask},
				tc{n, allowVim, nil, Allow}, tc{n + " 2", allowVim, nil, Allow})
		}
	}
	for _, c := range []exCmd{{"a", "append"}, {"i", "insert"}, {"c", "change"}} {
		for _, n := range vimAbbrevs(c) {
			for _, text := range []string{"\n", "\nfoo\n", "\nfoo\nbar\n", "!\n  foo\n"} {
				cases = append(cases, tc{n + text + ".\n!rm -rf x", []string{"Bash"}, []string{"Bash(rm *)"}, Deny},
					tc{n + text + " .\nset shell=./evil", allowVim, nil, Ask},
					tc{n + text + ".", allowVim, nil, Allow}, tc{n + text + ".\nset nu", allowVim, nil, Allow})
			}
			cases = append(cases, tc{n + "\n!rm -rf x", allowVim, nil, Allow}, tc{n + "|!rm -rf x", allowVim, nil, Allow}) // text, not commands
		}
	}
	cases = append(cases, tc{`= system("rm -rf x")`, []string{"Bash"}, []string{"Bash(rm *)"}, Deny},
		tc{"1=x", allowVim, nil, Ask}, tc{"=", allowVim, nil, Allow}, tc{"$=", allowVim, nil, Allow})
	n := 0
	for _, c := range cases {
		for _, n0 := range []int{0, 1} {
			dl := vimDeliveries[n0+len(c.cmd)%(len(vimDeliveries)-1)]
			cmd := fmt.Sprintf(dl, sq(c.cmd))
			n++
			for mode, d := range exJudge(t, cmd, c.allow, c.deny) {
				switch {
				case c.want == Allow:
					if mode == "default" && d != Allow {
						t.Errorf("control: %s: %s: got %s, want allow", mode, cmd, d)
					}
				case d == Allow, c.want == Deny && d != Deny, mode == "dontAsk" && d != Deny:
					t.Errorf("%s: %s: got %s, want %s", mode, cmd, d, c.want)
				}
			}
		}
	}
	if n < 400 {
		t.Fatalf("only %d calls judged", n)
	}
}

// TestVimRemoteOptions: --remote-send and --remote-expr (vim compares
// option names without case) carry keys or an expression for another
// running vim: never allowed, their shell code meets deny rules; every
// other --remote* and --server* option is a doubt. Control: nvim and vim
// without them are allowed by the same rule.
func TestVimRemoteOptions(t *testing.T) {
	for _, prog := range []string{"vim", "nvim", "gvim"} {
		allow := []string{"Bash(" + prog + " *)"}
		for _, o := range []string{"--remote-send", "--REMOTE-SEND", "--Remote-Send"} {
			for _, keys := range []string{":!rm -rf x<CR>", "<Esc>:sil !rm -rf x<CR>", `:call system("rm -rf x")<CR>`} {
				for _, pre := range []string{"", "--servername G ", "--server /tmp/s ", "f "} {
					cmd := prog + " " + pre + o + " " + sq(keys)
					for mode, d := range exJudge(t, cmd, []string{"Bash"}, []string{"Bash(rm *)"}) {
						if d != Deny {
							t.Errorf("%s: %s: got %s, want deny (Bash(rm *))", mode, cmd, d)
						}
					}
				}
			}
		}
		for _, o := range []string{"--remote-expr 'system(\"rm -rf x\")'", "--REMOTE-EXPR 'execute(\"!rm -rf x\")'"} {
			cmd := prog + " --servername G " + o
			for mode, d := range exJudge(t, cmd, []string{"Bash"}, []string{"Bash(rm *)"}) {
				if d != Deny {
					t.Errorf("%s: %s: got %s, want deny (Bash(rm *))", mode, cmd, d)
				}
			}
		}
		for _, o := range []string{"--remote f", "--remote-silent f", "--remote-wait f", "--remote-wait-silent f", "--remote-tab f",
			"--remote-tab-silent f", "--remote-tab-wait f", "--remote-tab-wait-silent f", "--remote '+!touch y' f", "--remote-ui",
			"--servername G f", "--server /tmp/s f", "--server \"$NVIM\" --remote-send ':q<CR>'", "--SERVERNAME G", "--remote-expr 1+1",
			"--remote-send 'ihello<Esc>'", "--serverlist"} {
			cmd := prog + " " + o
			for mode, d := range exJudge(t, cmd, allow, nil) {
				if d == Allow || mode == "dontAsk" && d != Deny {
					t.Errorf("%s: %s: got %s, want ask (deny in dontAsk)", mode, cmd, d)
				}
			}
		}
		for _, ok := range []string{prog + " --headless -c q f", prog + " -es -c 'set nu' -c q f", prog + " -- --remote-send"} {
			if d := exJudge(t, ok, allow, nil)["default"]; d != Allow {
				t.Errorf("control: %s: got %s, want allow", ok, d)
			}
		}
	}
}

// vimResolutions: the real vim's reading of every abbreviation of every
// ex command it has (fullcommand()), or nil when vim is not installed.
func vimResolutions(t *testing.T) map[string]string {
	t.Helper()
	if _, err := exec.LookPath("vim"); err != nil {
		return nil
	}
	dir := t.TempDir()
	script := `let out = []
for c in getcompletion('', 'command')
  for k in range(1, len(c))
    if fullcommand(c[: k - 1]) ==# c
      call add(out, c[: k - 1] . "	" . c)
    endif
  endfor
endfor
for c in ['#', 'k', 't', 'z', 'a', 'i', 'c']
  call add(out, c . "	" . fullcommand(c))
endfor
call writefile(out, 'cmds.txt')
qa!
`
	if err := os.WriteFile(filepath.Join(dir, "r.vim"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("vim", "-u", "NONE", "-N", "-es", "-S", "r.vim")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("vim: %v: %s", err, out)
	}
	f, err := os.Open(filepath.Join(dir, "cmds.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if p, full, ok := strings.Cut(sc.Text(), "\t"); ok {
			m[p] = full
		}
	}
	if len(m) < 1000 {
		t.Fatalf("vim gave only %d abbreviations", len(m))
	}
	return m
}

// vimReaderTable: the table vimOneCmd reads w by (in its order) and the
// command it takes w for.
func vimReaderTable(w string) (string, string) {
	for _, tb := range []struct {
		name string
		cmds []exCmd
	}{{"modifier", vimModifiers}, {"shell", vimShellCmds}, {"other language", vimOtherLang}, {"write", vimWriteCmds},
		{"doubt", vimDoubtCmds}} {
		if c, ok := exFind(w, tb.cmds); ok {
			return tb.name, c.full
		}
	}
	if c, ok := vimFindHarmless(w); ok {
		return "harmless", c.full
	}
	return "", ""
}

// TestVimTablesResolve: every word the reader takes for a harmless
// command, a write or a modifier is that command for the real vim
// (fullcommand() over every abbreviation of all its ex commands): a word
// the reader lets through is never another command. Control: a wrong
// entry (`bu` read as :bunload; vim reads :buffer) is caught by the same check.
func TestVimTablesResolve(t *testing.T) {
	vim := vimResolutions(t)
	if vim == nil {
		t.Skip("vim not installed")
	}
	check := func(w, table, full string) string {
		switch table {
		case "harmless", "write", "modifier":
			if got := vim[w]; got != full {
				return fmt.Sprintf("the reader takes %q for %s :%s, vim for :%s", w, table, full, got)
			}
		}
		return ""
	}
	if msg := check("bu", "harmless", "bunload"); msg == "" {
		t.Errorf("control: a wrong entry (bu for :bunload) passes the check")
	}
	n := 0
	for w := range vim {
		table, full := vimReaderTable(w)
		if msg := check(w, table, full); msg != "" {
			t.Error(msg)
		}
		n++
	}
	for _, c := range vimHarmless {
		for _, w := range vimAbbrevs(c.exCmd) {
			if table, full := vimReaderTable(w); table == "harmless" {
				if msg := check(w, table, full); msg != "" {
					t.Error(msg)
				}
			}
		}
	}
	t.Logf("%d abbreviations of vim's ex commands checked", n)
}

// TestVimHarmlessShapesRunControl: the real vim runs the code of the
// commands the reader now doubts (so the tests above can fail for a real
// reason): :put =system(), :syntax include, :b +CMD, :bn +CMD, and
// :file NAME then :w writes NAME.
func TestVimHarmlessShapesRunControl(t *testing.T) {
	if _, err := exec.LookPath("vim"); err != nil {
		t.Skip("vim not installed")
	}
	// (In vim 9.0 a `"` in :put's arguments starts a comment: the
	// literal is single-quoted here; the reader doubts both.)
	for _, c := range [][]string{{`pu =system('touch MARK')`}, {"syntax include @X @DIR@/x.vim"}, {`b +!touch\ MARK 1`},
		{`bn +!touch\ MARK`}, {`bp +call\ system("touch\ MARK")`}, {"f MARK", "w"}, {"i\nfoo\n.\n!touch MARK"}} {
		dir := t.TempDir()
		for name, text := range map[string]string{"f": "a\n", "g": "b\n", "x.vim": "!touch MARK\n"} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		args := []string{"-u", "NONE", "-es"}
		for _, x := range c {
			args = append(args, "-c", strings.ReplaceAll(x, "@DIR@", dir))
		}
		cmd := exec.Command("vim", append(args, "-c", "qa!", "f", "g")...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "HOME="+dir)
		out, _ := cmd.CombinedOutput()
		if _, err := os.Stat(filepath.Join(dir, "MARK")); err != nil {
			t.Errorf("run control: vim %q did not create MARK (%s)", c, out)
		}
	}
}

// gdbSpellingsOf: every spelling gdb's getopt_long_only accepts for the
// canonical option canon, with %s for the value.
func gdbSpellingsOf(canon string) []string {
	var out []string
	for long := range gdbLongOptions {
		if gdbCanon(long) != canon {
			continue
		}
		for k := 1; k <= len(long); k++ {
			if full, ok := gdbResolve(long[:k]); ok && full == canon {
				for _, dash := range []string{"-", "--"} {
					out = append(out, dash+long[:k]+"=%s", dash+long[:k]+" %s")
				}
			}
		}
	}
	return out
}

// TestGdbMaintenance: `maintenance` in every spelling (mt, mai...,
// any case) with any subcommand but info and show is never allowed by
// Bash(gdb *); `maint with SETTING -- CMD` meets the deny rule for the
// shell command CMD runs, `maint print ... FILE` the Edit deny rule for
// FILE. Controls: maint info and maint show are allowed.
func TestGdbMaintenance(t *testing.T) {
	var names []string
	for k := 3; k <= len("maintenance"); k++ {
		names = append(names, "maintenance"[:k])
	}
	names = append(names, "mt", "MT", "Maint", "MAINTENANCE")
	for _, m := range names {
		for _, with := range []string{"w", "wi", "wit", "with", "WITH"} {
			for _, inner := range []string{"shell rm -rf x", "she rm -rf x", "SHELL rm -rf x", "!rm -rf x", "pipe p 1 | rm -rf x",
				"| p 1 | rm -rf x", "with confirm off -- she rm -rf x"} {
				cmd := "gdb -batch -ex " + sq(m+" "+with+" dwarf max-cache-age 5 -- "+inner)
				for mode, d := range exJudge(t, cmd, []string{"Bash"}, []string{"Bash(rm *)"}) {
					if d != Deny {
						t.Errorf("%s: %s: got %s, want deny (Bash(rm *))", mode, cmd, d)
					}
				}
			}
		}
		for _, sub := range []string{"print msymbols @F@", "p symbols @F@", "pr registers @F@", "print raw-registers @F@",
			"print user-registers @F@", "print psymbols @F@", "print reggroups @F@"} {
			for _, f := range []string{"secret/x", "/w/proj/secret/x"} {
				cmd := "gdb -batch -ex " + sq(m+" "+strings.ReplaceAll(sub, "@F@", f)) + " /bin/true"
				for mode, d := range exJudge(t, cmd, []string{"Bash"}, []string{"Edit(/secret/**)"}) {
					if d != Deny {
						t.Errorf("%s: %s: got %s, want deny (Edit(/secret/**))", mode, cmd, d)
					}
				}
			}
		}
		for _, sub := range []string{"with dwarf max-cache-age 5 -- python import os", "print msymbols out.txt", "set dwarf max-cache-age 5",
			"packet qfoo", "internal-error x", "flush symbol-cache", "selftest", "time 1", "agent 1", "in x", "frobnicate"} {
			cmd := "gdb -batch -ex " + sq(m+" "+sub) + " /bin/true"
			for mode, d := range exJudge(t, cmd, []string{"Bash(gdb *)"}, nil) {
				if d == Allow || mode == "dontAsk" && d != Deny {
					t.Errorf("%s: %s: got %s, want ask (deny in dontAsk)", mode, cmd, d)
				}
			}
		}
		for _, sub := range []string{"info sections", "i sections", "inf line-table", "show dwarf max-cache-age", "sho", ""} {
			cmd := "gdb -batch -ex " + sq(strings.TrimSpace(m+" "+sub)) + " /bin/true"
			if d := exJudge(t, cmd, []string{"Bash(gdb *)"}, nil)["default"]; d != Allow {
				t.Errorf("control: %s: got %s, want allow", cmd, d)
			}
		}
	}
	for _, c := range []string{"ma with x -- shell rm -rf x", "m with x -- she rm -rf x", "with confirm off -- SHELL rm -rf x",
		"thread apply all -- SHELL rm -rf x"} {
		cmd := "gdb -batch -ex " + sq(c)
		for mode, d := range exJudge(t, cmd, []string{"Bash"}, []string{"Bash(rm *)"}) {
			if d != Deny {
				t.Errorf("%s: %s: got %s, want deny (Bash(rm *))", mode, cmd, d)
			}
		}
	}
}

// TestGdbCodeDirectories: --data-directory (-D, every prefix, one or two
// dashes, =V or the next word) names the directory gdb imports its Python
// package and reads system-gdbinit from; -cd runs gdb in another
// directory: never allowed by Bash(gdb *). Control: -d (source
// directories) and plain calls are allowed; the real gdb runs a Python
// package from --data-directory.
func TestGdbCodeDirectories(t *testing.T) {
	spellings := append(gdbSpellingsOf("-D"), gdbSpellingsOf("-cd")...)
	if len(spellings) < 20 {
		t.Fatalf("only %d spellings: %q", len(spellings), spellings)
	}
	for _, o := range spellings {
		for _, v := range []string{"./evil", "/w/proj/evil", "/usr/share/gdb"} {
			cmd := "gdb -batch " + fmt.Sprintf(o, v) + " -ex 'info line' ./prog"
			for mode, d := range exJudge(t, cmd, []string{"Bash(gdb *)"}, nil) {
				if d == Allow || mode == "dontAsk" && d != Deny {
					t.Errorf("%s: %s: got %s, want ask (deny in dontAsk)", mode, cmd, d)
				}
			}
		}
	}
	for _, ok := range []string{"gdb -batch -ex 'info line' ./prog", "gdb -batch -d src -ex bt ./prog core", "gdb -batch --directory=src ./prog"} {
		if d := exJudge(t, ok, []string{"Bash(gdb *)"}, nil)["default"]; d != Allow {
			t.Errorf("control: %s: got %s, want allow", ok, d)
		}
	}
	if _, err := exec.LookPath("gdb"); err != nil {
		t.Log("gdb not installed: no run control")
		return
	}
	for _, sample := range [][]string{{"--data-dir=ev"}, {"-D", "ev"}, {"-data-directory", "ev"}, {"-ex", "maint with dwarf max-cache-age 5 -- shell touch MARK"},
		{"-ex", "mt print msymbols MARK", "/bin/true"}} {
		dir := t.TempDir()
		if err := os.MkdirAll(filepath.Join(dir, "ev", "python", "gdb"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "ev", "python", "gdb", "__init__.py"), []byte("import os; os.system('touch MARK')\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("gdb", append([]string{"-nx", "-batch"}, sample...)...)
		cmd.Dir = dir
		out, _ := cmd.CombinedOutput()
		if _, err := os.Stat(filepath.Join(dir, "MARK")); err != nil {
			t.Errorf("run control: gdb %q did not create MARK (%s)", sample, out)
		}
	}
}

// TestVimWriteOptions: the files vim writes because of an option (-i
// viminfo/shada with the registers' text, -w/-W typed keys, -V[N]FILE
// verbose messages, alone or in a group, --startuptime, --log) meet an
// Edit deny rule in every mode. Control: -V and -V9 without a file are
// allowed; the real vim writes the -V and -i files.
func TestVimWriteOptions(t *testing.T) {
	for _, prog := range []string{"vim", "nvim", "ex", "gvim"} {
		for _, o := range []string{"-i secret/x", "-w secret/x", "-W secret/x", "-Vsecret/x", "-V9secret/x", "-V12secret/x",
			"-esV1secret/x", "-NV9secret/x", "--startuptime secret/x", "--log secret/x", "-V9 -i secret/x"} {
			cmd := prog + " -u NONE " + o + " -es -c 'set nu' -c q f"
			for mode, d := range exJudge(t, cmd, []string{"Bash"}, []string{"Edit(/secret/**)"}) {
				if d != Deny {
					t.Errorf("%s: %s: got %s, want deny (Edit(/secret/**))", mode, cmd, d)
				}
			}
		}
		for _, ok := range []string{prog + " -V f", prog + " -V9 f", prog + " -es -V15 -c q f", prog + " -i NONE -es -c q f"} {
			if d := exJudge(t, ok, []string{"Bash(" + prog + " *)"}, nil)["default"]; d != Allow {
				t.Errorf("control: %s: got %s, want allow", ok, d)
			}
		}
	}
	if _, err := exec.LookPath("vim"); err != nil {
		t.Skip("vim not installed: no run control")
	}
	for _, opts := range [][]string{{"-V9MARK"}, {"-esV1MARK"}, {"-N", "-i", "MARK"}} {
		dir := t.TempDir()
		cmd := exec.Command("vim", append(append([]string{"-u", "NONE"}, opts...), "-es", "-c", "let @a='x'", "-c", "q!")...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "HOME="+dir)
		out, _ := cmd.CombinedOutput()
		if _, err := os.Stat(filepath.Join(dir, "MARK")); err != nil {
			t.Errorf("run control: vim %q did not write MARK (%s)", opts, out)
		}
	}
}

// backslashed: name with a backslash put before each character in turn,
// and before all of them (vim removes a backslash before any character).
func backslashed(name string) []string {
	var out []string
	all := ""
	for i := range name {
		out = append(out, name[:i]+`\`+name[i:])
		all += `\` + name[i:i+1]
	}
	return append(out, all)
}

// TestVimFileNameEscapes: vim removes a backslash in the file name of a
// write (`:w s\ecret/x` writes secret/x): every write command and :file,
// with a backslash before any character of the name, meets the Edit deny
// rule for the name vim writes, in every mode. Control: a doubled
// backslash keeps one (`sec\\ret/x` is the file `sec\ret/x`, not under
// secret/), and the real vim writes secret/x for `w s\ecret/\x`.
func TestVimFileNameEscapes(t *testing.T) {
	var cmds []string
	for _, c := range []string{"w %s", "w! %s", "write %s", "sav %s", "saveas! %s", "up %s", "x %s", "wq %s", "w >> %s",
		"f %s | w", "file %s | w!", `b +w\ %s`} {
		for _, n := range backslashed("secret/x") {
			if strings.HasPrefix(c, "b +") {
				n = strings.ReplaceAll(n, `\`, `\\`) // +CMD removes one level
			}
			cmds = append(cmds, fmt.Sprintf(c, n))
		}
	}
	for _, c := range cmds {
		cmd := "vim -u NONE -es -c " + sq(c) + " -c 'q!' f g"
		for mode, d := range exJudge(t, cmd, []string{"Bash"}, []string{"Edit(/secret/**)"}) {
			if d != Deny {
				t.Errorf("%s: %s: got %s, want deny (Edit(/secret/**))", mode, cmd, d)
			}
		}
	}
	for _, c := range []string{`w sec\\ret/x`, `w secret\\/x`} {
		cmd := "vim -u NONE -es -c " + sq(c) + " -c 'q!' f"
		if d := exJudge(t, cmd, []string{"Bash"}, []string{"Edit(/secret/**)"})["default"]; d == Deny {
			t.Errorf("control: %s: got deny, but vim writes outside secret/", cmd)
		}
	}
	if _, err := exec.LookPath("vim"); err != nil {
		t.Skip("vim not installed: no run control")
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "secret"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "f"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("vim", "-u", "NONE", "-es", "-c", `w s\ecret/\x`, "-c", "q!", "f")
	cmd.Dir = dir
	out, _ := cmd.CombinedOutput()
	if _, err := os.Stat(filepath.Join(dir, "secret", "x")); err != nil {
		t.Errorf("run control: vim :w s\\ecret/\\x did not write secret/x (%s)", out)
	}
}

// TestGdbAttach: attaching to another process (-p/--pid in every
// spelling, the attach command in every case and prefix, a process id as
// gdb's second plain argument or -c's value) is never allowed by
// Bash(gdb *): gdb reads that process's memory or kills it. Controls:
// a program and its core file, numbers inside commands; the real gdb
// attaches to a child process and reads its registers.
func TestGdbAttach(t *testing.T) {
	var cmds []string
	for _, o := range gdbSpellingsOf("-p") {
		cmds = append(cmds, "gdb -batch "+fmt.Sprintf(o, "1234")+" -ex 'x/s 0x7ffc78ff2aac'", "gdb -batch "+fmt.Sprintf(o, "1234")+" -ex k")
	}
	for _, a := range []string{"attach", "atta", "at", "ATTACH", "Attach"} {
		cmds = append(cmds, "gdb -batch -ex "+sq(a+" 1234")+" -ex 'info registers'")
	}
	cmds = append(cmds, "gdb -batch -p \"$PID\" -ex 'info registers'", "gdb -batch --pid=$(pgrep -n code) -ex k",
		"gdb -batch -ex 'info registers' ./prog 1234", "gdb -batch -c 1234 -ex bt", "gdb -batch --core=1234 ./prog",
		"gdb -batch -ex bt ./prog 01234")
	for _, cmd := range cmds {
		for mode, d := range exJudge(t, cmd, []string{"Bash(gdb *)"}, nil) {
			if d == Allow || mode == "dontAsk" && d != Deny {
				t.Errorf("%s: %s: got %s, want ask (deny in dontAsk)", mode, cmd, d)
			}
		}
	}
	for _, ok := range []string{"gdb -batch -ex bt ./prog core", "gdb -batch -ex 'list 10' ./prog", "gdb -batch -ex 'x/4x $sp' -ex 'info registers' ./prog core.1234",
		"gdb -batch -ex 'detach' ./prog"} {
		if d := exJudge(t, ok, []string{"Bash(gdb *)"}, nil)["default"]; d != Allow {
			t.Errorf("control: %s: got %s, want allow", ok, d)
		}
	}
	if _, err := exec.LookPath("gdb"); err != nil {
		t.Skip("gdb not installed: no run control")
	}
	child := exec.Command("sleep", "60")
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = child.Process.Kill(); _ = child.Wait() }()
	out, _ := exec.Command("gdb", "-nx", "-batch", "-p", fmt.Sprint(child.Process.Pid), "-ex", "info registers rip").CombinedOutput()
	if !strings.Contains(string(out), "rip") {
		t.Logf("run control: gdb could not attach here (ptrace restricted?): %s", out)
	}
}

// TestNvimLuaScript: nvim's -l (and -ll) runs a Lua script: never allowed
// by Bash(nvim *) alone; vim's -l (lisp mode) takes no value. Control:
// `vim -l f` and `nvim f` are allowed.
func TestNvimLuaScript(t *testing.T) {
	for _, cmd := range []string{"nvim -l evil.lua", "nvim -ll evil.lua a b", "nvim --headless -l evil.lua", "nvim -l /tmp/x.lua -c q"} {
		for mode, d := range exJudge(t, cmd, []string{"Bash(nvim *)"}, nil) {
			if d == Allow || mode == "dontAsk" && d != Deny {
				t.Errorf("%s: %s: got %s, want ask (deny in dontAsk)", mode, cmd, d)
			}
		}
	}
	for _, ok := range []string{"vim -l f", "vim -l -es -c 'set nu' -c q f", "nvim f", "ex -l f"} {
		if d := exJudge(t, ok, []string{"Bash(vim *)", "Bash(nvim *)", "Bash(ex *)"}, nil)["default"]; d != Allow {
			t.Errorf("control: %s: got %s, want allow", ok, d)
		}
	}
}

// TestVimPlusCmdInDoubts: the +CMD of any command that takes one (known
// as a doubt, or unknown to the reader: :e, :sp, :new, :vs, :tabe,
// :tabnew, :sb, :sbn, :n, :argu, :badd, :drop, :find, :view) and the
// commands after a `|` that follows an unknown command meet deny rules.
// Control: the same calls running `echo hi` are not denied.
func TestVimPlusCmdInDoubts(t *testing.T) {
	for _, c := range []string{"e", "edit", "sp", "new", "vs", "tabe", "tabnew", "sb", "sbn", "n", "argu", "badd", "drop", "find", "view",
		"sview", "tabf", "vne", "frobnicate"} {
		for _, form := range []string{c + ` +!@C@ f`, c + `! +sil\ !@C@ f`, c + " f | !@C@", c + ` +exe\ '!@C@' f`} {
			for _, inner := range []string{`rm\ -rf\ x`, `echo\ hi`} {
				arg := strings.ReplaceAll(form, "@C@", inner)
				if strings.Contains(form, "| !") {
					arg = strings.ReplaceAll(form, "@C@", strings.ReplaceAll(inner, `\ `, " ")) // no +CMD escaping
				}
				cmd := "vim -u NONE -es -c " + sq(arg) + " -c 'q!' f g"
				got := exJudge(t, cmd, []string{"Bash"}, []string{"Bash(rm *)"})
				for mode, d := range got {
					if strings.HasPrefix(inner, "rm") && d != Deny {
						t.Errorf("%s: %s: got %s, want deny (Bash(rm *))", mode, cmd, d)
					}
					if strings.HasPrefix(inner, "echo") && d == Deny && mode != "dontAsk" && mode != "plan" {
						t.Errorf("control: %s: %s: got deny", mode, cmd)
					}
				}
			}
		}
		// Writes: only reading the +CMD, or reading on after the `|`, names them.
		for _, form := range []string{c + ` +w\ secret/x f`, c + " f | w secret/x"} {
			cmd := "vim -u NONE -es -c " + sq(form) + " -c 'q!' f g"
			for mode, d := range exJudge(t, cmd, []string{"Bash"}, []string{"Edit(/secret/**)"}) {
				if d != Deny {
					t.Errorf("%s: %s: got %s, want deny (Edit(/secret/**))", mode, cmd, d)
				}
			}
		}
	}
}
