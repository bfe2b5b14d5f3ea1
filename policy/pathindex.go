package policy

import "strings"

// pathIndex narrows the Read/Edit path rules of one tool in one rule set to
// those that can match a path, before any glob runs.
//
// A glob segment made of plain bytes only (dir7 in **/dir7/**/*.key, src
// in src/a.go) can only be matched by a whole component of the text: the
// segment's tokens are literal bytes, the token before it is the start or a
// "/" (or a ** that matches "" or a string ending in "/"), and the token
// after it is a "/" or the end. The text a rule matches is the path taken
// relative to the rule's base, or a leading part of it that ends before a
// "/" (pathPattern.matchAt), so its components are components of the path.
// A rule with such a segment is filed under it (its longest one), and can
// match only a path (lexical or real: pathMatches tries both, and a
// recursive operation's abs + "/\x00", which adds no component a rule can
// name: a rule holds no NUL) that has that component. Every other rule (a
// glob whose every segment holds a wildcard, an escape or a class; one
// joined with its base at match time ("../"); the base itself; rkAny) is
// always a candidate.
type pathIndex struct {
	bySeg  map[string][]*rule
	always []*rule
	n      int
	// lens and firsts filter a component before the map is asked: the
	// lengths (bit min(len, 63)) and the first bytes of the segments filed.
	// A component whose length or first byte no segment has cannot be a
	// key (most components of most paths), and costs no hash.
	lens   uint64
	firsts [4]uint64
}

// mayHave: seg could be a key of bySeg (never false for one that is).
func (ix *pathIndex) mayHave(seg string) bool {
	if seg == "" {
		return false // literalSeg never files ""
	}
	return ix.lens&(1<<min(len(seg), 63)) != 0 && ix.firsts[seg[0]>>6]&(1<<(seg[0]&63)) != 0
}

// pathIndexMin: below this many rules the plain loop is as fast.
const pathIndexMin = 8

// literalSeg is the glob's longest segment of plain bytes ("" if none).
func literalSeg(glob string) string {
	best := ""
	for seg := range strings.SplitSeq(glob, "/") {
		if len(seg) > len(best) && !strings.ContainsAny(seg, "*?[\\") {
			best = seg
		}
	}
	return best
}

func (ix *pathIndex) add(r *rule) {
	ix.n++
	seg := ""
	if r.kind == rkPath && !r.path.up {
		seg = literalSeg(r.path.glob)
	}
	if seg == "" {
		ix.always = append(ix.always, r)
		return
	}
	if ix.bySeg == nil {
		ix.bySeg = map[string][]*rule{}
	}
	ix.bySeg[seg] = append(ix.bySeg[seg], r)
	ix.lens |= 1 << min(len(seg), 63)
	ix.firsts[seg[0]>>6] |= 1 << (seg[0] & 63)
}

// match is matchPath over the candidates: the matching rule that comes
// first in the rule order, or nil.
func (ix *pathIndex) match(ev *evaluator, pi pathInfo, either bool) *rule {
	var best *rule
	try := func(rs []*rule) {
		for _, r := range rs {
			if best != nil && r.idx > best.idx {
				return
			}
			if r.kind == rkAny || r.kind == rkPath && ev.pathMatches(&r.path, pi, either) {
				best = first(best, r)
			}
		}
	}
	try(ix.always)
	if len(ix.bySeg) == 0 {
		return best
	}
	seen := func(c string, upto string) bool {
		// c already looked up among the components of upto
		for rest := upto; ; {
			i := strings.IndexByte(rest, '/')
			if i < 0 {
				return rest == c
			}
			if rest[:i] == c {
				return true
			}
			rest = rest[i+1:]
		}
	}
	// the components of each path, by a plain loop (an iterator's calls
	// cost more than the filter they feed)
	for rest := pi.abs; ; {
		p := rest
		i := strings.IndexByte(rest, '/')
		if i >= 0 {
			p, rest = rest[:i], rest[i+1:]
		}
		if ix.mayHave(p) {
			if rs := ix.bySeg[p]; rs != nil {
				try(rs)
			}
		}
		if i < 0 {
			break
		}
	}
	if pi.real != pi.abs {
		for rest := pi.real; ; {
			p := rest
			i := strings.IndexByte(rest, '/')
			if i >= 0 {
				p, rest = rest[:i], rest[i+1:]
			}
			if ix.mayHave(p) {
				if rs := ix.bySeg[p]; rs != nil && !seen(p, pi.abs) {
					try(rs)
				}
			}
			if i < 0 {
				break
			}
		}
	}
	return best
}
