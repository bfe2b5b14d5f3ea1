package chat

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// visible returns s with everything that could steer a terminal shown
// instead of obeyed, so an agent's text cannot clear the screen, set the
// window title (OSC 0/2), write the clipboard (OSC 52), hide a link (OSC 8),
// recolour or move the cursor to draw a fake card, or reorder what is read:
//
//   - C0 controls other than newline and tab, and DEL, in caret notation
//     (ESC is "^[", BEL "^G", DEL "^?"); a carriage return right before a
//     newline is dropped (a CRLF line end), any other is "^M";
//   - C1 controls (U+0080-U+009F, 8-bit CSI and OSC among them) and the
//     bidirectional controls (U+061C, U+200E, U+200F, U+202A-U+202E,
//     U+2066-U+2069) as "<U+XXXX>";
//   - bytes that are not UTF-8 as "\xNN" (a terminal could otherwise join a
//     lone 0xC2 with a 0x9B that follows in the next chunk into a CSI).
//
// Everything else, newlines and tabs included, passes as it is.
func visible(s string) string {
	i := 0
	for i < len(s) {
		c := s[i]
		if c < 0x20 && c != '\n' && c != '\t' || c >= 0x7f {
			break
		}
		i++
	}
	if i == len(s) {
		return s // plain ASCII: the common case
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02X`, s[i])
		case r == '\r' && i+1 < len(s) && s[i+1] == '\n':
			// CRLF: the newline alone
		case r < 0x20 && r != '\n' && r != '\t':
			b.WriteByte('^')
			b.WriteByte(byte(r) + '@')
		case r == 0x7f:
			b.WriteString("^?")
		case r >= 0x80 && r <= 0x9f, isBidiControl(r):
			fmt.Fprintf(&b, "<U+%04X>", r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// isBidiControl reports the characters that change the direction text is
// shown in (Trojan Source).
func isBidiControl(r rune) bool {
	switch {
	case r == 0x061C, r == 0x200E, r == 0x200F:
		return true
	case r >= 0x202A && r <= 0x202E:
		return true
	case r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}
