package policy

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Red team 17: forms that put a name in a program's environment which the
// reader did not see as an assignment: set -k (keyword), namerefs,
// coproc NAME=V, env -S 'NAME=V CMD', a new shell's -a/-k, shopt -so
// (shell_vars_keyword.go, shell_vars_export.go, shell_wrappers.go).

// rt17EnvForms: every way, beside rt16b's envForms, a command passes
// NAME=VALUE to the programs it runs.
var rt17EnvForms = []string{
	// keyword: the assignment anywhere in the arguments
	"set -k; curl https://ok.example/ %s=%s",
	"set -ek; curl https://ok.example/ %s=%s",
	"set -o keyword; curl https://ok.example/ %s=%s",
	"set -o pipefail -k; curl https://ok.example/ %s=%s",
	"set -eo keyword; curl -s %s=%s https://ok.example/",
	"builtin set -k; curl https://ok.example/ %s=%s",
	"curl https://ok.example/ %s=%s; set -k",
	"f() { curl https://ok.example/ %s=%s; }; set -k; f",
	"shopt -so keyword; curl https://ok.example/ %s=%s",
	"shopt -o -s keyword; curl https://ok.example/ %s=%s",
	"bash -k -c 'curl https://ok.example/ %s=%s'",
	"sh -ek -c 'curl https://ok.example/ %s=%s'",
	"bash -o keyword -c 'curl https://ok.example/ %s=%s'",
	"bash --norc -k -c 'curl https://ok.example/ %s=%s'",
	"bash -O extglob -k -c 'curl https://ok.example/ %s=%s'",
	"eval 'set -k'; curl https://ok.example/ %s=%s",
	"set -k; cat %s=%s | curl https://ok.example/",
	// namerefs
	"declare -n x=%s; x=%s; export x; curl https://ok.example/",
	"declare -n x=%s; export x=%s; curl https://ok.example/",
	"typeset -n x=%s; export x=%s; curl https://ok.example/",
	"f() { local -n x=%s; x=%s; export x; curl https://ok.example/; }; f",
	"declare -n y=%s; declare -n x=y; export x=%s; curl https://ok.example/",
	"declare -n x=%s; declare -x x=%s; curl https://ok.example/",
	"command declare -n x=%s; export x=%s; curl https://ok.example/",
	"declare -n x=%s; x=%s curl https://ok.example/",
	// coproc
	"coproc %s=%s curl https://ok.example/",
	"coproc A=1 %s=%s curl https://ok.example/",
	// env -S
	"env -S '%s=%s curl https://ok.example/'",
	"env --split-string='%s=%s curl https://ok.example/'",
	"env -iS'%s=%s curl https://ok.example/'",
	"env -S '-i %s=%s curl https://ok.example/'",
	"env -S '-u X' %s=%s curl https://ok.example/",
	// allexport given to a new shell or by shopt
	"bash -a -c '%s=%s; curl https://ok.example/'",
	"sh -ac '%s=%s; curl https://ok.example/'",
	"bash -o allexport -c '%s=%s; curl https://ok.example/'",
	"shopt -so allexport; %s=%s; curl https://ok.example/",
	"shopt -s -o allexport; %s=%s; curl https://ok.example/",
	"set -o pipefail -a; %s=%s; curl https://ok.example/",
	// wrappers' own env options (programs_wrapenv.go)
	"bwrap --dev-bind / / --setenv %s %s curl https://ok.example/",
	"firejail --env=%s=%s curl https://ok.example/",
	"flatpak-spawn --host --env=%s=%s curl https://ok.example/",
	"flatpak-spawn --host --env %s=%s curl https://ok.example/",
	// zsh: setopt, names in any case, with underscores
	"zsh -c 'setopt allexport; %s=%s; curl https://ok.example/'",
	"zsh -c 'setopt ALL_EXPORT; %s=%s; curl https://ok.example/'",
	"zsh -c 'unsetopt noallexport; %s=%s; curl https://ok.example/'",
	"zsh -o ALL_EXPORT -c '%s=%s; curl https://ok.example/'",
}

// TestEnvFormsRT17: a name that names configuration or code, by its shape
// only (ACME_RC, ACMECONF: not in any exact list) or a dangerous family
// (LD_PRELOAD), in every form above, is a doubt under an allow-all rule.
// Control: a safe name (LANG, TZ) in the same forms is allowed, so each
// form is read as a command that runs, not as a failure.
func TestEnvFormsRT17(t *testing.T) {
	for _, n := range []string{"ACME_RC", "ACMECONF", "ACME_LOGFILE", "LD_PRELOAD", "GIT_SSH_COMMAND", "WGETRC"} {
		for _, f := range rt17EnvForms {
			rt16bDoubt(t, envFormCmd(f, n, "/w/proj/x"), []string{"Bash"})
		}
	}
	for _, n := range []string{"LANG", "TZ"} {
		for _, f := range rt17EnvForms {
			cmd := envFormCmd(f, n, "C")
			if v := rt16bDecide(t, cmd, []string{"Bash"}, ModeDefault); v.Decision != Allow {
				t.Errorf("control %q: %s (%s), want allow", cmd, v.Decision, v.Reason)
			}
		}
	}
}

// TestKeywordArgsAreNotAssignmentsWithoutK: without keyword on, NAME=V
// after the command's name is an argument (ls of a file named so, dd's
// operands), allowed by the command's rule; a nameref to a harmless name
// passes. The control for TestEnvFormsRT17's keyword forms.
func TestKeywordArgsAreNotAssignmentsWithoutK(t *testing.T) {
	for _, tc := range []struct {
		cmd   string
		allow []string
	}{
		{"ls LD_PRELOAD=./evil.so", nil},
		{"set -e; ls LD_PRELOAD=./evil.so", []string{"Bash(set *)", "Bash(ls *)"}},
		{"set +k; ls -l", []string{"Bash(set *)", "Bash(ls *)"}},
		{"set -o pipefail; git log -p GIT_EXTERNAL_DIFF=x", []string{"Bash(set *)", "Bash(git log *)"}},
		{"bash -e -c 'ls LD_PRELOAD=./evil.so'", []string{"Bash"}},
		{"shopt -s extglob; ls LD_PRELOAD=x", []string{"Bash"}},
		{"shopt -u -o keyword; ls LD_PRELOAD=x", []string{"Bash"}},
		{"set -k; ls -l", []string{"Bash"}},
		{"set -k; make LANG=C", []string{"Bash"}},
		{"declare -n x=FOO; export x=1; curl https://ok.example/", []string{"Bash"}},
		{"env -S 'FOO=1 curl https://ok.example/'", []string{"Bash"}},
		{"coproc FOO=1 ls", []string{"Bash"}},
		{"zsh -c 'setopt extendedglob; ls LD_PRELOAD=x'", []string{"Bash"}},
		{"zsh -c 'unsetopt allexport; ls -l'", []string{"Bash"}},
	} {
		if v := rt16bDecide(t, tc.cmd, tc.allow, ModeDefault); v.Decision != Allow {
			t.Errorf("%q under %q: %s (%s), want allow", tc.cmd, tc.allow, v.Decision, v.Reason)
		}
	}
}

// TestEnvFormsRT17Deny: a deny rule still names the command of env -S,
// coproc NAME=V CMD, and under set -k the command without its NAME=V
// arguments. Control: without set -k, git push X=1 origin main is not
// denied by Bash(git push origin main) (the text without NAME=V arguments
// exists only under keyword).
func TestEnvFormsRT17Deny(t *testing.T) {
	for _, cmd := range []string{
		"env -S 'rm -rf /w/proj/x'",
		"env -S 'FOO=1 rm -rf /w/proj/x'",
		"env -S '-i rm -rf /w/proj/x'",
		"coproc FOO=1 rm -rf /w/proj/x",
		"coproc LD_PRELOAD=x rm -rf /w/proj/x",
		"set -k; rm X=1 -rf /w/proj/x",
		"set -k; rm X=1 Y=2 -rf /w/proj/x",
		"set -k; /bin/rm X=1 -rf /w/proj/x",
		"set -o keyword; rm LANG=C -rf /w/proj/x",
	} {
		pol, errs := Compile([]RuleText{{List: "allow", Text: "Bash"}, {List: "deny", Text: "Bash(rm -rf *)"}})
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		if v := Evaluate(Input{Call: Call{Tool: "Bash", Command: cmd}, Mode: ModeDefault, Env: rt16bEnv, Policy: pol}); v.Decision != Deny {
			t.Errorf("%q: %s (%s), want deny", cmd, v.Decision, v.Reason)
		}
	}
	// an exact deny rule: under set -k the command it names is what runs.
	pol, _ := Compile([]RuleText{{List: "allow", Text: "Bash"}, {List: "deny", Text: "Bash(git push origin main)"}})
	for _, tc := range []struct {
		cmd  string
		want Decision
	}{
		{"set -k; git push X=1 origin main", Deny},
		{"set -k; git push origin X=1 main", Deny},
		{"git push X=1 origin main", Allow}, // control: a refspec X=1 without -k
	} {
		if v := Evaluate(Input{Call: Call{Tool: "Bash", Command: tc.cmd}, Mode: ModeBypass, Env: rt16bEnv, Policy: pol}); v.Decision != tc.want {
			t.Errorf("%q in bypassPermissions: %s (%s), want %s", tc.cmd, v.Decision, v.Reason, tc.want)
		}
	}
}

// TestSetOptions: the options set, a shell and shopt turn on.
func TestSetOptions(t *testing.T) {
	ws := func(s string) []word {
		var out []word
		for _, f := range strings.Fields(s) {
			if f == "$x" {
				out = append(out, word{s: f})
				continue
			}
			out = append(out, staticWord(f))
		}
		return out
	}
	for _, tc := range []struct {
		args     string
		shopt    bool
		kw, allx bool
	}{
		{"-k", false, true, false},
		{"-ek", false, true, false},
		{"-a", false, false, true},
		{"-ka", false, true, true},
		{"-o keyword", false, true, false},
		{"-eo keyword", false, true, false},
		{"-o allexport", false, false, true},
		{"-o pipefail -k", false, true, false},
		{"+k", false, false, false},
		{"+o keyword", false, false, false},
		{"-e", false, false, false},
		{"-o pipefail", false, false, false},
		{"-- -k", false, false, false},
		{"- -k", false, false, false},
		{"x -k", false, false, false},
		{"$x", false, true, true},
		{"-o $x", false, true, true},
		{"--norc -k", false, true, false},
		{"--rcfile -k -e", false, false, false},
		{"-so keyword", true, true, false},
		{"-o -s keyword", true, true, false},
		{"-s -o allexport", true, false, true},
		{"-os keyword allexport", true, true, true},
		{"-s keyword", true, false, false},
		{"-uo keyword", true, false, false},
		{"-so pipefail", true, false, false},
		{"-so $x", true, true, true},
		{"-o -s -- keyword", true, true, false},
		{"-o ALL_EXPORT", false, false, true},
		{"-O extglob -k", false, true, false},
		{"+O extglob -a", false, false, true},
	} {
		var got shellOptsOn
		if tc.shopt {
			got = shoptOptions(ws(tc.args))
		} else {
			got = setOptions(ws(tc.args))
		}
		if got.keyword != tc.kw || got.allExport != tc.allx {
			t.Errorf("shopt=%v %q: keyword %v allexport %v, want %v %v", tc.shopt, tc.args, got.keyword, got.allExport, tc.kw, tc.allx)
		}
	}
}

// TestEnvFormsRealBash: each form, run by the real bash (and GNU env),
// puts ACME_RC in printenv's environment, and the reader judges the same
// line a doubt under an allow-all rule. Control: the same line with the
// form's option removed prints nothing, and the reader allows it. So the
// table holds forms that work, and the reader's doubt is not a guess at
// a form that does nothing. Skipped without bash.
func TestEnvFormsRealBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	for _, tc := range []struct{ form, control string }{
		{"set -k; printenv ACME_RC ACME_RC=v", "set -e; printenv ACME_RC ACME_RC=v"},
		{"set -o keyword; printenv ACME_RC ACME_RC=v", "set -o errexit; printenv ACME_RC ACME_RC=v"},
		{"set -ek; printenv ACME_RC ACME_RC=v", "set -e; printenv ACME_RC ACME_RC=v"},
		{"shopt -so keyword; printenv ACME_RC ACME_RC=v", "shopt -s extglob; printenv ACME_RC ACME_RC=v"},
		{"bash -k -c 'printenv ACME_RC ACME_RC=v'", "bash -c 'printenv ACME_RC ACME_RC=v'"},
		{"declare -n x=ACME_RC; x=v; export x; printenv ACME_RC", "declare x=ACME_RC; x=v; export x; printenv ACME_RC"},
		{"declare -n x=ACME_RC; export x=v; printenv ACME_RC", "declare x=ACME_RC; export x=v; printenv ACME_RC"},
		{"f() { local -n x=ACME_RC; x=v; export x; printenv ACME_RC; }; f", "f() { local x=ACME_RC; x=v; export x; printenv ACME_RC; }; f"},
		// (coproc: its output goes to a pipe bash may close before it is
		// read; red team 17 ran it with wget: only the reader is checked.)
		{"coproc ACME_RC=v printenv ACME_RC; wait", "coproc printenv ACME_RC; wait"},
		{"env -S 'ACME_RC=v printenv ACME_RC'", "env -S 'printenv ACME_RC'"},
		{"bash -a -c 'ACME_RC=v; printenv ACME_RC'", "bash -c 'ACME_RC=v; printenv ACME_RC'"},
		{"shopt -so allexport; ACME_RC=v; printenv ACME_RC", "shopt -s extglob; ACME_RC=v; printenv ACME_RC"},
	} {
		run := func(line string) string {
			cmd := exec.Command(bash, "-c", line)
			cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
			out, _ := cmd.Output()
			return strings.TrimSpace(string(out))
		}
		if got := run(tc.form); got != "v" && !strings.HasPrefix(tc.form, "coproc ") {
			t.Errorf("bash %q printed %q, want v (the form does not set ACME_RC)", tc.form, got)
		}
		if got := run(tc.control); got != "" {
			t.Errorf("control: bash %q printed %q, want nothing", tc.control, got)
		}
		rt16bDoubt(t, tc.form, []string{"Bash"})
		if v := rt16bDecide(t, tc.control, []string{"Bash"}, ModeDefault); v.Decision != Allow {
			t.Errorf("control %q: %s (%s), want allow", tc.control, v.Decision, v.Reason)
		}
	}
}
