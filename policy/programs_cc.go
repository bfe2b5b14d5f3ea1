package policy

import "strings"

// The C compiler drivers, the linker and the assembler (red team 17;
// docs/policy.md, "Options that run programs or write files"). Their
// option sets are large and keep growing, so their declarations name the
// options known harmless and read every other one as a doubt (ask in
// every mode unless an allow rule names it), rather than listing the
// dangerous ones:
//
//   - a written file is judged as any write (Edit rules, protected places,
//     breakers, the workspace): gcc -o F (-oF, --output=F, --output F),
//     -MF F, -aux-info F, -fdump-...=F, -fopt-info...=F, --output-pch F; the
//     linker's -o/--output, -Map/--Map, --dependency-file, --out-implib
//     given through -Wl,A,B / -Xlinker A / --for-linker A or to ld itself;
//     the assembler's -o, -a...=F and --MD F;
//   - an option that runs a program or loads code is a doubt: -wrapper
//     CMD,ARGS (CMD ARGS is also read as a command, so a deny rule holds),
//     -B DIR / --prefix (gcc runs DIR/as, DIR/ld, DIR/cc1), -specs=F,
//     -fplugin=, -fplugin-arg-, clang's -fpass-plugin=, -Xclang, -mllvm,
//     -fuse-ld= other than a linker name, --ld-path=, -fmodule-mapper=,
//     --gcc-toolchain=, --config, -T SCRIPT, -dumpdir, the linker's
//     -plugin and @F, and every option not known harmless.
//   - gcc @F (a response file) stays the doubt it was (atArgs).

// ccExact: gcc/clang options, whole words, known harmless.
var ccExact = set("-c", "-S", "-E", "-v", "-w", "-s", "-p", "-pg", "-P", "-C", "-CC", "-H", "-Q", "-M", "-MM", "-MD", "-MMD", "-MG",
	"-MP", "-###", "-pipe", "-pthread", "-pthreads", "-pie", "-no-pie", "-static-pie", "-shared", "-static", "-static-libgcc",
	"-static-libstdc++", "-static-libasan", "-shared-libgcc", "-rdynamic", "-r", "-ansi", "-pedantic", "-pedantic-errors",
	"-nostdlib", "-nostdlib++", "-nostartfiles", "-nodefaultlibs", "-nolibc", "-nostdinc", "-nostdinc++", "-undef", "-trigraphs",
	"-traditional", "-traditional-cpp", "-time", "-save-temps", "-save-temps=cwd", "-save-temps=obj", "-dumpversion",
	"-dumpfullversion", "-dumpmachine", "-dumpspecs", "-emit-llvm", "-integrated-as", "-no-integrated-as", "-print-search-dirs",
	"-print-libgcc-file-name", "-print-multiarch", "-print-multi-directory", "-print-multi-lib", "-print-multi-os-directory",
	"-print-sysroot", "-print-sysroot-headers-suffix", "-print-resource-dir", "-print-target-triple", "-coverage", "-g",
	"--compile", "--assemble", "--preprocess", "--debug", "--optimize", "--verbose", "--version", "--help", "--target-help",
	"--pipe", "--save-temps", "--trace-includes", "--comments", "--comments-in-macros", "--dependencies", "--user-dependencies",
	"--write-dependencies", "--write-user-dependencies", "--no-standard-libraries", "--no-standard-includes", "--no-line-commands",
	"--pedantic", "--pedantic-errors", "--ansi", "--all-warnings", "--extra-warnings", "--no-warnings", "--static", "--shared",
	"--symbolic", "--profile", "--coverage", "--no-integrated-cpp", "--print-missing-file-dependencies", "--include-barrier",
	"--print-search-dirs", "--print-libgcc-file-name", "--print-multi-directory", "--print-multi-lib", "--print-sysroot",
	"--undefined", "--include-directory", "--include-directory-after", "--library-directory", "--define-macro",
	"--undefine-macro", "--language", "--include", "--imacros", "--include-prefix", "--include-with-prefix",
	"--include-with-prefix-before", "--entry", "--force-link", "--param", "--sysroot", "--std", "--target", "--rtlib",
	"--unwindlib", "--stdlib", "-target", "-arch", "-x", "-I", "-L", "-l", "-D", "-U", "-u", "-e", "-z", "-A", "-MT", "-MQ",
	"-include", "-imacros", "-iquote", "-isystem", "-idirafter", "-iprefix", "-iwithprefix", "-iwithprefixbefore", "-isysroot",
	"-imultilib", "-imultiarch", "--param")

// ccJoined: gcc/clang options known harmless with their value attached
// (-DX=1, -I./inc, -std=c11, -march=native); checked after ccExact.
var ccJoined = []string{"-D", "-U", "-I", "-L", "-l", "-x", "-A", "-MT", "-MQ", "-O", "-std=",
	"-g0", "-g1", "-g2", "-g3", "-ggdb", "-gdwarf", "-gsplit-dwarf", "-gz", "-gstabs", "-gline-", "-gcolumn-info", "-gno-",
	"-gbtf", "-gctf", "-gcodeview", "-gembed-source", "-gstrict-dwarf", "-gpubnames", "-ggnu-pubnames", "-gfull", "-gused",
	"-gmlt", "-gsimple-template-names", "-grecord-", "-gvariable-location-views", "-gstatement-frontiers", "-ginline-points",
	"-gdescribe-dies", "-gas-loc", "-gtoggle", "-gmodules", "-gsce", "-glldb", "-gcoff", "-gxcoff", "-gvms", "-iquote", "-isystem",
	"-idirafter", "-isysroot", "-iprefix", "-iwithprefix", "-imultilib", "-include", "-imacros", "--sysroot=", "--std=",
	"--target=", "--rtlib=", "--unwindlib=", "--stdlib=", "--param=", "--define-macro=", "--undefine-macro=", "--language=",
	"--include-directory=", "--include-directory-after=", "--library-directory=", "--include=", "--imacros=",
	"--entry=", "--force-link=", "-print-prog-name=", "-print-file-name=", "--print-prog-name=", "--print-file-name=",
	"-mtune=", "-march=", "-mcpu=", "-mfpu=", "-mabi=", "-mfloat-abi="}

// ccFEqual: -fNAME=VALUE options known harmless (NAME=).
var ccFEqual = []string{"visibility=", "sanitize=", "no-sanitize=", "sanitize-recover=", "no-sanitize-recover=",
	"sanitize-trap=", "sanitize-coverage=", "diagnostics-color=", "color-diagnostics=", "message-length=", "max-errors=",
	"template-depth=", "constexpr-depth=", "constexpr-steps=", "stack-protector=", "cf-protection=", "lto=", "lto-partition=",
	"fp-contract=", "excess-precision=", "abi-version=", "debug-prefix-map=", "file-prefix-map=",
	"macro-prefix-map=", "profile-prefix-map=", "strong-eval-order=", "tls-model=", "permitted-flt-eval-methods=",
	"input-charset=", "exec-charset=", "wide-exec-charset=", "trivial-auto-var-init=", "zero-call-used-regs=",
	"profile-update=", "align-functions=", "align-loops=", "align-jumps=", "align-labels=", "stack-check=", "stack-limit-symbol=",
	"stack-clash-protection=", "inline-limit=", "pack-struct=", "ms-compatibility-version=", "diagnostics-format=",
	"diagnostics-show-location=", "diagnostics-column-unit=", "diagnostics-minimum-margin-width=", "tabstop=",
	"embed-bitcode=", "debug-default-version=", "openmp=", "sanitize-memory-track-origins=", "sanitize-address-use-after-scope=",
	"hardened=", "strict-flex-arrays=", "ident=", "last-diagnostic=", "ira-algorithm=", "ira-region=", "vect-cost-model=",
	"simd-cost-model=", "sched-stalled-insns=", "sched-stalled-insns-dep=", "strict-overflow=", "lto-compression-level=",
	"fat-lto-objects=", "cx-limited-range=", "complex-arithmetic=", "template-backtrace-limit=", "macro-backtrace-limit=",
	"constexpr-ops-limit=", "constexpr-loop-limit=", "bracket-depth=", "debug-compilation-dir=", "coverage-compilation-dir=",
	"msc-version=", "gnuc-version=", "function-alignment=", "patchable-function-entry=", "sanitize-address-use-after-return=",
	"max-type-align=", "diagnostics-path-format=", "diagnostics-urls=", "diagnostics-text-art-charset=",
	"diagnostics-escape-format=", "stack-reuse=", "vtable-verify=", "sso-struct=", "module-header=", "lto-jobs=",
	"sanitize-trap=", "sanitize-coverage-allowlist=", "sanitize-coverage-ignorelist=", "sanitize-ignorelist=",
	"sanitize-blacklist=", "profile-reproducible=", "profile-partial-training=", "stack-protector-guard=",
	"stack-protector-guard-reg=", "stack-protector-guard-offset=", "stack-protector-guard-symbol="}

// ccLinkers: -fuse-ld= values naming a linker (found by the driver's own
// search, not a path of the caller's choosing).
var ccLinkers = set("bfd", "gold", "lld", "mold", "lld-link")

// ccValued: gcc/clang options that take their value in the next word.
var ccValued = []string{"-o", "--output", "-I", "-L", "-l", "-D", "-U", "-x", "-MF", "-MT", "-MQ", "-B", "--prefix", "-wrapper",
	"-specs", "--specs", "-Xlinker", "--for-linker", "-Xassembler", "--for-assembler", "-Xpreprocessor", "-Xclang", "-mllvm",
	"-aux-info", "-dumpdir", "--dumpdir", "-dumpbase", "--dumpbase", "-dumpbase-ext", "-include", "-imacros", "-iquote",
	"-isystem", "-idirafter", "-iprefix", "-iwithprefix", "-iwithprefixbefore", "-isysroot", "-imultilib", "-T", "-u", "-z",
	"-e", "-A", "--param", "-target", "-arch", "--language", "--include-directory", "--include-directory-after",
	"--library-directory", "--define-macro", "--undefine-macro", "--sysroot", "--include", "--imacros", "--entry",
	"--force-link", "--include-prefix", "--include-with-prefix", "--include-with-prefix-before", "--output-pch", "--config",
	"--gcc-toolchain", "--ld-path"}

// scanWordOpt reads the option args[i] of a wordOpts declaration: the
// whole word is its name (no short-option clusters, no value split at
// "=" but for a "--" option: --output=F); a valued option takes the next
// word. It returns opts with the option and the index after it.
func (d *progDecl) scanWordOpt(opts []declOpt, args []word, i int) ([]declOpt, int) {
	s := args[i].s
	i++
	if name, v, has := strings.Cut(s, "="); has && strings.HasPrefix(s, "--") {
		vw := staticWordPath(v)
		return append(opts, declOpt{name: name, val: &vw}), i
	}
	if containsStr(d.valued, s) && i < len(args) {
		v := args[i]
		return append(opts, declOpt{name: s, val: &v}), i + 1
	}
	return append(opts, declOpt{name: s}), i
}

// ccHook reads every option of a C compiler driver (the scan gives each
// as its whole word, wordOpts): writes, programs, and doubts.
func ccHook(a *analyzer, sc *subCmd, opts []declOpt, plain []word, ctx walkCtx) {
	var tools ccTools
	for _, o := range opts {
		a.ccOpt(sc, o, &tools, ctx)
	}
	// gcc hands each tool its words in order, all -Wl, and -Xlinker
	// together (-Xlinker -o -Xlinker F is -o F).
	a.linkerArgs(sc, tools.ld, ctx)
	a.asArgs(sc, tools.as)
	a.cppArgs(sc, tools.cpp)
}

// toolWord is one word the driver hands a tool, and the option it came
// through (-Wl, -Xlinker, ...: what a doubt is named by).
type toolWord struct {
	w   word
	via string
}

// ccTools: the words the driver hands the linker, the assembler and the
// preprocessor.
type ccTools struct{ ld, as, cpp []toolWord }

// toolWords: ws, each through via.
func toolWords(via string, ws []word) []toolWord {
	out := make([]toolWord, len(ws))
	for i, w := range ws {
		out[i] = toolWord{w, via}
	}
	return out
}

// ccOpt reads one option of a C compiler driver.
func (a *analyzer) ccOpt(sc *subCmd, o declOpt, t *ccTools, ctx walkCtx) {
	s := o.name
	write := func(v *word) {
		sc.readOnly = false
		if v == nil || v.s == "" {
			argFileDoubt(sc, s)
			return
		}
		a.plainWrite(sc, v)
	}
	joined := func(prefix string) *word {
		if o.val != nil {
			return o.val // --output=F (split by the scan) or -o F
		}
		w := staticWordPath(s[len(prefix):])
		return &w
	}
	switch {
	case s == "-o" || s == "--output" || s == "-MF" || s == "-aux-info" || s == "--output-pch":
		write(o.val)
	case s == "-wrapper":
		a.ccWrapper(sc, o.val, ctx)
	case s == "-Xlinker" || s == "--for-linker" || s == "-Xassembler" || s == "--for-assembler" || s == "-Xpreprocessor":
		if o.val == nil {
			argFileDoubt(sc, s)
			return
		}
		tw := toolWord{*o.val, s}
		switch s {
		case "-Xlinker", "--for-linker":
			t.ld = append(t.ld, tw)
		case "-Xpreprocessor":
			t.cpp = append(t.cpp, tw)
		default:
			t.as = append(t.as, tw)
		}
	case strings.HasPrefix(s, "-Wl,"):
		t.ld = append(t.ld, toolWords("-Wl", commaWords(s[len("-Wl,"):]))...)
	case strings.HasPrefix(s, "-Wa,"):
		t.as = append(t.as, toolWords("-Wa", commaWords(s[len("-Wa,"):]))...)
	case strings.HasPrefix(s, "-Wp,"):
		t.cpp = append(t.cpp, toolWords("-Wp", commaWords(s[len("-Wp,"):]))...)
	case ccExact[s]:
		// known harmless (a valued one's value, if any, was taken by the scan)
	case strings.HasPrefix(s, "-o"):
		write(joined("-o"))
	case strings.HasPrefix(s, "-MF"):
		write(joined("-MF"))
	case strings.HasPrefix(s, "--output="):
		write(joined("--output="))
	case strings.HasPrefix(s, "-fdump-") || strings.HasPrefix(s, "-fopt-info"):
		// -fdump-tree-all, -fopt-info-vec: files beside the output;
		// with =F, F itself.
		if _, f, has := strings.Cut(s, "="); has {
			w := staticWordPath(f)
			write(&w)
		}
	case strings.HasPrefix(s, "-W") && !strings.Contains(s, ","):
		// a warning (-Wall, -Wno-unused, -Wframe-larger-than=N)
	case strings.HasPrefix(s, "-f") && ccFlagHarmless(s[2:]):
	case strings.HasPrefix(s, "-m") && !hasAnyPrefix(s, []string{"-mllvm", "-module", "-mlink"}):
		// machine options (-m64, -mavx2, -march=native); not clang's
		// -mllvm, -module-dependency-dir (writes), -mlink-bitcode-file
	case ccDumpLetters(s):
		// -dM, -dD, -dN, -dI, -dU: what the preprocessor prints
	case hasAnyPrefix(s, ccJoined):
	default:
		// -B, --prefix, -specs, -fplugin, -fpass-plugin, -Xclang, -mllvm,
		// -fuse-ld=PATH, --ld-path, -T, -dumpdir, --config, and every
		// option the reader does not know.
		argFileDoubt(sc, ccDoubtName(s))
	}
}

// ccDoubtPrefixes: the options a doubt names by their name alone (the
// value attached: -B./evil/, -fplugin=F, -Tscript.ld), so that an allow
// rule naming the option (Bash(gcc -B*)) covers every value.
var ccDoubtPrefixes = []string{"-fplugin-arg-", "-fplugin", "-fpass-plugin", "-fmodule-mapper", "-fuse-ld", "-specs", "--specs",
	"--prefix", "--ld-path", "--gcc-toolchain", "--config", "-dumpdir", "-dumpbase", "-B", "-T"}

// ccDoubtName: the name a doubtful option is known by: its prefix of
// ccDoubtPrefixes, else the word up to "=".
func ccDoubtName(s string) string {
	for _, p := range ccDoubtPrefixes {
		if strings.HasPrefix(s, p) {
			return p
		}
	}
	if i := strings.IndexByte(s, '='); i > 0 {
		return s[:i]
	}
	return s
}

// ccFlagHarmless: -fNAME (after "-f") is known harmless: no "=" (but not
// a plugin, a module mapper or a pass plugin), or a NAME= of ccFEqual, or
// -fuse-ld= a linker's name.
func ccFlagHarmless(f string) bool {
	if strings.HasPrefix(f, "plugin") || strings.HasPrefix(f, "pass-plugin") || strings.HasPrefix(f, "module-mapper") ||
		strings.HasPrefix(f, "no-plugin") {
		return false
	}
	name, val, has := strings.Cut(f, "=")
	if !has {
		return true
	}
	if name == "use-ld" {
		return ccLinkers[val]
	}
	return hasAnyPrefix(f, ccFEqual)
}

// ccDumpLetters: -dLETTERS (-dM, -dD, -dA): dumps the driver prints or
// writes beside its output.
func ccDumpLetters(s string) bool {
	if len(s) < 3 || len(s) > 6 || !strings.HasPrefix(s, "-d") {
		return false
	}
	for _, c := range s[2:] {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return !strings.HasPrefix(s, "-dump")
}

// commaWords: the words of a comma list (-Wl,-o,F), each a static path.
func commaWords(s string) []word {
	parts := strings.Split(s, ",")
	out := make([]word, len(parts))
	for i, p := range parts {
		out[i] = staticWordPath(p)
	}
	return out
}

// ccWrapper: -wrapper CMD,ARGS runs CMD ARGS before every tool the driver
// runs: the command is read (its deny rules hold) and the call is a doubt.
func (a *analyzer) ccWrapper(sc *subCmd, v *word, ctx walkCtx) {
	argFileDoubt(sc, "-wrapper")
	if v == nil {
		return
	}
	if !v.static {
		a.setUncertain("gcc -wrapper runs a program known only at run time")
		return
	}
	inner := ctx
	inner.gate = true
	a.command(commaWords(v.s), inner)
}

// subOptName: the name a doubtful option of a tool the driver runs is
// known by (what an allow rule must name): -Wl,-plugin for -Wl, the
// option itself for -Xlinker and for ld or as run directly.
func subOptName(via, opt string) string {
	opt = strings.SplitN(opt, "=", 2)[0]
	if via == "ld" || via == "as" {
		return opt
	}
	if strings.HasPrefix(via, "-W") {
		return via + "," + opt
	}
	return via + " " + opt
}

// ldExact: linker options (one or two dashes) known harmless, without a
// value; ldValued: harmless ones taking a value (next word, or after "=",
// or, for one letter, attached).
var ldExact = set("as-needed", "no-as-needed", "gc-sections", "no-gc-sections", "start-group", "end-group", "(", ")",
	"whole-archive", "no-whole-archive", "Bstatic", "Bdynamic", "Bsymbolic", "Bsymbolic-functions", "export-dynamic",
	"no-export-dynamic", "E", "s", "S", "strip-all", "strip-debug", "no-undefined", "allow-shlib-undefined",
	"no-allow-shlib-undefined", "allow-multiple-definition", "warn-common", "fatal-warnings", "no-fatal-warnings",
	"enable-new-dtags", "disable-new-dtags", "O0", "O1", "O2", "O3", "eh-frame-hdr", "no-eh-frame-hdr", "relax", "no-relax",
	"pie", "no-pie", "shared", "static", "r", "x", "X", "t", "v", "V", "verbose", "version", "sort-common", "build-id",
	"no-copy-dt-needed-entries", "copy-dt-needed-entries", "gdb-index", "no-keep-memory", "reduce-memory-overheads", "warn-once",
	"error-unresolved-symbols", "warn-unresolved-symbols", "no-warn-rwx-segments", "no-warn-execstack", "discard-all",
	"discard-locals", "demangle", "no-demangle", "stats", "trace", "print-gc-sections", "nostdlib", "push-state", "pop-state",
	"color-diagnostics", "no-color-diagnostics", "call_shared", "dy", "dn", "non_shared", "icf=all", "icf=none", "icf=safe",
	"pic-executable", "no-dynamic-linker", "undefined-version", "no-undefined-version", "no-warn-mismatch", "M", "print-map",
	"cref", "no-define-common", "dc", "dp", "N", "n", "omagic", "nmagic", "no-omagic", "q", "emit-relocs", "g", "Qy", "d",
	"export-dynamic-symbol-list", "rosegment", "no-rosegment", "threads", "no-threads", "lto-O0", "lto-O1", "lto-O2", "lto-O3")

var ldValued = set("l", "library", "L", "library-path", "e", "entry", "u", "undefined", "z", "m", "soname", "h", "rpath",
	"R", "rpath-link", "dynamic-linker", "I", "y", "trace-symbol", "defsym", "wrap", "version-script", "dynamic-list",
	"exclude-libs", "hash-style", "build-id", "section-start", "Ttext", "Tdata", "Tbss", "Ttext-segment", "Trodata-segment",
	"Tldata-segment", "sysroot", "init", "fini", "hash-size", "compress-debug-sections", "unresolved-symbols", "icf",
	"export-dynamic-symbol", "just-symbols", "retain-symbols-file", "threads", "image-base", "sort-section", "max-page-size",
	"common-page-size", "z", "a", "A", "architecture", "b", "format", "Y", "G", "gpsize", "undefined-glob", "require-defined",
	"thread-count", "package-metadata", "error-handling-script", "orphan-handling", "sort-section", "target2")

// ldWrites: linker options whose value is a file it writes.
var ldWrites = set("o", "output", "Map", "dependency-file", "out-implib")

// ldArgs reads a linker's arguments (ld itself, or what gcc -Wl,/
// -Xlinker hands it): writes, and a doubt for -plugin, -T SCRIPT, @F and
// every option not known harmless. via names where they came from.
func (a *analyzer) linkerArgs(sc *subCmd, args []toolWord, ctx walkCtx) {
	for i := 0; i < len(args); i++ {
		w, via := args[i].w, args[i].via
		doubt := func(opt string) { argFileDoubt(sc, subOptName(via, opt)) }
		if !w.static {
			a.setUncertain("a linker option known only at run time")
			continue
		}
		s := w.s
		if strings.HasPrefix(s, "@") {
			doubt(s) // a response file of more linker options
			continue
		}
		if !strings.HasPrefix(s, "-") || s == "-" {
			continue // an input file
		}
		name := strings.TrimPrefix(strings.TrimPrefix(s, "-"), "-")
		val, has := "", false
		if n, v, ok := strings.Cut(name, "="); ok {
			name, val, has = n, v, true
		}
		next := func() (word, bool) {
			if has {
				return staticWordPath(val), true
			}
			if i+1 < len(args) {
				i++
				return args[i].w, true
			}
			return word{}, false
		}
		switch {
		case ldExact[name] || ldExact[name+"="+val] && has:
		case ldWrites[name]:
			v, ok := next()
			sc.readOnly = false
			if !ok {
				doubt(s)
				continue
			}
			a.plainWrite(sc, &v)
		case ldValued[name]:
			next()
		case len(name) > 1 && name[0] == 'o' && !strings.HasPrefix(s, "--") && !has:
			// -oFILE
			v := staticWordPath(name[1:])
			sc.readOnly = false
			a.plainWrite(sc, &v)
		case len(name) > 1 && strings.ContainsRune("lLuezyRIm", rune(name[0])) && !strings.HasPrefix(s, "--"):
			// -lm, -L./lib, -znow: a one-letter option with its value
		default:
			doubt(strings.SplitN(s, "=", 2)[0])
		}
	}
}

// asExact: assembler options known harmless (as, gcc -Wa,).
var asExact = set("--64", "--32", "--x32", "-g", "--gen-debug", "--noexecstack", "--execstack", "--fatal-warnings", "-W",
	"--no-warn", "--warn", "-K", "-L", "--keep-locals", "-Q", "-v", "-V", "--version", "-R", "--statistics", "--strip-local-absolute",
	"--compress-debug-sections", "--nocompress-debug-sections", "-mrelax-relocations=yes", "-mrelax-relocations=no", "--gstabs",
	"--gstabs+", "--gdwarf-2", "--gdwarf-3", "--gdwarf-4", "--gdwarf-5", "--gdwarf-sections", "-mthumb", "-EL", "-EB", "-J",
	"-w", "-x", "-Z", "--reduce-memory-overheads", "--no-pad-sections", "--elf-stt-common=yes", "--elf-stt-common=no")

// asJoined: assembler options known harmless with a value attached.
var asJoined = []string{"-march=", "-mtune=", "-mcpu=", "-mfpu=", "-mabi=", "-mfloat-abi=", "-mx86-used-note=", "-I",
	"--defsym=", "--gdwarf-", "--compress-debug-sections=", "-mrelax-relocations=", "--debug-prefix-map=", "-m"}

// asArgs reads an assembler's options: -o F, -a...=F (a listing) and
// --MD F write; -I DIR and --defsym take a value; every other option not
// known harmless is a doubt.
func (a *analyzer) asArgs(sc *subCmd, args []toolWord) {
	for i := 0; i < len(args); i++ {
		w, via := args[i].w, args[i].via
		if !w.static {
			a.setUncertain("an assembler option known only at run time")
			continue
		}
		s := w.s
		write := func(f string) {
			v := staticWordPath(f)
			sc.readOnly = false
			a.plainWrite(sc, &v)
		}
		switch {
		case !strings.HasPrefix(s, "-") || s == "-":
		case s == "-o" || s == "--MD":
			if i+1 < len(args) {
				i++
				sc.readOnly = false
				a.plainWrite(sc, &args[i].w)
			} else {
				argFileDoubt(sc, via)
			}
		case strings.HasPrefix(s, "-o"):
			write(s[2:])
		case strings.HasPrefix(s, "-a"):
			// -a[cdghlmns][=FILE]: a listing, to FILE or standard output
			if _, f, has := strings.Cut(s, "="); has {
				write(f)
			}
		case s == "-I" || s == "--defsym":
			i++
		case asExact[s] || hasAnyPrefix(s, asJoined) && !strings.HasPrefix(s, "-mllvm"):
		default:
			argFileDoubt(sc, subOptName(via, s))
		}
	}
}

// cppArgs reads preprocessor options (gcc -Wp, and -Xpreprocessor): -D,
// -U, -I are harmless; -MD F, -MMD F, -MF F and -o F write; every other
// option is a doubt.
func (a *analyzer) cppArgs(sc *subCmd, args []toolWord) {
	for i := 0; i < len(args); i++ {
		w, via := args[i].w, args[i].via
		if !w.static {
			a.setUncertain("a preprocessor option known only at run time")
			continue
		}
		s := w.s
		switch {
		case !strings.HasPrefix(s, "-"):
		case s == "-D" || s == "-U" || s == "-I":
			i++
		case s == "-MD" || s == "-MMD" || s == "-MF" || s == "-o":
			if i+1 < len(args) {
				i++
				sc.readOnly = false
				a.plainWrite(sc, &args[i].w)
			} else {
				argFileDoubt(sc, via)
			}
		case len(s) > 2 && strings.ContainsRune("DUI", rune(s[1])):
		case s == "-P" || s == "-C" || s == "-M" || s == "-MM" || s == "-MP" || s == "-MG" || s == "-dM" || s == "-dD":
		default:
			argFileDoubt(sc, subOptName(via, s))
		}
	}
}

// cppHook: cpp reads its options as gcc does; a second operand is the
// file it writes.
func cppHook(a *analyzer, sc *subCmd, opts []declOpt, plain []word, ctx walkCtx) {
	ccHook(a, sc, opts, plain, ctx)
	if len(plain) >= 2 {
		sc.readOnly = false
		a.plainWrite(sc, &plain[1])
	}
	if len(plain) > 2 {
		argFileDoubt(sc, "cpp") // more operands than cpp takes
	}
}

// ldHook: ld (and lld, gold, mold) read by linkerArgs; its plain
// arguments are inputs. With no -o it writes a.out in the working
// directory.
func ldHook(a *analyzer, sc *subCmd, opts []declOpt, plain []word, ctx walkCtx) {
	a.linkerArgs(sc, toolWords("ld", flattenOpts(opts)), ctx)
}

// asHook: as reads by asArgs.
func asHook(a *analyzer, sc *subCmd, opts []declOpt, plain []word, ctx walkCtx) {
	a.asArgs(sc, toolWords("as", flattenOpts(opts)))
}

// flattenOpts: the options of a wordOpts scan as words again (an option,
// then its separate value).
func flattenOpts(opts []declOpt) []word {
	out := make([]word, 0, 2*len(opts))
	for _, o := range opts {
		out = append(out, staticWordPath(o.name))
		if o.val != nil {
			out = append(out, *o.val)
		}
	}
	return out
}

var ldScanValued = []string{"-o", "--output", "-Map", "--Map", "-T", "--script", "-l", "-L", "-e", "--entry", "-u", "--undefined",
	"-z", "-m", "-soname", "--soname", "-h", "-rpath", "--rpath", "-rpath-link", "--rpath-link", "-dynamic-linker",
	"--dynamic-linker", "-plugin", "--plugin", "-plugin-opt", "--plugin-opt", "--dependency-file", "-y", "--trace-symbol",
	"--defsym", "--wrap", "--version-script", "--dynamic-list", "--exclude-libs", "-R", "--just-symbols", "--sysroot",
	"--out-implib", "-a", "-A", "-b", "-Y", "-G"}

var programsCCDecls = [...]*progDecl{
	// compiler caches and distributors: `ccache gcc ARGS` runs `gcc ARGS`
	// (read as a command of its own, its writes and doubts included);
	// ccache -o/--set-config KEY=VALUE sets a key of its configuration
	// (compiler, prefix_command: programs it runs): uncertain.
	&progDecl{name: "ccache", aliases: []string{"sccache", "distcc", "icecc", "buildcache"}, valued: []string{"-M", "--max-size", "-F",
		"--max-files", "-d", "--dir", "-k", "--get-config", "--evict-older-than", "--evict-namespace", "-X", "--recompress", "-o",
		"--set-config"}, uncertainWith: []string{"-o", "--set-config"}, run: runAfterOpts, forms: runnerForms("ccache"),
		match:   []string{"ccache rm -rf x", "ccache gcc -o /home/u/.bashrc x.c", "distcc gcc -wrapper ./w -c x.c", "ccache -o prefix_command=./p"},
		noMatch: []string{"ccache gcc -O2 -o app x.c", "ccache -s", "sccache --show-stats"}},
	&progDecl{name: "gcc", aliases: []string{"g++", "cc", "c++", "clang", "clang++", "gcc-12", "g++-12", "gcc-13", "g++-13",
		"gcc-14", "g++-14", "x86_64-linux-gnu-gcc", "x86_64-linux-gnu-g++", "aarch64-linux-gnu-gcc", "tcc", "c89", "c99"},
		valued: ccValued, wordOpts: true, atFiles: true, atArgs: true, hook: ccHook,
		match: []string{"gcc @/etc/shadow", "gcc @flags.txt main.c", "gcc -wrapper ./w -c x.c", "gcc -B./evil/ -c x.c",
			"gcc -fplugin=./p.so x.c", "gcc -specs=./s x.c", "clang -Xclang -load -Xclang ./p.so x.c", "gcc -Wl,-plugin,./p.so x.c",
			"gcc --new-unknown-option x.c"},
		noMatch: []string{"gcc -O2 -o app main.c", "gcc -Wall -Wextra -std=c11 -g -c -o x.o x.c", "cc -DNDEBUG=1 -I./inc -L. -lm -o app x.c",
			"gcc -fPIC -shared -Wl,-soname,libx.so.1 -Wl,--as-needed -o libx.so x.c", "clang -fsanitize=address -fuse-ld=lld -march=native x.c"}},
	// cpp IN OUT writes OUT; its options are gcc's.
	&progDecl{name: "cpp", aliases: []string{"cpp-12", "cpp-13", "cpp-14", "x86_64-linux-gnu-cpp"}, valued: ccValued, wordOpts: true,
		atFiles: true, atArgs: true, hook: cppHook,
		match:   []string{"cpp x.c /home/u/.bashrc", "cpp -o /home/u/.bashrc x.c", "cpp -fplugin=./p.so x.c"},
		noMatch: []string{"cpp -P -DX=1 x.c build/x.i", "cpp -dM x.c"}},
	&progDecl{name: "ld", aliases: []string{"ld.bfd", "ld.gold", "gold", "ld.lld", "lld", "mold", "ld.mold", "ld64.lld", "x86_64-linux-gnu-ld"}, valued: ldScanValued,
		wordOpts: true, atFiles: true, atArgs: true, hook: ldHook,
		match:   []string{"ld -plugin ./p.so x.o", "ld -T evil.ld x.o", "ld @args"},
		noMatch: []string{"ld -o app x.o -lc", "ld --gc-sections -o app x.o"}},
	&progDecl{name: "as", aliases: []string{"x86_64-linux-gnu-as"}, valued: []string{"-o", "--MD", "-I", "--defsym"},
		wordOpts: true, atFiles: true, atArgs: true, hook: asHook,
		match:   []string{"as @args", "as --unknown-opt x.s"},
		noMatch: []string{"as --64 -o x.o x.s"}},
}

func init() {
	declare(programsCCDecls[:]...)
}
