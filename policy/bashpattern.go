package policy

import (
	"fmt"
	"strings"
)

// wild marks a wildcard inside a compiled Bash pattern (commands cannot
// contain NUL, so it never collides with text).
const wild = '\x00'

// bashPattern is a compiled Bash(...) specifier. The pattern is normalised
// like a command line (quotes and escapes removed, words joined by one
// space) so that it compares with the sub-command text built the same way.
type bashPattern struct {
	glob  string   // normalised pattern, wild for each unquoted *
	segs  []string // literal pieces between wildcards
	lead  bool     // starts with a wildcard
	trail bool     // ends with a wildcard
	// boundary: a trailing " *" or ":*": matches the prefix alone or the
	// prefix followed by a space and anything ("ls *" matches "ls -la", not "lsof").
	boundary bool
	// first is the literal first word, "" when it holds a wildcard.
	first string
	// wsegs: when a word of the pattern holds a blank (quoted or escaped),
	// the pattern with those blanks written as inWordBlank, cut at the
	// wildcards; an allow rule then also matches the command's words
	// (grant_words.go). nil otherwise.
	wsegs []string
	// need: every byte of segs (a text the pattern matches holds each
	// piece, so each of these bytes): a text missing one is turned away
	// before matching (mayMatch). Zero (nothing needed) for a pattern
	// built without compileBash's help.
	need byteSet
}

// byteSet is a set of bytes.
type byteSet [4]uint64

func (s *byteSet) addString(t string) {
	for i := 0; i < len(t); i++ {
		s[t[i]>>6] |= 1 << (t[i] & 63)
	}
}

// covers: every byte of o is in s.
func (s *byteSet) covers(o *byteSet) bool {
	return o[0]&^s[0] == 0 && o[1]&^s[1] == 0 && o[2]&^s[2] == 0 && o[3]&^s[3] == 0
}

// mayMatch: a text whose bytes are have may match p's segs (false: it
// cannot).
func (p *bashPattern) mayMatch(have *byteSet) bool {
	return have.covers(&p.need)
}

// trimBlanks trims blanks around a pattern, keeping a trailing blank that
// a backslash escapes (BashLiteral writes one for a text that ends in a
// blank).
func trimBlanks(s string) string {
	s = strings.TrimLeft(s, " \t\n\r")
	for len(s) > 0 && strings.IndexByte(" \t\n\r", s[len(s)-1]) >= 0 {
		n := 0
		for i := len(s) - 2; i >= 0 && s[i] == '\\'; i-- {
			n++
		}
		if n%2 == 1 {
			break
		}
		s = s[:len(s)-1]
	}
	return s
}

func compileBashPattern(spec string) (bashPattern, error) {
	var p bashPattern
	s := trimBlanks(spec)
	if i := strings.Index(s, ":*"); i >= 0 {
		if i != len(s)-2 {
			return p, fmt.Errorf("%w %q: the legacy :* form must end the pattern", ErrRuleSpecifier, spec)
		}
		s = trimBlanks(s[:i])
		p.boundary = true
	} else if strings.HasSuffix(s, " *") && !strings.HasSuffix(s, "\\ *") {
		s = trimBlanks(s[:len(s)-2])
		p.boundary = true
	}
	if s == "" {
		return p, fmt.Errorf("%w %q: nothing before the wildcard", ErrRuleSpecifier, spec)
	}
	g, err := normalizePattern(s)
	if err != nil {
		return p, fmt.Errorf("%w %q: %v", ErrRuleSpecifier, spec, err)
	}
	if g == "" {
		return p, fmt.Errorf("%w %q: empty command", ErrRuleSpecifier, spec)
	}
	p.glob = g
	p.segs = strings.Split(g, string(wild))
	for _, seg := range p.segs {
		p.need.addString(seg)
	}
	if wg, err := normalizePatternEnc(s, inWordBlank); err == nil && wg != g {
		p.wsegs = strings.Split(wg, string(wild))
	}
	p.lead = g[0] == wild
	p.trail = g[len(g)-1] == wild
	fw := g
	if i := strings.IndexByte(g, ' '); i >= 0 {
		fw = g[:i]
	}
	if strings.IndexByte(fw, wild) < 0 {
		p.first = fw
	}
	return p, nil
}

// normalizePattern lexes a pattern like shell words: whitespace separates
// words, quotes group, a backslash escapes; an unquoted * is a wildcard.
func normalizePattern(s string) (string, error) {
	return normalizePatternEnc(s, ' ')
}

// normalizePatternEnc is normalizePattern writing a blank inside a word
// as blank.
func normalizePatternEnc(s string, blank byte) (string, error) {
	var b strings.Builder
	lit := func(c byte) {
		if c == ' ' {
			c = blank
		}
		b.WriteByte(c)
	}
	inWord := false
	sep := func() {
		if inWord {
			return
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		inWord = true
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case ' ', '\t', '\n', '\r':
			inWord = false
		case '\\':
			sep()
			if i+1 < len(s) {
				i++
				lit(s[i])
			}
		case '*':
			sep()
			b.WriteByte(wild)
		case '\'':
			sep()
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return "", fmt.Errorf("unterminated quote")
			}
			for k := i + 1; k < i+1+j; k++ {
				lit(s[k])
			}
			i += j + 1
		case '"':
			sep()
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0 {
					i++
				}
				lit(s[i])
			}
			if i >= len(s) {
				return "", fmt.Errorf("unterminated quote")
			}
		default:
			sep()
			lit(c)
		}
	}
	return b.String(), nil
}

// match reports whether the normalised command text t matches. With a
// trailing " *" or ":*" (boundary), t may also be the pattern followed by
// a space and anything.
func (p *bashPattern) match(t string) bool {
	return p.matchSteps(t, nil)
}

func (p *bashPattern) matchSteps(t string, steps *int) bool {
	var stop byte
	if p.boundary {
		stop = ' '
	}
	return wildSegs(p.segs, t, stop, steps)
}

// String renders the pattern back with * for wildcards.
func (p *bashPattern) String() string {
	s := strings.ReplaceAll(p.glob, string(wild), "*")
	if p.boundary {
		s += " *"
	}
	return s
}

// wildMatch matches s against a pattern whose only metacharacter is *
// (generic specifiers, MCP tool-name globs).
func wildMatch(pattern, s string) bool {
	return wildSegs(strings.Split(pattern, "*"), s, 0, nil)
}
