package policy

import (
	"fmt"
	"strings"
)

// Answer is everything the policy says about one call, from one reading of
// it: the verdict, the rules an "Always allow" / "Always deny" would
// suggest (SuggestRules) and the rules an "Allow for this session" grants
// when the person does not edit the rule (SessionGrantRules).
type Answer struct {
	Verdict Verdict
	// Suggested is SuggestRules' answer for the call.
	Suggested []string
	// SessionGrant is SessionGrantRules' answer for the call.
	SessionGrant []string
	// SuggestFailure is set when reading the suggestions and the grant
	// panicked (a bug): both are then nil, the verdict stands.
	SuggestFailure string
}

// Decide is Evaluate, SuggestRules and SessionGrantRules in one: a shell
// command is parsed and analysed once, and the three answers are read from
// that analysis. Each part equals what its own function returns for the
// same call and environment (TestDecideEqualsSeparateAnswers holds this
// over the adversarial and benign corpora). A panic in the verdict becomes
// Evaluate's ask; a panic in the suggestions costs only the suggestions and
// the grant (SuggestFailure names it).
func Decide(in Input) (a Answer) {
	v, ev := evaluate(in)
	a.Verdict = v
	defer func() {
		if p := recover(); p != nil {
			a.Suggested, a.SessionGrant = nil, nil
			a.SuggestFailure = fmt.Sprintf("suggesting rules failed: %v", p)
		}
	}()
	var e *envx
	var an *shellAnalysis
	if ev != nil {
		e = &ev.env
		// Evaluate reads the command as given, the suggestions its trimmed
		// form: the analysis is shared only when the two are one text.
		if ev.an != nil && strings.TrimSpace(in.Call.Command) == in.Call.Command {
			an = ev.an
		}
	} else {
		x := newEnvx(envFor(in.Call, in.Env))
		e = &x
	}
	if an == nil && isShellCall(in.Call) {
		an = analyzeShell(strings.TrimSpace(in.Call.Command), e)
	}
	a.Suggested = suggestRules(in.Call, e, an)
	a.SessionGrant = sessionGrantOf(in.Call, e, an, a.Suggested)
	return a
}

// analyses counts analyzeShell's calls while analysesCounting is set (a
// test's switch: Decide reads a command once).
var (
	analyses         int
	analysesCounting bool
)
