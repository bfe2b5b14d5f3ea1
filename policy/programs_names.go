package policy

import (
	"path"
	"strings"
)

// Versioned program names (docs/policy.md, "Red team 5: hosts named
// anywhere in a command"). Installers put a program under its versioned
// names beside the plain one: ensurepip writes pip, pip3 and pip3.12;
// distributions ship gcc-12, node18, go1.22 (golang.org/dl), php8.2. What
// the policy knows of a program holds for each of them: canonProgram
// reads a name the policy does not know, that is a known name followed by
// a version (digits and dots, after an optional '-'), as that known name.
// The command is read as the known program (its declaration, breakers,
// hosts), and deny and ask rules naming the known program meet it (the
// call is also matched under that name, as a path is under its base name).

// canonProgram returns the program base stands for: base itself when the
// policy knows it (or knows nothing of a shorter name), else the known
// name before its version (pip3.12 -> pip, gcc-12 -> gcc).
func canonProgram(base string) string {
	if base == "" || knownProgram(base) || interpName(base) != "" || netClients[base] {
		return base
	}
	name := strings.TrimRight(base, "0123456789.")
	if name == base || len(base)-len(name) < 1 || !isDigitByte(base[len(name)]) {
		return base
	}
	for _, n := range []string{name, strings.TrimSuffix(name, "-")} {
		if n != "" && n != base && (knownProgram(n) || interpName(n) != "" || netClients[n]) {
			return n
		}
	}
	return base
}

func isDigitByte(b byte) bool { return b >= '0' && b <= '9' }

// A name read as a program the policy knows makes its reading stricter,
// never looser (red team 6): a workspace script called date1, ./ls or
// scripts/echo2 is whatever its author wrote, not date, ls or echo. Such a
// name gets the known program's checks (its declaration, breakers, hosts,
// rules that name it) and also counts as a program the policy does not
// know: it is never read-only, never a text program whose words are
// ignored, and needs a rule, a grant or the mode to run.

// systemBinDirs: where installed programs live; a path there names the
// program its base name says (/usr/bin/git is git).
var systemBinDirs = map[string]bool{
	"/bin": true, "/sbin": true, "/usr/bin": true, "/usr/sbin": true, "/usr/local/bin": true, "/usr/local/sbin": true,
	"/opt/homebrew/bin": true, "/opt/homebrew/sbin": true, "/usr/libexec": true, "/run/current-system/sw/bin": true,
}

// nameTrusted: cmd, as written in the command, names the program of its
// base name: a bare name (looked up in PATH) or a path in a system
// directory.
func nameTrusted(cmd string) bool {
	i := strings.LastIndexByte(cmd, '/')
	if i < 0 {
		return true
	}
	dir := "/"
	if i > 0 {
		dir = path.Clean(cmd[:i])
	}
	return systemBinDirs[dir]
}

// versionedNames: the names a versioned name also answers to, longest
// first: pip3.12 -> pip3, pip; python3.12 -> python3, python; gcc-12 ->
// gcc. Rules written for pip3 meet pip3.12 as rules for pip do.
func versionedNames(base, canon string) []string {
	var out []string
	n := base
	for {
		t := strings.TrimRight(n, "0123456789")
		t = strings.TrimSuffix(strings.TrimSuffix(t, "."), "-")
		if t == n || len(t) < len(canon) {
			break
		}
		if t != canon {
			out = append(out, t)
		}
		n = t
	}
	return append(out, canon)
}

// textProgram: ws (a sub-command's words) runs a program that prints,
// tests or searches its words and connects nowhere (noHostScan), named
// as itself: not a versioned or workspace name that merely looks like one.
func textProgram(ws []string) bool {
	for _, w := range ws {
		if isAssignWord(w) {
			continue
		}
		return noHostScan[baseName(w)] && nameTrusted(w)
	}
	return false
}

// progTrusted: ws's program is named as itself (nameTrusted, and not a
// versioned name read as a shorter one).
func progTrusted(ws []string) bool {
	for _, w := range ws {
		if isAssignWord(w) {
			continue
		}
		b := baseName(w)
		return nameTrusted(w) && canonProgram(b) == b
	}
	return true
}
