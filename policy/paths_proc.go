package policy

import (
	"path"
	"strings"
)

// Paths under /proc that name another place (red team 17b): /proc/self is
// a different process in every process, so the judging process (the
// bridge) must not resolve /proc/self/cwd/F as its own directory's F. For
// the program the command runs, /proc/self/cwd and /proc/thread-self/cwd
// are the call's directory and /proc/self/root is its root: those are
// rewritten to what they name there. Any other link of a process
// (/proc/<pid>/cwd, .../root, .../exe, .../fd/N, .../map_files/..., and
// the same under .../task/<tid>/, /dev/fd/N) leads where the reader cannot
// know: the path is unsure (asked where a Read or Edit rule could name
// where it leads; never vouched for by an allow rule).

// procLinks are the entries of a process's /proc directory that are links
// to other places.
var procLinks = map[string]bool{"cwd": true, "root": true, "exe": true, "fd": true, "map_files": true}

// procPath reads abs (absolute, not necessarily clean) as the program that
// opens it would: it returns the path it names and whether that place is
// unknown to the reader.
func procPath(abs, cwd string) (string, bool) {
	clean := path.Clean(abs)
	if clean == "/dev/fd" || strings.HasPrefix(clean, "/dev/fd/") {
		return abs, true
	}
	rest, ok := strings.CutPrefix(clean, "/proc/")
	if !ok {
		return abs, false
	}
	segs := strings.Split(rest, "/")
	if len(segs) < 2 {
		return abs, false
	}
	proc := segs[0]
	own := proc == "self" || proc == "thread-self"
	if !own && !allDigits(proc) {
		return abs, false
	}
	i := 1
	if segs[i] == "task" && len(segs) >= 4 {
		own = false // a thread of some process: which one, the reader cannot say
		i = 3
	}
	if !procLinks[segs[i]] {
		return abs, false
	}
	tail := strings.Join(segs[i+1:], "/")
	switch {
	case own && segs[i] == "cwd" && cwd != "":
		return path.Join(cwd, tail), false
	case own && segs[i] == "root":
		return path.Join("/", tail), false
	}
	return abs, true
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
