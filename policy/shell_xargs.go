package policy

import "strings"

// What xargs (and find -exec {}) give the command they run: words known
// only at run time.

// xargsReplace returns the replace string of xargs -I R / -i[R] /
// --replace[=R], or "".
func xargsReplace(opts []word) string {
	for i, w := range opts {
		s := w.s
		switch {
		case s == "-I" && i+1 < len(opts):
			return opts[i+1].s
		case strings.HasPrefix(s, "-I") && len(s) > 2:
			return s[2:]
		case s == "-i" || s == "--replace":
			return "{}"
		case strings.HasPrefix(s, "-i"):
			return s[2:]
		case strings.HasPrefix(s, "--replace="):
			return s[len("--replace="):]
		}
	}
	return ""
}

// xargsInput stands for the words xargs appends to the command it runs,
// read from standard input or from -a FILE: known only at run time.
var xargsInput = word{s: "", off: -1}

// xargsRuns is the command xargs runs: with a replace string (-I R), its
// words holding R are unknown; without one, xargs appends the words it
// reads to the command, so the command is read with one unknown word at
// its end (in the place of `psql -c`'s, `gdb -ex`'s or `sqlite3 DB`'s code:
// red team 17b, corpus 166), as `psql -c "$X"` is.
func xargsRuns(ws []word, repl string) []word {
	if repl != "" {
		return markRuntime(ws, repl)
	}
	return append(ws[:len(ws):len(ws)], xargsInput)
}

// markRuntime returns ws with every word holding repl (replaced at run
// time by xargs -I or find's {}) made unknown.
func markRuntime(ws []word, repl string) []word {
	if repl == "" {
		return ws
	}
	out := make([]word, len(ws))
	for i, w := range ws {
		if strings.Contains(w.s, repl) {
			w.static, w.pathOK = false, false
		}
		out[i] = w
	}
	return out
}
