package policy

import "strings"

// The binutils that write (red team 17; docs/policy.md, "Options that run
// programs or write files"): what each writes is judged as any write (Edit
// rules, protected places, breakers, the workspace), and each names the
// options known harmless: any other option is a doubt (ask in every mode
// unless an allow rule names it).
//
//   - objcopy IN [OUT]: writes OUT, or rewrites IN when there is no OUT;
//     --dump-section NAME=F writes F; --add-section/--update-section
//     NAME=F, --add-gnu-debuglink=F and the --*-symbols F lists are reads.
//   - strip FILE...: rewrites each, or writes -o F / --output-file=F.
//   - ranlib, elfedit FILE...: rewrite each.
//   - ar OP ARCHIVE MEMBER...: d, m, q, r, s write the archive; x
//     extracts members under names the archive holds (a doubt); --plugin
//     loads code (a doubt).
//   - @F stays a response file of more arguments (a doubt, atArgs).

// binOpts: what a binutil's options are.
type binOpts struct {
	harmless map[string]bool // flags and options whose value names no file
	reads    map[string]bool // the value is a file read
	pairs    map[string]bool // the value NAME=F names a file read
	writes   map[string]bool // the value is a file written
	pairW    map[string]bool // the value NAME=F names a file written
}

// read records what one option of a binutil does; false for an option
// it does not know.
func (a *analyzer) binOpt(sc *subCmd, b *binOpts, o declOpt) {
	switch {
	case b.harmless[o.name]:
	case b.reads[o.name]:
		a.optRead(sc, o.name, o.val)
	case b.pairs[o.name], b.pairW[o.name]:
		if o.val == nil || !o.val.static {
			argFileDoubt(sc, o.name)
			return
		}
		_, f, has := strings.Cut(o.val.s, "=")
		if !has {
			argFileDoubt(sc, o.name)
			return
		}
		v := staticWordPath(f)
		if b.pairW[o.name] {
			sc.readOnly = false
			a.plainWrite(sc, &v)
		} else {
			a.optRead(sc, o.name, &v)
		}
	case b.writes[o.name]:
		sc.readOnly = false
		a.plainWrite(sc, o.val)
	default:
		argFileDoubt(sc, o.name)
	}
}

// binWriteAll: each plain argument is rewritten in place.
func (a *analyzer) binWriteAll(sc *subCmd, plain []word) {
	for i := range plain {
		sc.readOnly = false
		a.plainWrite(sc, &plain[i])
	}
}

var objcopyValued = []string{"-I", "-O", "-B", "-F", "-j", "-R", "-N", "-K", "-L", "-G", "-W", "-b", "--input-target",
	"--output-target", "--binary-architecture", "--target", "--only-section", "--remove-section", "--strip-symbol",
	"--keep-symbol", "--localize-symbol", "--keep-global-symbol", "--weaken-symbol", "--byte", "--add-section",
	"--update-section", "--dump-section", "--add-symbol", "--alt-machine-code", "--change-section-lma", "--change-section-vma",
	"--change-section-address", "--adjust-section-vma", "--change-addresses", "--adjust-vma", "--change-start", "--adjust-start",
	"--file-alignment", "--gap-fill", "--globalize-symbol", "--globalize-symbols", "--heap", "--image-base",
	"--interleave-width", "--keep-global-symbols", "--keep-section", "--keep-symbols", "--localize-symbols", "--pad-to",
	"--prefix-alloc-sections", "--prefix-sections", "--prefix-symbols", "--redefine-sym", "--redefine-syms",
	"--remove-relocations", "--rename-section", "--section-alignment", "--set-section-alignment", "--set-section-flags",
	"--set-start", "--srec-len", "--stack", "--strip-symbols", "--strip-unneeded-symbol", "--strip-unneeded-symbols",
	"--subsystem", "--verilog-data-width", "--weaken-symbols", "--add-gnu-debuglink", "--reverse-bytes", "--elf-stt-common",
	"--compress-debug-sections", "--set-section-flags", "-o", "--output-file"}

var objcopyBin = &binOpts{
	harmless: set("-I", "-O", "-B", "-F", "-j", "-R", "-N", "-K", "-L", "-G", "-W", "-b", "-p", "-D", "-U", "-S", "-g", "-w", "-x",
		"-X", "-i", "-M", "-v", "-V", "-h", "-s", "-d", "--input-target", "--output-target", "--binary-architecture", "--target",
		"--only-section", "--remove-section", "--strip-symbol", "--keep-symbol", "--localize-symbol", "--keep-global-symbol",
		"--weaken-symbol", "--byte", "--add-symbol", "--alt-machine-code", "--change-section-lma", "--change-section-vma",
		"--change-section-address", "--adjust-section-vma", "--change-addresses", "--adjust-vma", "--change-start",
		"--adjust-start", "--file-alignment", "--gap-fill", "--globalize-symbol", "--heap", "--image-base", "--interleave-width",
		"--keep-section", "--pad-to", "--prefix-alloc-sections", "--prefix-sections", "--prefix-symbols", "--redefine-sym",
		"--remove-relocations", "--rename-section", "--section-alignment", "--set-section-alignment", "--set-section-flags",
		"--set-start", "--srec-len", "--stack", "--strip-unneeded-symbol", "--subsystem", "--verilog-data-width",
		"--reverse-bytes", "--elf-stt-common", "--compress-debug-sections", "--decompress-debug-sections", "--preserve-dates",
		"--enable-deterministic-archives", "--disable-deterministic-archives", "--strip-all", "--strip-debug", "--strip-dwo",
		"--strip-unneeded", "--wildcard", "--discard-all", "--discard-locals", "--interleave", "--merge-notes",
		"--no-merge-notes", "--verbose", "--version", "--help", "--info", "--only-keep-debug", "--extract-dwo",
		"--extract-symbol", "--keep-file-symbols", "--keep-section-symbols", "--localize-hidden", "--long-section-names",
		"--change-leading-char", "--remove-leading-char", "--srec-forceS3", "--writable-text", "--readonly-text", "--pure",
		"--impure", "--weaken", "--debugging"),
	reads: set("--globalize-symbols", "--keep-global-symbols", "--keep-symbols", "--localize-symbols", "--redefine-syms",
		"--strip-symbols", "--strip-unneeded-symbols", "--weaken-symbols", "--add-gnu-debuglink"),
	pairs:  set("--add-section", "--update-section"),
	pairW:  set("--dump-section"),
	writes: set("-o", "--output-file"), // strip's
}

// objcopyHook: objcopy IN [OUT] writes OUT, or rewrites IN.
func objcopyHook(a *analyzer, sc *subCmd, opts []declOpt, plain []word, ctx walkCtx) {
	for _, o := range opts {
		if o.name == "-o" || o.name == "--output-file" {
			argFileDoubt(sc, o.name) // strip's option, not objcopy's
			continue
		}
		a.binOpt(sc, objcopyBin, o)
	}
	if len(plain) > 0 {
		sc.readOnly = false
		a.plainWrite(sc, &plain[len(plain)-1])
	}
	if len(plain) > 2 {
		argFileDoubt(sc, "objcopy") // more operands than objcopy takes
	}
}

// stripHook: strip FILE... rewrites each; -o F writes F instead.
func stripHook(a *analyzer, sc *subCmd, opts []declOpt, plain []word, ctx walkCtx) {
	out := false
	for _, o := range opts {
		a.binOpt(sc, objcopyBin, o)
		if objcopyBin.writes[o.name] {
			out = true
		}
	}
	if !out {
		a.binWriteAll(sc, plain)
	}
}

var elfeditBin = &binOpts{harmless: set("--input-mach", "--output-mach", "--input-type", "--output-type", "--input-osabi",
	"--output-osabi", "--input-abiversion", "--output-abiversion", "--enable-x86-feature", "--disable-x86-feature", "-h",
	"--help", "-v", "--version")}

var ranlibBin = &binOpts{harmless: set("-D", "-U", "-t", "-h", "--help", "-v", "-V", "--version")}

// rewriteHook: every plain argument is rewritten in place (ranlib,
// elfedit); options by the program's binOpts.
func rewriteHook(b *binOpts) func(a *analyzer, sc *subCmd, opts []declOpt, plain []word, ctx walkCtx) {
	return func(a *analyzer, sc *subCmd, opts []declOpt, plain []word, ctx walkCtx) {
		for _, o := range opts {
			a.binOpt(sc, b, o)
		}
		a.binWriteAll(sc, plain)
	}
}

// arHook: ar's operation is its first word (rcs, -rcs, x): d, m, q, r, s
// write the archive; t and p read it; x extracts members under the names
// the archive holds (with P, full paths): a doubt, like --plugin and any
// option ar does not know.
func arHook(a *analyzer, sc *subCmd, opts []declOpt, plain []word, ctx walkCtx) {
	op := ""
	for _, o := range opts {
		switch {
		case o.name == "--target" || o.name == "-X" || o.name == "--help" || o.name == "--version" || o.name == "-h" || o.name == "-V":
		case op == "" && len(o.name) > 1 && o.name[1] != '-' && arOpLetters(o.name[1:]):
			op = o.name[1:]
		default:
			argFileDoubt(sc, o.name) // --plugin, --output, ...
		}
	}
	if op == "" && len(plain) > 0 && plain[0].static && arOpLetters(plain[0].s) {
		op, plain = plain[0].s, plain[1:]
	}
	if op == "" || strings.ContainsAny(op, "x") {
		argFileDoubt(sc, "ar "+op)
		return
	}
	if !strings.ContainsAny(op, "dmqrs") {
		return // t, p: read only
	}
	skip := 0
	if strings.ContainsAny(op, "abi") {
		skip++ // the member to insert at
	}
	if strings.ContainsRune(op, 'N') {
		skip++ // the count
	}
	if len(plain) > skip {
		sc.readOnly = false
		a.plainWrite(sc, &plain[skip])
	} else {
		argFileDoubt(sc, "ar "+op)
	}
}

var dwpBin = &binOpts{harmless: set("-e", "--exec", "-v", "--verbose", "--verify-only", "-h", "--help", "-V", "--version"),
	writes: set("-o", "--output")}

// dwpHook: dwp -o F writes F; without it, -e EXE writes EXE.dwp (its
// --help; the dwp of binutils 2.40 crashed here, so no control ran).
func dwpHook(a *analyzer, sc *subCmd, opts []declOpt, plain []word, ctx walkCtx) {
	var exe *word
	out := false
	for _, o := range opts {
		a.binOpt(sc, dwpBin, o)
		out = out || dwpBin.writes[o.name]
		if o.name == "-e" || o.name == "--exec" {
			exe = o.val
		}
	}
	if out || exe == nil {
		return
	}
	sc.readOnly = false
	if !exe.static {
		a.plainWrite(sc, exe)
		return
	}
	v := staticWordPath(exe.s + ".dwp")
	a.plainWrite(sc, &v)
}

// arOpLetters: s is an operation with its modifiers (rcs, xv, tP).
func arOpLetters(s string) bool {
	if s == "" || !strings.ContainsAny(s[:1], "dmpqrstx") {
		return false
	}
	for _, c := range s {
		if !strings.ContainsRune("dmpqrstxabcDfilMNoOPsSTuvVU", c) {
			return false
		}
	}
	return true
}

var programsBinutilsDecls = [...]*progDecl{
	&progDecl{name: "objcopy", aliases: []string{"x86_64-linux-gnu-objcopy", "llvm-objcopy"}, valued: objcopyValued,
		atFiles: true, atArgs: true, hook: objcopyHook,
		match:   []string{"objcopy @args", "objcopy a.out /home/u/.bashrc", "objcopy --dump-section .x=/home/u/.bashrc a.out b.out"},
		noMatch: []string{"objcopy -O binary app app.bin", "objcopy --only-keep-debug app app.debug"}},
	&progDecl{name: "strip", aliases: []string{"x86_64-linux-gnu-strip", "llvm-strip"}, valued: objcopyValued,
		atFiles: true, atArgs: true, hook: stripHook,
		match:   []string{"strip @/etc/shadow", "strip -o /home/u/.bashrc a.out", "strip --plugin ./p.so a.out"},
		noMatch: []string{"strip app", "strip -s -o app.stripped app"}},
	&progDecl{name: "ranlib", aliases: []string{"llvm-ranlib", "gcc-ranlib"}, atFiles: true, atArgs: true, hook: rewriteHook(ranlibBin),
		valued:  []string{"--plugin"},
		match:   []string{"ranlib --plugin ./p.so lib.a", "ranlib /home/u/.bashrc"},
		noMatch: []string{"ranlib libx.a"}},
	&progDecl{name: "elfedit", atFiles: true, atArgs: true, hook: rewriteHook(elfeditBin),
		valued:  []string{"--input-mach", "--output-mach", "--input-type", "--output-type", "--input-osabi", "--output-osabi", "--input-abiversion", "--output-abiversion", "--enable-x86-feature", "--disable-x86-feature"},
		match:   []string{"elfedit --output-osabi Linux /home/u/.local/bin/ls"},
		noMatch: []string{"elfedit --output-osabi Linux app"}},
	&progDecl{name: "dwp", aliases: []string{"x86_64-linux-gnu-dwp", "llvm-dwp"}, valued: []string{"-o", "--output", "-e", "--exec"},
		hook: dwpHook, match: []string{"dwp -e /home/u/.local/bin/x", "dwp -o /home/u/.bashrc x.dwo", "dwp --new x.dwo"},
		noMatch: []string{"dwp -e app", "dwp -o app.dwp x.dwo"}},
	&progDecl{name: "ar", aliases: []string{"llvm-ar", "gcc-ar"}, valued: []string{"--plugin", "--output", "--target", "-X"},
		wordOpts: true, atFiles: true, atArgs: true, hook: arHook,
		match:   []string{"ar @args", "ar rcs /home/u/.bashrc x.o", "ar --plugin ./p.so rcs lib.a x.o", "ar x lib.a"},
		noMatch: []string{"ar rcs libx.a a.o b.o", "ar t libx.a", "ar -rcs libx.a a.o"}},
}

func init() {
	declare(programsBinutilsDecls[:]...)
}
