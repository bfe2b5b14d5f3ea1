package policy

import "strings"

// Grants keep word boundaries (docs/policy.md, "A granted command keeps
// its words"). A sub-command's text joins its words with one blank, so
// `rm 'old backup'` and `rm old backup` have the same text. A Bash rule
// tells them apart: a blank inside a word of the rule (quoted, 'old
// backup', or escaped, old\ backup) is a literal blank, an unquoted one a
// word boundary. A rule with such a blank allows a sub-command only when
// its words meet the rule word for word (the text is compared with the
// blanks inside words written as inWordBlank on both sides, so a wildcard
// still spans words). Deny and ask rules keep matching the text (they
// meet both spellings: stricter, never weaker). The session grant and the
// exact suggestion of a command write each word with its blanks escaped.

// inWordBlank stands for a blank inside a word (commands hold no \x01
// that the shell would keep in an argument the policy reads as text).
const inWordBlank = '\x01'

// curWords: the words of the command being read, for the sub-commands
// recorded with its text.
type curWords struct {
	text  string
	words []string
	// split: the words are text split at its blanks (none holds a blank or
	// is empty), so words is left nil and read back from text when needed.
	split bool
}

// enter makes text and ws the current command and returns the previous
// one, for leave.
func (c *curWords) enter(text string, ws []word) curWords {
	prev := *c
	var words []string
	split := false
	if joinedIs(ws, text) {
		split = true
		for _, w := range ws {
			if w.s == "" || strings.IndexByte(w.s, ' ') >= 0 {
				split = false
				break
			}
		}
		if !split {
			words = make([]string, len(ws))
			for i, w := range ws {
				words[i] = w.s
			}
		}
	}
	// else the text is not these words joined: no word reading
	c.text, c.words, c.split = text, words, split
	return prev
}

// words are the sub-command's words when known (nil if not): argv, or
// its text split at blanks when the reader found them to be that.
func (sc *subCmd) words() []string {
	if sc.argv == nil && sc.argvSplit {
		return strings.Split(sc.text, " ")
	}
	return sc.argv
}

// wordsMatchSub is wordsMatch of sc's words, read only for a rule that
// needs them.
func (p *bashPattern) wordsMatchSub(sc *subCmd) bool {
	if p.wsegs == nil {
		return true
	}
	return p.wordsMatch(sc.words())
}

// leave restores the command enter replaced.
func (c *curWords) leave(prev curWords) { *c = prev }

// joinedIs: the values of ws joined by one blank are text.
func joinedIs(ws []word, text string) bool {
	for i, w := range ws {
		if i > 0 {
			if text == "" || text[0] != ' ' {
				return false
			}
			text = text[1:]
		}
		if !strings.HasPrefix(text, w.s) {
			return false
		}
		text = text[len(w.s):]
	}
	return text == ""
}

// wordsMatch: p has no blank inside a word, or argv meets it word for
// word. Unknown words (nil) meet only a rule without such a blank.
func (p *bashPattern) wordsMatch(argv []string) bool {
	if p.wsegs == nil {
		return true
	}
	if argv == nil {
		return false
	}
	enc := make([]string, len(argv))
	for i, w := range argv {
		enc[i] = strings.ReplaceAll(w, " ", string(inWordBlank))
	}
	var stop byte
	if p.boundary {
		stop = ' '
	}
	return wildSegs(p.wsegs, strings.Join(enc, " "), stop, nil)
}

// grantLiteral writes a sub-command for an exact Bash rule: word by word
// when its words are known (a blank inside a word escaped), else its text.
func grantLiteral(sc *subCmd) string {
	argv := sc.words()
	if argv == nil || strings.Join(argv, " ") != sc.text {
		return BashLiteral(sc.text)
	}
	parts := make([]string, len(argv))
	for i, w := range argv {
		parts[i] = strings.ReplaceAll(BashLiteral(w), `\ `, " ")
		parts[i] = strings.ReplaceAll(parts[i], " ", `\ `)
		if w == "" {
			parts[i] = "''"
		}
	}
	return strings.Join(parts, " ")
}
