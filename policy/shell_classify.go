package policy

import (
	"path"
	"strings"
)

// Classification of plain commands: read-only, file operations, writers.

// readOnlyCmds need no prompt when their arguments do not write. The value
// says whether non-option arguments are files the command reads.
var readOnlyCmds = map[string]bool{
	"ls": true, "cat": true, "head": true, "tail": true, "wc": true, "grep": true, "egrep": true,
	"fgrep": true, "rg": true, "stat": true, "file": true, "diff": true, "cmp": true, "sort": true,
	"uniq": true, "cut": true, "nl": true, "du": true, "tac": true, "rev": true, "strings": true,
	"od": true, "hexdump": true, "md5sum": true, "sha1sum": true, "sha256sum": true, "sha512sum": true,
	"cksum": true, "comm": true, "paste": true, "fold": true, "column": true, "jq": true, "tree": true,
	"readlink": true, "realpath": true, "less": false, "more": false,
	"pwd": false, "echo": false, "printf": false, "which": false, "type": false, "tr": false,
	"basename": false, "dirname": false, "date": false, "true": false, "false": false, "test": false,
	"[": false, "whoami": false, "id": false, "uname": false, "hostname": false, "printenv": false,
	"df": false, "seq": false, "sleep": false, "expr": false, "nproc": false, "locale": false,
	"go": false, ":": false, "tee": false,
}

// fileOpCmds are the commands acceptEdits allows inside the workspace.
// tee is one too: writing with tee is writing with a redirect.
var fileOpCmds = map[string]bool{"mkdir": true, "touch": true, "mv": true, "cp": true, "rm": true, "rmdir": true, "tee": true}

// writerCmds write to their non-option arguments (all, or the last).
var writerCmds = map[string]string{
	"rm": "all", "rmdir": "all", "mkdir": "all", "touch": "all", "mv": "all", "cp": "last",
	"ln": "last", "chmod": "skip1", "chown": "skip1", "chgrp": "skip1", "truncate": "all",
	"install": "last", "shred": "all", "unlink": "all", "tee": "all", "rsync": "last", "scp": "last",
}

// classify reads one sub-command; t is what the tables say of base
// (progTablesOf(base), remembered with the name's facts).
func (a *analyzer) classify(sc *subCmd, base string, t *progTables, args []word, ctx walkCtx) {
	if t.fileOp {
		sc.fileOp = true
	}
	if !t.noFileArgs && !ctx.probe {
		// class 6: any argument may name a file it reads. Not for a probe
		// (a guess at a command in an unknown program's arguments): addSub
		// keeps only its text and breaker, and the arguments are read as
		// the unknown program's already.
		a.argReadsOf(sc, args, nil)
	}
	if t.isWriter {
		a.writerArgs(sc, base, t.writer, args)
	}
	a.optionEffects(sc, base, args, ctx) // class 7: options that write or run programs
	a.declEffects(sc, base, args, ctx)   // what its declaration knows (programs_*.go)
	a.searchReads(sc, base, args)        // grep -r, rg, ag, ack: recursive reads
	a.commandBreaker(sc, base, args)
	switch base {
	case "dd":
		for _, w := range args {
			if v, ok := strings.CutPrefix(w.s, "of="); ok {
				ww := w
				ww.s, ww.path = v, strings.TrimPrefix(w.path, "of=")
				ref := a.pathRef(ww)
				sc.writes = append(sc.writes, ref)
				if strings.HasPrefix(v, "/dev/") && !isHarmlessDevice(v) {
					sc.breaker = "dd writes to the device " + v
				}
			}
		}
		return
	case "sed", "gsed":
		a.sedCmd(sc, args, ctx)
		return
	case "awk", "gawk", "mawk", "nawk":
		a.awkCmd(sc, args, ctx)
		return
	}
	ro, isRO := t.ro, t.isRO
	if !isRO || len(sc.optDanger) > 0 {
		return
	}
	if !a.readOnlyArgs(sc, base, args) {
		return
	}
	sc.readOnly = true
	if ro {
		a.fileArgs(sc, args, false)
		a.recursiveFlag(sc, base, args)
		if dirReaders[base] && !hasOperand(args) && (!a.cwdKnown || a.cwd != a.env.cwd) {
			// ls, du, tree with no operand read their directory: in
			// another than the session's (`cd ~/.ssh && ls`, a call whose
			// own cwd is there) that is a read there, outside the
			// workspace an outside read (red team 16). In the session's
			// directory it is the workspace itself.
			sc.reads = append(sc.reads, pathRef{raw: ".", cwd: a.cwd, unknown: !a.cwdKnown, vardep: !a.cwdKnown})
		}
	}
}

// dirReaders are the read-only commands that, given no operand, read the
// directory they run in.
var dirReaders = map[string]bool{"ls": true, "du": true, "tree": true}

// hasOperand: args hold a word that is not an option (or anything after --).
func hasOperand(args []word) bool {
	for i, w := range args {
		if w.static && w.s == "--" {
			return i+1 < len(args)
		}
		if !w.static || !strings.HasPrefix(w.s, "-") || w.s == "-" {
			return true
		}
	}
	return false
}

// readOnlyArgs rejects the arguments that make a read-only command write
// or run something (the writes and programs themselves are recorded by
// optionEffects, shell_options.go).
func (a *analyzer) readOnlyArgs(sc *subCmd, base string, args []word) bool {
	positional := 0
	for _, w := range args {
		s := w.s
		if !strings.HasPrefix(s, "-") || s == "-" {
			positional++
			continue
		}
		switch base {
		case "sort":
			if s == "-o" || s == "--output" || strings.HasPrefix(s, "--output=") || strings.HasPrefix(s, "--compress-program") ||
				(strings.HasPrefix(s, "-o") || (s[1] != '-' && strings.ContainsRune(s, 'o'))) {
				return false // the write is recorded by optionEffects
			}
		case "tree":
			if s == "-o" || strings.HasPrefix(s, "-o") {
				return false
			}
		case "rg":
			if strings.HasPrefix(s, "--pre") && !strings.HasPrefix(s, "--pre-glob") {
				return false
			}
		case "date":
			if s == "-s" || strings.HasPrefix(s, "--set") || strings.HasPrefix(s, "-s") {
				return false
			}
		case "file":
			if s == "-C" || s == "--compile" {
				return false
			}
		case "less", "more":
			return false
		case "go":
			if s == "-w" || s == "-u" {
				return false
			}
		}
	}
	switch base {
	case "uniq":
		return positional <= 1
	case "hostname":
		return positional == 0
	case "go":
		if len(args) == 0 || (args[0].s != "version" && args[0].s != "env") {
			return false
		}
	case "less", "more":
		return false
	}
	return true
}

// fileArgs records the non-option arguments of a command as reads (or writes).
func (a *analyzer) fileArgs(sc *subCmd, args []word, write bool) {
	afterDD := false
	for _, w := range args {
		s := w.s
		if !afterDD && w.static && s == "--" {
			afterDD = true
			continue
		}
		if !afterDD && w.static && strings.HasPrefix(s, "-") && s != "-" {
			// --file=/x: the value may be a path.
			if j := strings.IndexByte(s, '='); j > 0 && strings.ContainsAny(s[j+1:], "/~.") {
				ww := w
				ww.s, ww.path = s[j+1:], w.path[min(len(w.path), j+1):]
				if write {
					sc.writes = append(sc.writes, a.pathRef(ww))
				} else {
					sc.reads = append(sc.reads, a.pathRef(ww))
				}
			}
			continue
		}
		if s == "-" || s == "" {
			continue
		}
		if write {
			sc.writes = append(sc.writes, a.pathRef(w))
		} else {
			sc.reads = append(sc.reads, a.pathRef(w))
		}
	}
}

func (a *analyzer) writerArgs(sc *subCmd, base, mode string, args []word) {
	var pos []word
	recursive := false
	afterDD := false
	target := -1
	for i, w := range args {
		s := w.s
		if !afterDD && w.static && s == "--" {
			afterDD = true
			continue
		}
		if !afterDD && w.static && strings.HasPrefix(s, "-") && s != "-" {
			if s == "--recursive" || (s[1] != '-' && strings.ContainsAny(s[1:], "rR")) {
				if base == "rm" || base == "chmod" || base == "chown" || base == "chgrp" {
					recursive = true
				}
			}
			if (s == "-t" || s == "--target-directory") && i+1 < len(args) {
				target = i + 1
			}
			continue
		}
		if i == target {
			continue
		}
		pos = append(pos, w)
	}
	switch mode {
	case "skip1":
		if len(pos) > 0 && !hasReference(args) {
			pos = pos[1:]
		}
	case "last":
		if target >= 0 {
			pos = []word{args[target]}
		} else if len(pos) > 1 {
			for _, r := range pos[:len(pos)-1] {
				sc.reads = append(sc.reads, a.pathRef(r))
			}
			pos = pos[len(pos)-1:]
		}
	}
	for _, w := range pos {
		ref := a.pathRef(w)
		ref.recursive = recursive
		sc.writes = append(sc.writes, ref)
		if recursive {
			if b := a.protectedTarget(ref); b != "" && sc.breaker == "" {
				sc.breaker = base + " -R of " + b
				if base == "rm" {
					sc.breaker = "rm -r of " + b
				}
			}
		}
	}
}

// protectedTarget names the protected directory a recursive operation on
// ref would destroy: /, the home directory, the workspace root or a parent
// of them, a system directory, a glob or brace word that can expand to one
// of them (or to everything in one), a tilde form (~user, ~+, ~-) naming
// one, or a path known only at run time.
func (a *analyzer) protectedTarget(ref pathRef) string {
	e := a.env
	raw := ref.raw
	if ref.pattern != "" {
		raw = ref.pattern
	}
	if ref.unknown && strings.HasPrefix(raw, "~") {
		t, ok := a.tildeTarget(raw)
		if !ok {
			return "a path known only at run time (" + raw + ")"
		}
		raw = t
	}
	if ref.unknown && (ref.pattern != "" || raw != ref.raw) {
		return a.protectedGlob(raw, ref.cwd)
	}
	if ref.unknown {
		return "a path known only at run time (" + ref.raw + ")"
	}
	abs := canonPath(ref.raw, ref.cwd, e.home)
	if n := e.protectedName(abs); n != "" {
		return n
	}
	if real, _ := realPath(e.fs, ref.raw, ref.cwd, e.home); real != abs {
		if n := e.protectedName(real); n != "" {
			return n + " (through a symlink)"
		}
	}
	return ""
}

// tildeTarget rewrites the tilde forms the word reader leaves unknown:
// ~+ is the working directory, ~user that user's home (the home directory
// when it is ours; else /home/user, /Users/user on macOS, /root), ~- the
// previous directory (unknown: false).
func (a *analyzer) tildeTarget(raw string) (string, bool) {
	name, rest, _ := strings.Cut(raw[1:], "/")
	var dir string
	switch {
	case name == "+":
		if !a.cwdKnown {
			return "", false
		}
		dir = a.cwd
	case name == "-" || strings.ContainsAny(name, "$`*?[{"):
		return "", false
	case name == "root":
		dir = "/root"
	case a.env.home != "" && name == path.Base(a.env.home):
		dir = a.env.home
	case strings.HasPrefix(a.env.home, "/Users/"):
		dir = "/Users/" + name
	default:
		dir = "/home/" + name
	}
	if rest == "" {
		return dir, true
	}
	return dir + "/" + rest, true
}

// protectedGlob checks a glob or brace word (already free of ~) for a
// recursive operation.
func (a *analyzer) protectedGlob(raw, cwd string) string {
	e := a.env
	if strings.ContainsAny(raw, "$`") {
		return "a path known only at run time (" + raw + ")"
	}
	alts, ok := expandBraces(raw, 64)
	if !ok {
		return "a brace expansion too large to check (" + raw + ")"
	}
	for _, alt := range alts {
		if !path.IsAbs(alt) {
			if !a.cwdKnown || cwd == "" {
				return "a path relative to a directory known only at run time (" + raw + ")"
			}
			alt = cwd + "/" + alt
		}
		alt = path.Clean(alt)
		if !strings.ContainsAny(alt, "*?[") {
			if n := e.protectedName(alt); n != "" {
				return n + " (" + raw + ")"
			}
			if real := resolveReal(e.fs, alt); real != alt {
				if n := e.protectedName(real); n != "" {
					return n + " (through a symlink, " + raw + ")"
				}
			}
			continue
		}
		if n := e.globProtectedDir(splitAbs(alt)); n != "" {
			return n + " (" + raw + ")"
		}
	}
	return ""
}

// globProtectedDir: a glob (absolute, as segments) matches a protected
// directory or one of its parents, or names everything inside one.
func (e *envx) globProtectedDir(g []string) string {
	// everything in a protected directory: the last segment is all
	// wildcard (*, .*, [^.]*, ?*) over a directory that is protected.
	if last := g[len(g)-1]; broadSegment(last) {
		dir := "/" + strings.Join(g[:len(g)-1], "/")
		if !strings.ContainsAny(dir, "*?[") {
			if n := e.protectedName(dir); n != "" {
				return "everything in " + n
			}
			if real := resolveReal(e.fs, dir); real != dir {
				if n := e.protectedName(real); n != "" {
					return "everything in " + n + " (through a symlink)"
				}
			}
		}
	}
	var dirs []string
	for _, d := range []string{e.home, e.root, e.cwd} {
		if d != "" {
			dirs = append(dirs, d)
		}
	}
	for _, d := range dirs {
		ds := splitAbs(d)
		// the glob matches d or a parent of d.
		if len(g) <= len(ds) && segsMatch(g, ds[:len(g)]) {
			return e.protectedName("/"+strings.Join(ds[:len(g)], "/")) + " or what holds it"
		}
	}
	// system directories and the directories right inside them.
	for _, sd := range systemDirList {
		if !segMatch(g[0], sd) {
			continue
		}
		if len(g) == 1 {
			return "the system directory /" + sd
		}
		if len(g) == 2 && !tempDirs["/"+sd+"/"+g[1]] {
			return "a directory inside the system directory /" + sd
		}
	}
	return ""
}

// broadSegment: a glob segment with no literal character outside its
// bracket expressions (*, .*, ?*, [a-z]*, [^.]*): it matches (nearly)
// everything in its directory.
func broadSegment(seg string) bool {
	wild := false
	for i := 0; i < len(seg); i++ {
		switch c := seg[i]; c {
		case '*', '?':
			wild = true
		case '[':
			j := strings.IndexByte(seg[i+1:], ']')
			if j < 0 {
				return false
			}
			if j == 0 { // []...] : ] is the first member
				k := strings.IndexByte(seg[i+2:], ']')
				if k < 0 {
					return false
				}
				j = k + 1
			}
			i += j + 1
			wild = true
		case '.':
			if i != 0 {
				return false
			}
		default:
			return false
		}
	}
	return wild
}

// hasReference: chmod/chown/chgrp --reference=FILE take no mode or owner
// operand.
func hasReference(args []word) bool {
	for _, w := range args {
		if strings.HasPrefix(w.s, "--reference") {
			return true
		}
	}
	return false
}
