package policy

import (
	"context"
	"crypto/sha256"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// These tests run real commands on temporary trees: what the reader calls
// read-only (or lets a prefix allow rule cover) must leave the tree as it
// was, and what it refuses to let a prefix rule cover must really write or
// run something (so the refusal is about a real effect).

type effectTree struct {
	dir, home string
}

func newEffectTree(t *testing.T) effectTree {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"f":        "3 a\n7 b\n9 a|b\n",
		"g":        "x\ny\n",
		"sub/h":    "hello\n",
		".env":     "SECRET=canary\n",
		"home/.rc": "rc\n",
		"p.sh":     "#!/bin/sh\ntouch ran-pre\ncat \"$1\"\n",
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return effectTree{dir: dir, home: filepath.Join(dir, "home")}
}

// snapshot maps every path under dir to a hash of its content and mode.
func (e effectTree) snapshot(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(e.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		h := info.Mode().String()
		if d.Type().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(b)
			h += string(sum[:])
		}
		out[strings.TrimPrefix(p, e.dir)] = h
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func (e effectTree) run(t *testing.T, cmd string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := exec.CommandContext(ctx, "bash", "-c", cmd)
	c.Dir = e.dir
	c.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + e.home, "LC_ALL=C", "PAGER=cat", "GIT_PAGER=cat"}
	c.Stdin = nil
	_ = c.Run() // the exit status does not matter, the effects do
}

func (e effectTree) eval(t *testing.T, cmd string, allow ...string) Verdict {
	t.Helper()
	var rules []RuleText
	for _, a := range allow {
		rules = append(rules, RuleText{List: "allow", Text: a})
	}
	pol, errs := Compile(rules)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	return Evaluate(Input{Call: Call{Tool: "Bash", Command: cmd}, Mode: ModeDefault, Policy: pol,
		Env: Env{Cwd: e.dir, ProjectRoot: e.dir, Home: e.home}})
}

func needTools(t *testing.T, cmd string) bool {
	t.Helper()
	name, _, _ := strings.Cut(cmd, " ")
	if _, err := exec.LookPath(name); err != nil {
		t.Skipf("%s is not installed", name)
		return false
	}
	return true
}

func TestAllowedCommandsLeaveTheTreeAlone(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	cases := []struct {
		cmd   string
		allow []string // empty: must be allowed as read-only
	}{
		{"sort f", nil},
		{"sort -u f g sub/h", nil},
		{"sort -r -k2 f", nil},
		{"uniq f", nil},
		{"uniq -c f", nil},
		{"head -n1 f && tail -n1 f", nil},
		{"cut -c1 f", nil},
		{"grep -r hello .", nil},
		{"find . -name f", nil},
		{"wc -l f g", nil},
		{"nl f", nil},
		{"od -c f", nil},
		{"tr a b < f", nil},
		{"awk '$1 > 5 {print $2}' f", []string{"Bash(awk *)"}},
		{"awk '{print ($1 > 5)}' f", []string{"Bash(awk *)"}},
		{"awk '/a|b/ {print}' f", []string{"Bash(awk *)"}},
		{"awk '$1 > 2 || $1 < 1 {print}' f", []string{"Bash(awk *)"}},
		{"awk -F' ' '{n += $1} END {print n > \"/dev/stderr\"}' f", []string{"Bash(awk *)"}},
		{"sed -n 1p f", []string{"Bash(sed *)"}},
		{"sed 's/a/b/g' f", []string{"Bash(sed *)"}},
		{"sed -n '/a/{p;q}' f", []string{"Bash(sed *)"}},
		{"sed -e 's|a|w|' f", []string{"Bash(sed *)"}},
		{"sed 'y/ab/ba/' f", []string{"Bash(sed *)"}},
		{"xxd f", []string{"Bash(xxd *)"}},
		{"sort f | uniq -c | sort -rn", nil},
	}
	for _, c := range cases {
		t.Run(c.cmd, func(t *testing.T) {
			if !needTools(t, c.cmd) {
				return
			}
			e := newEffectTree(t)
			v := e.eval(t, c.cmd, c.allow...)
			if v.Decision != Allow || len(c.allow) == 0 && v.Source != SourceReadOnly {
				t.Fatalf("%q: %s (%s: %s), want allowed", c.cmd, v.Decision, v.Source, v.Reason)
			}
			before := e.snapshot(t)
			e.run(t, c.cmd)
			after := e.snapshot(t)
			for p, h := range after {
				if before[p] != h {
					t.Errorf("%q was allowed but changed or created %s", c.cmd, p)
				}
			}
			for p := range before {
				if _, ok := after[p]; !ok {
					t.Errorf("%q was allowed but removed %s", c.cmd, p)
				}
			}
		})
	}
}

func TestRefusedOptionsHaveRealEffects(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	cases := []struct {
		cmd, allow, effect string // effect: the file the command creates
	}{
		{"sort -o out f", "Bash(sort *)", "out"},
		{"sort -uo out f", "Bash(sort *)", "out"},
		{"sort --output=out f", "Bash(sort *)", "out"},
		{"uniq f out", "Bash(uniq *)", "out"},
		{"xxd f out", "Bash(xxd *)", "out"},
		{"awk '{print > \"out\"}' f", "Bash(awk *)", "out"},
		{"awk 'BEGIN{system(\"touch out\")}'", "Bash(awk *)", "out"},
		{"awk 'BEGIN{print \"x\" | \"touch out\"}'", "Bash(awk *)", "out"},
		{"awk 'BEGIN{\"touch out\" | getline x}'", "Bash(awk *)", "out"},
		{"sed -n 'w out' f", "Bash(sed *)", "out"},
		{"sed -n 's/a/b/w out' f", "Bash(sed *)", "out"},
		{"sed -n '1e touch out' f", "Bash(sed *)", "out"},
		{"sed -i.bak s/a/b/ g", "Bash(sed *)", "g.bak"},
		{"find . -maxdepth 0 -fprint out", "Bash(find *)", "out"},
		{"find . -maxdepth 0 -exec touch out \\;", "Bash(find *)", "out"},
		{"rg --pre ./p.sh hello sub", "Bash(rg *)", "ran-pre"},
		{"tree -o out", "Bash(tree *)", "out"},
		{"zip -q out.zip f -T -TT 'touch out #'", "Bash(zip -q *)", "out"},
	}
	for _, c := range cases {
		t.Run(c.cmd, func(t *testing.T) {
			if !needTools(t, c.cmd) {
				return
			}
			e := newEffectTree(t)
			if v := e.eval(t, c.cmd, c.allow); v.Decision == Allow {
				t.Fatalf("%q: allowed by %s (%s), want it not covered by the prefix rule", c.cmd, v.Rule, v.Reason)
			}
			e.run(t, c.cmd)
			if _, err := os.Stat(filepath.Join(e.dir, c.effect)); err != nil {
				t.Errorf("%q did not create %s: the case does not show a real effect (%v)", c.cmd, c.effect, err)
			}
		})
	}
}

// TestHiddenReadsReallyRead: the commands the class 6 corpus denies for a
// Read(.env) rule do print the secret when run, so the deny is about a
// real read.
func TestHiddenReadsReallyRead(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	cmds := []string{
		"sort .env", "awk 1 .env", "sed -n p .env", "cut -c1- .env", "base64 -d <(base64 .env)", "strings .env",
		"xxd .env | xxd -r", "tac .env", "source .env && echo $SECRET", ". .env; echo $SECRET", "echo $(<.env)",
		"find . -name .env -exec cat {} +", "awk 'BEGIN{while((getline l < \".env\")>0) print l}'", "sed -n 'r .env' g",
		"grep -r canary .", "tr a a < .env", "paste .env", "head -c 100 .env",
	}
	pol, _ := Compile([]RuleText{{List: "deny", Text: "Read(.env)"}, {List: "allow", Text: "Bash"}})
	for _, cmd := range cmds {
		t.Run(cmd, func(t *testing.T) {
			e := newEffectTree(t)
			v := Evaluate(Input{Call: Call{Tool: "Bash", Command: cmd}, Mode: ModeBypass, Policy: pol,
				Env: Env{Cwd: e.dir, ProjectRoot: e.dir, Home: e.home}})
			if v.Decision == Allow {
				t.Fatalf("%q allowed under Read(.env) deny: %s", cmd, v.Reason)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			c := exec.CommandContext(ctx, "bash", "-c", cmd)
			c.Dir = e.dir
			c.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + e.home, "LC_ALL=C"}
			out, _ := c.Output()
			if !strings.Contains(string(out), "canary") {
				t.Errorf("%q did not print the secret (%q): the case does not show a real read", cmd, out)
			}
		})
	}
}
