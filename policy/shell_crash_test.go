package policy

import (
	"strings"
	"testing"
)

// Declaration builtins with a bare name (no value) once crashed the shell
// reader (a nil Value walked as a word): each must be judged, not panic.
func TestDeclarationsWithoutValue(t *testing.T) {
	for _, cmd := range []string{
		"export X", "export -n X", "export -p", "export", "declare", "declare -p", "declare -p X", "declare -a X",
		"declare -A m", "declare -i n", "declare -x X", "declare -r X", "declare -g X", "declare -f", "declare -F f",
		"readonly X", "readonly -p", "local X", "local -a X Y", "typeset X", "typeset -i n", "export X Y=1 Z",
		"f() { local x; }; f", "export X && ls", "X=1; export X", "declare -n r", "nameref r",
	} {
		for _, mode := range []Mode{ModeDefault, ModePlan, ModeBypass} {
			in := Input{Call: Call{Tool: "Bash", Command: cmd}, Mode: mode, Env: fuzzEnv, Policy: denyPolicy}
			v := Evaluate(in)
			if strings.Contains(v.Reason, "internal error") {
				t.Errorf("%q in %s: %s", cmd, mode, v.Reason)
			}
		}
	}
}

// panicFS makes the engine panic while resolving a path.
type panicFS struct{}

func (panicFS) EvalSymlinks(string) (string, error) { panic("boom in the file system") }

// A panic inside Evaluate becomes an ask (a deny where the mode never asks)
// that names the internal error.
func TestEvaluateRecoversFromPanic(t *testing.T) {
	env := fuzzEnv
	env.FS = panicFS{}
	pol, _ := Compile([]RuleText{{List: "allow", Text: "Read"}})
	for _, tc := range []struct {
		mode Mode
		want Decision
	}{{ModeDefault, Ask}, {ModeAcceptEdits, Ask}, {ModeBypass, Ask}, {ModeDontAsk, Deny}, {ModePlan, Deny}} {
		v := Evaluate(Input{Call: Call{Tool: "Read", Paths: []string{"/etc/hosts"}}, Mode: tc.mode, Env: env, Policy: pol})
		if v.Decision != tc.want || v.Source != SourceUnknownCall || !strings.Contains(v.Reason, "internal error reading the call: boom in the file system") {
			t.Errorf("%s: got %s (%s: %s), want %s naming the internal error", tc.mode, v.Decision, v.Source, v.Reason, tc.want)
		}
		if v.Specifier != "Read(/etc/hosts)" {
			t.Errorf("%s: specifier %q", tc.mode, v.Specifier)
		}
	}
}
