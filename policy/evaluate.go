package policy

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Input is everything Evaluate looks at.
type Input struct {
	Call   Call
	Mode   Mode
	Env    Env
	Policy *Policy
	// Session holds the "Allow for this session" grants (its allow list);
	// nil if none.
	Session *Policy
	// AgentBypass is the agent's bypassPermissions setting: it turns
	// default and acceptEdits into bypassPermissions (plan and dontAsk,
	// which are stricter, stay).
	AgentBypass bool
	// FirmMode is the mode Decide tells a firm ask from the mode's default
	// under (Answer.Firm): bypassPermissions when empty; a caller whose
	// managed tier forbids bypassPermissions names the mode it falls to.
	// Evaluate ignores it.
	FirmMode Mode
}

// Verdict is the decision on one call and why.
type Verdict struct {
	Decision   Decision `json:"decision"`
	Source     Source   `json:"source"`
	Rule       string   `json:"rule,omitempty"` // the matching rule text
	RuleOrigin *Origin  `json:"ruleOrigin,omitempty"`
	Breaker    string   `json:"breaker,omitempty"`
	Reason     string   `json:"reason"` // one human sentence
	// SubCommands are the simple commands found in a Bash call.
	SubCommands []string `json:"subCommands,omitempty"`
	// Specifier is the call rendered like a rule, e.g. Bash(npm run build).
	Specifier string `json:"specifier"`
}

type category uint8

const (
	catUnknown category = iota
	catRead
	catWrite
	catExec
	catFetch
	catExternal
	catThink
	catSwitchMode
)

type evaluator struct {
	in    *Input
	input Input // what in points to (Evaluate's copy)
	mode  Mode
	// env is the environment the call is judged in: envStore, or, for
	// Decide's second look under bypassPermissions, the first look's
	// (the analysis' path refs point into it).
	env      *envx
	envStore envx
	pol      *Policy
	sess     *Policy
	bypass   bool
	// an is the analysis of the call's own command, kept for Decide
	// (nil if the call was not read as a shell command). Set before
	// evaluation (Decide's second look), it is used instead of reading
	// the command again.
	an *shellAnalysis
	// ar: the memory of the reading, when pooled (arena.go).
	ar *arena
}

// Evaluate decides a call. It is pure: the only outside access is through
// in.Env.FS. Precedence: deny rules, circuit breakers, ask rules, plan
// mode, allow rules, session grants, then the mode's default.
//
// A panic inside the engine (a bug: some input it does not expect) never
// escapes: the call asks (denied where the mode never asks), with a
// reason naming the internal error.
func Evaluate(in Input) Verdict {
	ar := getArena()
	v, _ := evaluateIn(in, nil, ar)
	ar.release()
	return v
}

// evaluate is Evaluate, also handing back the evaluator (its env and the
// command's analysis) for Decide; ev is nil when evaluation panicked.
func evaluate(in Input) (v Verdict, evOut *evaluator) {
	return evaluateAgain(in, nil)
}

// evaluateAgain is evaluate reusing the environment and the command's
// analysis of an earlier evaluation of the same call in the same
// environment (prev; nil: read everything afresh). Only the mode, the
// agent's bypass and the rules may differ: the analysis depends on the
// call and the environment alone.
func evaluateAgain(in Input, prev *evaluator) (v Verdict, evOut *evaluator) {
	return evaluateIn(in, prev, nil)
}

// evaluateIn is evaluateAgain taking the memory of its reading from ar
// (nil: the heap); what it hands back lives until ar is released.
func evaluateIn(in Input, prev *evaluator, ar *arena) (v Verdict, evOut *evaluator) {
	defer func() {
		if p := recover(); p != nil {
			v, evOut = internalErrorVerdict(in, p), nil
		}
	}()
	var ev *evaluator
	if ar != nil && prev == nil {
		ev = &ar.ev
		*ev = evaluator{input: in, pol: in.Policy, sess: in.Session, ar: ar}
	} else {
		ev = &evaluator{input: in, pol: in.Policy, sess: in.Session, ar: ar}
	}
	if prev != nil {
		ev.env, ev.an = prev.env, prev.an
	} else {
		ev.envStore = newEnvxFor(in.Call, in.Env)
		if ar != nil {
			ev.envStore.infos = ar.infos[:0] // filled by infoRef, a block at a time
		}
		ev.env = &ev.envStore
	}
	ev.in = &ev.input // one allocation for both
	ev.mode = in.Mode
	if !ev.mode.valid() {
		ev.mode = ModeDefault
	}
	if in.AgentBypass && (ev.mode == ModeDefault || ev.mode == ModeAcceptEdits) {
		ev.mode = ModeBypass
	}
	if ev.pol == nil {
		ev.pol = &Policy{}
	}
	ev.bypass = ev.mode == ModeBypass
	call := &ev.in.Call
	if v, over := oversize(*ev.in); over {
		return v, ev
	}
	tool := canonicalTool(call.Tool)
	cat := categorize(call)
	switch cat {
	case catUnknown:
		v = ev.unknownCall()
	case catExec:
		if call.Command != "" || tool == "Bash" {
			v = ev.bash(tool)
		} else {
			v = ev.generic(tool, false)
		}
	case catRead, catWrite:
		v = ev.pathCall(tool, cat == catWrite)
	case catFetch:
		v = ev.fetch(tool)
	case catThink:
		v = ev.generic(tool, true)
	case catSwitchMode:
		v = ev.switchMode(tool)
	default:
		v = ev.generic(tool, false)
	}
	v = ev.touches(v, cat, tool)
	v.Specifier = Specifier(in.Call)
	return v, ev
}

// touches judges a call by what it touches, whatever its tool (docs/policy.md,
// "Every tool by what it touches"): the paths of a call that is not a Read or
// Edit (an MCP tool, an agent's own tool, one not understood) meet the Read
// and Edit deny and ask rules and the protected files (as a read for kinds
// read and search, else as a write); a command it carries meets the Bash
// rules and breakers; an input that could not be read asks. Each can only
// make v stricter, in every mode, bypassPermissions included.
func (ev *evaluator) touches(v Verdict, cat category, tool string) Verdict {
	if v.Decision == Deny {
		return v
	}
	c := &ev.in.Call
	if c.Unread != "" {
		v = stricter(v, ev.askDefault(SourceUnknownCall, "part of the call's input could not be read ("+c.Unread+")", false))
	}
	if len(c.Paths) > 0 && cat != catRead && cat != catWrite {
		write := c.Kind != "read" && c.Kind != "search"
		if pv := ev.pathCheck(tool, write, true); pv.Decision != "" {
			v = stricter(v, pv)
		}
	}
	if (c.URL != "" || len(c.URLs) > 0) && cat != catFetch && v.Decision != Deny {
		// a tool that carries URLs (an MCP fetch, an agent's own tool)
		// meets the WebFetch deny and ask rules of their hosts.
		if hv := ev.hostCheck(); hv.Decision != "" {
			hv.Reason = tool + " reaches " + strconv.Quote(c.URL) + ": " + hv.Reason
			v = stricter(v, hv)
		}
	}
	if c.Command != "" && cat != catExec && v.Decision != Deny {
		sub := *ev.in
		sub.Call = Call{Tool: "Bash", Command: c.Command, Kind: "execute"}
		if bv := Evaluate(sub); bv.Decision != Allow {
			bv.Reason = tool + " carries the command " + strconv.Quote(c.Command) + ": " + bv.Reason
			v = stricter(v, bv)
		}
	}
	return v
}

// stricter returns b if it decides more strictly than a (deny over ask over
// allow), else a.
func stricter(a, b Verdict) Verdict {
	rank := func(d Decision) int {
		switch d {
		case Deny:
			return 2
		case Ask:
			return 1
		}
		return 0
	}
	switch ra, rb := rank(a.Decision), rank(b.Decision); {
	case rb > ra:
		return b
	case rb == ra && weight(b.Source) > weight(a.Source):
		// Equal decisions: the one a breaker or a rule made names what
		// decided (a later stage must not read an ask a breaker made as the
		// mode's default, which a hook may loosen).
		return b
	}
	return a
}

// weight orders the sources of equal decisions: a breaker's over a rule's
// over anything else's.
func weight(s Source) int {
	switch s {
	case SourceBreaker:
		return 2
	case SourceRule:
		return 1
	}
	return 0
}

// internalErrorVerdict is the verdict on a call whose evaluation panicked:
// ask (deny in dontAsk and plan, which never ask), naming the error.
func internalErrorVerdict(in Input, p any) Verdict {
	v := Verdict{Decision: Ask, Source: SourceUnknownCall,
		Reason: fmt.Sprintf("internal error reading the call: %v; asking", p)}
	if in.Mode == ModeDontAsk || in.Mode == ModePlan {
		v.Decision = Deny
		v.Reason = fmt.Sprintf("internal error reading the call: %v; denied in %s mode", p, in.Mode)
	}
	func() {
		defer func() { _ = recover() }()
		v.Specifier = Specifier(in.Call)
	}()
	return v
}

// categorize decides what kind of action a call is.
func categorize(c *Call) category {
	switch canonicalTool(c.Tool) {
	case "":
		return catUnknown
	case "Bash":
		return catExec
	case "Read", "Glob", "Grep", "LS", "NotebookRead":
		return catRead
	case "Edit":
		return catWrite
	case "WebFetch":
		return catFetch
	case "WebSearch":
		return catExternal
	case "AskUserQuestion":
		// Claude Code's question to the person (answered through the
		// editor's elicitation): it reads and writes nothing, so plan and
		// dontAsk do not refuse it; a rule naming it still decides.
		return catThink
	}
	if strings.HasPrefix(c.Tool, "mcp__") {
		return catExternal
	}
	switch c.Kind {
	case "read", "search":
		return catRead
	case "think":
		return catThink
	case "edit", "delete", "move":
		return catWrite
	case "execute":
		return catExec
	case "fetch":
		if c.URL != "" {
			return catFetch
		}
		return catExternal
	case "switch_mode":
		return catSwitchMode
	}
	return catExternal
}

// ---- verdict helpers ----

func ruleVerdict(d Decision, r *rule, reason string) Verdict {
	o := r.origin
	return Verdict{Decision: d, Source: SourceRule, Rule: r.text, RuleOrigin: &o, Reason: reason}
}

func (ev *evaluator) denyRule(r *rule, what string) Verdict {
	return ruleVerdict(Deny, r, "denied by rule "+r.text+" from "+r.origin.String()+what)
}

// askRule: an ask rule matched (a poisoned rule says why it was kept).
func (ev *evaluator) askRule(r *rule, what string, isRead bool) Verdict {
	var v Verdict
	if r.poison != nil {
		v = ruleVerdict(Ask, r, "asking because rule "+r.text+" from "+r.origin.String()+" could not be read ("+r.poison.Error()+")")
	} else {
		v = ruleVerdict(Ask, r, "rule "+r.text+" from "+r.origin.String()+" says to ask"+what)
	}
	return ev.finishAsk(v, isRead)
}

func (ev *evaluator) breaker(name string, isRead bool) Verdict {
	v := Verdict{Decision: Ask, Source: SourceBreaker, Breaker: name, Reason: "circuit breaker: " + name + "; a person must confirm"}
	switch ev.mode {
	case ModeDontAsk, ModePlan:
		v.Decision = Deny
		v.Reason = "circuit breaker: " + name + "; denied in " + string(ev.mode) + " mode"
	}
	return v
}

// finishAsk turns an ask into a deny where the mode never asks: dontAsk
// (whatever would ask is denied) and plan (every non-read is denied).
func (ev *evaluator) finishAsk(v Verdict, isRead bool) Verdict {
	switch {
	case ev.mode == ModeDontAsk:
		v.Decision, v.Source = Deny, SourceMode
		v.Reason = "dontAsk mode denies what would ask: " + v.Reason
	case ev.mode == ModePlan && !isRead:
		v.Decision, v.Source = Deny, SourceMode
		v.Reason = "plan mode allows only reads: " + v.Reason
	}
	return v
}

func (ev *evaluator) askDefault(src Source, reason string, isRead bool) Verdict {
	return ev.finishAsk(Verdict{Decision: Ask, Source: src, Reason: reason}, isRead)
}

func planDeny(what string) Verdict {
	return Verdict{Decision: Deny, Source: SourceMode, Reason: "plan mode is read-only: " + what + " is not allowed"}
}

func bypassAllow() Verdict {
	return Verdict{Decision: Allow, Source: SourceBypass, Reason: "bypassPermissions: allowed, no deny rule or circuit breaker applies"}
}

func (ev *evaluator) allowRule(r *rule, src Source) Verdict {
	v := ruleVerdict(Allow, r, "allowed by rule "+r.text+" from "+r.origin.String())
	if src == SourceSessionGrant {
		v.Source = src
		v.Reason = "allowed for this session by " + r.text
	}
	return v
}

// ---- calls that are not Bash ----

func (ev *evaluator) unknownCall() Verdict {
	if r := matchName(&ev.pol.deny, "", ""); r != nil {
		return ev.denyRule(r, "")
	}
	if b := ev.callPathBreaker(); b != "" {
		return ev.breaker(b, false)
	}
	if r := matchName(&ev.pol.ask, "", ""); r != nil {
		return ev.askRule(r, "", false)
	}
	switch ev.mode {
	case ModePlan:
		return planDeny("a tool call the bridge does not understand")
	case ModeBypass:
		return bypassAllow()
	}
	return ev.askDefault(SourceUnknownCall, "the bridge could not tell what this tool call does", false)
}

// callPathBreaker: a call the bridge cannot categorise (an agent's own
// tool, kind other) that names a protected path may write it: the breaker
// asks, as for an Edit.
func (ev *evaluator) callPathBreaker() string {
	for _, p := range ev.in.Call.Paths {
		if p == "" {
			continue
		}
		if b := ev.env.writeBreaker(ev.env.info(ev.env.callRef(p, false))); b != "" {
			return b
		}
	}
	return ""
}

func subjectOf(c *Call) string {
	switch {
	case c.Command != "":
		return c.Command
	case c.URL != "":
		return c.URL
	case c.Query != "":
		return c.Query
	case len(c.Paths) > 0:
		return c.Paths[0]
	}
	return c.Title
}

// generic: WebSearch, MCP tools, an agent's own tools (kinds other, fetch
// without URL, execute without command, think).
func (ev *evaluator) generic(tool string, think bool) Verdict {
	subj := subjectOf(&ev.in.Call)
	if r := matchName(&ev.pol.deny, tool, subj); r != nil {
		return ev.denyRule(r, "")
	}
	if !think {
		if b := ev.callPathBreaker(); b != "" {
			return ev.breaker(b, false)
		}
	}
	if r := matchName(&ev.pol.ask, tool, subj); r != nil {
		return ev.askRule(r, "", think)
	}
	if think {
		return Verdict{Decision: Allow, Source: SourceReadOnly, Reason: "thinking reads and writes nothing"}
	}
	if ev.mode == ModePlan {
		return planDeny(tool)
	}
	if r := matchName(&ev.pol.allow, tool, subj); r != nil {
		return ev.allowRule(r, SourceRule)
	}
	if r := ev.sessionRule(func(s *ruleSet) *rule { return matchName(s, tool, subj) }); r != nil {
		return ev.allowRule(r, SourceSessionGrant)
	}
	if ev.bypass {
		return bypassAllow()
	}
	return ev.askDefault(SourceDefault, "no rule allows "+tool+" ("+string(ev.mode)+" mode)", false)
}

func (ev *evaluator) switchMode(tool string) Verdict {
	subj := subjectOf(&ev.in.Call)
	if r := matchName(&ev.pol.deny, tool, subj); r != nil {
		return ev.denyRule(r, "")
	}
	if r := matchName(&ev.pol.ask, tool, subj); r != nil {
		return ev.askRule(r, "", true)
	}
	if r := matchName(&ev.pol.allow, tool, subj); r != nil {
		return ev.allowRule(r, SourceRule)
	}
	if ev.bypass {
		return bypassAllow()
	}
	// plan mode asks too: leaving plan mode is the person's call.
	return ev.askDefault(SourceDefault, "the agent wants to change its mode", true)
}

func (ev *evaluator) fetch(tool string) Verdict {
	hosts, readable := hostsOf(ev.in.Call.URL)
	for _, u := range ev.in.Call.URLs {
		hs, ok := hostsOf(u)
		readable = readable && ok
		for _, h := range hs {
			if !slices.Contains(hosts, h) {
				hosts = append(hosts, h)
			}
		}
	}
	subj := subjectOf(&ev.in.Call)
	pick := func(set *ruleSet, any bool) *rule {
		r := first(matchDomain(set, hosts, any), matchName(set, "", ""))
		if tool != "WebFetch" {
			r = first(r, matchName(set, tool, subj))
		}
		return r
	}
	if r := pick(&ev.pol.deny, true); r != nil {
		return ev.denyRule(r, "")
	}
	if r := pick(&ev.pol.ask, true); r != nil {
		return ev.askRule(r, "", false)
	}
	if ev.mode == ModePlan {
		return planDeny("fetching " + ev.in.Call.URL)
	}
	if !readable && ev.pol.guards("WebFetch") {
		// asks in every mode (bypass included): a domain rule cannot be
		// checked against a host no parser agrees on.
		return ev.askDefault(SourceDefault, "cannot check the URL "+strconv.Quote(strings.Join(append([]string{ev.in.Call.URL}, ev.in.Call.URLs...), " "))+": its host cannot be read with certainty (spaces, control characters, or it does not parse)", false)
	}
	if r := pick(&ev.pol.allow, false); r != nil {
		return ev.allowRule(r, SourceRule)
	}
	if ev.sess != nil {
		if r := pick(&ev.sess.allow, false); r != nil {
			return ev.allowRule(r, SourceSessionGrant)
		}
	}
	if ev.bypass {
		return bypassAllow()
	}
	return ev.askDefault(SourceDefault, "no rule allows fetching from "+orDash(strings.Join(hosts, ", "))+" ("+string(ev.mode)+" mode)", false)
}

// hostCheck is the WebFetch deny and ask rules (and a host no parser
// agrees on, where domain rules exist) for the URLs a call of another tool
// carries; the zero Verdict when none applies.
func (ev *evaluator) hostCheck() Verdict {
	hosts, readable := hostsOf(ev.in.Call.URL)
	for _, u := range ev.in.Call.URLs {
		hs, ok := hostsOf(u)
		readable = readable && ok
		hosts = append(hosts, hs...)
	}
	if r := matchDomain(&ev.pol.deny, hosts, true); r != nil {
		return ev.denyRule(r, "")
	}
	if r := matchDomain(&ev.pol.ask, hosts, true); r != nil {
		return ev.askRule(r, "", false)
	}
	if !readable && ev.pol.guards("WebFetch") {
		return ev.askDefault(SourceUnknownCall, "cannot check the URL's host with certainty", false)
	}
	return Verdict{}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// pathCall: Read, Edit and the agent tools of kind read/search/edit/delete/move.
func (ev *evaluator) pathCall(tool string, write bool) Verdict {
	return ev.pathCheck(tool, write, false)
}

// pathCheck is pathCall; vetoOnly stops before anything that allows (rules,
// grants, modes) and returns Verdict{} when nothing denies or asks.
func (ev *evaluator) pathCheck(tool string, write, vetoOnly bool) Verdict {
	c := &ev.in.Call
	catTool := "Read"
	if write {
		catTool = "Edit"
	}
	subj := subjectOf(c)
	// a content search (Grep, an agent tool of kind search, which the
	// profiles hand over as a Read of its root) reads every file under
	// its paths. The search tools of the agents we know are ripgrep,
	// which skips hidden entries (Claude Code: anthropics/claude-code#16936;
	// Gemini CLI: google-gemini/gemini-cli#18946).
	recursive := !write && (tool == "Grep" || c.Kind == "search" && tool != "Glob" && tool != "LS")
	skipHidden := tool == "Grep" || c.Kind == "search"
	// Glob and LS list the names under their path: denied when a deny
	// rule covers everything there (no content is read: no ask).
	lists := !write && (tool == "Glob" || tool == "LS")
	infos := make([]pathInfo, 0, len(c.Paths))
	for _, p := range c.Paths {
		if p == "" {
			continue
		}
		infos = append(infos, ev.env.info(ev.env.callRef(p, recursive || lists)))
	}
	pick := func(set *ruleSet, either bool) *rule {
		var best *rule
		if tool != catTool {
			best = matchName(set, tool, subj)
		}
		if len(infos) == 0 {
			// no path: only a rule for every call of the tool applies.
			for _, r := range set.byTool[catTool] {
				if r.kind == rkAny {
					best = first(best, r)
				}
			}
			return first(best, matchName(set, "", ""))
		}
		best = first(best, matchName(set, "", ""))
		if either {
			for _, pi := range infos {
				best = first(best, ev.matchPath(set, catTool, pi, true))
				if write {
					// a Read deny (or ask) covers editing the file too.
					best = first(best, ev.matchPath(set, "Read", pi, true))
				}
			}
			return best
		}
		// allow: every path must be allowed.
		var last *rule
		for _, pi := range infos {
			r := ev.matchPath(set, catTool, pi, false)
			if r == nil {
				return best
			}
			last = first(last, r)
		}
		return first(best, last)
	}
	if r := pick(&ev.pol.deny, true); r != nil {
		return ev.denyRule(r, "")
	}
	for _, pi := range infos {
		// a relative path of a call whose own directory cannot be known
		// (Call.Cwd: a variable, a link loop): a rule or a protected file
		// could be there.
		if pi.unknown && (write || ev.pol.guards("Read")) {
			return ev.askDefault(SourceDefault, "cannot check "+tool+": "+pi.raw+" is relative to "+c.Cwd+", a directory that cannot be known", !write)
		}
	}
	if write {
		for i, pi := range infos {
			// a delete (or the source of a move) of a directory takes
			// everything under it.
			if c.Kind == "delete" || c.Kind == "move" && i == 0 {
				pi.recursive = true
			}
			if b := ev.env.writeBreaker(pi); b != "" {
				return ev.breaker(b, false)
			}
		}
	}
	for _, pi := range infos {
		if pi.unsure && ev.pol.guards(catTool) {
			return ev.askDefault(SourceDefault, "cannot resolve the symlinks of "+pi.raw+" (a loop or too long a chain), and a "+catTool+" rule could name where it leads", !write)
		}
	}
	if r := pick(&ev.pol.ask, true); r != nil {
		return ev.askRule(r, "", !write)
	}
	// an agent's read or search tool given a glob (read_many_files
	// "**/*.env"): the files are known only when it runs.
	if !write && tool != "Read" && tool != "NotebookRead" && ev.pol.guards("Read") {
		for _, p := range c.Paths {
			if strings.ContainsAny(p, "*?[") {
				return ev.askDefault(SourceDefault, "cannot check "+tool+": the path "+p+" is a pattern, and a Read rule could name a file it matches", true)
			}
		}
	}
	if recursive {
		for _, pi := range infos {
			r := ev.mayReachUnder(&ev.pol.deny, "Read", pi, skipHidden)
			if r == nil {
				r = ev.mayReachUnder(&ev.pol.ask, "Read", pi, skipHidden)
			}
			if r != nil {
				return ev.finishAsk(ruleVerdict(Ask, r, tool+" searches everything under "+pi.abs+", which may include what rule "+r.text+" protects"), true)
			}
		}
	}
	if vetoOnly {
		return Verdict{}
	}
	if write && ev.mode == ModePlan {
		return planDeny("editing " + strings.Join(c.Paths, ", "))
	}
	if r := pick(&ev.pol.allow, false); r != nil {
		return ev.allowRule(r, SourceRule)
	}
	if ev.sess != nil {
		if r := pick(&ev.sess.allow, false); r != nil {
			return ev.allowRule(r, SourceSessionGrant)
		}
	}
	inside := len(infos) > 0
	for _, pi := range infos {
		if !ev.env.inWorkspace(pi) {
			inside = false
			break
		}
	}
	switch {
	case !write && inside:
		return Verdict{Decision: Allow, Source: SourceReadOnly, Reason: "reading inside the workspace needs no prompt"}
	case write && inside && ev.mode == ModeAcceptEdits:
		return Verdict{Decision: Allow, Source: SourceMode, Reason: "acceptEdits allows edits inside the workspace"}
	case ev.bypass:
		return bypassAllow()
	case len(infos) == 0:
		return ev.askDefault(SourceDefault, "the call names no path to check", !write)
	case !inside:
		what := "reading"
		if write {
			what = "writing"
		}
		return ev.askDefault(SourceDefault, what+" outside the workspace ("+outside(ev.env, infos)+")", !write)
	}
	return ev.askDefault(SourceDefault, "no rule allows editing "+strings.Join(c.Paths, ", ")+" ("+string(ev.mode)+" mode)", false)
}

func outside(e *envx, infos []pathInfo) string {
	for _, pi := range infos {
		if !e.inWorkspace(pi) {
			if pi.real != pi.abs && e.inWorkspaceLexical(pi.abs) {
				return pi.abs + " -> " + pi.real
			}
			return pi.abs
		}
	}
	return ""
}
