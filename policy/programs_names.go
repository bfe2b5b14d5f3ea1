package policy

import (
	"path"
	"slices"
	"strings"
	"sync"
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
	if base == "" {
		return base
	}
	return memoName(base).canon
}

// canonProgramOf is canonProgram computed (canonProgram remembers it).
func canonProgramOf(base string) string {
	if base == "" || isKnownName(base) {
		return base
	}
	if c := canonOnce(base); c != "" {
		return c
	}
	// RM, Git: on a case-insensitive file system (macOS's default) the
	// same program
	if low := strings.ToLower(base); low != base {
		if isKnownName(low) {
			return low
		}
		if c := canonOnce(low); c != "" {
			return c
		}
	}
	return base
}

func isKnownName(n string) bool {
	return n != "" && (knownProgram(n) || interpName(n) != "" || netClients[n])
}

// programAliases: other names distributions give a known program.
var programAliases = map[string]string{"nodejs": "node", "pip-python": "pip"}

// canonOnce: the known program base names, or "": a version after it
// (pip3.12, gcc-12, go1.22rc1, python3.12d, pip3.13t, pip-3.12), a
// target triplet before it (x86_64-linux-gnu-gcc-12), GNU's g prefix on BSD
// and macOS (gfind, gsed, gawk, gmake), a distribution's alias (nodejs).
func canonOnce(base string) string {
	if a, ok := programAliases[base]; ok && a != base {
		return a
	}
	name := strings.TrimRight(base, "0123456789.")
	if name != base && isDigitByte(base[len(name)]) {
		for _, n := range []string{name, strings.TrimSuffix(name, "-")} {
			if n != base && isKnownName(n) {
				return n
			}
		}
	}
	// the name before its first digit, whatever follows (rc1, d, t)
	if i := strings.IndexFunc(base, func(r rune) bool { return r >= '0' && r <= '9' }); i > 0 {
		if n := strings.TrimRight(base[:i], "-_."); n != base && isKnownName(n) {
			return n
		}
	}
	if parts := strings.SplitN(base, "-", 4); len(parts) == 4 && parts[0] != "" && parts[3] != "" {
		if isKnownName(parts[3]) {
			return parts[3]
		}
		if c := canonOnce(parts[3]); c != "" {
			return c
		}
	}
	if len(base) > 2 && base[0] == 'g' && isKnownName(base[1:]) {
		return base[1:]
	}
	return ""
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
	// the known name with its major version (pip-3.12 -> pip3, go1.22rc1 -> go1)
	if i := strings.Index(strings.ToLower(base), canon); i >= 0 {
		rest := strings.TrimLeft(base[i+len(canon):], "-_.")
		j := 0
		for j < len(rest) && isDigitByte(rest[j]) {
			j++
		}
		if j > 0 {
			out = append(out, canon+rest[:j])
		}
	}
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

// nameVariants: the other names base may stand for, for deny and ask rules
// only (a rule naming any of them meets the call; nothing is allowed by
// them): its versions stripped one by one and with the major version kept
// (pip-3.12: pip-3, pip3, pip), the name before its first digit
// (python3.12d: python3, python), a target triplet's program
// (x86_64-linux-gnu-gcc-12: gcc-12, gcc), GNU's g prefix (gsed: sed), a
// distribution's alias or interpreter name (nodejs: node), lower case (RM:
// rm). Bounded: at most 12.
//
// The slice is shared (remembered per name): callers only read it.
func nameVariants(base string) []string {
	if plainName(base) {
		return nil // the common case, without allocating
	}
	return memoName(base).variants
}

// nameVariantsOf is nameVariants computed (nameVariants remembers it).
func nameVariantsOf(base string) []string {
	if plainName(base) {
		return nil // the common case, without allocating
	}
	seen := map[string]bool{base: true}
	var out []string
	var add func(n string, depth int)
	add = func(n string, depth int) {
		if n == "" || seen[n] || len(out) >= 12 || depth > 3 {
			return
		}
		seen[n] = true
		out = append(out, n)
		expandName(n, depth+1, add)
	}
	expandName(base, 0, add)
	return out
}

func expandName(n string, depth int, add func(string, int)) {
	if low := strings.ToLower(n); low != n {
		add(low, depth)
	}
	if a, ok := programAliases[n]; ok {
		add(a, depth)
	}
	if in := interpName(n); in != "" && in != n {
		add(in, depth)
	}
	if i := strings.IndexFunc(n, func(r rune) bool { return r >= '0' && r <= '9' }); i > 0 {
		name := strings.TrimRight(n[:i], "-_.")
		j := i
		for j < len(n) && isDigitByte(n[j]) {
			j++
		}
		add(name+n[i:j], depth) // pip-3.12 -> pip3
		add(name, depth)
		if t := strings.TrimRight(n, "0123456789."); t != n {
			add(strings.TrimRight(t, "-_."), depth) // pip3.12 -> pip
		}
	}
	if parts := strings.SplitN(n, "-", 4); len(parts) == 4 && parts[0] != "" && parts[3] != "" {
		add(parts[3], depth)
	}
	if len(n) > 2 && n[0] == 'g' && isKnownName(n[1:]) {
		add(n[1:], depth)
	}
}

// plainName: base has no other name nameVariants would find: lower-case
// letters and at most two '-' (no triplet), no digit, no alias, no
// interpreter name of its own, no g prefix before a known name.
func plainName(base string) bool {
	dashes := 0
	for i := 0; i < len(base); i++ {
		c := base[i]
		switch {
		case c >= 'a' && c <= 'z', c == '_', c == '.':
		case c == '-':
			dashes++
		default:
			return false
		}
	}
	if dashes >= 3 {
		return false
	}
	if _, ok := programAliases[base]; ok {
		return false
	}
	if in := interpName(base); in != "" && in != base {
		return false
	}
	return !(len(base) > 2 && base[0] == 'g' && isKnownName(base[1:]))
}

// nameFacts are what canonProgram and nameVariants answer for one name:
// both depend on the name and the program tables alone, which are fixed
// once the package is initialised, and both cost dozens of table lookups
// for a name no table knows (tool501, pip-3.12). They are remembered for
// up to nameMemoMax names, the first ones met; a name past that is
// computed at each call, as before (a flood of invented names costs time,
// never a wrong answer).
//
// The same memo keeps what the fixed tables say of the name itself, which
// the reading of every sub-command asks (one lookup instead of one per
// table): whether the policy knows the program (knownProgram), whether
// nameVariants has nothing to find (plainName), and the tables classify
// reads (progTables).
type nameFacts struct {
	canon    string
	variants []string
	plain    bool
	known    bool
	tables   progTables
}

// progTables: what classify's tables say of one program name.
type progTables struct {
	fileOp, noFileArgs bool
	writer             string // writerCmds' mode
	isWriter           bool
	ro, isRO           bool // readOnlyCmds' entry
	// and what command asks of the name
	prefixWrapper bool   // prefixWrappers has it
	runsArgs      bool   // runsArgs
	destructive   bool   // destructiveCmds
	interp        string // interpName
}

func progTablesOf(base string) progTables {
	t := progTables{fileOp: fileOpCmds[base], noFileArgs: noFileArgs[base],
		prefixWrapper: prefixWrappers[base] != nil, runsArgs: runsArgs[base], destructive: destructiveCmds[base],
		interp: strings.Clone(interpName(base))}
	t.writer, t.isWriter = writerCmds[base]
	t.ro, t.isRO = readOnlyCmds[base]
	return t
}

const nameMemoMax = 4096

var nameMemo struct {
	sync.RWMutex
	m map[string]nameFacts
}

func memoName(base string) nameFacts {
	nameMemo.RLock()
	f, ok := nameMemo.m[base]
	nameMemo.RUnlock()
	if ok {
		return f
	}
	f = nameFacts{canon: canonProgramOf(base), variants: slices.Clip(nameVariantsOf(base)),
		plain: plainName(base), known: knownProgram(base), tables: progTablesOf(base)}
	// kept names are copies: a part of a command's text would keep the
	// whole command alive.
	kept := f
	kept.canon, kept.variants = strings.Clone(f.canon), make([]string, len(f.variants))
	for i, v := range f.variants {
		kept.variants[i] = strings.Clone(v)
	}
	if len(f.variants) == 0 {
		kept.variants = nil
	}
	nameMemo.Lock()
	if nameMemo.m == nil {
		nameMemo.m = make(map[string]nameFacts)
	}
	if len(nameMemo.m) < nameMemoMax {
		nameMemo.m[strings.Clone(base)] = kept
	}
	nameMemo.Unlock()
	return f
}
