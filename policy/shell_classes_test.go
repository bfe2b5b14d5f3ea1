package policy

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Damage attempts on a temp tree: each command really runs the payload
// under bash (the marker file appears), and the engine does not allow it
// under a broad allow rule in bypass mode.
func TestRuntimeCodeAttacksAreRealAndAsked(t *testing.T) {
	if _, err := os.Stat("/bin/bash"); err != nil {
		t.Skip("no /bin/bash")
	}
	const pay = `a[$(touch PWNED)]`
	cases := []string{
		"x='" + pay + "'; echo $((x))",
		"x='" + pay + "'; echo $(( $x ))",
		"x='" + pay + "'; echo $[x]",
		"x='" + pay + "'; (( x ))",
		"x='" + pay + "'; let x",
		"x='" + pay + "'; let 'y = x + 1'",
		"x='" + pay + "'; [[ $x -eq 0 ]]",
		"x='" + pay + "'; test -v \"$x\"",
		"x='" + pay + "'; [ -v \"$x\" ]",
		"x='" + pay + "'; printf -v \"$x\" %s 1",
		"x='" + pay + "'; declare -n r=\"$x\"; echo $r",
		"x='" + pay + "'; read \"$x\" <<< 1",
		"x='" + pay + "'; a=(1); echo ${a[x]}",
		"x='" + pay + "'; z=abc; echo ${z:x}",
		"x='" + pay + "'; y=x; echo ${!x}",
		"x='$(touch PWNED)'; echo ${x@P}",
		"x='" + pay + "'; declare -i n; n=x",
		"x='" + pay + "'; for ((i=x; i<1; i++)); do :; done",
		"a=(1); x='" + pay + "'; unset \"$x\"",
		"x='" + pay + "'; declare \"$x=1\"",
		"echo '" + pay + "' > n; echo $(( $(cat n) ))",
		"echo '" + pay + "' > n; read v < n; echo $((v))",
		"GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0='touch PWNED; cat' git -c core.pager= log -1 >/dev/null 2>&1; git init -q . && git -c user.email=a@b -c user.name=a commit -q --allow-empty -m x && GIT_PAGER='touch PWNED; cat' git -p log -1 >/dev/null",
		"F=PWNED; : > $F",
		"echo 'touch PWNED' | bash",
		// (sed's `1e CMD` and awk's system("CMD") with a literal CMD are not
		// here: CMD is read as shell code, shell_scripts.go, and a plain
		// `touch` is what the allow rule Bash allows.)
		"sed -n '1e'\"$(printf 'touch PWNED')\" <<< x",
		"python3 -c 'open(\"PWNED\",\"w\")'",
		"c='touch PWNED'; awk -v c=\"$c\" 'BEGIN{system(c)}'",
	}
	pol, errs := Compile([]RuleText{{List: "allow", Text: "Bash"}, {List: "deny", Text: "Bash(rm *)"}})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	for _, cmd := range cases {
		dir := t.TempDir()
		c := exec.Command("/bin/bash", "-c", cmd)
		c.Dir = dir
		c.Env = append(os.Environ(), "HOME="+dir, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
		_ = c.Run()
		_, err := os.Stat(filepath.Join(dir, "PWNED"))
		if err != nil && !strings.Contains(cmd, "python3") && !strings.Contains(cmd, "git") {
			t.Errorf("%q: the payload did not run under bash (the case proves nothing)", cmd)
		}
		for _, mode := range []Mode{ModeBypass, ModeDefault, ModeDontAsk, ModePlan} {
			v := Evaluate(Input{Call: Call{Tool: "Bash", Command: cmd}, Mode: mode, Env: Env{Cwd: dir, ProjectRoot: dir, Home: dir}, Policy: pol})
			if v.Decision == Allow {
				t.Errorf("%q allowed in %s: %s", cmd, mode, v.Reason)
			}
			if (mode == ModeDontAsk || mode == ModePlan) && v.Decision != Deny {
				t.Errorf("%q in %s: %s, want deny", cmd, mode, v.Decision)
			}
		}
	}
}

// Ordinary commands keep their verdicts: the classes above must not turn
// every command into a question.
func TestOrdinaryCommandsStayAllowed(t *testing.T) {
	cases := []struct {
		cmd   string
		allow []string
		mode  Mode
	}{
		{"ls -la", nil, ModeDefault},
		{"for f in *.go; do wc -l \"$f\"; done", nil, ModeBypass},
		{"find . -name '*.go' -exec grep -l TODO {} \\;", nil, ModeDefault},
		{"n=0; for i in 1 2 3; do n=$((n+i)); done; echo $n", nil, ModeDefault},
		{"for ((i=0; i<3; i++)); do echo $i; done", nil, ModeDefault},
		{"echo $(( 1 + 2 )) ${#PATH} $#", nil, ModeDefault},
		{"[[ $# -eq 0 ]] && echo none", nil, ModeDefault},
		{"printf '%s\\n' \"$x\"", nil, ModeDefault},
		{"read -r line < go.mod; echo \"$line\"", []string{"Bash(read *)"}, ModeDefault},
		{"LANG=C sort go.mod", nil, ModeDefault},
		{"TZ=UTC LC_ALL=C date", nil, ModeDefault},
		{"CGO_ENABLED=0 go build ./...", []string{"Bash(go build *)"}, ModeDefault},
		{"NODE_ENV=test npm test", []string{"Bash(npm test)"}, ModeDefault},
		{"DEBUG=1 npm test", []string{"Bash(DEBUG=1 npm test)", "Bash(npm test)"}, ModeDefault},
		{"DEBUG=1 npm test", nil, ModeBypass},
		{"export FOO=bar && npm test", nil, ModeBypass},
		{"x=1; echo $x", nil, ModeDefault},
		{"while IFS= read -r line; do echo \"$line\"; done < go.mod", nil, ModeBypass},
		{"IFS=, read -ra parts <<< \"a,b\"; echo \"${parts[@]}\"", nil, ModeBypass},
		{"cd src && ls", nil, ModeDefault},
		{"sed -n '1,10p' go.mod", []string{"Bash(sed *)"}, ModeDefault},
		{"sed -e 's/a/b/g;s/c/d/' -e '/x/d' go.mod", []string{"Bash(sed *)"}, ModeDefault},
		{"awk '{print $1}' go.mod", []string{"Bash(awk *)"}, ModeDefault},
		{"python3 -m pytest -q", []string{"Bash(python3 *)"}, ModeDefault},
		{"python3 script.py", nil, ModeBypass},
		{"node --version", []string{"Bash(node *)"}, ModeDefault},
		{"sudo -u www apt-get update", []string{"Bash(sudo *)"}, ModeDefault},
		{"env -i LANG=C ls", nil, ModeDefault},
		{"i=0; (( i++ )); echo ${a[i]} ${a[@]} ${!a[@]} ${x:1:2}", nil, ModeDefault},
		{"sed -i.bak 's|a|b|' go.mod", []string{"Bash(sed -i*)"}, ModeDefault}, // a prefix rule must name -i (class 7)
		{"git config --get core.pager", nil, ModeDefault},
		{"git config --get user.name", nil, ModeBypass}, // a write of .git/config asks: a protected file
		{"ssh host ls", nil, ModeBypass},
		{"rsync -av src/ dst/", nil, ModeBypass},
		{"tar -czf a.tgz src", nil, ModeBypass},
		{"bash -c 'ls && echo ok'", nil, ModeDefault},
		{"bash script.sh", nil, ModeBypass},
		{"bash <<'EOF'\nls\nEOF", nil, ModeDefault},
		{"export X", nil, ModeDefault},
		{"find . -name '*.o' | xargs ls -l", nil, ModeDefault},
		{"timeout -s KILL 5 ls", nil, ModeDefault},
		{"sudo -iu root ls", []string{"Bash(sudo *)"}, ModeDefault},
	}
	for _, tc := range cases {
		var rules []RuleText
		for _, r := range tc.allow {
			rules = append(rules, RuleText{List: "allow", Text: r})
		}
		pol, errs := Compile(rules)
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		v := Evaluate(Input{Call: Call{Tool: "Bash", Command: tc.cmd}, Mode: tc.mode, Env: fuzzEnv, Policy: pol})
		if v.Decision != Allow {
			t.Errorf("%q in %s with %q: %s (%s: %s), want allow", tc.cmd, tc.mode, tc.allow, v.Decision, v.Source, v.Reason)
		}
	}
}

// Environment names in three tiers (shell_env.go).
func TestEnvTiers(t *testing.T) {
	for _, n := range []string{"LANG", "LC_ALL", "LC_CTYPE", "TZ", "NO_COLOR", "TERM", "COLUMNS", "CI", "FORCE_COLOR"} {
		if !envSafe(n) || envDangerous(n) {
			t.Errorf("%s: want safe", n)
		}
	}
	for _, n := range []string{"PATH", "LD_PRELOAD", "LD_LIBRARY_PATH", "DYLD_INSERT_LIBRARIES", "GIT_SSH_COMMAND",
		"GIT_CONFIG_COUNT", "GIT_EXTERNAL_DIFF", "PAGER", "EDITOR", "VISUAL", "NODE_OPTIONS", "PYTHONSTARTUP",
		"PYTHONPATH", "PERL5OPT", "RUBYOPT", "BASH_ENV", "ENV", "PROMPT_COMMAND", "IFS", "SHELLOPTS", "BASHOPTS",
		"PS4", "LESSOPEN", "MANPAGER", "HOME", "PWD", "CDPATH", "npm_config_script_shell", "JAVA_TOOL_OPTIONS",
		"RUSTC_WRAPPER", "GOFLAGS", "XDG_CONFIG_HOME", "KUBECONFIG"} {
		if !envDangerous(n) {
			t.Errorf("%s: want dangerous", n)
		}
	}
	for _, n := range []string{"x", "i", "line", "FOO", "DEBUG", "OUT", "count"} {
		if envSafe(n) || shellVarDangerous(n) {
			t.Errorf("%s: want a plain variable (neither safe for the environment nor dangerous in the shell)", n)
		}
	}
}

func TestSedScriptRisk(t *testing.T) {
	for script, risky := range map[string]bool{
		"s/a/b/": false, "s/a/b/g": false, "1,10p": false, "/x/d": false, "s|a|b|gI": false, "y/abc/xyz/": false,
		"1!G;h;$!d": false, "/start/,/end/{s/a/b/;p}": false, "$a\\\nfoo": false, ":a;N;$!ba;s/\\n/ /g": false,
		"s/e/w/": false, "s/a\\/e/b/g": false, "\\,x,d": false, "10q": false,
		"e": true, "1e id": true, "s/x/y/e": true, "s/x/y/ge": true, "w out": true, "s/a/b/w out": true,
		"/x/{e date\n}": true, "r /etc/passwd": true, "R f": true, "W f": true, "1!G;h;$!d;e": true,
		"s/a/b": true, "k": true,
	} {
		if got := sedScriptRisk(script) != ""; got != risky {
			t.Errorf("sed %q: risky %v, want %v (%s)", script, got, risky, sedScriptRisk(script))
		}
	}
}

func TestParseOpts(t *testing.T) {
	spec := optSpec{short: "ugC", long: []string{"user", "chdir"}}
	ws := func(s ...string) []word {
		out := make([]word, len(s))
		for i, x := range s {
			out[i] = staticWord(x)
		}
		return out
	}
	for _, tc := range []struct {
		args []string
		user string
		rest string
	}{
		{[]string{"-iu", "root", "rm", "x"}, "root", "rm x"},
		{[]string{"-sHu", "u", "rm"}, "u", "rm"},
		{[]string{"-uroot", "rm"}, "root", "rm"},
		{[]string{"--user=x", "--", "rm"}, "x", "rm"},
		{[]string{"--user", "x", "rm", "-u", "y"}, "x", "rm -u y"},
		{[]string{"-E", "-H", "rm"}, "", "rm"},
		{[]string{"--", "-u", "rm"}, "", "-u rm"},
	} {
		opts, rest, ok := parseOpts(ws(tc.args...), spec)
		if !ok {
			t.Fatalf("%q: not ok", tc.args)
		}
		u, _ := findOpt(opts, "-u", "--user")
		var r []string
		for _, w := range rest {
			r = append(r, w.s)
		}
		if u.s != tc.user || strings.Join(r, " ") != tc.rest {
			t.Errorf("%q: user %q rest %q, want %q %q", tc.args, u.s, r, tc.user, tc.rest)
		}
	}
}
