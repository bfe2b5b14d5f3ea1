package policy

import "testing"

// Red team 17b: assignments the reader did not see: assign-default
// expansions (${X:=V}, ${X=V}) in any word, and read (mapfile, printf -v)
// with a prefix assignment (IFS= read -r X). shell_vars.go, collectVars.

// rt17bAssignForms: forms (envFormCmd's) that assign NAME=VALUE and pass it
// to the program that follows (export, set -a).
var rt17bAssignForms = []string{
	"export %[1]s; : ${%s:=%s}; curl https://ok.example/",
	"export %[1]s; : ${%s=%s}; curl https://ok.example/",
	": ${%s:=%s}; export %[1]s; curl https://ok.example/",
	"set -a; : \"${%s:=%s}\"; curl https://ok.example/",
	"set -a; echo \"${%s:=%s}\" >/dev/null; curl https://ok.example/",
	"set -a; echo ${%s=%s}; curl https://ok.example/",
	"set -a; x=${%s:=%s}; curl https://ok.example/",
	"set -a; echo \"a${%s:=%s}b\"; curl https://ok.example/",
	"set -a; cat <<EOF\n${%s:=%s}\nEOF\ncurl https://ok.example/",
	"set -a; for i in ${%s:=%s}; do :; done; curl https://ok.example/",
	"set -a; case ${%s:=%s} in *) ;; esac; curl https://ok.example/",
	"set -a; test -n \"${%s:=%s}\"; curl https://ok.example/",
	"set -a; echo $(echo ${%s:=%s}); curl https://ok.example/",
	"f() { : ${%s:=%s}; }; set -a; f; curl https://ok.example/",
	"eval ': ${%s:=%s}'; export %[1]s; curl https://ok.example/",
	"bash -c 'set -a; : ${%s:=%s}; curl https://ok.example/'",
	"IFS= read -r %s <<< %s; export %[1]s; curl https://ok.example/",
	"IFS=: read -r %s rest <<< %s; export %[1]s; curl https://ok.example/",
	"set -a; IFS=/ read -r %s rest <<< %s; curl https://ok.example/",
	"export %[1]s; LC_ALL=C read %s <<< %s; curl https://ok.example/",
	"set -a; IFS= printf -v %s %s; curl https://ok.example/",
	"export %[1]s; IFS= read -r -d '' %s <<< %s; curl https://ok.example/",
}

// TestAssignFormsRT17b: a dangerous or configuration name assigned in any
// of the forms is a doubt under an allow-all rule. Control: a safe name
// (LANG, TZ) in the same forms is allowed (the forms are read as commands
// that run), and so is a dangerous name only looked up (${X:-V}, ${X-V}:
// no assignment) or given to read only as the prefix (IFS).
func TestAssignFormsRT17b(t *testing.T) {
	for _, n := range []string{"LD_PRELOAD", "WGETRC", "ACME_RC", "GIT_SSH_COMMAND", "ACMECONF"} {
		for _, f := range rt17bAssignForms {
			rt16bDoubt(t, envFormCmd(f, n, "/w/proj/x"), []string{"Bash"})
		}
	}
	for _, n := range []string{"LANG", "TZ"} {
		for _, f := range rt17bAssignForms {
			cmd := envFormCmd(f, n, "C")
			if v := rt16bDecide(t, cmd, []string{"Bash"}, ModeDefault); v.Decision != Allow {
				t.Errorf("control %q: %s (%s), want allow", cmd, v.Decision, v.Reason)
			}
		}
	}
	for _, cmd := range []string{
		"export LD_PRELOAD; : ${LD_PRELOAD:-./evil.so}; curl https://ok.example/",
		"set -a; echo \"${WGETRC-./rc}\"; curl https://ok.example/",
		"set -a; echo \"${WGETRC:+x}\"; curl https://ok.example/",
		"set -a; IFS= read -r line <<< x; curl https://ok.example/",
	} {
		if v := rt16bDecide(t, cmd, []string{"Bash"}, ModeDefault); v.Decision != Allow {
			t.Errorf("control %q: %s (%s), want allow", cmd, v.Decision, v.Reason)
		}
	}
	// ${!REF:=V} assigns the variable REF names: unknown.
	rt16bDoubt(t, "r=LD_PRELOAD; export LD_PRELOAD; : ${!r:=./evil.so}; curl https://ok.example/", []string{"Bash"})
}
