package policy

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Red team 17: options that write files or run programs, in the
// declarations of the C compiler drivers, ld, as, the binutils and wget
// (programs_cc.go, programs_binutils.go, programs_argfiles.go).

// rt17Decide evaluates cmd as Bash under the allow and deny rules in mode.
func rt17Decide(t *testing.T, cmd string, allow, deny []string, mode Mode) Verdict {
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

// rt17Writes: per program (its names), the spellings of an option or
// operand that writes the file %s.
var rt17Writes = []struct {
	progs []string
	forms []string
}{
	{[]string{"gcc", "cc", "clang", "g++", "c++", "clang++"}, []string{
		"-o %s x.c", "x.c -o %s", "-o%s x.c", "--output=%s x.c", "--output %s x.c", "-O2 -Wall -o%s x.c",
		"-c -MD -MF %s x.c", "-c -MD -MF%s x.c", "-c -aux-info %s x.c", "-c -fdump-tree-original=%s x.c",
		"-Wl,-o,%s x.c", "-Wl,--output=%s x.c", "-Wl,-o%s x.c", "-Wl,-Map=%s x.c", "-Wl,-Map,%s x.c", "-Wl,--Map=%s x.c",
		"-Wl,--as-needed,-Map=%s x.c", "-Xlinker -Map=%s x.c", "-Xlinker -o -Xlinker %s x.c", "--for-linker=-Map=%s x.c",
		"-Wl,--dependency-file=%s x.c", "-c -Wa,-al=%s x.c", "-c -Wa,-adhln=%s x.c", "-c -Wa,--MD,%s x.c", "-c -Wa,-o,%s x.c",
		"-c -Wp,-MD,%s x.c", "-c -Xpreprocessor -MF -Xpreprocessor %s x.c"}},
	{[]string{"ld", "ld.bfd", "ld.lld", "mold"}, []string{"-o %s x.o", "-o%s x.o", "--output=%s x.o", "--output %s x.o",
		"-Map=%s -o app x.o", "-Map %s -o app x.o", "--Map=%s -o app x.o", "--dependency-file=%s x.o"}},
	{[]string{"as"}, []string{"-o %s x.s", "-o%s x.s", "-al=%s -o x.o x.s", "--MD %s -o x.o x.s"}},
	{[]string{"objcopy"}, []string{"a.out %s", "-O binary a.out %s", "-S -g a.out %s", "%s", "-g %s",
		"--dump-section .text=%s a.out b.out", "--dump-sec .text=%s a.out b.out"}},
	{[]string{"strip"}, []string{"-o %s a.out", "-o%s a.out", "--output-file=%s a.out", "--output-file %s a.out",
		"-s -o %s a.out", "-so%s a.out", "%s", "-g %s", "--strip-all %s"}},
	{[]string{"ranlib", "gcc-ranlib"}, []string{"%s", "-D %s"}},
	{[]string{"cpp"}, []string{"x.c %s", "-P x.c %s", "-o %s x.c", "-o%s x.c", "-MD -MF %s x.c"}},
	{[]string{"elfedit"}, []string{"--output-osabi Linux %s"}},
	{[]string{"dwp"}, []string{"-o %s x.dwo", "-o%s x.dwo", "--output=%s x.dwo", "--output %s x.dwo", "-e app -o %s"}},
	{[]string{"ar"}, []string{"rcs %s x.o", "-rcs %s x.o", "q %s x.o", "rb m.o %s x.o", "d %s m.o"}},
	{[]string{"wget"}, []string{"--save-cookies %s https://ok.example/", "--save-cookies=%s https://ok.example/",
		"--save-c=%s https://ok.example/", "--save-cook %s https://ok.example/", "--rejected-log=%s https://ok.example/",
		"--rejected-log %s https://ok.example/", "--hsts-file %s https://ok.example/", "--hsts-f=%s https://ok.example/",
		"-O %s https://ok.example/", "-O%s https://ok.example/", "-qO %s https://ok.example/", "--output-document=%s https://ok.example/",
		"-o %s https://ok.example/", "-a %s https://ok.example/", "--output-file=%s https://ok.example/", "--append-output %s https://ok.example/"}},
}

var rt17Modes = []Mode{ModeDefault, ModeAcceptEdits, ModeDontAsk, ModeBypass}

// TestRT17WritingOptionsEverySpelling is the property: every spelling of
// a declared option (or operand) that writes, under an allow rule for the
// program, meets the protected-place breaker (never allowed, in any mode)
// and an Edit deny rule (denied in every mode). The control: the same
// spelling writing a file of the workspace is allowed in default mode
// (so the property is about the path, and could fail).
func TestRT17WritingOptionsEverySpelling(t *testing.T) {
	protected := []string{"/home/u/.bashrc", ".git/hooks/pre-commit", "/home/u/.local/bin/ls", "~/.profile"}
	n := 0
	for _, w := range rt17Writes {
		for _, prog := range w.progs {
			for _, form := range w.forms {
				allow := []string{"Bash(" + prog + " *)"}
				for _, p := range protected {
					cmd := prog + " " + fmt.Sprintf(form, p)
					for _, m := range rt17Modes {
						n++
						if v := rt17Decide(t, cmd, allow, nil, m); v.Decision == Allow {
							t.Errorf("%q under %q in %s: allowed (%s)", cmd, allow, m, v.Reason)
						}
					}
				}
				cmd := prog + " " + fmt.Sprintf(form, ".env")
				for _, m := range rt17Modes {
					if v := rt17Decide(t, cmd, []string{"Bash"}, []string{"Edit(.env)"}, m); v.Decision != Deny {
						t.Errorf("%q under Edit(.env) deny in %s: %s (%s), want deny", cmd, m, v.Decision, v.Reason)
					}
				}
				ctl := prog + " " + fmt.Sprintf(form, "build/out")
				if v := rt17Decide(t, ctl, allow, nil, ModeDefault); v.Decision != Allow {
					t.Errorf("control %q under %q: %s (%s), want allow", ctl, allow, v.Decision, v.Reason)
				}
			}
		}
	}
	if n < 1000 {
		t.Fatalf("only %d cases ran", n)
	}
}

// rt17Doubts: options that run a program, load code, or are not known
// harmless: a doubt under an allow rule for the program.
var rt17Doubts = []struct {
	progs []string
	cmds  []string
}{
	{[]string{"gcc", "cc", "clang", "g++", "c++", "clang++"}, []string{
		"-wrapper ./w.sh -c x.c", "-wrapper echo,-n -c x.c", "-B./evil/ -c x.c", "-B ./evil/ -c x.c", "--prefix=./evil/ x.c",
		"--prefix ./evil/ x.c", "-specs=./s x.c", "-specs ./s x.c", "--specs=./s x.c", "--specs ./s x.c",
		"-fplugin=./p.so -c x.c", "-fplugin-arg-p-k=v -c x.c", "-fpass-plugin=./p.so x.c", "-Xclang -load -Xclang ./p.so x.c",
		"-mllvm -x x.c", "-fuse-ld=./evil x.c", "-fuse-ld=/tmp/ld x.c", "--ld-path=./evil x.c", "-Tevil.ld x.c", "-T evil.ld x.c",
		"-Wl,-plugin,./p.so x.c", "-Wl,--plugin=./p.so x.c", "-Xlinker -plugin -Xlinker ./p.so x.c", "-Wl,-T,evil.ld x.c",
		"-Wl,--script=evil.ld x.c", "-Wl,@args x.c", "-fmodule-mapper=./m x.c", "--gcc-toolchain=./tc x.c", "--config ./c.cfg x.c",
		"-dumpdir d/ -save-temps x.c", "-Wa,--new-option x.c", "-Wp,-new x.c", "--totally-new-option x.c", "-fnew-thing=./x x.c",
		"-Xassembler --new x.c", "@flags.txt x.c", "-Wl,--new-linker-opt x.c", "-gen-cdb-fragment-path d x.c",
		"-module-dependency-dir d x.c", "-MJ cdb.json -c x.c", "-dependency-file d.d -c x.c", "-fprofile-use=./p x.c",
		"-o @args x.c", "-I @args x.c", "-x @args x.c"}},
	{[]string{"ld", "ld.lld", "mold"}, []string{"-plugin ./p.so x.o", "--plugin=./p.so x.o", "-T evil.ld x.o", "--script=evil.ld x.o",
		"@args", "--new-opt x.o", "-o @args x.o", "-a @args x.o"}},
	{[]string{"as"}, []string{"--new-opt x.s", "@args"}},
	{[]string{"objcopy"}, []string{"--new-opt a b", "@args", "--plugin ./p.so a b", "-O @args a b"}},
	{[]string{"strip"}, []string{"--plugin ./p.so a.out", "--new-opt a.out", "-o @args a.out"}},
	{[]string{"ar"}, []string{"--plugin ./p.so rcs l.a x.o", "x l.a", "xP l.a", "-x l.a", "--output d x l.a"}},
	{[]string{"ranlib"}, []string{"--plugin ./p.so l.a", "--new l.a"}},
	{[]string{"nm", "gcc-nm"}, []string{"--plugin ./p.so x.o", "--plugin=./p.so x.o", "--plug ./p.so x.o"}},
	{[]string{"cpp"}, []string{"-fplugin=./p.so x.c", "-B./e/ x.c", "x.c a b"}},
	{[]string{"wget"}, []string{"--new-option https://ok.example/", "--default-page=x https://ok.example/",
		"--config ./rc https://ok.example/", "--use-askpass=./a https://ok.example/", "--use-ask ./a https://ok.example/"}},
}

// TestRT17RunningOptionsAreDoubts: each such option asks in default and
// bypassPermissions and is denied in dontAsk under Bash(PROG *).
func TestRT17RunningOptionsAreDoubts(t *testing.T) {
	for _, d := range rt17Doubts {
		for _, prog := range d.progs {
			for _, c := range d.cmds {
				rt16bDoubt(t, prog+" "+c, []string{"Bash(" + prog + " *)"})
			}
		}
	}
}

// TestRT17DoubtNamedByRuleAllowed: an allow rule naming the doubtful
// option covers it (the doubt is about the rule, not a refusal); the
// same call under the program's prefix rule asks (the control).
func TestRT17DoubtNamedByRuleAllowed(t *testing.T) {
	for _, c := range []struct{ cmd, rule string }{
		{"gcc -B./evil/ -c x.c", "Bash(gcc -B./evil/ *)"},
		{"gcc -specs=./s.specs x.c", "Bash(gcc -specs=./s.specs *)"},
		{"gcc -fplugin=./p.so -c x.c", "Bash(gcc -fplugin=./p.so *)"},
		{"gcc -Wl,-plugin,./p.so x.c", "Bash(gcc -Wl,-plugin,./p.so *)"},
		{"ld -T link.ld -o app x.o", "Bash(ld -T link.ld *)"},
	} {
		if v := rt17Decide(t, c.cmd, []string{c.rule}, nil, ModeDefault); v.Decision != Allow {
			t.Errorf("%q under %q: %s (%s), want allow", c.cmd, c.rule, v.Decision, v.Reason)
		}
		prefix := "Bash(" + strings.Fields(c.cmd)[0] + " *)"
		if v := rt17Decide(t, c.cmd, []string{prefix}, nil, ModeDefault); v.Decision == Allow {
			t.Errorf("control %q under %q: allowed (%s)", c.cmd, prefix, v.Reason)
		}
	}
}

// TestRT17HarmlessOptionsAllowed: the options of ordinary builds are
// known harmless (an allow-list that named too few would ask for them).
func TestRT17HarmlessOptionsAllowed(t *testing.T) {
	for _, cmd := range []string{
		"gcc -O2 -Wall -Wextra -std=c11 -g -c -o build/x.o x.c",
		"gcc -fPIC -shared -Wl,-soname,libx.so.1 -Wl,--as-needed -Wl,-z,relro,-z,now -o build/libx.so x.c",
		"clang -fsanitize=address,undefined -fno-omit-frame-pointer -fuse-ld=lld -o app x.c",
		"gcc -MMD -MP -MF build/x.d -c x.c -o build/x.o",
		"g++ -std=c++20 -pthread -I./include -Iinclude -isystem third_party -DNDEBUG -DX=1 -L./lib -lfoo -o app main.cpp",
		"gcc -Wl,-rpath,/opt/lib x.c -o app", "gcc -Wa,--noexecstack -c x.c", "gcc -march=native -mtune=native -O3 -flto=auto -o app x.c",
		"gcc --version", "gcc -print-file-name=libc.so", "cc -dM -E x.c", "gcc -Wno-unused-parameter -Werror=format -c x.c",
		"gcc -fstack-protector-strong -D_FORTIFY_SOURCE=2 -fvisibility=hidden -c x.c", "gcc -x c -c x.h",
		"gcc -g3 -ggdb -gdwarf-4 -gsplit-dwarf -gz -c x.c", "gcc -m64 -mavx2 -mno-red-zone -c x.c",
		"clang++ -ftemplate-backtrace-limit=0 -fconstexpr-steps=1000000 -fdebug-compilation-dir=. -fno-exceptions -c x.cpp",
		"clang -fsanitize=fuzzer -fsanitize-ignorelist=ign.txt -c x.c",
		"objcopy -O binary app app.bin", "objcopy --only-keep-debug app app.debug", "objcopy --add-gnu-debuglink=app.debug app",
		"objcopy --strip-debug app", "strip app", "strip -s -o app.stripped app", "ar rcs libx.a a.o b.o", "ar t libx.a",
		"ranlib libx.a", "ld -o app x.o -lc", "ld --gc-sections -L. -lm -o app x.o", "as --64 -o x.o x.s",
		"wget -q https://ok.example/x", "wget -O out.html https://ok.example/", "wget --save-cookies cookies.txt https://ok.example/",
		"wget --warc-file=archive https://ok.example/", "wget -nv -nc -np -r -l 2 -A '*.pdf' https://ok.example/",
		"wget --no-verbose --tries=3 --timeout=10 -c https://ok.example/x", "wget --progress=dot:mega --show-progress https://ok.example/x",
		"wget --mirror --convert-links --adjust-extension --page-requisites --no-parent https://ok.example/",
		"wget --header 'Accept: text/html' --user-agent x -P dl https://ok.example/", "wget --no-check-cert https://ok.example/",
	} {
		prog := strings.Fields(cmd)[0]
		allow := []string{"Bash(" + prog + " *)"}
		if v := rt17Decide(t, cmd, allow, nil, ModeDefault); v.Decision != Allow {
			t.Errorf("%q under %q: %s (%s), want allow", cmd, allow, v.Decision, v.Reason)
		}
	}
}

// TestRT17WarcFile: wget --warc-file F writes F.warc.gz (and F.cdx,
// F-meta.warc.gz): into a protected directory it is never allowed, and an
// Edit deny rule of those names holds; the control, F in the workspace,
// is allowed.
func TestRT17WarcFile(t *testing.T) {
	for _, f := range []string{"--warc-file=%s", "--warc-file %s", "--warc-f=%s"} {
		for _, p := range []string{".git/hooks/x", "/home/u/.config/autostart/x", "/home/u/.local/bin/x"} {
			cmd := "wget " + fmt.Sprintf(f, p) + " https://ok.example/"
			for _, m := range rt17Modes {
				if v := rt17Decide(t, cmd, []string{"Bash(wget *)"}, nil, m); v.Decision == Allow {
					t.Errorf("%q in %s: allowed (%s)", cmd, m, v.Reason)
				}
			}
		}
		for _, deny := range []string{"Edit(*.warc.gz)", "Edit(*.cdx)", "Edit(out/**)"} {
			cmd := "wget " + fmt.Sprintf(f, "out/a") + " https://ok.example/"
			if v := rt17Decide(t, cmd, []string{"Bash"}, []string{deny}, ModeDefault); v.Decision != Deny {
				t.Errorf("%q under %s deny: %s (%s), want deny", cmd, deny, v.Decision, v.Reason)
			}
		}
	}
}

// rt17Confirmed: write spellings the real tool was seen to write (the
// file %s appears), run unsandboxed in a temporary directory by
// TestRT17RealToolsWrite; each is also a form of rt17Writes, so the
// property above covers it.
var rt17Confirmed = []struct{ prog, form string }{
	{"gcc", "-o %s x.c"}, {"gcc", "x.c -o %s"}, {"gcc", "-o%s x.c"}, {"gcc", "--output=%s x.c"}, {"gcc", "--output %s x.c"},
	{"gcc", "-O2 -Wall -o%s x.c"}, {"gcc", "-c -MD -MF %s x.c"}, {"gcc", "-c -MD -MF%s x.c"}, {"gcc", "-c -aux-info %s x.c"},
	{"gcc", "-c -fdump-tree-original=%s x.c"}, {"gcc", "-Wl,-o,%s x.c"}, {"gcc", "-Wl,--output=%s x.c"}, {"gcc", "-Wl,-Map=%s x.c"},
	{"gcc", "-Wl,-Map,%s x.c"}, {"gcc", "-Wl,--Map=%s x.c"}, {"gcc", "-Wl,--as-needed,-Map=%s x.c"}, {"gcc", "-Xlinker -Map=%s x.c"},
	{"gcc", "-Xlinker -o -Xlinker %s x.c"}, {"gcc", "--for-linker=-Map=%s x.c"}, {"gcc", "-Wl,--dependency-file=%s x.c"},
	{"gcc", "-c -Wa,-al=%s x.c"}, {"gcc", "-c -Wa,-adhln=%s x.c"}, {"gcc", "-c -Wa,--MD,%s x.c"}, {"gcc", "-c -Wp,-MD,%s x.c"},
	{"ld", "-o %s x.o"}, {"ld", "-o%s x.o"}, {"ld", "--output=%s x.o"}, {"ld", "--output %s x.o"}, {"ld", "-Map=%s -o app x.o"},
	{"ld", "-Map %s -o app x.o"}, {"ld", "--Map=%s -o app x.o"}, {"ld", "--dependency-file=%s x.o"},
	{"as", "-o %s x.s"}, {"as", "-o%s x.s"}, {"as", "-al=%s -o x.o x.s"}, {"as", "--MD %s -o x.o x.s"},
	{"objcopy", "a.out %s"}, {"objcopy", "-O binary a.out %s"}, {"objcopy", "-S -g a.out %s"},
	{"objcopy", "--dump-section .text=%s a.out b.out"}, {"objcopy", "--dump-sec .text=%s a.out b.out"},
	{"strip", "-o %s a.out"}, {"strip", "-o%s a.out"}, {"strip", "--output-file=%s a.out"}, {"strip", "--output-file %s a.out"},
	{"strip", "-s -o %s a.out"}, {"strip", "-so%s a.out"},
	{"cpp", "x.c %s"}, {"cpp", "-P x.c %s"}, {"cpp", "-o %s x.c"},
	{"ar", "rcs %s x.o"}, {"ar", "-rcs %s x.o"}, {"ar", "q %s x.o"},
	{"wget", "--save-cookies %s https://ok.example/"}, {"wget", "--save-cookies=%s https://ok.example/"},
	{"wget", "--save-c=%s https://ok.example/"}, {"wget", "--save-cook %s https://ok.example/"},
	{"wget", "-O %s https://ok.example/"}, {"wget", "-O%s https://ok.example/"}, {"wget", "-qO %s https://ok.example/"},
	{"wget", "--output-document=%s https://ok.example/"}, {"wget", "-o %s https://ok.example/"}, {"wget", "-a %s https://ok.example/"},
	{"wget", "--output-file=%s https://ok.example/"}, {"wget", "--append-output %s https://ok.example/"},
}

// TestRT17RealToolsWrite runs each confirmed spelling with the real tool
// (skipped where it is not installed) in a temporary directory and checks
// that it writes the file; the control, the same tool's harmless call,
// writes nothing there.
func TestRT17RealToolsWrite(t *testing.T) {
	forms := map[string]bool{}
	for _, w := range rt17Writes {
		for _, p := range w.progs {
			for _, f := range w.forms {
				forms[p+" "+f] = true
			}
		}
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "a", Value: "b", MaxAge: 3600})
		fmt.Fprintln(w, "hi")
	}))
	defer srv.Close()
	dir := t.TempDir()
	run := func(args ...string) error {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, args[0], args[1:]...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "HOME="+dir, "WGETRC="+filepath.Join(dir, "wgetrc"))
		out, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("%q: %w: %s", args, err, out)
		}
		return nil
	}
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc is not installed")
	}
	if err := os.WriteFile(filepath.Join(dir, "wgetrc"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "x.c"), []byte("int main(void){return 0;}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, setup := range [][]string{{"gcc", "-c", "x.c", "-o", "x.o"}, {"gcc", "-S", "x.c", "-o", "x.s"}, {"gcc", "x.c", "-o", "a.out"}} {
		if err := run(setup...); err != nil {
			t.Fatal(err)
		}
	}
	for i, c := range rt17Confirmed {
		if !forms[c.prog+" "+c.form] {
			t.Errorf("%s %q is not a form of rt17Writes", c.prog, c.form)
		}
		if _, err := exec.LookPath(c.prog); err != nil {
			t.Logf("%s is not installed: %q not run", c.prog, c.form)
			continue
		}
		out := fmt.Sprintf("out%d/f", i)
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(out)), 0o755); err != nil {
			t.Fatal(err)
		}
		line := strings.ReplaceAll(fmt.Sprintf(c.form, out), "https://ok.example/", srv.URL+"/x")
		args := append([]string{c.prog}, strings.Fields(line)...)
		if err := run(args...); err != nil {
			t.Logf("%v (the file may still be written)", err)
		}
		if _, err := os.Stat(filepath.Join(dir, out)); err != nil {
			t.Errorf("%s: no file %s: %v", strings.Join(args, " "), out, err)
		}
	}
	// control: ordinary calls write no file in a fresh directory of their
	// own beyond the named output.
	ctl := filepath.Join(dir, "ctl")
	if err := os.MkdirAll(ctl, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := run("gcc", "-O2", "-Wall", "-c", "x.c", "-o", "ctl/y.o"); err != nil {
		t.Fatal(err)
	}
	if es, _ := os.ReadDir(ctl); len(es) != 1 {
		t.Errorf("control: gcc -c -o ctl/y.o wrote %d files in ctl, want 1", len(es))
	}
}

// TestRT17CompilerRunners: a compiler cache or distributor (ccache,
// sccache, distcc, icecc) runs the compiler command that follows it: the
// compiler's writes and doubts hold through it, under allow rules for
// both; the control, an ordinary build through it, is allowed.
func TestRT17CompilerRunners(t *testing.T) {
	for _, r := range []string{"ccache", "sccache", "distcc", "icecc"} {
		allow := []string{"Bash(" + r + " *)", "Bash(gcc *)"}
		for _, form := range []string{"-o %s x.c", "-o%s x.c", "--output=%s x.c", "-Wl,-Map=%s x.c", "-c -MD -MF %s x.c"} {
			cmd := r + " gcc " + fmt.Sprintf(form, "/home/u/.bashrc")
			for _, m := range rt17Modes {
				if v := rt17Decide(t, cmd, allow, nil, m); v.Decision == Allow {
					t.Errorf("%q under %q in %s: allowed (%s)", cmd, allow, m, v.Reason)
				}
			}
			ctl := r + " gcc " + fmt.Sprintf(form, "build/out")
			if v := rt17Decide(t, ctl, allow, nil, ModeDefault); v.Decision != Allow {
				t.Errorf("control %q under %q: %s (%s), want allow", ctl, allow, v.Decision, v.Reason)
			}
		}
		for _, c := range []string{"gcc -wrapper ./w -c x.c", "gcc -B./evil/ -c x.c", "gcc -fplugin=./p.so -c x.c"} {
			rt16bDoubt(t, r+" "+c, allow)
		}
		// what it runs meets the deny rules (the runner's allow rule is
		// the grant for what it runs, as for every runner)
		for _, c := range []string{"rm -rf src", "gcc -wrapper rm,-rf,src -c x.c"} {
			if v := rt17Decide(t, r+" "+c, allow, []string{"Bash(rm *)"}, ModeBypass); v.Decision != Deny {
				t.Errorf("%q under deny Bash(rm *): %s (%s), want deny", r+" "+c, v.Decision, v.Reason)
			}
		}
	}
}
