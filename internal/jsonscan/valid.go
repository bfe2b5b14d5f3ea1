package jsonscan

import (
	"encoding/binary"
	"math/bits"
)

// maxDepth is encoding/json's nesting limit: 10000 open arrays and objects
// are accepted, one more is an error. Valid agrees with it.
const maxDepth = 10000

// Valid reports whether data is exactly one JSON value (with optional
// surrounding white space). It accepts and rejects exactly what
// json.Valid does (FuzzValid checks this), including json.Valid's
// leniency about invalid UTF-8 inside strings, but costs a fraction of it:
// strings, nearly all of a message's bytes, are skipped eight bytes at a
// time. It allocates only for documents nested deeper than 32 levels.
func Valid(data []byte) bool {
	_, ok := Scan(data, 0, nil)
	return ok
}

// A Field is one object member found by Scan: offsets into the scanned
// document.
type Field struct {
	// Parent is the index (in Scan's result) of the member whose value is
	// the object holding this one; -1 for the top-level object.
	Parent int
	// NameStart and NameEnd delimit the raw name, between its quotes.
	NameStart, NameEnd int
	// Escaped is set when the raw name holds a backslash: it could spell
	// anything, so a caller matching names must take the slow path.
	Escaped bool
	// Start and End delimit the value.
	Start, End int
}

// Name returns m's raw name in data.
func (m Field) Name(data []byte) []byte { return data[m.NameStart:m.NameEnd] }

// Value returns m's value in data.
func (m Field) Value(data []byte) []byte { return data[m.Start:m.End:m.End] }

// MaxFields bounds the members one Scan records.
const MaxFields = 4096

// frame is one open container during a scan.
type frame struct {
	close  byte  // the byte that closes it: '}' or ']'
	record bool  // an object whose members are recorded
	depth  int32 // of a recorded object: 1 for the top level
	parent int32 // of a recorded object: the member holding it, or -1
	cur    int32 // of a recorded object: the member being read, or -1
}

// Scan checks data exactly as Valid does and, in the same pass, appends to
// ms the members (Fields) of the top-level object and of every object that is the
// value of a recorded member, down to depth levels (depth 1: the top-level
// object's members only; 0: none). Objects inside arrays are not
// recorded. Members appear in document order; a member's children follow
// it. On invalid data, ok is false and the members are meaningless. ok is
// also false once more than MaxFields members would be recorded: a line of
// millions of members must not cost a Field each (the caller takes its slow
// path, which has its own bounds).
//
// It is what lets acp read a JSON-RPC line, its params and the update
// inside them with one pass over the bytes instead of one per level.
func Scan(data []byte, depth int, ms []Field) (_ []Field, ok bool) {
	return scan(data, depth, ms, nil)
}

// ScanNamed is Scan that also reports, from the same pass, whether any
// member of any object in data (at any depth, recorded or not, inside
// arrays too) may be named name as a JSON reader decodes it: its raw name
// is name, or holds an escape (which could spell anything). When named is
// false no member of data is called name in any spelling, so a caller
// looking for such members has nothing to do. named means nothing when ok
// is false.
func ScanNamed(data []byte, depth int, ms []Field, name string) (_ []Field, ok, named bool) {
	nc := nameCheck{name: name}
	ms, ok = scan(data, depth, ms, &nc)
	return ms, ok, nc.seen
}

// nameCheck is ScanNamed's question and answer.
type nameCheck struct {
	name string
	seen bool
}

func scan(data []byte, depth int, ms []Field, nc *nameCheck) (_ []Field, ok bool) {
	var stackBuf [32]frame
	stack := stackBuf[:0]
	n := len(data)
	i := skipSpace(data, 0)
	for {
		// A value starts at i.
		if i >= n {
			return ms, false
		}
		switch c := data[i]; {
		case c == '{' || c == '[':
			if len(stack) == maxDepth {
				return ms, false
			}
			f := frame{close: c + 2, parent: -1, cur: -1} // '}' is '{'+2, ']' is '['+2
			if c == '{' && depth > 0 {
				if len(stack) == 0 {
					f.record, f.depth = true, 1
				} else if top := stack[len(stack)-1]; top.record && top.close == '}' && int(top.depth) < depth {
					f.record, f.depth, f.parent = true, top.depth+1, top.cur
				}
			}
			i = skipSpace(data, i+1)
			if i < n && data[i] == f.close {
				i++
				break
			}
			stack = append(stack, f)
			if c == '{' {
				if i, ms = key(data, i, &stack[len(stack)-1], ms, nc); i < 0 {
					return ms, false
				}
			}
			continue
		case c == '"':
			if i = validString(data, i); i < 0 {
				return ms, false
			}
		case c == '-' || (c >= '0' && c <= '9'):
			if i = validNumber(data, i); i < 0 {
				return ms, false
			}
		case c == 't':
			if !hasLiteral(data, i, "true") {
				return ms, false
			}
			i += 4
		case c == 'f':
			if !hasLiteral(data, i, "false") {
				return ms, false
			}
			i += 5
		case c == 'n':
			if !hasLiteral(data, i, "null") {
				return ms, false
			}
			i += 4
		default:
			return ms, false
		}
		// A value ended at i: close containers until one continues.
		for {
			if len(stack) == 0 {
				return ms, skipSpace(data, i) == n
			}
			top := &stack[len(stack)-1]
			if top.cur >= 0 {
				ms[top.cur].End = i
			}
			if i = skipSpace(data, i); i >= n {
				return ms, false
			}
			if data[i] == ',' {
				i = skipSpace(data, i+1)
				if top.close == '}' {
					if i, ms = key(data, i, top, ms, nc); i < 0 {
						return ms, false
					}
				}
				break
			}
			if data[i] != top.close {
				return ms, false
			}
			stack = stack[:len(stack)-1]
			i++
		}
	}
}

// key checks `"name" :` at i, records the member if f records, and returns
// where its value may start (after white space), or -1. With nc it notes
// a name that may be nc.name (ScanNamed).
func key(data []byte, i int, f *frame, ms []Field, nc *nameCheck) (int, []Field) {
	if i >= len(data) || data[i] != '"' {
		return -1, ms
	}
	end, escaped := scanString(data, i)
	if end < 0 {
		return -1, ms
	}
	if nc != nil && !nc.seen && (escaped || string(data[i+1:end-1]) == nc.name) {
		nc.seen = true
	}
	v := skipSpace(data, end)
	if v >= len(data) || data[v] != ':' {
		return -1, ms
	}
	v = skipSpace(data, v+1)
	if f.record {
		if len(ms) >= MaxFields {
			return -1, ms
		}
		f.cur = int32(len(ms))
		ms = append(ms, Field{Parent: int(f.parent), NameStart: i + 1, NameEnd: end - 1, Escaped: escaped, Start: v})
	}
	return v, ms
}

func hasLiteral(data []byte, i int, lit string) bool {
	return len(data)-i >= len(lit) && string(data[i:i+len(lit)]) == lit
}

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// plainMask has the high bit set in each byte of x that is below 0x20, a
// quote or a backslash: the bytes that end a run of plain string bytes.
func plainMask(x uint64) uint64 {
	quote := x ^ (lsb * '"')
	slash := x ^ (lsb * '\\')
	// A byte b of y is zero-tested with (y - 0x01) &^ y & 0x80; below 0x20
	// with (x - 0x20) &^ x & 0x80. Borrows can only flag bytes above a
	// flagged one, so the lowest flagged byte is always exact.
	return ((quote-lsb)&^quote | (slash-lsb)&^slash | (x-lsb*0x20)&^x) & msb
}

// validString checks the string starting with the quote at i and returns
// the index after its closing quote, or -1.
func validString(data []byte, i int) int {
	end, _ := scanString(data, i)
	return end
}

// scanString is validString that also reports whether the string holds an
// escape (what a member name's Field.Escaped says).
func scanString(data []byte, i int) (end int, escaped bool) {
	n := len(data)
	i++
	for {
		for i+8 <= n {
			m := plainMask(binary.LittleEndian.Uint64(data[i:]))
			if m != 0 {
				i += bits.TrailingZeros64(m) / 8
				break
			}
			i += 8
		}
		if i >= n {
			return -1, escaped
		}
		switch c := data[i]; {
		case c == '"':
			return i + 1, escaped
		case c == '\\':
			escaped = true
			if i+1 >= n {
				return -1, escaped
			}
			switch data[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > n {
					return -1, escaped
				}
				for _, h := range data[i+2 : i+6] {
					if !isHex(h) {
						return -1, escaped
					}
				}
				i += 6
			default:
				return -1, escaped
			}
		case c < 0x20:
			return -1, escaped
		default:
			i++ // a plain byte in the tail shorter than 8
		}
	}
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// validNumber checks the number starting at i and returns the index after
// it, or -1. The grammar is JSON's: -? (0 | [1-9][0-9]*) (.[0-9]+)? ([eE][+-]?[0-9]+)?
func validNumber(data []byte, i int) int {
	n := len(data)
	if data[i] == '-' {
		i++
	}
	switch {
	case i >= n:
		return -1
	case data[i] == '0':
		i++
	case data[i] >= '1' && data[i] <= '9':
		for i++; i < n && isDigit(data[i]); i++ {
		}
	default:
		return -1
	}
	if i < n && data[i] == '.' {
		i++
		if i >= n || !isDigit(data[i]) {
			return -1
		}
		for i++; i < n && isDigit(data[i]); i++ {
		}
	}
	if i < n && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < n && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if i >= n || !isDigit(data[i]) {
			return -1
		}
		for i++; i < n && isDigit(data[i]); i++ {
		}
	}
	return i
}
