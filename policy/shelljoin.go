package policy

import (
	"fmt"
	"strings"
)

// shellReserved are words a shell reads as syntax in command position; as a
// command name they must be quoted to stay a plain word.
var shellReserved = map[string]bool{
	"!": true, "{": true, "}": true, "[[": true, "]]": true,
	"case": true, "coproc": true, "do": true, "done": true, "elif": true,
	"else": true, "esac": true, "fi": true, "for": true, "function": true,
	"if": true, "in": true, "select": true, "then": true, "time": true,
	"until": true, "while": true,
}

// ShellJoin renders a command and its arguments (terminal/create, a Codex
// argv) as one shell command line that a POSIX or bash parser reads back as
// exactly these words, so the policy judges what would really run.
//
// A word made only of characters with no shell meaning stays bare; any
// other word is single-quoted, each embedded quote closing the quotes,
// adding an escaped quote and reopening them. The command word is also
// quoted when it contains '=' (it would read as an assignment) or is a
// reserved word. The empty word becomes a pair of single quotes. A NUL byte
// cannot be passed in an argv, so it has no rendering; it is kept inside
// the quotes as is.
func ShellJoin(command string, args []string) string {
	var b strings.Builder
	b.WriteString(shellQuote(command, true))
	for _, a := range args {
		b.WriteByte(' ')
		b.WriteString(shellQuote(a, false))
	}
	return b.String()
}

func shellQuote(word string, commandWord bool) string {
	if word == "" {
		return "''"
	}
	bare := !(commandWord && shellReserved[word])
	for i := 0; bare && i < len(word); i++ {
		c := word[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("_-./@%+:,", c) >= 0:
		case c == '=' && !commandWord:
		default:
			bare = false
		}
	}
	if bare {
		return word
	}
	if hasControl(word) {
		// A CR (or another control character but newline and tab) does not
		// survive single quotes in mvdan.cc/sh: spell every byte out in
		// ANSI-C quoting, which bash (the policy's parser) reads exactly.
		var b strings.Builder
		b.WriteString("$'")
		for i := 0; i < len(word); i++ {
			c := word[i]
			switch {
			case c == '\\' || c == '\'':
				b.WriteByte('\\')
				b.WriteByte(c)
			case c < 0x20 || c == 0x7f:
				fmt.Fprintf(&b, "\\x%02x", c)
			default:
				b.WriteByte(c)
			}
		}
		b.WriteByte('\'')
		return b.String()
	}
	return "'" + strings.ReplaceAll(word, "'", `'\''`) + "'"
}

func hasControl(s string) bool {
	for i := 0; i < len(s); i++ {
		if (s[i] < 0x20 && s[i] != '\n' && s[i] != '\t') || s[i] == 0x7f {
			return true
		}
	}
	return false
}

// ShellAssign renders NAME=VALUE as a shell assignment that reads back as
// it (the value quoted as an argument word is); false when name is not a
// variable name the shell could assign.
func ShellAssign(name, value string) (string, bool) {
	if name == "" {
		return "", false
	}
	for i, c := range name {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return "", false
		}
	}
	return name + "=" + shellQuote(value, false), true
}
