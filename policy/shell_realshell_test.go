package policy

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// The shell reader against real shells: each line of a table of tricky
// command lines is run under bash and dash with PATH holding only tiny
// recorder scripts (one per command name the table uses), and every
// command the shell ran must be one the reader found: same name and, where
// the reader knows them, the same arguments. A line marked exact must also
// run everything the reader found (no branch left out). Skipped where a
// shell is missing.

// recorderNames are the commands of the table; none is a shell builtin.
var recorderNames = []string{"a", "b", "c", "d", "e", "f1", "ab", "rec"}

// recorderScript appends one record in a single write (commands of a
// pipeline run at once).
const recorderScript = "#!/bin/sh\n" +
	"r=$(printf '%s\\037' \"${0##*/}\" \"$@\")\n" +
	"printf '%s\\036' \"$r\" >> \"$LOG\"\n"

type realShellCase struct {
	line  string
	exact bool // everything the reader found runs
	// bashOnly: the line means something else in a POSIX shell (dash);
	// there the reader must have marked it uncertain, not split it.
	bashOnly bool
}

var realShellCases = []realShellCase{
	{line: "a 'b;c' && b \"x|y\"", exact: true},
	{line: "a b\\;c; b", exact: true},
	{line: "a # comment; b", exact: true},
	{line: "a b#c; b", exact: true},
	{line: "a \"#\"; b '#'", exact: true},
	{line: "a \\#b; b", exact: true},
	{line: "a x # b\nc", exact: true},
	{line: "a x#y #z; b", exact: true},
	{line: "a 'x' # 'y\nb", exact: true},
	{line: "a\\#x; b", exact: true},
	{line: "a ${x#y} ${x##*/}; b", exact: true},
	{line: "a 'x\\\ny'", exact: true},
	{line: "a \"x\\\ny\"", exact: true},
	{line: "a <<EOF | b\nx\nEOF\nc", exact: true},
	{line: "a <<\"E F\"\n$(b)\nE F\nc", exact: true},
	{line: "a <<EOF\n\\$(b) `c`\nEOF", exact: false},
	{line: "a <<EOF\nb\nEOF\nc", exact: true},
	{line: "a <<'EOF'\n$(b)\nEOF", exact: true},
	{line: "a <<EOF\n$(b)\nEOF", exact: true},
	{line: "a <<-EOF\n\tx\n\tEOF\nb", exact: true},
	{line: "a <<E1; b <<E2\nx\nE1\ny\nE2\nc", exact: true},
	{line: "a \\\nb", exact: true},
	{line: "a\\\nb x", exact: true},
	{line: "a 'x\ny'; b", exact: true},
	{line: "a \"x\ny\" && b", exact: true},
	{line: "a && b || c; d | e", exact: false},
	{line: "a || b && c", exact: false},
	{line: "{ a; b; }; (c)", exact: true},
	{line: "if a; then b; else c; fi", exact: false},
	{line: "for i in 1 2; do a x; done", exact: true},
	{line: "case x in x) a;; y) b;; esac", exact: false},
	{line: "a $(b) `c`", exact: true},
	{line: "a \"$(b \"c d\")\"", exact: true},
	{line: "f() { a; }; f"},
	{line: "[[ -n x ]] && a"},
	{line: "(( 1 )) && a"},
	{line: "a <<< \"b;c\"", bashOnly: true},
	{line: "a 'it''s' \"q\\\"q\" 'b\\'", exact: true},
	{line: "a; # b", exact: true},
	{line: "a & b; wait", exact: true},
	{line: "a \\&\\& b", exact: true},
	{line: "a > out; b < out", exact: true},
	{line: "a 2>&1 | b", exact: true},
	{line: "! a; b", exact: true},
	{line: "a || { b; c; }", exact: false},
	{line: "x=$(a); b \"$x\"", exact: true},
	{line: "a \"${x:-$(b)}\"", exact: true},
	{line: "a \"\\$(b)\" '$(c)'", exact: true},
	{line: "eval 'a; b'", exact: true},
	{line: "/bin/sh -c 'a; b \"c;d\"'", exact: true},
	{line: "/usr/bin/env a b", exact: true},
	{line: "command a x", exact: true},
	{line: "a $(b; c) $(d | e)", exact: true},
	{line: "a \"$(b)\"'$(c)'", exact: true},
	{line: "a ';' '&&' '|' \"||\" \\;\\;", exact: true},
	{line: "a x;b y&&c z||d w", exact: false},
	{line: "a |\nb", exact: true},
	{line: "a &&\n\nb", exact: true},
	{line: "a;;", exact: false},
	{line: "a $((1+2)) x", exact: true},
	{line: "a \"a\"b'c'\\d", exact: true},
	{line: "a \"`b`\"", exact: true},
	{line: "a `b \\`c\\``", exact: true},
	{line: "a x=y; b=1 c", exact: true},
	{line: "while a; do b; break; done", exact: true},
	{line: "until a; do b; done", exact: false},
	{line: "a <(b)", bashOnly: true},
	{line: "a |& b", bashOnly: true},
	{line: "[[ x == y || -n z ]]; a", bashOnly: true},
	{line: "a $'x\\ty'", bashOnly: true},
	{line: "a {x,y}", bashOnly: true},
	{line: "function g { a; }; g", bashOnly: true},
}

func TestReaderSplitsLikeRealShells(t *testing.T) {
	shells := map[string]string{"bash": "/bin/bash", "dash": "/bin/dash"}
	bin := t.TempDir()
	for _, n := range recorderNames {
		if err := os.WriteFile(filepath.Join(bin, n), []byte(recorderScript), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, sh := range shells {
		if _, err := os.Stat(sh); err != nil {
			t.Logf("%s not found at %s: skipped", name, sh)
			continue
		}
		t.Run(name, func(t *testing.T) {
			for _, tc := range realShellCases {
				ran := runRecorded(t, sh, bin, tc.line)
				an := readerFound(tc.line)
				if name == "dash" && tc.bashOnly {
					// dash reads it otherwise: the reader must not claim to
					// know what runs.
					// Arguments may differ ($'..' is literal text in an older
					// dash); every command dash ran must still be one the
					// reader found, unless the reader asks anyway.
					if an.uncertain == "" && !subsetNames(ran, an) {
						t.Errorf("%q under dash ran %q; the reader found %q and is not uncertain", tc.line, ran, foundTexts(an))
					}
					continue
				}
				if !subset(ran, an) {
					t.Errorf("%q under %s ran %q; the reader found only %q", tc.line, name, ran, foundTexts(an))
				}
				if tc.exact && name == "bash" {
					if missing := notRun(ran, an); len(missing) > 0 {
						t.Errorf("%q under bash: the reader found %q, which did not run (ran %q)", tc.line, missing, ran)
					}
				}
			}
		})
	}
}

// runRecorded runs line under sh with only the recorders on PATH and
// returns each command run as "name arg...".
func runRecorded(t *testing.T, sh, bin, line string) []string {
	t.Helper()
	dir := t.TempDir()
	log := filepath.Join(dir, "log")
	cmd := exec.Command(sh, "-c", line)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + bin, "LOG=" + log, "HOME=" + dir}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	_ = cmd.Run() // a failing line (command not found under dash) is fine
	data, err := os.ReadFile(log)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out []string
	for _, rec := range strings.Split(string(data), "\x1e") {
		if rec == "" {
			continue
		}
		fields := strings.Split(strings.TrimSuffix(rec, "\x1f"), "\x1f")
		out = append(out, strings.Join(fields, " "))
	}
	return out
}

func readerFound(line string) *shellAnalysis {
	e := newEnvx(Env{Cwd: "/w/p", ProjectRoot: "/w/p", Home: "/home/u"})
	return analyzeShell(line, &e)
}

func foundTexts(an *shellAnalysis) []string {
	var out []string
	for _, sc := range an.subs {
		out = append(out, sc.text)
		out = append(out, sc.alts...)
	}
	sort.Strings(out)
	return out
}

// matches: the reader's text r describes the run command ran: equal, or
// (where r holds an expansion the reader cannot know) the same name.
func matches(r, ran string) bool {
	if r == ran {
		return true
	}
	rn, _, _ := strings.Cut(r, " ")
	n, _, _ := strings.Cut(ran, " ")
	return strings.ContainsAny(r, "$`*?[<>{") && filepath.Base(rn) == n
}

// subsetNames: every command that ran has the name of one the reader found.
func subsetNames(ran []string, an *shellAnalysis) bool {
	for _, r := range ran {
		n, _, _ := strings.Cut(r, " ")
		ok := false
		for _, f := range foundTexts(an) {
			fn, _, _ := strings.Cut(f, " ")
			ok = ok || filepath.Base(fn) == n
		}
		if !ok {
			return false
		}
	}
	return true
}

func subset(ran []string, an *shellAnalysis) bool {
	found := foundTexts(an)
	for _, r := range ran {
		ok := false
		for _, f := range found {
			if matches(f, r) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// notRun returns what the reader found among the recorder commands that
// the shell did not run.
func notRun(ran []string, an *shellAnalysis) []string {
	var out []string
	for _, sc := range an.subs {
		if sc.kind == skGate || sc.kind == skProbe {
			continue // a probe is a guess at what may run (programs_probe.go)
		}
		name, _, _ := strings.Cut(sc.text, " ")
		rec := false
		for _, n := range recorderNames {
			rec = rec || n == filepath.Base(name)
		}
		if !rec {
			continue
		}
		hit := false
		for _, r := range ran {
			hit = hit || matches(sc.text, r)
		}
		if !hit {
			out = append(out, sc.text)
		}
	}
	return out
}
