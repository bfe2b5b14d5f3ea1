package policy

import (
	"path"
	"strings"
)

// Rule lookup: which rule of a set names a tool, a command, a path or a
// host. Evaluate (evaluate.go) asks these in its order (deny, ask, allow);
// they only find, never decide.

// ---- rule lookup ----

// matchName returns the first rule of set that names tool with no
// specifier condition left to check (Tool, Tool(*), mcp names, poisoned).
// For rkGeneric rules the subject is matched.
func matchName(set *ruleSet, tool, subject string) *rule {
	var best *rule
	for _, r := range set.star {
		best = first(best, r)
		break
	}
	if tool != "" {
		for _, r := range set.byTool[tool] {
			if best != nil && r.idx > best.idx {
				break
			}
			switch r.kind {
			case rkAny:
				best = first(best, r)
			case rkGeneric:
				if subject != "" && wildMatch(r.glob, subject) {
					best = first(best, r)
				}
			}
		}
		if strings.HasPrefix(tool, "mcp__") {
			for _, r := range set.names {
				if r.namePrefix && strings.HasPrefix(tool+"__", r.name) ||
					!r.namePrefix && wildMatch(r.name, tool) {
					best = first(best, r)
				}
			}
		}
	}
	return best
}

// matchBash returns the first Bash rule of set that matches text.
func matchBash(set *ruleSet, text string) *rule {
	var best *rule
	fw := text
	if i := strings.IndexByte(text, ' '); i >= 0 {
		fw = text[:i]
	}
	var byWord []*rule
	if set.bashWords.mayHave(fw) {
		byWord = set.bashByWord[fw]
	}
	for _, r := range byWord {
		if best != nil && r.idx > best.idx {
			break
		}
		if r.bash.match(text) {
			best = first(best, r)
			break
		}
	}
	var have byteSet
	if len(set.bashWild) > 0 {
		have.addString(text)
	}
	for _, r := range set.bashWild {
		if best != nil && r.idx > best.idx {
			break
		}
		if r.kind == rkAny || r.bash.mayMatch(&have) && r.bash.match(text) {
			best = first(best, r)
			break
		}
	}
	return best
}

func matchBashSub(set *ruleSet, sc *subCmd) *rule {
	best := matchBash(set, sc.text)
	for _, t := range sc.alts {
		best = first(best, matchBash(set, t))
	}
	return first(best, matchBashNorm(set, sc))
}

// matchPath returns the first rule of set for tool (Read or Edit) whose
// pattern matches pi. either: deny/ask semantics (link or target); else
// allow semantics (link and target).
func (ev *evaluator) matchPath(set *ruleSet, tool string, pi pathInfo, either bool) *rule {
	if pi.unknown || pi.abs == "" {
		return nil
	}
	rules, ix := set.pathRules(tool)
	if len(rules) == 0 {
		return nil // nothing to meet, folded or not
	}
	match := func(pi pathInfo) *rule {
		if len(rules) >= pathIndexMin {
			return ix.match(ev, pi, either)
		}
		return ev.matchPathIn(rules, pi, either)
	}
	r := match(pi)
	if r == nil && either {
		// a deny or ask rule written in lower case also meets the path in
		// any case (.ENV, .Env for .env): on a case-insensitive file system
		// (macOS's and Windows' default) it is the same file. Folded below
		// the workspace root or home, as rules are written for them.
		if f, ok := ev.caseFolded(pi); ok {
			r = match(f)
		}
	}
	return r
}

// caseFolded: pi with its path below the workspace root (or home, or /)
// in lower case; ok false when that changes nothing.
func (e *envx) caseFolded(pi pathInfo) (pathInfo, bool) {
	fold := func(p string) string {
		from := 0
		for _, root := range [2]string{e.root, e.home} {
			if root != "" && len(p) > len(root) && p[len(root)] == '/' && strings.HasPrefix(p, root) {
				from = len(root) + 1
				break
			}
		}
		if l := strings.ToLower(p[from:]); l != p[from:] {
			return p[:from] + l
		}
		return p // nothing to fold: no allocation
	}
	f := pi
	f.abs = fold(pi.abs)
	if f.real = f.abs; pi.real != pi.abs {
		f.real = fold(pi.real)
	}
	return f, f.abs != pi.abs || f.real != pi.real
}

// caseFolded is env.caseFolded, remembered for the evaluation when its
// memory is pooled: the same path meets the deny and the ask rules, Read
// and Edit, each wanting its folded form.
func (ev *evaluator) caseFolded(pi pathInfo) (pathInfo, bool) {
	if !foldable(pi.abs) && (pi.real == pi.abs || !foldable(pi.real)) {
		return pi, false // no upper-case letter: folding changes nothing
	}
	ar := ev.ar
	if ar == nil {
		return ev.env.caseFolded(pi)
	}
	for i := range ar.folds {
		if m := &ar.folds[i]; m.abs == pi.abs && m.real == pi.real {
			if !m.changed {
				return pi, false
			}
			f := pi
			f.abs, f.real = m.fabs, m.freal
			return f, true
		}
	}
	f, ok := ev.env.caseFolded(pi)
	if len(ar.folds) < arenaMax {
		ar.folds = append(ar.folds, foldMemo{abs: pi.abs, real: pi.real, fabs: f.abs, freal: f.real, changed: ok})
	}
	return f, ok
}

// foldable: strings.ToLower could change p (an ASCII upper-case letter or
// any byte past ASCII).
func foldable(p string) bool {
	for i := 0; i < len(p); i++ {
		if c := p[i]; c >= 'A' && c <= 'Z' || c >= 0x80 {
			return true
		}
	}
	return false
}

// matchPathIn is matchPath over every rule of rules, in order.
func (ev *evaluator) matchPathIn(rules []*rule, pi pathInfo, either bool) *rule {
	var best *rule
	for _, r := range rules {
		if best != nil && r.idx > best.idx {
			break
		}
		var ok bool
		switch r.kind {
		case rkAny:
			ok = true
		case rkPath:
			ok = ev.pathMatches(&r.path, pi, either)
		}
		if ok {
			best = first(best, r)
		}
	}
	return best
}

func (ev *evaluator) pathMatches(p *pathPattern, pi pathInfo, either bool) bool {
	if pi.unsure && !either {
		return false // a symlink loop: an allow rule cannot vouch for where it leads
	}
	if pi.recursive && either {
		// rm -r dir: denied when the pattern covers everything in dir.
		probe := pi
		probe.recursive = false
		probe.abs, probe.real = pi.abs+"/\x00", pi.real+"/\x00"
		if ev.pathMatches(p, probe, true) {
			return true
		}
	}
	base := p.base(ev.env)
	lex := p.matchAt(pi.abs, base)
	if pi.real == pi.abs {
		return lex
	}
	if either && lex {
		return true
	}
	if !either && !lex {
		return false
	}
	if p.matchAt(pi.real, base) {
		return true
	}
	if rb := resolveReal(ev.env.fs, base); rb != base {
		return p.matchAt(pi.real, rb)
	}
	return false
}

// mayMatchUnder: a recursive operation on pi could reach a file the
// pattern names.
func (ev *evaluator) mayMatchUnder(set *ruleSet, tool string, pi pathInfo) *rule {
	return ev.mayReachUnder(set, tool, pi, false)
}

// mayReachUnder: a recursive operation on pi could reach a file a rule of
// set names: the rule's literal directory lies inside pi, or pi lies
// inside it (any-depth patterns such as .env or **/secrets/** start at
// the root). skipHidden: the operation skips hidden entries below pi (rg,
// ag, the Grep tool), so a rule whose every match has a hidden path
// component cannot reach anything there unless pi itself is hidden.
// ruleLiteralPrefix: the directory (or file) every path the path rule r
// (with base) matches lies in: its pattern up to the first wildcard.
func (ev *evaluator) ruleLiteralPrefix(r *rule, base string) string {
	lit := r.path.glob
	if r.path.up {
		lit = path.Join(base, lit)
	}
	if i := strings.IndexAny(lit, "*?[\\"); i >= 0 {
		lit = lit[:i]
		if j := strings.LastIndexByte(lit, '/'); j >= 0 {
			lit = lit[:j]
		} else {
			lit = ""
		}
	}
	if lit == "" {
		return base
	}
	return canonPath(lit, base, ev.env.home)
}

func (ev *evaluator) mayReachUnder(set *ruleSet, tool string, pi pathInfo, skipHidden bool) *rule {
	if !pi.recursive || pi.unknown || pi.abs == "" {
		return nil
	}
	for _, r := range set.byTool[tool] {
		if r.kind == rkAny {
			return r
		}
		if r.kind != rkPath {
			continue
		}
		base := r.path.base(ev.env)
		if base == "" {
			continue
		}
		if skipHidden && hiddenOnly(r.path.glob) && !hasHiddenPart(pi.abs) && !hasHiddenPart(pi.real) {
			continue
		}
		prefix := ev.ruleLiteralPrefix(r, base)
		if within(prefix, pi.abs) || within(prefix, pi.real) || within(pi.abs, prefix) || within(pi.real, prefix) {
			return r
		}
	}
	return nil
}

// hiddenOnly: every path the glob matches has a component starting with
// a dot (a segment of the glob starts with a literal ".").
func hiddenOnly(glob string) bool {
	for _, seg := range strings.Split(glob, "/") {
		if strings.HasPrefix(seg, ".") && seg != "." && seg != ".." {
			return true
		}
	}
	return false
}

func hasHiddenPart(p string) bool {
	return strings.Contains(p, "/.")
}

func (ev *evaluator) sessionRule(f func(*ruleSet) *rule) *rule {
	if ev.sess == nil {
		return nil
	}
	return f(&ev.sess.allow)
}

// matchDomain returns the first WebFetch rule of set naming one of hosts
// (any: deny and ask rules) or all of them (allow rules). No hosts: only
// rules for every fetch apply.
func matchDomain(set *ruleSet, hosts []string, any bool) *rule {
	var best *rule
	for _, r := range set.byTool["WebFetch"] {
		if best != nil && r.idx > best.idx {
			break
		}
		ok := false
		switch {
		case r.kind == rkAny, r.domainAny:
			ok = true
		case r.kind != rkDomain || len(hosts) == 0:
		default:
			ok = !any
			for _, h := range hosts {
				if r.domainMatches(h) == any {
					ok = any
					break
				}
			}
		}
		if ok {
			best = first(best, r)
		}
	}
	return best
}

func (r *rule) domainMatches(host string) bool {
	if r.domainWild {
		return strings.HasSuffix(host, "."+r.domain)
	}
	return host == r.domain
}
