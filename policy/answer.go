package policy

import (
	"fmt"
	"sync/atomic"
)

// Answer is everything the policy says about one call, from one reading of
// it: the verdict, the rules an "Always allow" / "Always deny" would
// suggest (SuggestRules), the rules an "Allow for this session" grants
// when the person does not edit the rule (SessionGrantRules), and whether
// an ask is firm.
type Answer struct {
	Verdict Verdict
	// Suggested is SuggestRules' answer for the call.
	Suggested []string
	// SessionGrant is SessionGrantRules' answer for the call.
	SessionGrant []string
	// SuggestFailure is set when reading the suggestions and the grant
	// panicked (a bug): both are then nil, the verdict stands.
	SuggestFailure string
	// Firm is set on a default ask (Verdict.Source is SourceDefault) that
	// is not only the mode's default: the same call under Input.FirmMode
	// (bypassPermissions unless set) would not be allowed either, so it is
	// a doubt that holds in every mode (a command the engine cannot check,
	// a host no parser agrees on). It equals Evaluate(in) with Mode
	// FirmMode and AgentBypass false answering anything but allow. A later
	// stage (a hook, OPA) never loosens a firm ask.
	Firm bool
}

// Decide is Evaluate, SuggestRules and SessionGrantRules in one, with the
// firmness of a default ask: a shell command is parsed and analysed once,
// and every answer is read from that analysis. Each part equals what its
// own function returns for the same call and environment
// (TestDecideEqualsSeparateAnswers holds this over the adversarial and
// benign corpora). A panic in the verdict becomes Evaluate's ask; a panic
// in the suggestions costs only the suggestions and the grant
// (SuggestFailure names it).
func Decide(in Input) (a Answer) {
	// The reading's memory goes back to the pool when Decide returns: the
	// answer is made of strings and slices of its own.
	ar := getArena()
	defer ar.release()
	v, ev := evaluateIn(in, nil, ar)
	a.Verdict = v
	if ev != nil && v.Decision == Ask && v.Source == SourceDefault {
		// Would the firm mode (bypassPermissions) allow it? The second
		// look reuses the first's environment and analysis.
		fin := in
		fin.Mode, fin.AgentBypass = in.FirmMode, false
		if fin.Mode == "" {
			fin.Mode = ModeBypass
		}
		fv, _ := evaluateAgain(fin, ev)
		a.Firm = fv.Decision != Allow
	}
	defer func() {
		if p := recover(); p != nil {
			a.Suggested, a.SessionGrant = nil, nil
			a.SuggestFailure = fmt.Sprintf("suggesting rules failed: %v", p)
		}
	}()
	var e *envx
	var an *shellAnalysis
	if ev != nil {
		e, an = ev.env, ev.an
	} else {
		x := newEnvxFor(in.Call, in.Env)
		e = &x
	}
	if an == nil && isShellCall(in.Call) {
		an = analyzeShell(in.Call.Command, e)
	}
	a.Suggested = suggestRules(in.Call, e, an)
	a.SessionGrant = sessionGrantOf(in.Call, e, an, a.Suggested)
	return a
}

// analyses counts analyzeShell's calls (ShellAnalyses).
var analyses atomic.Int64

// ShellAnalyses is how many shell commands the engine has parsed and
// analysed since the process started: a test reads it before and after a
// request to see that the request read its command once.
func ShellAnalyses() int64 { return analyses.Load() }
