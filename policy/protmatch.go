package policy

import "strings"

// The protected places, folded once. A write through a shell is checked
// against every protected place at every call; matching each rule segment
// with strings.ToLower on both sides, per comparison, was the largest part
// of a plain write's decision. The rule tables are fixed at start-up, so
// each is folded (lower-cased) once here and indexed by its folded first
// segment: a path's segment meets only the rules that start with it (and
// the few whose first segment is a glob). The answer is the old one
// exactly: the first rule of the table (in table order) that matches, at
// its first position (TestProtectedMatcherEqualsReference holds the old
// matcher as the reference). See docs/policy.md, "One reading per call".

// foldSeg is one rule segment, folded.
type foldSeg struct {
	lit  string    // strings.ToLower of the segment
	glob *globProg // compiled lit when the segment is a glob (segMatch's test)
	dot  bool      // the glob starts with "." or "\." (it may match a leading dot)
}

// foldRules is a rule table folded and indexed.
type foldRules struct {
	segs      [][]foldSeg
	byFirst   map[string][]int // folded literal first segment -> rule indexes, ascending
	globFirst []int            // rules whose first segment is a glob, ascending
}

func foldSegOf(s string) foldSeg {
	l := strings.ToLower(s)
	f := foldSeg{lit: l}
	if strings.ContainsAny(l, "*?[\\") {
		f.glob = compileGlob(l)
		f.dot = strings.HasPrefix(l, ".") || strings.HasPrefix(l, "\\.")
	}
	return f
}

func foldRulesOf(rules [][]string) foldRules {
	out := foldRules{segs: make([][]foldSeg, len(rules)), byFirst: map[string][]int{}}
	for i, r := range rules {
		fs := make([]foldSeg, len(r))
		for k, s := range r {
			fs[k] = foldSegOf(s)
		}
		out.segs[i] = fs
		if len(fs) == 0 {
			continue
		}
		if fs[0].glob != nil {
			out.globFirst = append(out.globFirst, i)
		} else {
			out.byFirst[fs[0].lit] = append(out.byFirst[fs[0].lit], i)
		}
	}
	return out
}

func segsOfRules(rules []protRule) [][]string {
	out := make([][]string, len(rules))
	for i, r := range rules {
		out[i] = r.segs
	}
	return out
}

func segsOfPaths(ps []string) [][]string {
	out := make([][]string, len(ps))
	for i, p := range ps {
		out[i] = splitAbs(p)
	}
	return out
}

var (
	anywhereFold = foldRulesOf(segsOfRules(anywhereRules))
	homeFold     = foldRulesOf(segsOfRules(homeRules))
	startupFold  = foldRulesOf(segsOfPaths(startupHomeDirs))
	// systemStartupLower: systemStartup, lower-cased once.
	systemStartupLower = func() []string {
		out := make([]string, len(systemStartup))
		for i, d := range systemStartup {
			out[i] = strings.ToLower(d)
		}
		return out
	}()
)

// foldEq: strings.ToLower(s) == lower, where lower is already lower-cased;
// without allocating when s is ASCII.
func foldEq(lower, s string) bool {
	if !isASCII(s) {
		return strings.ToLower(s) == lower
	}
	if len(s) != len(lower) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// asciiEqualFold: a and b (both ASCII) are equal once lower-cased.
func asciiEqualFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if x == y {
			continue
		}
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// match is segMatch(the rule segment, lit).
func (f *foldSeg) match(lit string) bool {
	if f.glob == nil {
		return foldEq(f.lit, lit)
	}
	l := strings.ToLower(lit) // no copy when lit has no upper case
	if l == f.lit {
		return true
	}
	if strings.HasPrefix(l, ".") && !f.dot {
		return false
	}
	return f.glob.match(l, 0, nil)
}

// runAt is runAt(the rule's segments, lit, i).
func foldRunAt(r []foldSeg, lit []string, i int) bool {
	if i+len(r) > len(lit) {
		return false
	}
	for k := range r {
		if !r[k].match(lit[i+k]) {
			return false
		}
	}
	return true
}

// candidates: the rules whose first segment could match s (the literal
// ones equal to s folded; the glob ones are in f.globFirst).
func (f *foldRules) candidates(s string) []int {
	if len(f.byFirst) == 0 {
		return nil
	}
	if !isASCII(s) {
		return f.byFirst[strings.ToLower(s)]
	}
	upper := false
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			upper = true
			break
		}
	}
	if !upper {
		return f.byFirst[s]
	}
	var buf [64]byte
	if len(s) > len(buf) {
		return f.byFirst[strings.ToLower(s)]
	}
	b := buf[:len(s)]
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b[i] = c
	}
	return f.byFirst[string(b)] // a map index by a converted []byte does not allocate
}

// firstAnywhere: the first rule (in table order) whose segments appear as
// a run of segs, and the first position it appears at; -1 if none.
func (f *foldRules) firstAnywhere(segs []string) (rule, at int) {
	rule = -1
	try := func(ri, i int) {
		if (rule < 0 || ri < rule) && foldRunAt(f.segs[ri], segs, i) {
			rule, at = ri, i
		}
	}
	for i, s := range segs {
		for _, ri := range f.candidates(s) {
			try(ri, i)
		}
		for _, ri := range f.globFirst {
			try(ri, i)
		}
	}
	return rule, at
}

// firstAtStart: the first rule (in table order) whose segments match the
// start of segs; -1 if none.
func (f *foldRules) firstAtStart(segs []string) int {
	if len(segs) == 0 {
		return -1
	}
	best := -1
	for _, ri := range f.candidates(segs[0]) {
		if foldRunAt(f.segs[ri], segs, 0) {
			best = ri
			break // ascending: the first that matches is the first of the table
		}
	}
	for _, ri := range f.globFirst {
		if best >= 0 && ri >= best {
			break
		}
		if foldRunAt(f.segs[ri], segs, 0) {
			best = ri
			break
		}
	}
	return best
}

// splitAbsInto is splitAbs appending to buf (no allocation for a path of
// up to cap(buf) segments).
func splitAbsInto(buf []string, p string) []string {
	p = strings.Trim(p, "/")
	if p == "" {
		return buf[:0]
	}
	out := buf[:0]
	for {
		i := strings.IndexByte(p, '/')
		if i < 0 {
			return append(out, p)
		}
		out = append(out, p[:i])
		p = p[i+1:]
	}
}
