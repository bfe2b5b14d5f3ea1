package policy

import (
	"math/bits"
	"slices"
	"strings"
	"unicode/utf8"
)

// Bounded matching (docs/policy.md, "Bounded matching"). Every rule pattern
// is matched in time O(len(pattern) x len(input)), whatever either holds: a
// workspace's deny rules apply before it is trusted, so a pattern such as
// `Read(*a*a*a*a*a*a*b)` must not be able to stall a decision. There is no
// backtracking matcher in the policy:
//
//   - path globs (Read/Edit, protected places, breakers) run as a set of
//     states (Thompson's construction) over the input, one pass, each input
//     byte visiting each pattern token at most a few times;
//   - patterns whose only metacharacter is * (Bash, MCP tool names, generic
//     specifiers) match greedily, leftmost segment first, which is exact
//     for * and needs no backtracking.
//
// The step counters below exist for the tests, which assert the bound by
// counting (fuzz_bound_test.go), never by timing.

// gkind is the kind of one path-glob token.
type gkind uint8

const (
	gLit      gkind = iota // one byte
	gAnyRune               // ?: one rune, not "/"
	gClass                 // [...]: one rune in the class, not "/"
	gStar                  // *: any run of bytes without "/"
	gAll                   // ** at the end: anything
	gGlobstar              // ** before more: "" or any string ending in "/" (entry state)
	gGlobIn                // inside a ** that has consumed part of a segment
	gFail                  // a dangling \: matches nothing
)

type gtok struct {
	kind gkind
	b    byte
	cls  *gclass
}

type gclass struct {
	neg    bool
	ranges []rune // lo, hi pairs
}

func (c *gclass) match(r rune) bool {
	in := false
	for i := 0; i+1 < len(c.ranges); i += 2 {
		if c.ranges[i] <= r && r <= c.ranges[i+1] {
			in = true
			break
		}
	}
	return in != c.neg
}

// globProg is a compiled gitignore-style glob: * and ? never cross "/", **
// spans segments, [...] is a class ([!...] or [^...] negated; an invalid
// class is a literal "["), \ escapes one byte.
type globProg struct {
	toks []gtok
	// lits are the runs of literal bytes (two or more) the pattern holds,
	// longest first: each must occur in any input that matches, a quick
	// reject before the state-set pass.
	lits []string
}

func compileGlob(p string) *globProg {
	g := &globProg{toks: make([]gtok, 0, len(p))}
	for i := 0; i < len(p); {
		switch p[i] {
		case '*':
			if i+1 < len(p) && p[i+1] == '*' {
				j := i + 2
				if j < len(p) && p[j] == '/' {
					j++
				}
				if j >= len(p) {
					g.toks = append(g.toks, gtok{kind: gAll})
				} else {
					g.toks = append(g.toks, gtok{kind: gGlobstar}, gtok{kind: gGlobIn})
				}
				i = j
				continue
			}
			// consecutive stars are one star (fewer states, same language)
			if n := len(g.toks); n == 0 || g.toks[n-1].kind != gStar {
				g.toks = append(g.toks, gtok{kind: gStar})
			}
			i++
		case '?':
			g.toks = append(g.toks, gtok{kind: gAnyRune})
			i++
		case '[':
			cls, n, ok := parseClass(p[i+1:])
			if !ok {
				g.toks = append(g.toks, gtok{kind: gLit, b: '['})
				i++
				continue
			}
			g.toks = append(g.toks, gtok{kind: gClass, cls: cls})
			i += 1 + n
		case '\\':
			if i+1 >= len(p) {
				g.toks = append(g.toks, gtok{kind: gFail})
				i++
				continue
			}
			g.toks = append(g.toks, gtok{kind: gLit, b: p[i+1]})
			i += 2
		default:
			g.toks = append(g.toks, gtok{kind: gLit, b: p[i]})
			i++
		}
	}
	var run []byte
	flush := func() {
		if len(run) >= 2 {
			g.lits = append(g.lits, string(run))
		}
		run = run[:0]
	}
	for _, t := range g.toks {
		if t.kind == gLit {
			run = append(run, t.b)
			continue
		}
		flush()
	}
	flush()
	slices.SortStableFunc(g.lits, func(a, b string) int { return len(b) - len(a) })
	return g
}

// parseClass reads a class after its "["; n is the bytes consumed
// including the closing "]".
func parseClass(p string) (*gclass, int, bool) {
	c := &gclass{}
	i := 0
	if i < len(p) && (p[i] == '!' || p[i] == '^') {
		c.neg = true
		i++
	}
	firstChar := true
	for i < len(p) {
		if p[i] == ']' && !firstChar {
			return c, i + 1, true
		}
		firstChar = false
		lo, n := classChar(p[i:])
		if n == 0 {
			return nil, 0, false
		}
		i += n
		hi := lo
		if i+1 < len(p) && p[i] == '-' && p[i+1] != ']' {
			h, m := classChar(p[i+1:])
			if m == 0 {
				return nil, 0, false
			}
			hi = h
			i += 1 + m
		}
		c.ranges = append(c.ranges, lo, hi)
	}
	return nil, 0, false
}

func classChar(p string) (rune, int) {
	if p[0] == '\\' {
		if len(p) < 2 {
			return 0, 0
		}
		r, n := utf8.DecodeRuneInString(p[1:])
		return r, n + 1
	}
	r, n := utf8.DecodeRuneInString(p)
	return r, n
}

// skip is how far a token's empty match moves: 1 for * and a final **, 2
// for the entry of a ** before more (past its inner state), 0 for tokens
// that must consume.
func (k gkind) skip() int {
	switch k {
	case gStar, gAll:
		return 1
	case gGlobstar:
		return 2
	}
	return 0
}

// ring is the number of state sets kept: a ? or class consumes up to
// utf8.UTFMax bytes, so states are scheduled up to 4 bytes ahead.
const ring = utf8.UTFMax + 1

// match reports whether s matches the whole glob or, with stop != 0, the
// part of s before any stop byte (a path glob that names a directory
// matches everything under it: stop is "/"). steps, if not nil, counts the
// work done.
func (g *globProg) match(s string, stop byte, steps *int) bool {
	for _, lit := range g.lits {
		n := 0
		i := indexCounted(s, lit, &n)
		if steps != nil {
			*steps += n
		}
		if i < 0 {
			return false
		}
	}
	nt := len(g.toks)
	words := (nt + 1 + 63) / 64
	var small [ring * 2]uint64
	var buf []uint64
	if ring*words <= len(small) {
		buf = small[:ring*words]
	} else {
		buf = make([]uint64, ring*words)
	}
	set := func(k int) []uint64 { k %= ring; return buf[k*words : (k+1)*words] }
	count := 0
	add := func(st []uint64, j int) {
		for {
			count++
			w, bit := j>>6, uint64(1)<<(j&63)
			if st[w]&bit != 0 {
				return
			}
			st[w] |= bit
			if j < nt {
				if k := g.toks[j].kind.skip(); k > 0 {
					j += k
					continue
				}
			}
			return
		}
	}
	add(set(0), 0)
	accept := func(st []uint64) bool { return st[nt>>6]&(uint64(1)<<(nt&63)) != 0 }
	result := false
	for i := 0; ; i++ {
		cur := set(i)
		if accept(cur) && (i == len(s) || stop != 0 && s[i] == stop) {
			result = true
			break
		}
		if i == len(s) {
			break
		}
		live := false
		for k := 0; k < ring*words && !live; k++ {
			live = buf[k] != 0
		}
		if !live {
			break
		}
		c := s[i]
		next := set(i + 1)
		for w := range cur {
			for x := cur[w]; x != 0; x &= x - 1 {
				j := w<<6 + bits.TrailingZeros64(x)
				count++
				if j >= nt {
					continue
				}
				t := &g.toks[j]
				switch t.kind {
				case gLit:
					if c == t.b {
						add(next, j+1)
					}
				case gAnyRune, gClass:
					if c == '/' {
						continue
					}
					r, n := utf8.DecodeRuneInString(s[i:])
					if t.kind == gAnyRune || t.cls.match(r) {
						add(set(i+n), j+1)
					}
				case gStar:
					if c != '/' {
						add(next, j)
					}
				case gAll:
					add(next, j)
				case gGlobstar, gGlobIn:
					// (any "/"-terminated run)*: after a "/", back to the
					// entry (which may end the run); else inside it.
					k := j
					if t.kind == gGlobIn {
						k = j - 1
					}
					if c == '/' {
						add(next, k)
					} else {
						add(next, k+1)
					}
				}
			}
		}
		clear(cur)
	}
	if steps != nil {
		*steps += count
	}
	return result
}

// matchGlob matches a gitignore-style glob against a relative path (the
// whole path). It compiles p each time; compiled patterns keep their
// globProg.
func matchGlob(p, s string) bool {
	return compileGlob(p).match(s, 0, nil)
}

// wildSegs matches t against segs joined by "match anything" wildcards
// (Bash patterns, MCP tool-name globs, generic specifiers). With stop != 0
// a prefix of t that ends before a stop byte also matches ("ls *" covers
// "ls -la" through its prefix "ls"). The middle segments are taken
// leftmost, which is exact for a wildcard that matches anything and needs
// no backtracking: O(len(pattern) x len(t)).
func wildSegs(segs []string, t string, stop byte, steps *int) bool {
	if steps == nil {
		return wildSegsFast(segs, t, stop)
	}
	count := 0
	defer func() {
		if steps != nil {
			*steps += count
		}
	}()
	first := segs[0]
	count += len(first) + 1
	if len(t) < len(first) || t[:len(first)] != first {
		return false
	}
	if len(segs) == 1 {
		return len(t) == len(first) || stop != 0 && t[len(first)] == stop
	}
	pos := len(first)
	for _, s := range segs[1 : len(segs)-1] {
		i := indexCounted(t[pos:], s, &count)
		if i < 0 {
			return false
		}
		pos += i + len(s)
	}
	last := segs[len(segs)-1]
	if stop == 0 {
		count += len(last) + 1
		return len(t)-len(last) >= pos && t[len(t)-len(last):] == last
	}
	// the last segment must end at the end of t or before a stop byte.
	for e := pos + len(last); e <= len(t); e++ {
		count++
		if e < len(t) && t[e] != stop {
			continue
		}
		count += len(last)
		if t[e-len(last):e] == last {
			return true
		}
	}
	return false
}

// wildSegsFast is wildSegs when no one counts the steps: the same
// leftmost matching with the library's searches (strings.Index) instead of
// a counted byte loop (TestWildSegsFastEqualsCounted).
func wildSegsFast(segs []string, t string, stop byte) bool {
	first := segs[0]
	if !strings.HasPrefix(t, first) {
		return false
	}
	if len(segs) == 1 {
		return len(t) == len(first) || stop != 0 && t[len(first)] == stop
	}
	pos := len(first)
	for _, s := range segs[1 : len(segs)-1] {
		i := strings.Index(t[pos:], s)
		if i < 0 {
			return false
		}
		pos += i + len(s)
	}
	last := segs[len(segs)-1]
	if stop == 0 {
		return len(t)-len(last) >= pos && strings.HasSuffix(t, last)
	}
	// the last segment must end at the end of t or before a stop byte.
	for e := pos + len(last); e <= len(t); e++ {
		if e < len(t) && t[e] != stop {
			continue
		}
		if t[e-len(last):e] == last {
			return true
		}
	}
	return false
}

// indexCounted is strings.Index with its comparisons counted: at most
// (len(s)+1) x (len(sub)+1).
func indexCounted(s, sub string, count *int) int {
	if sub == "" {
		*count++
		return 0
	}
	for i := 0; i+len(sub) <= len(s); i++ {
		*count++
		if s[i] != sub[0] {
			continue
		}
		j := 1
		for ; j < len(sub) && s[i+j] == sub[j]; j++ {
			*count++
		}
		if j == len(sub) {
			return i
		}
	}
	*count++
	return -1
}
