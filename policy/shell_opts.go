package policy

import "strings"

// Option parsing for wrappers, in all the forms getopt accepts: clusters
// (-iu root, -sHu u), attached values (-uroot, -S'cmd'), long options with
// = or a separate value (--user=x, --user x), and -- (docs/policy.md,
// "Wrappers in all their flag forms").

// opt is one parsed option: name is "-u" or "--user"; val is its value.
type opt struct {
	name   string
	val    word
	hasVal bool
}

// optSpec says which options take a value.
type optSpec struct {
	short string   // letters that take a value (-u root, -uroot)
	long  []string // long names (without --) that take a value
}

// parseOpts reads leading options of args. It stops at the first word that
// is not an option (rest starts there) or after "--". ok is false when an
// option is only known at run time, so the rest cannot be found.
func parseOpts(args []word, spec optSpec) (opts []opt, rest []word, ok bool) {
	i := 0
	for i < len(args) {
		w := args[i]
		if !w.static {
			return opts, args[i:], false
		}
		s := w.s
		if s == "--" {
			return opts, args[i+1:], true
		}
		if len(s) < 2 || s[0] != '-' {
			break
		}
		i++
		if strings.HasPrefix(s, "--") {
			name, val, hasEq := strings.Cut(s[2:], "=")
			o := opt{name: "--" + name}
			switch {
			case hasEq:
				o.val, o.hasVal = staticWord(val), true
			case containsStr(spec.long, name) && i < len(args):
				o.val, o.hasVal = args[i], true
				i++
			}
			opts = append(opts, o)
			continue
		}
		for j := 1; j < len(s); j++ {
			c := s[j]
			o := opt{name: string(s[0]) + string(c)}
			if strings.IndexByte(spec.short, c) >= 0 {
				if j+1 < len(s) {
					o.val, o.hasVal = staticWord(s[j+1:]), true
				} else if i < len(args) {
					o.val, o.hasVal = args[i], true
					i++
				}
				opts = append(opts, o)
				break
			}
			opts = append(opts, o)
		}
	}
	return opts, args[i:], true
}

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func staticWord(s string) word {
	return word{s: s, static: true, path: s, pathOK: true, off: -1}
}

// findOpt returns the value of the first option named one of names.
func findOpt(opts []opt, names ...string) (word, bool) {
	for _, o := range opts {
		for _, n := range names {
			if o.name == n {
				return o.val, true
			}
		}
	}
	return word{}, false
}
