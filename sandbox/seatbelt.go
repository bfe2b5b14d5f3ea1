package sandbox

import (
	"sort"
	"strings"
)

// SeatbeltProfile renders s as a macOS sandbox-exec (Seatbelt, SBPL)
// profile: everything allowed but file writes outside the writable trees,
// writes to the read-only paths, reads of the masked paths and, for
// NetworkNone, the network. Seatbelt gives the last matching rule
// precedence, so the denials come after the allowances.
func SeatbeltProfile(s Spec) string {
	var b strings.Builder
	b.WriteString("(version 1)\n(allow default)\n")
	b.WriteString("(deny file-write*)\n")
	b.WriteString("(allow file-write*\n")
	b.WriteString("  (subpath \"/private/tmp\") (subpath \"/private/var/folders\")\n")
	b.WriteString("  (literal \"/dev/null\") (literal \"/dev/tty\") (literal \"/dev/stdout\") (literal \"/dev/stderr\")\n")
	w := append([]string(nil), s.Writable...)
	sort.Strings(w)
	for _, p := range w {
		b.WriteString("  (subpath " + sbplString(p) + ")\n")
	}
	b.WriteString(")\n")
	if len(s.ReadOnly) > 0 {
		b.WriteString("(deny file-write*\n")
		for _, p := range s.ReadOnly {
			b.WriteString("  (subpath " + sbplString(p) + ")\n")
		}
		b.WriteString(")\n")
	}
	if len(s.Masked) > 0 {
		b.WriteString("(deny file-read* file-write*\n")
		for _, m := range s.Masked {
			if m.Dir {
				b.WriteString("  (subpath " + sbplString(m.Path) + ")\n")
			} else {
				b.WriteString("  (literal " + sbplString(m.Path) + ")\n")
			}
		}
		b.WriteString(")\n")
	}
	if s.Network == NetworkNone {
		b.WriteString("(deny network*)\n(allow network* (remote unix-socket))\n")
	}
	return b.String()
}

// sbplString quotes a path as an SBPL string literal.
func sbplString(p string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	return `"` + r.Replace(p) + `"`
}
