package acp

import (
	"bytes"
	"encoding/json"
)

// A small scanner over JSON that is already known to be valid (checked once
// with json.Valid when it was read). It finds members without decoding or
// allocating, skipping string bodies with bytes.IndexByte, which is what
// lets the bridge forward a 64 KiB session/update without re-parsing it.
// Anything it does not recognise makes the callers fall back to
// encoding/json, so a surprise costs speed, never correctness.

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// skipString returns the index just past the string that starts at b[i] == '"', or -1.
func skipString(b []byte, i int) int {
	j := i + 1
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return -1
		}
		q := j + k
		n := 0 // backslashes right before the quote
		for p := q - 1; p > i && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return q + 1
		}
		j = q + 1
	}
}

// skipValue returns the index just past the value that starts at b[i], or -1.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch c := b[i]; c {
			case '"':
				if i = skipString(b, i); i < 0 {
					return -1
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return -1
	default: // number, true, false, null
		for i < len(b) {
			switch b[i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return i
			}
			i++
		}
		return i
	}
}

// eachMember calls fn for each top-level member of a JSON object, in order,
// with the member's raw name (between its quotes) and its value's span. It
// stops when fn returns false. ok is false if obj is not an object the
// scanner can read, or a name is written with escapes (an escaped name could
// spell anything: the caller must then use encoding/json).
func eachMember(obj []byte, fn func(name []byte, start, end int) bool) (ok bool) {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return false
	}
	i++
	for {
		i = skipSpace(obj, i)
		if i >= len(obj) {
			return false
		}
		switch obj[i] {
		case '}':
			return true
		case ',':
			i++
			continue
		case '"':
		default:
			return false
		}
		kend := skipString(obj, i)
		if kend < 0 {
			return false
		}
		name := obj[i+1 : kend-1]
		if bytes.IndexByte(name, '\\') >= 0 {
			return false
		}
		i = skipSpace(obj, kend)
		if i >= len(obj) || obj[i] != ':' {
			return false
		}
		i = skipSpace(obj, i+1)
		vend := skipValue(obj, i)
		if vend < 0 {
			return false
		}
		if !fn(name, i, vend) {
			return true
		}
		i = vend
	}
}

// member finds the value of a top-level member by its exact name. A name
// that appears twice is not ok (encoding/json takes the last one, a
// JavaScript reader too): the caller then takes the slow, exact path.
func member(obj []byte, name string) (start, end int, ok bool) {
	found := 0
	scanned := eachMember(obj, func(n []byte, s, e int) bool {
		if string(n) == name {
			start, end = s, e
			found++
		}
		return found < 2
	})
	return start, end, scanned && found == 1
}

// memberString reads a top-level string member; ok is false if it is absent
// or not a plain string.
func memberString(obj []byte, name string) (string, bool) {
	s, e, ok := member(obj, name)
	if !ok || obj[s] != '"' {
		return "", false
	}
	raw := obj[s+1 : e-1]
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw), true
	}
	var out string
	if json.Unmarshal(obj[s:e], &out) != nil {
		return "", false
	}
	return out, true
}

// Valid is JSON that is known to be valid (for example, checked when it was
// read); Conn.Notify writes it without checking it again.
type Valid json.RawMessage

// SessionUpdateInfo reads what the bridge needs of session/update params —
// the session id and update.sessionUpdate — without decoding the rest.
// ok is false when the params are not a plain object with a string
// sessionId; the caller then uses encoding/json.
func SessionUpdateInfo(params []byte) (sessionID, kind string, ok bool) {
	sessionID, ok = memberString(params, "sessionId")
	if !ok {
		return "", "", false
	}
	if s, e, has := member(params, "update"); has {
		kind, _ = memberString(params[s:e], "sessionUpdate")
	}
	return sessionID, kind, true
}

// ReplaceMember returns a copy of obj with the value of its top-level member
// name replaced by value (which must be valid JSON), or false if the member
// cannot be found by the fast scanner.
func ReplaceMember(obj []byte, name string, value []byte) ([]byte, bool) {
	s, e, ok := member(obj, name)
	if !ok {
		return nil, false
	}
	out := make([]byte, 0, len(obj)-(e-s)+len(value))
	out = append(out, obj[:s]...)
	out = append(out, value...)
	out = append(out, obj[e:]...)
	return out, true
}

// Member returns the raw value of a top-level member of a JSON object, or
// nil if the fast scanner cannot find it.
func Member(obj []byte, name string) json.RawMessage {
	s, e, ok := member(obj, name)
	if !ok {
		return nil
	}
	return obj[s:e]
}
