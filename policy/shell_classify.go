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

func (a *analyzer) classify(sc *subCmd, base string, args []word, ctx walkCtx) {
	if strings.HasPrefix(base, "mkfs") || base == "mke2fs" || base == "wipefs" || base == "mkswap" {
		sc.breaker = base + " formats a file system"
	}
	if fileOpCmds[base] {
		sc.fileOp = true
	}
	if !noFileArgs[base] {
		a.argReadsOf(sc, args, nil) // class 6: any argument may name a file it reads
	}
	if mode, ok := writerCmds[base]; ok {
		a.writerArgs(sc, base, mode, args)
	}
	a.optionEffects(sc, base, args, ctx) // class 7: options that write or run programs
	a.searchReads(sc, base, args)        // grep -r, rg, ag, ack: recursive reads
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
	ro, isRO := readOnlyCmds[base]
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
	}
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
		if len(pos) > 0 {
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
// of them, a glob over one of them, or a path known only at run time.
func (a *analyzer) protectedTarget(ref pathRef) string {
	e := a.env
	if ref.unknown {
		dir, ok := globDir(ref.raw)
		if !ok {
			return "a path known only at run time (" + ref.raw + ")"
		}
		if !a.cwdKnown && !path.IsAbs(dir) && !strings.HasPrefix(dir, "~") {
			return "a path relative to a directory known only at run time (" + ref.raw + ")"
		}
		if dir == "" {
			return ""
		}
		abs := canonPath(dir, ref.cwd, e.home)
		if n := e.protectedName(abs); n != "" {
			return "everything in " + n + " (" + ref.raw + ")"
		}
		return ""
	}
	abs := canonPath(ref.raw, ref.cwd, e.home)
	if n := e.protectedName(abs); n != "" {
		return n
	}
	if real := resolveReal(e.fs, abs); real != abs {
		if n := e.protectedName(real); n != "" {
			return n + " (through a symlink)"
		}
	}
	return ""
}

// globDir returns the directory part of a glob whose last segment is all
// wildcard (/*, ~/.*, ./*), or false when the path is not such a glob.
func globDir(raw string) (string, bool) {
	if strings.ContainsAny(raw, "$`") {
		return "", false
	}
	dir, last := path.Split(raw)
	if last == "" {
		return "", false
	}
	for _, r := range last {
		if !strings.ContainsRune("*?.[]{},!", r) {
			// a named glob (build/*.o) leaves the directory itself alone;
			// if the directory part is itself a glob, it is unknown.
			if strings.ContainsAny(dir, "*?[{") {
				return "", false
			}
			return "", true
		}
	}
	if strings.ContainsAny(dir, "*?[{") {
		return "", false
	}
	if dir == "" {
		dir = "."
	}
	return dir, true
}
