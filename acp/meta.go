package acp

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"

	"github.com/acp-bridge/acp-bridge/internal/jsonscan"
)

// A child must not speak for the bridge: `_meta["acp-bridge"]` is the
// bridge's own word to the editor (an approval's id, the agent, the rule
// that matched). A child that puts one in what the editor is shown (a tool
// call in a session/update, the toolCall of a permission request, the params
// of an fs or terminal request) could dress its own text up as the bridge's,
// so that key is removed, at any depth, before the editor sees the message;
// every other key of `_meta` passes as it is, and so does every other byte.

// metaMember is the member whose object StripMetaKey looks into.
const metaMember = "_meta"

// maxStripDepth bounds the nesting StripMetaKey walks (encoding/json's own
// bound); a deeper value is refused, never forwarded unread.
const maxStripDepth = 10000

// ErrTooDeep is returned by StripMetaKey for JSON nested deeper than it reads.
var ErrTooDeep = errors.New("JSON nested too deep to check for a foreign _meta key")

// StripMetaKey returns b, valid JSON, with every member named key removed
// from every object that is the value of a member named "_meta", at any
// depth. Names are compared as any JSON reader decodes them (an escaped
// spelling is the same name). When there is nothing to remove, b itself is
// returned and changed is false; a value that cannot hold key (neither its
// bytes nor a \u00XX escape of one of them: mayHold) is not walked at all,
// so the common case costs a bytes.Contains and a bytes.Index. Everything but the removed members is kept byte for byte.
func StripMetaKey(b []byte, key string) (out []byte, changed bool, err error) {
	if !mayHold(b, key) {
		return b, false, nil
	}
	st := stripper{b: b, key: key}
	if _, ok := st.value(0, 0, false); !ok {
		if st.tooDeep {
			return b, false, ErrTooDeep
		}
		return b, false, errors.New("not valid JSON")
	}
	if len(st.cuts) == 0 {
		return b, false, nil
	}
	out = make([]byte, 0, len(b))
	last := 0
	for _, c := range st.cuts {
		out = append(out, b[last:c[0]]...)
		last = c[1]
	}
	return append(out, b[last:]...), true, nil
}

// mayHold reports whether b could hold a member named key (ASCII): key
// spelled plainly, or a \u00XX escape of one of key's bytes (the only other
// way to spell an ASCII name; escapes of anything else, as Go writes for
// '<' or Python for non-ASCII text, cannot).
func mayHold(b []byte, key string) bool {
	if bytes.Contains(b, []byte(key)) {
		return true
	}
	for i := 0; ; {
		k := bytes.Index(b[i:], []byte(`\u00`))
		if k < 0 {
			return false
		}
		i += k + 4
		if i+2 > len(b) {
			return false
		}
		c, ok := hexByte(b[i], b[i+1])
		if ok && strings.IndexByte(key, c) >= 0 {
			return true
		}
	}
}

// hexByte reads two hex digits.
func hexByte(hi, lo byte) (byte, bool) {
	h, ok1 := hexVal(hi)
	l, ok2 := hexVal(lo)
	return h<<4 | l, ok1 && ok2
}

func hexVal(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// stripper finds the spans StripMetaKey cuts, in order.
type stripper struct {
	b       []byte
	key     string
	cuts    [][2]int
	tooDeep bool
}

func (s *stripper) space(i int) int {
	for i < len(s.b) && (s.b[i] == ' ' || s.b[i] == '\t' || s.b[i] == '\n' || s.b[i] == '\r') {
		i++
	}
	return i
}

// value walks the value at b[i] (after spaces) and returns the index just past it.
func (s *stripper) value(i, depth int, isMeta bool) (int, bool) {
	i = s.space(i)
	if i >= len(s.b) {
		return 0, false
	}
	switch s.b[i] {
	case '{':
		return s.object(i, depth+1, isMeta)
	case '[':
		return s.array(i, depth+1)
	case '"':
		end := jsonscan.SkipValue(s.b, i) // b[i] is the opening quote
		return end, end > 0
	default:
		j := i
		for j < len(s.b) {
			switch s.b[j] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return j, j > i
			}
			j++
		}
		return j, j > i
	}
}

func (s *stripper) array(i, depth int) (int, bool) {
	if depth > maxStripDepth {
		s.tooDeep = true
		return 0, false
	}
	i = s.space(i + 1)
	if i < len(s.b) && s.b[i] == ']' {
		return i + 1, true
	}
	for {
		end, ok := s.value(i, depth, false)
		if !ok {
			return 0, false
		}
		i = s.space(end)
		if i >= len(s.b) {
			return 0, false
		}
		switch s.b[i] {
		case ',':
			i++
		case ']':
			return i + 1, true
		default:
			return 0, false
		}
	}
}

// object walks an object; in a _meta object (isMeta) it cuts the members
// named key so that what is left is still one valid object: a member with
// a kept member before it goes with the comma before it, one without goes
// with what separates it from the next member.
func (s *stripper) object(i, depth int, isMeta bool) (int, bool) {
	if depth > maxStripDepth {
		s.tooDeep = true
		return 0, false
	}
	i = s.space(i + 1)
	if i < len(s.b) && s.b[i] == '}' {
		return i + 1, true
	}
	keptEnd := -1 // end of the last kept member's value
	pending := -1 // start of a removed member waiting for the next member's start
	lastEnd := -1
	for {
		if i >= len(s.b) || s.b[i] != '"' {
			return 0, false
		}
		nameStart := i
		nameEnd := jsonscan.SkipValue(s.b, i) // b[i] is the opening quote
		if nameEnd < 0 {
			return 0, false
		}
		if pending >= 0 {
			s.cuts = append(s.cuts, [2]int{pending, nameStart})
			pending = -1
		}
		name, ok := decodeName(s.b[nameStart:nameEnd])
		if !ok {
			return 0, false
		}
		i = s.space(nameEnd)
		if i >= len(s.b) || s.b[i] != ':' {
			return 0, false
		}
		remove := isMeta && name == s.key
		var end int
		if remove {
			end = jsonscan.SkipValue(s.b, s.space(i+1))
			ok = end > 0
		} else {
			end, ok = s.value(i+1, depth, name == metaMember)
		}
		if !ok {
			return 0, false
		}
		switch {
		case !remove:
			keptEnd = end
		case keptEnd >= 0:
			s.cuts = append(s.cuts, [2]int{keptEnd, end})
			keptEnd = end // what lies before is kept or already cut
		default:
			pending = nameStart
		}
		lastEnd = end
		i = s.space(end)
		if i >= len(s.b) {
			return 0, false
		}
		switch s.b[i] {
		case ',':
			i = s.space(i + 1)
		case '}':
			if pending >= 0 {
				s.cuts = append(s.cuts, [2]int{pending, lastEnd})
			}
			return i + 1, true
		default:
			return 0, false
		}
	}
}

// decodeName is a member name as a JSON reader reads it.
func decodeName(quoted []byte) (string, bool) {
	body := quoted[1 : len(quoted)-1]
	if bytes.IndexByte(body, '\\') < 0 {
		return string(body), true
	}
	var name string
	if json.Unmarshal(quoted, &name) != nil {
		return "", false
	}
	return name, true
}
