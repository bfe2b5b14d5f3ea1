package policy

// bash evaluates a shell command: every sub-command, redirect and path it
// touches. tool is "Bash" or the agent's own execute tool.
func (ev *evaluator) bash(tool string) Verdict {
	c := &ev.in.Call
	an := ev.an
	if an == nil {
		an = analyzeShellIn(c.Command, ev.env, ev.ar)
		ev.an = an
	}
	subs := make([]string, 0, len(an.subs))
	for i := range an.subs {
		if k := an.subs[i].kind; k != skGate && k != skProbe {
			subs = append(subs, an.subs[i].text)
		}
	}
	v := ev.bashDecide(tool, an)
	v.SubCommands = subs
	return v
}

func (ev *evaluator) bashDecide(tool string, an *shellAnalysis) Verdict {
	pol := ev.pol
	subj := ev.in.Call.Command

	// 1. deny: any sub-command, read or write a deny rule names.
	if tool != "Bash" {
		if r := matchName(&pol.deny, tool, subj); r != nil {
			return ev.denyRule(r, "")
		}
	}
	if r := matchName(&pol.deny, "", ""); r != nil {
		return ev.denyRule(r, "")
	}
	var probeHit *subCmd
	var probeRule *rule
	for i := range an.subs {
		sc := &an.subs[i]
		if r := matchBashSub(&pol.deny, sc); r != nil {
			if sc.kind == skProbe {
				if probeHit == nil {
					probeHit, probeRule = sc, r
				}
				continue
			}
			return ev.denyRule(r, " (sub-command `"+sc.text+"`)")
		}
	}
	if r, pi := ev.pathRule(&pol.deny, an, true); r != nil {
		return ev.denyRule(r, " (path "+showPath(pi)+")")
	}
	for i := range an.subs {
		for j := range an.subs[i].editReach {
			pi := ev.env.infoRef(&an.subs[i].editReach[j])
			if r := ev.matchPath(&pol.deny, "Edit", pi, true); r != nil {
				return ev.denyRule(r, " (`"+an.subs[i].text+"` changes "+showPath(pi)+")")
			}
		}
	}
	if r, sc, pi := ev.movedHit(&pol.deny, an); r != nil {
		// moving the place moves the files the rule protects to names it
		// does not (programs_optreads.go).
		return ev.denyRule(r, " (`"+sc.text+"` moves "+showPath(pi)+", a place the rule protects)")
	}
	if r, u, _ := ev.fetchRule(&pol.deny, an); r != nil {
		return ev.denyRule(r, " (the command connects to "+u+")")
	}

	// 2. circuit breakers; a deny rule met in the arguments of a program
	// the policy does not know (a probe) asks in every mode.
	if probeHit != nil {
		return ev.probeAsk(probeHit, probeRule)
	}
	for i := range an.subs {
		if b := an.subs[i].breaker; b != "" {
			return ev.breaker(b, false)
		}
	}
	for j := range an.redirWrites {
		if b := ev.env.writeBreaker(ev.env.infoRef(&an.redirWrites[j])); b != "" {
			return ev.breaker(b, false)
		}
	}
	for i := range an.subs {
		for j := range an.subs[i].writes {
			if b := ev.env.writeBreaker(ev.env.infoRef(&an.subs[i].writes[j])); b != "" {
				return ev.breaker(b, false)
			}
		}
	}

	readOnly := an.uncertain == ""
	for i := range an.subs {
		sc := &an.subs[i]
		if sc.kind == skGate || sc.kind == skProbe {
			continue
		}
		if !sc.readOnly || len(sc.writes) > 0 {
			readOnly = false
		}
	}
	if len(an.redirWrites) > 0 {
		readOnly = false
	}

	// 3. ask rules.
	if tool != "Bash" {
		if r := matchName(&pol.ask, tool, subj); r != nil {
			return ev.askRule(r, "", readOnly)
		}
	}
	if r := matchName(&pol.ask, "", ""); r != nil {
		return ev.askRule(r, "", readOnly)
	}
	for i := range an.subs {
		sc := &an.subs[i]
		if r := matchBashSub(&pol.ask, sc); r != nil {
			if sc.kind == skProbe {
				return ev.probeAsk(sc, r)
			}
			return ev.askRule(r, " (sub-command `"+sc.text+"`)", readOnly)
		}
	}
	if r, pi := ev.pathRule(&pol.ask, an, true); r != nil {
		return ev.askRule(r, " (path "+showPath(pi)+")", readOnly)
	}
	if r, sc, pi := ev.movedHit(&pol.ask, an); r != nil {
		return ev.askRule(r, " (`"+sc.text+"` moves "+showPath(pi)+", a place the rule protects)", readOnly)
	}
	if r, u, _ := ev.fetchRule(&pol.ask, an); r != nil {
		return ev.askRule(r, " (the command connects to "+u+")", readOnly)
	}
	// a recursive delete that may reach a file a deny or ask rule protects.
	for i := range an.subs {
		refs := an.subs[i].writes
		if len(an.subs[i].editReach) > 0 {
			refs = append(append([]pathRef(nil), refs...), an.subs[i].editReach...)
		}
		for j := range refs {
			pi := ev.env.infoRef(&refs[j])
			r := ev.mayMatchUnder(&pol.deny, "Edit", pi)
			if r == nil {
				r = ev.mayMatchUnder(&pol.ask, "Edit", pi)
			}
			if r != nil {
				return ev.finishAsk(ruleVerdict(Ask, r, "`"+an.subs[i].text+"` acts on everything under "+pi.abs+", which may include what rule "+r.text+" protects"), false)
			}
		}
	}
	// a recursive read (grep -r, rg, git log -p, tar -c ...) that may reach
	// a file a Read deny or ask rule protects.
	if v, ok := ev.recursiveReadAsk(an, readOnly); ok {
		return v
	}

	// 4. what cannot be checked asks, in every mode: a deny rule or a
	// circuit breaker could be hiding in it.
	why := an.uncertain
	if why == "" {
		why = ev.unknownPaths(an)
	}
	if why == "" {
		why = ev.argFilesDoubt(an) // programs_argfiles.go
	}
	if why == "" {
		if _, _, u := ev.fetchRule(&pol.deny, an); u != "" {
			why = "the command connects to " + u + ", whose host a WebFetch domain rule cannot be checked against"
		} else if _, _, u := ev.fetchRule(&pol.ask, an); u != "" {
			why = "the command connects to " + u + ", whose host a WebFetch domain rule cannot be checked against"
		}
	}
	if why != "" {
		return ev.askDefault(SourceDefault, "cannot check this command: "+why, false)
	}

	// 5. plan mode: only read-only commands.
	if ev.mode == ModePlan && !readOnly {
		return planDeny("`" + firstNonRO(an) + "`")
	}

	// 6. every sub-command, redirect and read must be allowed.
	if tool != "Bash" {
		if r := matchName(&pol.allow, tool, subj); r != nil {
			return ev.allowRule(r, SourceRule)
		}
		if r := ev.sessionRule(func(s *ruleSet) *rule { return matchName(s, tool, subj) }); r != nil {
			return ev.allowRule(r, SourceSessionGrant)
		}
	}
	agg := allowAgg{}
	for i := range an.subs {
		sc := &an.subs[i]
		if sc.kind == skGate || sc.kind == skProbe {
			continue
		}
		src, r := ev.allowSub(sc)
		if src == "" {
			return ev.askDefault(SourceDefault, "no rule allows `"+sc.text+"` ("+string(ev.mode)+" mode)", readOnly)
		}
		agg.add(src, r)
	}
	for j := range an.redirWrites {
		ref := &an.redirWrites[j]
		src, r := ev.allowWrite(ev.env.infoRef(ref))
		if src == "" {
			return ev.askDefault(SourceDefault, "the command writes to "+ref.raw+", which no rule or mode allows", false)
		}
		agg.add(src, r)
	}
	for j := range an.redirReads {
		ref := &an.redirReads[j]
		src, r := ev.allowRead(ev.env.infoRef(ref))
		if src == "" {
			return ev.askDefault(SourceDefault, "the command reads "+ref.raw+" from outside the workspace", readOnly)
		}
		agg.add(src, r)
	}
	if v, ok := ev.callCwdAsk(agg.src, readOnly); ok {
		return v
	}
	return agg.verdict()
}

// callCwdAsk: the directory the call names as its own (Call.Cwd) is a
// place it touches (ls, du, tree and every program that reads "." by
// default read it). An allow that rests on the workspace (read-only,
// acceptEdits) holds only when that directory is in the workspace too, or
// a Read rule or grant allows reading it (red team 16).
func (ev *evaluator) callCwdAsk(src Source, readOnly bool) (Verdict, bool) {
	if ev.in.Call.Cwd == "" || (src != SourceReadOnly && src != SourceMode) {
		return Verdict{}, false
	}
	if !ev.env.callCwdKnown {
		return ev.askDefault(SourceDefault, "cannot check this command: it runs in "+ev.in.Call.Cwd+", a directory that cannot be resolved", false), true
	}
	pi := ev.env.info(pathRef{raw: ev.env.callCwd, cwd: ev.env.callCwd})
	if s, _ := ev.allowRead(pi); s == "" {
		return ev.askDefault(SourceDefault, "the command runs in "+showPath(pi)+", outside the workspace", readOnly), true
	}
	return Verdict{}, false
}

// showPath renders a path for a reason: the lexical path, and where its
// symlinks lead when that differs.
func showPath(pi pathInfo) string {
	if pi.real != "" && pi.real != pi.abs {
		return pi.abs + " -> " + pi.real
	}
	return pi.abs
}

// allowAgg reports the weakest reason that allowed a command.
type allowAgg struct {
	src  Source
	rule *rule
}

// srcRank orders the sources that allow, weakest reason last.
func srcRank(s Source) int {
	switch s {
	case SourceReadOnly:
		return 1
	case SourceRule:
		return 2
	case SourceSessionGrant:
		return 3
	case SourceMode:
		return 4
	case SourceBypass:
		return 5
	}
	return 0
}

func (g *allowAgg) add(src Source, r *rule) {
	if srcRank(src) > srcRank(g.src) {
		g.src, g.rule = src, r
	} else if src == g.src && g.rule == nil {
		g.rule = r
	}
}

func (g *allowAgg) verdict() Verdict {
	switch g.src {
	case SourceRule, SourceSessionGrant:
		o := g.rule.origin
		reason := g.rule.allowReason
		if reason == "" {
			reason = bashAllowReason(g.rule)
		}
		v := Verdict{Decision: Allow, Source: g.src, Rule: g.rule.text, RuleOrigin: &o, Reason: reason}
		if g.src == SourceSessionGrant {
			v.Reason = "allowed for this session by " + g.rule.text
		}
		return v
	case SourceMode:
		return Verdict{Decision: Allow, Source: SourceMode, Reason: "acceptEdits allows these file operations inside the workspace"}
	case SourceBypass:
		return bypassAllow()
	}
	return Verdict{Decision: Allow, Source: SourceReadOnly, Reason: "every sub-command is read-only and stays in the workspace"}
}

// bashAllowReason is the reason of a command allowed by r.
func bashAllowReason(r *rule) string {
	return "allowed: every sub-command is allowed (rule " + r.text + " from " + r.origin.String() + ")"
}

func firstNonRO(an *shellAnalysis) string {
	for i := range an.subs {
		sc := &an.subs[i]
		if sc.kind != skGate && sc.kind != skProbe && (!sc.readOnly || len(sc.writes) > 0) {
			return sc.text
		}
	}
	if len(an.redirWrites) > 0 {
		return "a redirect to " + an.redirWrites[0].raw
	}
	if len(an.subs) > 0 {
		return an.subs[0].text
	}
	return "the command"
}

// pathRule finds the first rule in set (Read for reads, Edit for writes)
// naming a path the command touches.
func (ev *evaluator) pathRule(set *ruleSet, an *shellAnalysis, either bool) (*rule, pathInfo) {
	var best *rule
	var bestPI pathInfo
	try := func(tool string, refs []pathRef) {
		if rs, _ := set.pathRules(tool); len(rs) == 0 {
			return
		}
		for j := range refs {
			pi := ev.env.infoRef(&refs[j])
			if r := ev.matchPath(set, tool, pi, either); r != nil && (best == nil || r.idx < best.idx) {
				best, bestPI = r, pi
			}
		}
	}
	try("Read", an.redirReads)
	try("Edit", an.redirWrites)
	try("Read", an.redirWrites) // a Read deny covers writing the file too
	for i := range an.subs {
		try("Read", an.subs[i].reads)
		try("Edit", an.subs[i].writes)
		try("Read", an.subs[i].writes)
		try("Read", an.subs[i].argReads) // any argument may name a file it reads
	}
	return best, bestPI
}

// unknownPaths: a read or write whose path is only known at run time, when
// a deny or ask rule for it exists (it could be the denied file).
func (ev *evaluator) unknownPaths(an *shellAnalysis) string {
	// whether a Read and an Edit rule could name a path: asked once here,
	// not once per list of every sub-command (two map lookups each).
	guardRead, guardEdit := ev.pol.guards("Read"), ev.pol.guards("Edit")
	check := func(tool string, refs []pathRef) string {
		if len(refs) == 0 || tool == "Read" && !guardRead || tool == "Edit" && !guardEdit {
			return ""
		}
		for i := range refs {
			ref := &refs[i]
			if ref.unknown {
				return "the path " + ref.raw + " is only known at run time and a " + tool + " rule could name it"
			}
			if ev.env.infoRef(ref).unsure {
				return "cannot resolve the symlinks of " + ref.raw + " (a loop or too long a chain) and a " + tool + " rule could name where it leads"
			}
		}
		return ""
	}
	if s := check("Read", an.redirReads); s != "" {
		return s
	}
	if s := check("Edit", an.redirWrites); s != "" {
		return s
	}
	for i := range an.subs {
		if s := check("Read", an.subs[i].reads); s != "" {
			return s
		}
		if s := check("Edit", an.subs[i].writes); s != "" {
			return s
		}
		if s := check("Read", an.subs[i].argReads); s != "" {
			return s
		}
		if s := ev.unknownMoved(an.subs[i].moved, guardRead); s != "" {
			return s // a moved place known only at run time (mv sec* pub)
		}
	}
	return ""
}

// allowSub says what allows one sub-command ("" if nothing does).
func (ev *evaluator) allowSub(sc *subCmd) (Source, *rule) {
	if r := matchBashAllow(&ev.pol.allow, sc); r != nil && ev.optReadsCovered(r, sc) {
		return SourceRule, r
	}
	if ev.sess != nil {
		if r := matchBashAllow(&ev.sess.allow, sc); r != nil && ev.optReadsCovered(r, sc) {
			return SourceSessionGrant, r
		}
	}
	if sc.kind == skNeedRule || sc.dynamic {
		if ev.bypass {
			return SourceBypass, nil
		}
		return "", nil
	}
	if sc.readOnly && len(sc.writes) == 0 {
		g := allowAgg{src: SourceReadOnly}
		ok := true
		for j := range sc.reads {
			src, r := ev.allowRead(ev.env.infoRef(&sc.reads[j]))
			if src == "" {
				ok = false
				break
			}
			g.add(src, r)
		}
		if ok {
			return g.src, g.rule
		}
	}
	if sc.fileOp && ev.mode == ModeAcceptEdits {
		ok := len(sc.writes) > 0
		for j := range sc.writes {
			if !ev.env.inWorkspace(ev.env.infoRef(&sc.writes[j])) {
				ok = false
			}
		}
		for j := range sc.reads {
			if !ev.env.inWorkspace(ev.env.infoRef(&sc.reads[j])) {
				ok = false
			}
		}
		if ok {
			return SourceMode, nil
		}
	}
	if ev.bypass {
		return SourceBypass, nil
	}
	return "", nil
}

func (ev *evaluator) allowRead(pi pathInfo) (Source, *rule) {
	if ev.env.inWorkspace(pi) {
		return SourceReadOnly, nil
	}
	if r := ev.matchPath(&ev.pol.allow, "Read", pi, false); r != nil {
		return SourceRule, r
	}
	if ev.sess != nil {
		if r := ev.matchPath(&ev.sess.allow, "Read", pi, false); r != nil {
			return SourceSessionGrant, r
		}
	}
	if ev.bypass {
		return SourceBypass, nil
	}
	return "", nil
}

func (ev *evaluator) allowWrite(pi pathInfo) (Source, *rule) {
	if r := ev.matchPath(&ev.pol.allow, "Edit", pi, false); r != nil {
		return SourceRule, r
	}
	if ev.sess != nil {
		if r := ev.matchPath(&ev.sess.allow, "Edit", pi, false); r != nil {
			return SourceSessionGrant, r
		}
	}
	if ev.mode == ModeAcceptEdits && ev.env.inWorkspace(pi) {
		return SourceMode, nil
	}
	if ev.bypass {
		return SourceBypass, nil
	}
	return "", nil
}

// probeAsk: a deny or ask rule met a command read in the arguments of a
// program the policy does not know: it may run it. Ask in every mode
// (bypassPermissions included); denied in dontAsk and plan.
func (ev *evaluator) probeAsk(sc *subCmd, r *rule) Verdict {
	o := r.origin
	v := Verdict{Decision: Ask, Source: SourceRule, Rule: r.text, RuleOrigin: &o,
		Reason: "`" + sc.text + "` appears in the arguments of a program the policy does not know, which may run it; rule " + r.text + " names it"}
	if ev.mode == ModePlan {
		v.Decision, v.Source = Deny, SourceMode
		v.Reason = "plan mode: " + v.Reason
		return v
	}
	return ev.finishAsk(v, false)
}
