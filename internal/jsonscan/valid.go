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
// time. It allocates only for documents nested deeper than 64 levels.
func Valid(data []byte) bool {
	var stackBuf [64]byte
	stack := stackBuf[:0] // '{' or '[' per open container
	n := len(data)
	i := skipSpace(data, 0)
	for {
		// A value starts at i.
		if i >= n {
			return false
		}
		switch c := data[i]; {
		case c == '{' || c == '[':
			if len(stack) == maxDepth {
				return false
			}
			i = skipSpace(data, i+1)
			if i < n && data[i] == c+2 { // '}' is '{'+2, ']' is '['+2
				i++
				break
			}
			stack = append(stack, c)
			if c == '{' {
				if i = objectKey(data, i); i < 0 {
					return false
				}
			}
			continue
		case c == '"':
			if i = validString(data, i); i < 0 {
				return false
			}
		case c == '-' || (c >= '0' && c <= '9'):
			if i = validNumber(data, i); i < 0 {
				return false
			}
		case c == 't':
			if !hasLiteral(data, i, "true") {
				return false
			}
			i += 4
		case c == 'f':
			if !hasLiteral(data, i, "false") {
				return false
			}
			i += 5
		case c == 'n':
			if !hasLiteral(data, i, "null") {
				return false
			}
			i += 4
		default:
			return false
		}
		// A value ended at i: close containers until one continues.
		for {
			i = skipSpace(data, i)
			if len(stack) == 0 {
				return i == n
			}
			if i >= n {
				return false
			}
			top := stack[len(stack)-1]
			if data[i] == ',' {
				i = skipSpace(data, i+1)
				if top == '{' {
					if i = objectKey(data, i); i < 0 {
						return false
					}
				}
				break
			}
			if data[i] != top+2 {
				return false
			}
			stack = stack[:len(stack)-1]
			i++
		}
	}
}

// objectKey checks `"name" :` at i and returns where the member's value
// may start (after white space), or -1.
func objectKey(data []byte, i int) int {
	if i >= len(data) || data[i] != '"' {
		return -1
	}
	if i = validString(data, i); i < 0 {
		return -1
	}
	i = skipSpace(data, i)
	if i >= len(data) || data[i] != ':' {
		return -1
	}
	return skipSpace(data, i+1)
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
			return -1
		}
		switch c := data[i]; {
		case c == '"':
			return i + 1
		case c == '\\':
			if i+1 >= n {
				return -1
			}
			switch data[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > n {
					return -1
				}
				for _, h := range data[i+2 : i+6] {
					if !isHex(h) {
						return -1
					}
				}
				i += 6
			default:
				return -1
			}
		case c < 0x20:
			return -1
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
