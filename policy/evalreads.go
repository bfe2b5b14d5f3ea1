package policy

// recursiveReadAsk: a recursive read of a sub-command may reach a file a
// Read deny or ask rule names (class 6): ask. (A deny rule that covers
// everything under the read's root has denied already, in pathRule.)
func (ev *evaluator) recursiveReadAsk(an *shellAnalysis, readOnly bool) (Verdict, bool) {
	for i := range an.subs {
		sc := &an.subs[i]
		for j := range sc.reads {
			if !sc.reads[j].recursive {
				continue
			}
			pi := ev.env.infoRef(&sc.reads[j])
			r := ev.mayReachUnder(&ev.pol.deny, "Read", pi, sc.skipHidden)
			if r == nil {
				r = ev.mayReachUnder(&ev.pol.ask, "Read", pi, sc.skipHidden)
			}
			if r != nil {
				return ev.finishAsk(ruleVerdict(Ask, r, "`"+sc.text+"` reads everything under "+pi.abs+", which may include what rule "+r.text+" protects"), readOnly), true
			}
		}
	}
	return Verdict{}, false
}
