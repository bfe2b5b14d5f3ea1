package policy

import "strings"

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
