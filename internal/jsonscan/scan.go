package jsonscan

import (
	"bytes"
	"encoding/json"
)

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

// SkipValue returns the index just past the value that starts at b[i], or -1.
func SkipValue(b []byte, i int) int {
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

// EachMember calls fn for each top-level member of a JSON object, in order,
// with the member's raw name (between its quotes) and its value's span. It
// stops when fn returns false. ok is false if obj is not an object the
// scanner can read, or a name is written with escapes (an escaped name could
// spell anything: the caller must then use encoding/json).
func EachMember(obj []byte, fn func(name []byte, start, end int) bool) (ok bool) {
	_, ok = EachMemberAt(obj, skipSpace(obj, 0), fn)
	return ok
}

// EachMemberAt is EachMember for the object that starts at b[i], inside a
// larger document; spans are offsets into b. It also returns the index just
// past the object, or -1 if fn stopped the walk before its end. One pass
// both reads an element's members and finds where the next one starts.
func EachMemberAt(b []byte, i int, fn func(name []byte, start, end int) bool) (end int, ok bool) {
	if i >= len(b) || b[i] != '{' {
		return -1, false
	}
	i++
	for {
		i = skipSpace(b, i)
		if i >= len(b) {
			return -1, false
		}
		switch b[i] {
		case '}':
			return i + 1, true
		case ',':
			i++
			continue
		case '"':
		default:
			return -1, false
		}
		kend := skipString(b, i)
		if kend < 0 {
			return -1, false
		}
		name := b[i+1 : kend-1]
		if bytes.IndexByte(name, '\\') >= 0 {
			return -1, false
		}
		i = skipSpace(b, kend)
		if i >= len(b) || b[i] != ':' {
			return -1, false
		}
		i = skipSpace(b, i+1)
		vend := SkipValue(b, i)
		if vend < 0 {
			return -1, false
		}
		if !fn(name, i, vend) {
			return -1, true
		}
		i = vend
	}
}

// Member finds the value of a top-level member by its exact name. A name
// that appears twice is not ok (encoding/json takes the last one, a
// JavaScript reader too): the caller then takes the slow, exact path.
func Member(obj []byte, name string) (start, end int, ok bool) {
	found := 0
	scanned := EachMember(obj, func(n []byte, s, e int) bool {
		if string(n) == name {
			start, end = s, e
			found++
		}
		return found < 2
	})
	return start, end, scanned && found == 1
}

// MemberString reads a top-level string member; ok is false if it is absent
// or not a plain string.
func MemberString(obj []byte, name string) (string, bool) {
	s, e, ok := Member(obj, name)
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

// EachElement calls fn with the span of each element of a JSON array, in
// order, and stops when fn returns false. ok is false if arr is not an
// array the scanner can read.
func EachElement(arr []byte, fn func(start, end int) bool) (ok bool) {
	stopped := false
	ok = ReadElements(arr, func(start int) int {
		end := SkipValue(arr, start)
		if end >= 0 && !fn(start, end) {
			stopped = true
			return -1
		}
		return end
	})
	return ok || stopped
}

// ReadElements walks a JSON array for a caller that reads each element
// itself (one pass over it, where EachElement would skip it first): read
// gets where an element starts and returns the index just past it, or -1
// to stop. ok is false if arr is not an array the scanner can read or read
// stopped.
func ReadElements(arr []byte, read func(start int) (end int)) (ok bool) {
	i := skipSpace(arr, 0)
	if i >= len(arr) || arr[i] != '[' {
		return false
	}
	i++
	for {
		i = skipSpace(arr, i)
		if i >= len(arr) {
			return false
		}
		switch arr[i] {
		case ']':
			return true
		case ',':
			i++
			continue
		}
		if i = read(i); i < 0 {
			return false
		}
	}
}
