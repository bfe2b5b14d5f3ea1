package policy

import (
	"sort"
	"strings"
	"testing"
)

// judgeEveryMode: c judged in every mode of the adversarial corpus; want
// Deny: denied in each; want Ask: never allowed (denied in dontAsk), not
// judged under bypass. It returns the first failure ("" if none).
func judgeEveryMode(t *testing.T, c policyCase, want Decision) string {
	t.Helper()
	for _, m := range adversarialModes {
		if want == Ask && (m.mode == ModeBypass || m.agentBypass) {
			continue
		}
		in := c.input(t)
		in.Mode, in.AgentBypass = m.mode, m.agentBypass
		v := Evaluate(in)
		ok := v.Decision != Allow
		switch {
		case want == Deny:
			ok = v.Decision == Deny
		case m.mode == ModeDontAsk:
			ok = v.Decision == Deny
		}
		if !ok {
			return m.name + ": " + string(v.Decision) + " (" + v.Reason + ")"
		}
	}
	return ""
}

// optSpellings: the ways a program is handed the file f through option o
// (o's value, or @f, or a plain argument): `--opt f`, `--opt=f`, `-of`
// glued, `-opt f`, `-opt=f` (Go's flags), and the shortest prefix of a
// long option that no other known long option of the program shares.
func optSpellings(d *progDecl, o, f string) []string {
	if containsStr(d.pairs, o) {
		return []string{o + " k " + f}
	}
	out := []string{o + " " + f}
	switch {
	case strings.HasPrefix(o, "--"):
		out = append(out, o+"="+f)
		known, _ := knownLongs(strings.Fields(d.name)[0], wordsOf(strings.Fields(d.name)[1:]))
		for n := 3; n < len(o); n++ {
			p, fits := o[:n], 0
			for _, k := range known {
				if strings.HasPrefix(k, p) {
					fits++
				}
			}
			if fits == 1 {
				out = append(out, p+"="+f, p+" "+f)
				break
			}
		}
	case len(o) == 2:
		out = append(out, o+f)
	case strings.HasPrefix(d.name, "go "):
		out = append(out, o+"="+f)
	}
	return out
}

func wordsOf(ss []string) []word {
	ws := make([]word, len(ss))
	for i, s := range ss {
		ws[i] = staticWord(s)
	}
	return ws
}

// fileReadForms: every declared way each program reads a file it is
// handed (reads, pairReads, atFiles, plainReads), as commands with %F for
// the file, one per spelling.
func fileReadForms(t *testing.T) map[string][]string {
	t.Helper()
	loadPrograms()
	forms := map[string][]string{}
	seen := map[*progDecl]bool{}
	for _, ds := range programs {
		for _, d := range ds {
			if seen[d] || d.run != runNone {
				continue // a runner's options are read with its command (programs.go, declared)
			}
			seen[d] = true
			prefix := d.name
			if d.name == "jq" {
				prefix = "jq -n"
			}
			for _, o := range append(append([]string(nil), d.reads...), d.pairReads...) {
				for _, s := range optSpellings(d, o, "%F") {
					forms[d.name] = append(forms[d.name], prefix+" "+s)
				}
			}
			if d.atFiles {
				forms[d.name] = append(forms[d.name], prefix+" @%F", prefix+" -a @%F")
			}
			if d.plainReads {
				forms[d.name] = append(forms[d.name], prefix+" %F", prefix+" -m %F", prefix+" -m -v %F")
			}
		}
	}
	return forms
}

// TestOptionFileReadsEveryDeclaredSpelling is the property of red team 16
// finding 5, 6 and 10: every file-reading option of every declaration, in
// every spelling, handed a Read-denied file is denied in every mode, and
// handed a file outside the workspace is never allowed without asking,
// with no allow rule and under a prefix rule for the program
// (Bash(go test *)), in every mode but bypass.
func TestOptionFileReadsEveryDeclaredSpelling(t *testing.T) {
	forms := fileReadForms(t)
	names := make([]string, 0, len(forms))
	for n := range forms {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, want := range []string{"find", "git blame", "git grep", "git ls-files", "strings", "go version", "go test", "jq", "wc"} {
		if len(forms[want]) == 0 {
			t.Fatalf("no file-reading form declared for %s", want)
		}
	}
	n := 0
	for _, name := range names {
		for _, form := range forms[name] {
			for _, allow := range [][]string{nil, {"Bash(" + name + " *)"}} {
				n++
				deny := policyCase{Src: name, Tool: "Bash", Cmd: strings.ReplaceAll(form, "%F", "secrets/key"), Allow: allow, Deny: []string{"Read(secrets/**)"}}
				if f := judgeEveryMode(t, deny, Deny); f != "" {
					t.Errorf("%s under %v, Read(secrets/**) denied: %s", deny.Cmd, allow, f)
				}
				for _, out := range []string{"/etc/hosts", "~/.aws/credentials", "../other/notes.txt"} {
					ask := policyCase{Src: name, Tool: "Bash", Cmd: strings.ReplaceAll(form, "%F", out), Allow: allow}
					if f := judgeEveryMode(t, ask, Ask); f != "" {
						t.Errorf("%s under %v: %s", ask.Cmd, allow, f)
					}
				}
			}
		}
	}
	if n < 100 {
		t.Fatalf("only %d forms judged", n)
	}
}

// TestOptionFileReadsJudgeCanFail: the judge of the property above fails
// a read the policy allows (a file in the workspace, no rule), and the
// read-only forms are allowed then: the property is not vacuous.
func TestOptionFileReadsJudgeCanFail(t *testing.T) {
	for _, cmd := range []string{"git ls-files --exclude-from=notes.txt -o", "git blame --contents notes.txt x", "strings @notes.txt", "git grep -f notes.txt"} {
		c := policyCase{Src: "control", Tool: "Bash", Cmd: cmd}
		if f := judgeEveryMode(t, c, Ask); f == "" {
			t.Errorf("%s: the judge found nothing to fail in the workspace", cmd)
		}
		if f := judgeEveryMode(t, c, Deny); f == "" {
			t.Errorf("%s: denied with no rule", cmd)
		}
	}
}

// moveForms: every declared way a program moves, renames or links a
// place, with %S for the place: as the source, as the destination, as a
// target directory option's value.
func moveForms(t *testing.T) map[string][]string {
	t.Helper()
	loadPrograms()
	forms := map[string][]string{}
	seen := map[*progDecl]bool{}
	for _, ds := range programs {
		for _, d := range ds {
			if seen[d] {
				continue
			}
			seen[d] = true
			var pre []string
			if d.moves {
				pre = append(pre, d.name)
			}
			for _, o := range d.editsAllWith {
				pre = append(pre, d.name+" "+o)
			}
			for _, p := range pre {
				forms[d.name] = append(forms[d.name], p+" %S public", p+" public %S")
				for _, o := range d.targetOpts {
					forms[d.name] = append(forms[d.name], p+" "+o+" public %S", p+" "+o+" %S public")
				}
			}
		}
	}
	return forms
}

// TestMovingAReadDeniedPlaceIsDenied is the property of red team 16
// finding 7: every program that moves a tree (mv, git mv, ln, rename,
// rsync --remove-source-files, tar --remove-files, zip -m), the place in
// every spelling (itself, ./, a trailing /, absolute, and a parent the
// rule's match runs through by name), with no allow rule and under
// Bash(PROGRAM *), is denied in every mode.
func TestMovingAReadDeniedPlaceIsDenied(t *testing.T) {
	forms := moveForms(t)
	for _, want := range []string{"mv", "git mv", "ln", "rename", "rsync", "tar", "zip"} {
		if len(forms[want]) == 0 {
			t.Fatalf("no move form declared for %s", want)
		}
	}
	places := []struct {
		rule  string
		spell []string
	}{
		{"Read(secrets/**)", []string{"secrets", "./secrets", "secrets/", "/w/proj/secrets", "sub/../secrets", "lib/secrets"}},
		{"Read(/secrets/**)", []string{"secrets", "./secrets/", "/w/proj", "../proj", "/w"}},
		{"Read(~/.ssh/**)", []string{"~/.ssh", "/home/u/.ssh/", "~", "/home/u", "/home"}},
		{"Read(sub/.env)", []string{"sub", "./sub/", "sub/.env"}},
		{"Read(config/*.key)", []string{"config", "config/"}},
		{"Read(//etc/ssl/private/*.pem)", []string{"/etc/ssl/private", "/etc/ssl", "/etc"}},
	}
	n := 0
	for name, fs := range forms {
		for _, form := range fs {
			for _, p := range places {
				for _, s := range p.spell {
					for _, allow := range [][]string{nil, {"Bash(" + name + " *)"}} {
						n++
						c := policyCase{Src: name, Tool: "Bash", Cmd: strings.ReplaceAll(form, "%S", s), Allow: allow, Deny: []string{p.rule}}
						if f := judgeEveryMode(t, c, Deny); f != "" {
							t.Errorf("%s under %v, %s denied: %s", c.Cmd, allow, p.rule, f)
						}
					}
				}
			}
		}
	}
	if n < 500 {
		t.Fatalf("only %d moves judged", n)
	}
}

// TestMovingOtherPlacesIsNotDenied: the controls. A place no rule's match
// runs through by name is not denied (and mv of it is allowed under
// Bash(mv *)): a parent of a place an any-depth rule names keeps the
// rule's match when moved (src/secrets/key moved to lib/secrets/key is
// still secrets/**).
func TestMovingOtherPlacesIsNotDenied(t *testing.T) {
	for _, c := range []struct{ rule, cmd string }{
		{"Read(secrets/**)", "mv docs manual"},
		{"Read(secrets/**)", "mv src lib"},
		{"Read(.env)", "mv src lib"},
		{"Read(config/*.key)", "mv config/a.txt config/b.txt"},
		{"Read(~/.ssh/**)", "mv ~/notes ~/old-notes"},
	} {
		pc := policyCase{Src: "control", Tool: "Bash", Cmd: c.cmd, Allow: []string{"Bash(mv *)"}, Deny: []string{c.rule}}
		if v := Evaluate(pc.input(t)); v.Decision != Allow {
			t.Errorf("%s under %s: %s (%s), want allow", c.cmd, c.rule, v.Decision, v.Reason)
		}
		if f := judgeEveryMode(t, pc, Deny); f == "" {
			t.Errorf("%s under %s: denied in every mode", c.cmd, c.rule)
		}
	}
}

// TestJqModuleDoubts: what the reader of jq's header cannot resolve asks
// (never allowed, in every mode but bypass); the controls stay allowed.
func TestJqModuleDoubts(t *testing.T) {
	for _, c := range []struct {
		cmd  string
		want Decision
	}{
		{`jq -f prog.jq data.json`, Ask},
		{`jq --from-file prog.jq data.json`, Ask},
		{`jq -n -L lib 'include "x"; 1'`, Ask},
		{`jq -n -L lib 'import "x" as x; x::f'`, Ask},
		{"jq -n -L lib '# c \\\nimport \"x\" as $x; $x'", Ask},
		{`jq -n -L lib '1 as $a | import "x" as $x; $x'`, Ask},
		{`jq -n -L lib 'import "x" as $x {search: "\(env.D)"}; $x'`, Ask},
		{`jq -n -L lib 'import "x" as $x {search: $__prog}; $x'`, Ask},
		{`jq -n 'import "x" as $x; $x'`, Ask}, // ~/.jq/x.json: outside the workspace
		{`jq -n -L lib 'import "../../etc/x" as $x; $x'`, Ask},
		{`jq "$f" x.json`, Ask},
		{`jq '.a | "import"' f.json`, Ask}, // a word past the header: doubt, never allowed
		{`jq -n -L lib 'import "x" as $x; $x'`, Allow},
		{`jq -n -L lib 'module {a: 1}; import "x" as $x {search: ["./data", "lib"], b: true}; $x'`, Allow},
		{`jq -r .x f.json`, Allow},
		{`jq -n --arg k v '$k'`, Allow},
	} {
		pc := policyCase{Src: "jq", Tool: "Bash", Cmd: c.cmd}
		if c.want == Allow {
			if v := Evaluate(pc.input(t)); v.Decision != Allow {
				t.Errorf("%s: %s (%s), want allow", c.cmd, v.Decision, v.Reason)
			}
			continue
		}
		if f := judgeEveryMode(t, pc, c.want); f != "" {
			t.Errorf("%s: %s", c.cmd, f)
		}
	}
}

// TestOptionReadNamedByTheRule: a file read outside the workspace through
// an option is allowed by a rule that names the option, by Bash, and by
// an allow Read rule for the file; not by a prefix rule.
func TestOptionReadNamedByTheRule(t *testing.T) {
	for _, c := range []struct {
		allow []string
		want  Decision
	}{
		{[]string{"Bash(go test *)"}, Ask},
		{[]string{"Bash(go test -overlay=*)"}, Allow},
		{[]string{"Bash"}, Allow},
		{[]string{"Bash(go test *)", "Read(//etc/x)"}, Allow},
	} {
		pc := policyCase{Src: "go", Tool: "Bash", Cmd: "go test -overlay=/etc/x ./...", Allow: c.allow}
		if v := Evaluate(pc.input(t)); v.Decision != c.want {
			t.Errorf("under %v: %s (%s), want %s", c.allow, v.Decision, v.Reason, c.want)
		}
	}
}

// TestMovingAPlaceKnownAtRunTime: a moved place named by a glob that could
// match a name a Read rule holds, a brace or a variable is doubt while the
// rule exists: never allowed, in every mode, bypass included (or a
// breaker's ask). A glob that cannot name a place a rule runs through
// stays allowed under Bash(mv *).
func TestMovingAPlaceKnownAtRunTime(t *testing.T) {
	for _, cmd := range []string{"mv sec* pub", "mv se?rets pub", "mv s*/ pub", "mv {secrets,x} pub", `mv "$D" pub`,
		"git mv sec* pub", "ln -s sec* pub", "rename s/a/b/ sec*", "rsync -a --remove-source-files sec* pub/"} {
		for _, m := range adversarialModes {
			prog := strings.Fields(cmd)[0]
			if prog == "git" {
				prog = "git mv"
			}
			pc := policyCase{Src: "glob", Tool: "Bash", Cmd: cmd, Allow: []string{"Bash(" + prog + " *)"}, Deny: []string{"Read(secrets/**)"}}
			in := pc.input(t)
			in.Mode, in.AgentBypass = m.mode, m.agentBypass
			if v := Evaluate(in); v.Decision == Allow {
				t.Errorf("%s in %s: allowed (%s)", cmd, m.name, v.Reason)
			}
		}
	}
	for _, cmd := range []string{"mv src/*.go lib/", "mv docs/*.md manual/"} {
		pc := policyCase{Src: "glob", Tool: "Bash", Cmd: cmd, Allow: []string{"Bash(mv *)"}, Deny: []string{"Read(secrets/**)"}}
		if v := Evaluate(pc.input(t)); v.Decision != Allow {
			t.Errorf("%s: %s (%s), want allow", cmd, v.Decision, v.Reason)
		}
	}
}

// TestGitConfigFileKeysAreReads: every configuration key whose value is a
// file git reads, set with -c (in any case, under a section with a
// subsection), is a read: a Read-denied file is denied in every mode, one
// outside the workspace is never allowed without asking, under Bash(git
// *) too.
func TestGitConfigFileKeysAreReads(t *testing.T) {
	keys := make([]string, 0, len(gitFileKeys))
	for k := range gitFileKeys {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		for _, spell := range []string{"x." + k, "X." + strings.ToUpper(k), "http.https://example.com." + k} {
			for _, allow := range [][]string{nil, {"Bash(git *)"}} {
				deny := policyCase{Src: "git -c", Tool: "Bash", Cmd: "git -c " + spell + "=secrets/key log", Allow: allow, Deny: []string{"Read(secrets/**)"}}
				if f := judgeEveryMode(t, deny, Deny); f != "" {
					t.Errorf("%s under %v: %s", deny.Cmd, allow, f)
				}
				ask := policyCase{Src: "git -c", Tool: "Bash", Cmd: "git -c " + spell + "=/home/u/.aws/credentials log", Allow: allow}
				if f := judgeEveryMode(t, ask, Ask); f != "" {
					t.Errorf("%s under %v: %s", ask.Cmd, allow, f)
				}
			}
		}
	}
	// control: a key that names no file stays allowed under Bash(git *).
	pc := policyCase{Src: "git -c", Tool: "Bash", Cmd: "git -c user.name=/home/u/x log", Allow: []string{"Bash(git *)"}}
	if v := Evaluate(pc.input(t)); v.Decision != Allow {
		t.Errorf("%s: %s (%s), want allow", pc.Cmd, v.Decision, v.Reason)
	}
}

// TestRenameStillProbesItsCode: declaring rename (a move) keeps what the
// reader did for it as an unknown program: perl's rename runs its
// expression as code, and a command in it meets the deny rules in every
// mode, bypass included.
func TestRenameStillProbesItsCode(t *testing.T) {
	for _, cmd := range []string{`rename 's/x/y/; system("rm -rf /home/u")' f`, `prename -e 'system("rm -rf x")' f`} {
		pc := policyCase{Src: "rename", Tool: "Bash", Cmd: cmd, Allow: []string{"Bash(rename *)", "Bash(prename *)"}, Deny: []string{"Bash(rm *)"}}
		if f := judgeEveryMode(t, pc, Ask); f != "" {
			t.Errorf("%s: %s", cmd, f)
		}
		for _, m := range []Mode{ModeBypass} {
			in := pc.input(t)
			in.Mode = m
			if v := Evaluate(in); v.Decision == Allow {
				t.Errorf("%s in %s: allowed (%s)", cmd, m, v.Reason)
			}
		}
	}
}
