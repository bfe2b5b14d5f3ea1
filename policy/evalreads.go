package policy

// recursiveReadAsk: a recursive read of a sub-command may reach a file a
// Read deny or ask rule names (class 6): ask. (A deny rule that covers
// everything under the read's root has denied already, in pathRule.) A
// tree read (fsdir: every file under the root is read) that a Read deny
// rule may reach is denied: the file the rule names is read if it exists.
func (ev *evaluator) recursiveReadAsk(an *shellAnalysis, readOnly bool) (Verdict, bool) {
	for i := range an.subs {
		sc := &an.subs[i]
		for j := range sc.reads {
			if !sc.reads[j].recursive {
				continue
			}
			pi := ev.env.infoRef(&sc.reads[j])
			r := ev.mayReachUnder(&ev.pol.deny, "Read", pi, sc.skipHidden)
			if r != nil && sc.reads[j].tree && ev.treeCovers(r, pi) {
				return ruleVerdict(Deny, r, "`"+sc.text+"` reads every file under "+pi.abs+", what rule "+r.text+" from "+r.origin.String()+" denies included"), true
			}
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

// treeCovers: every path the Read deny rule r matches lies under the tree
// read pi (fsdir('.') under Read(./.env) or Read(**/.env) with the
// workspace as base): the file is read if it exists.
func (ev *evaluator) treeCovers(r *rule, pi pathInfo) bool {
	if r.kind != rkPath {
		return r.kind == rkAny
	}
	base := r.path.base(ev.env)
	if base == "" {
		return false
	}
	p := ev.ruleLiteralPrefix(r, base)
	return within(p, pi.abs) || within(p, pi.real)
}
