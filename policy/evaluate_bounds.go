package policy

import "fmt"

// MaxPathLen is the longest path the policy reads: the kernel opens no
// longer one in one call (PATH_MAX, ENAMETOOLONG), and reading one costs
// time that grows with its components. A longer path in a call, or a
// shell word used as a path, is uncertain: asked, denied in dontAsk and
// plan. No input makes a decision slow this way.
const MaxPathLen = 4096

// oversize asks about (denies in dontAsk and plan) a call whose paths
// are longer than MaxPathLen, before anything reads them.
func oversize(in Input) (Verdict, bool) {
	for _, p := range in.Call.Paths {
		if len(p) <= MaxPathLen {
			continue
		}
		v := Verdict{Decision: Ask, Source: SourceUnknownCall,
			Reason: fmt.Sprintf("a path of %d bytes is longer than the %d the system opens; asking", len(p), MaxPathLen)}
		if in.Mode == ModeDontAsk || in.Mode == ModePlan {
			v.Decision = Deny
			v.Reason = fmt.Sprintf("a path of %d bytes is longer than the %d the system opens; denied in %s mode", len(p), MaxPathLen, in.Mode)
		}
		v.Specifier = in.Call.Tool + "(" + p[:64] + "…)"
		return v, true
	}
	return Verdict{}, false
}
