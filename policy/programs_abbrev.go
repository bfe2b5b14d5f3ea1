package policy

import (
	"sort"
	"strings"
	"sync"
)

// Abbreviated long options (docs/policy.md, "Deny rules wherever a program
// could run"). getopt_long, git's parse-options, Python's argparse and npm
// accept any unambiguous prefix of a long option: `git rebase --exe=CMD` is
// `--exec=CMD`, `mv --t=DIR` is `--target-directory=DIR`, `wget
// --output-doc=F` is `--output-document=F`. Before a command is read, its
// long options are resolved against the long options the policy knows of
// the program (its declaration, its flag spec and longOptions below), so
// every later reading sees the full name. A prefix that fits several known
// options (the program itself would refuse it) is doubt: ask. Go's flag
// package takes no prefixes but reads `--name` as `-name`, and a test
// binary reads `-test.name` as go test's `-name` (also after -args): those
// are rewritten for go test, build, vet, install and run.

// longOptions: long options the policy knows of a program (or subcommand)
// beyond its declaration, which later readings (shell_reads.go,
// breakers.go, shell_options.go) act on.
var longOptions = map[string][]string{
	"git fetch":     {"--upload-pack", "--all", "--append", "--atomic", "--depth", "--deepen", "--shallow-since", "--shallow-exclude", "--unshallow", "--update-shallow", "--negotiation-tip", "--dry-run", "--write-fetch-head", "--no-write-fetch-head", "--force", "--keep", "--multiple", "--prefetch", "--prune", "--prune-tags", "--no-tags", "--refmap", "--tags", "--recurse-submodules", "--jobs", "--no-recurse-submodules", "--set-upstream", "--submodule-prefix", "--update-head-ok", "--progress", "--server-option", "--show-forced-updates", "--no-show-forced-updates", "--ipv4", "--ipv6", "--quiet", "--verbose", "--porcelain", "--filter", "--auto-maintenance", "--auto-gc", "--stdin"},
	"git pull":      {"--upload-pack", "--exec", "--rebase", "--no-rebase", "--ff", "--ff-only", "--no-ff", "--commit", "--no-commit", "--edit", "--no-edit", "--squash", "--strategy", "--strategy-option", "--verify", "--no-verify", "--autostash", "--all", "--depth", "--tags", "--prune", "--quiet", "--verbose", "--recurse-submodules", "--gpg-sign", "--signoff"},
	"git ls-remote": {"--upload-pack", "--exec", "--heads", "--tags", "--refs", "--quiet", "--get-url", "--sort", "--symref", "--server-option", "--exit-code"},
	"git archive":   {"--remote", "--exec", "--output", "--format", "--prefix", "--worktree-attributes", "--verbose", "--list", "--add-file", "--add-virtual-file", "--mtime"},
	"git grep":      {"--open-files-in-pager", "--cached", "--untracked", "--no-index", "--exclude-standard", "--recurse-submodules", "--text", "--textconv", "--no-textconv", "--ignore-case", "--max-depth", "--word-regexp", "--invert-match", "--files-with-matches", "--name-only", "--files-without-match", "--null", "--only-matching", "--count", "--color", "--no-color", "--break", "--heading", "--show-function", "--context", "--after-context", "--before-context", "--function-context", "--threads", "--full-name", "--line-number", "--column", "--extended-regexp", "--basic-regexp", "--perl-regexp", "--fixed-strings", "--all-match", "--and", "--or", "--not", "--quiet", "--max-count"},
	"git diff":      {"--output", "--ext-diff", "--no-ext-diff", "--textconv", "--no-textconv", "--stat", "--name-only", "--name-status", "--no-index", "--cached", "--staged"},
	"git log":       {"--output", "--ext-diff", "--textconv", "--stat", "--name-only", "--name-status", "--patch", "--oneline", "--format", "--pretty", "--graph", "--all", "--follow"},
	"git show":      {"--output", "--ext-diff", "--textconv", "--stat", "--name-only", "--name-status", "--patch", "--oneline", "--format", "--pretty"},
	"make":          {"--eval", "--file", "--makefile", "--directory", "--include-dir", "--jobs", "--load-average", "--old-file", "--what-if", "--always-make", "--dry-run", "--just-print", "--keep-going", "--silent", "--quiet", "--question", "--touch", "--debug", "--environment-overrides", "--ignore-errors", "--no-builtin-rules", "--no-builtin-variables", "--print-data-base", "--no-print-directory", "--print-directory", "--trace", "--output-sync", "--warn-undefined-variables", "--check-symlink-times", "--stop", "--no-keep-going", "--version", "--help", "--recon", "--new-file", "--assume-new", "--assume-old"},
	"sort":          {"--output", "--compress-program", "--key", "--field-separator", "--buffer-size", "--temporary-directory", "--files0-from", "--batch-size", "--parallel", "--random-source", "--reverse", "--numeric-sort", "--unique", "--stable", "--check", "--merge", "--zero-terminated", "--ignore-case", "--general-numeric-sort", "--human-numeric-sort", "--month-sort", "--random-sort", "--version-sort", "--dictionary-order", "--ignore-leading-blanks", "--ignore-nonprinting", "--debug"},
}

// abbrevSpecs: the flag specs (flagnorm.go) of GNU programs that accept
// abbreviated long options.
var abbrevSpecs = map[string]*flagSpec{"rm": rmSpec, "cp": cpSpec, "mv": mvSpec, "chmod": chmodSpec, "chown": chownSpec, "chgrp": chownSpec, "wget": wgetSpec}

// goFlagPrograms: go subcommands whose flags (and whose test binary's
// -test.* flags) the go tool reads with Go's flag package.
var goFlagPrograms = map[string]bool{"go test": true, "go build": true, "go vet": true, "go install": true, "go run": true}

// knownLongs lists the long options the policy knows of base with args
// (its subcommand's declaration first), and the declaration's name.
func knownLongs(base string, args []word) ([]string, string) {
	seen := map[string]bool{}
	var out []string
	add := func(o string) {
		if strings.HasPrefix(o, "--") && len(o) > 2 && !seen[o] {
			seen[o] = true
			out = append(out, o)
		}
	}
	name := base
	if d, _ := lookupDecl(base, args); d != nil {
		name = d.name
		ds := []*progDecl{d}
		if b := bareDecl(base); b != nil && b != d {
			ds = append(ds, b) // the program's global options (programs_rt3.go)
		}
		for _, d := range ds {
			for _, l := range [][]string{d.valued, d.code, d.escapeOpts, d.stdinCode, d.reads, d.writes, d.editsWith, d.uncertainWith,
				d.plainReadsWith, d.programs, d.runOpt, d.targetOpts, d.editsAllWith, d.keepsWith, d.flags, d.scriptOpts, d.proxies, d.installsTo,
				d.argFiles, d.atReads} {
				for _, o := range l {
					add(o)
				}
			}
		}
		for o := range d.norm {
			add(o)
		}
		for o := range d.nested {
			add(o)
		}
	} else if sub := firstPlain(args); sub != "" && longOptions[base+" "+sub] != nil {
		name = base + " " + sub
	}
	for _, o := range longOptions[name] {
		add(o)
	}
	if s := abbrevSpecs[base]; s != nil {
		for o := range s.long {
			add("--" + o)
		}
		for o := range s.longValued {
			add("--" + o)
		}
	}
	sort.Strings(out)
	return out, name
}

// firstPlain is the first static word that is not an option.
func firstPlain(args []word) string {
	for _, w := range args {
		if !w.static {
			return ""
		}
		if !strings.HasPrefix(w.s, "-") {
			return w.s
		}
	}
	return ""
}

// expandOptions rewrites abbreviated long options of base's arguments to
// their full names; ambiguous is the first prefix that fits several.
func expandOptions(base string, args []word) (out []word, ambiguous string) {
	if base == "git" {
		// git's own options come before the subcommand.
		k := 0
		for k < len(args) && args[k].static && strings.HasPrefix(args[k].s, "-") {
			switch args[k].s {
			case "-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--exec-path":
				k++
			}
			k++
		}
		if k > 0 && k < len(args) {
			rest, amb := expandOptions("gitsub", args[k:])
			if len(rest) > 0 && &rest[0] != &args[k] {
				return append(append([]word(nil), args[:k]...), rest...), amb
			}
			return args, amb
		}
	}
	if base == "gitsub" {
		base = "git"
	}
	if base == "gdb" {
		return gdbOptions(args) // getopt_long_only: programs_gdb.go
	}
	if vimNames[base] {
		args = vimOptions(base, args) // grouped flags, -s in Ex mode: programs_exlang.go
	}
	if !mayAbbrev(base, args) {
		return args, ""
	}
	known, name := knownLongs(base, args)
	goFlags := goFlagPrograms[name]
	if len(known) == 0 && !goFlags {
		return args, ""
	}
	end := optionsEnd(base, args)
	for i, w := range args {
		if i >= end {
			break // the command the program runs: its options are its own
		}
		if !w.static || !strings.HasPrefix(w.s, "-") {
			continue
		}
		if w.s == "--" {
			break
		}
		s := w.s
		if goFlags {
			// Go's flag package: --name is -name; a test binary's
			// -test.name is go test's -name.
			s = strings.TrimPrefix(s, "-")
			if !strings.HasPrefix(s, "-") {
				s = "-" + s
			}
			s = "-" + strings.TrimPrefix(s[1:], "test.")
			if s != w.s {
				out = setWord(out, args, i, s, w)
			}
			continue
		}
		if !strings.HasPrefix(s, "--") || len(s) < 3 {
			continue
		}
		opt, val, hasVal := strings.Cut(s, "=")
		if containsStr(known, opt) {
			continue
		}
		var fits []string
		for _, k := range known {
			if strings.HasPrefix(k, opt) {
				fits = append(fits, k)
			}
		}
		switch {
		case len(fits) == 1:
			full := fits[0]
			if hasVal {
				full += "=" + val
			}
			out = setWord(out, args, i, full, w)
		case len(fits) > 1 && ambiguous == "":
			ambiguous = opt
		}
	}
	if out == nil {
		return args, ambiguous
	}
	return out, ambiguous
}

// optionsEnd: where the command a program runs starts in args (a declared
// runner, sudo, doas), len(args) for other programs. The words from there
// on are the inner command's: `sudo -u u npm --g i x` must not read npm's
// --g as sudo's --group.
func optionsEnd(base string, args []word) int {
	d, rest := lookupDecl(base, args)
	if d == nil {
		return len(args)
	}
	dd := *d
	switch {
	case d.run == runProgram:
		return len(args) - len(rest)
	case d.run != runNone:
	case base == "sudo" || base == "doas":
		dd.run = runAfterOpts
	default:
		return len(args)
	}
	if _, _, at, _ := dd.scan(rest); at >= 0 {
		return len(args) - len(rest) + at
	}
	return len(args)
}

// mayAbbrev: some argument of base is one expandOptions could rewrite (a
// long option, or for go any option), so the known options are worth
// listing. Only go's flag programs read single-dash options.
func mayAbbrev(base string, args []word) bool {
	for _, w := range args {
		if !w.static || !strings.HasPrefix(w.s, "-") {
			continue
		}
		if w.s == "--" {
			return false
		}
		if strings.HasPrefix(w.s, "--") && len(w.s) >= 3 || goFlagBase(base) {
			return true
		}
	}
	return false
}

// goFlagBase: base may name one of goFlagPrograms (knownLongs' name is a
// declaration of base or base and its first plain word).
func goFlagBase(base string) bool {
	return goFlagBases()[base]
}

// goFlagBases is every base goFlagBaseOf says yes to: the tables it reads
// are fixed once the package is initialised, so it is computed once, at
// the first call (TestGoFlagBasesEqualsScan).
var goFlagBases = sync.OnceValue(func() map[string]bool {
	loadPrograms()
	m := map[string]bool{}
	for n := range goFlagPrograms {
		for i := 0; i < len(n); i++ {
			if n[i] == ' ' {
				m[n[:i]] = true // n has the prefix n[:i] + " "
			}
		}
	}
	for base, ds := range programs {
		for _, d := range ds {
			if goFlagPrograms[d.name] {
				m[base] = true
			}
		}
	}
	return m
})

// goFlagBaseOf is goFlagBase computed from the tables.
func goFlagBaseOf(base string) bool {
	loadPrograms()
	for n := range goFlagPrograms {
		if strings.HasPrefix(n, base+" ") {
			return true
		}
	}
	for _, d := range programs[base] {
		if goFlagPrograms[d.name] {
			return true
		}
	}
	return false
}

// setWord replaces args[i] (copying args into out once) by a static word
// s whose path keeps w's path-ness.
func setWord(out, args []word, i int, s string, w word) []word {
	if out == nil {
		out = append([]word(nil), args...)
	}
	nw := w
	nw.s = s
	if w.pathOK {
		nw.path = s
	}
	out[i] = nw
	return out
}

// nestedOpts reads the value of an option that is itself an option list
// (go -ldflags='-s -extld=CC'): an inner option of d.nested runs a program.
func (a *analyzer) nestedOpts(d *progDecl, sc *subCmd, o declOpt, ctx walkCtx) {
	if o.val == nil {
		return
	}
	if !o.val.static {
		sc.readOnly = false
		a.setUncertain(d.name + " " + o.name + " is known only at run time")
		return
	}
	fs := strings.Fields(o.val.s)
	for i, f := range fs {
		for _, in := range d.nested[o.name] {
			f2 := "-" + strings.TrimLeft(f, "-")
			name, v, has := strings.Cut(f2, "=")
			if name != in {
				continue
			}
			sc.readOnly = false
			if !has && i+1 < len(fs) {
				v = fs[i+1]
			}
			vw := staticWordPath(v)
			a.setUncertain(d.name + " " + o.name + " " + in + " runs a program")
			a.optProgram(sc, o.name+" "+in, &vw, ctx)
		}
	}
}
