package policy

import "strings"

// Options that run a program, write a file, or load configuration or code
// (red team 16b; docs/policy.md, "Files that hold a program's arguments,
// configuration or code" and "Options that run programs"):
//   - curl -w/--write-out FORMAT: %output{F} (and %output{>>F}) sends what
//     follows to F, a write; a FORMAT the reader cannot see (a variable,
//     @F, @-) is a doubt. --expand-OPTION (curl >= 8.3) expands
//     {{variables}} into any option's value: a doubt.
//   - wget --use-askpass=CMD runs CMD (declared in wget's programs).
//   - rustc -C linker=CMD (-Clinker=, --codegen linker=, --codegen=...)
//     runs CMD; a -C key outside rustcSafeCodegen (link-arg, link-args,
//     linker-flavor, llvm-args, profile-generate, incremental, ...) and any
//     -Z are a doubt; --emit/--print KIND=F write F; -o/--out-dir write;
//     @F is a response file of more arguments (a doubt); --extern NAME=F
//     loads F (a proc-macro crate runs in the compiler): a doubt.
//   - gpg --options F and --homedir D: configuration (a doubt);
//     --agent-program, --dirmngr-program, --keyboxd-program, --photo-viewer
//     and --exec-path run programs.
//   - openssl -config F: configuration (engines, providers: a doubt);
//     -engine, -provider-path and -provider (other than the built-in
//     providers) load code: a doubt. openssl takes -opt and --opt, with the
//     value next or after "=".

// curlHook reads curl's -w/--write-out and --expand-* options.
func curlHook(a *analyzer, sc *subCmd, opts []declOpt, plain []word, ctx walkCtx) {
	for _, o := range opts {
		if strings.HasPrefix(o.name, "--expand-") {
			argFileDoubt(sc, o.name)
			continue
		}
		if o.name != "-w" && o.name != "--write-out" {
			continue
		}
		if o.val == nil || !o.val.static || strings.HasPrefix(o.val.s, "@") {
			argFileDoubt(sc, o.name)
			continue
		}
		files, ok := curlOutputFiles(o.val.s)
		if !ok {
			argFileDoubt(sc, o.name)
		}
		for _, f := range files {
			sc.readOnly = false
			v := staticWordPath(f)
			a.plainWrite(sc, &v)
		}
	}
}

// curlOutputFiles: the files a -w format's %output{F} directives write;
// false when one is not closed.
func curlOutputFiles(format string) (files []string, ok bool) {
	rest := format
	for {
		i := strings.Index(rest, "%output{")
		if i < 0 {
			return files, true
		}
		rest = rest[i+len("%output{"):]
		j := strings.IndexByte(rest, '}')
		if j < 0 {
			return files, false
		}
		f := strings.TrimPrefix(rest[:j], ">>")
		if f == "" {
			return files, false
		}
		files = append(files, f)
		rest = rest[j+1:]
	}
}

// rustcSafeCodegen: -C keys that neither run a program nor name a file.
var rustcSafeCodegen = map[string]bool{"opt-level": true, "debuginfo": true, "codegen-units": true, "target-cpu": true,
	"target-feature": true, "lto": true, "panic": true, "overflow-checks": true, "strip": true, "debug-assertions": true,
	"embed-bitcode": true, "relocation-model": true, "code-model": true, "force-frame-pointers": true, "prefer-dynamic": true,
	"metadata": true, "extra-filename": true, "split-debuginfo": true, "instrument-coverage": true, "soft-float": true,
	"no-redzone": true, "no-vectorize-loops": true, "no-vectorize-slp": true, "inline-threshold": true,
	"symbol-mangling-version": true, "force-unwind-tables": true, "link-dead-code": true, "rpath": true,
	"default-linker-libraries": true, "relro-level": true, "no-stack-check": true, "collapse-macro-debuginfo": true}

// rustcHook reads rustc's -C/--codegen, -Z, --emit, --print and --extern.
func rustcHook(a *analyzer, sc *subCmd, opts []declOpt, plain []word, ctx walkCtx) {
	for _, o := range opts {
		switch o.name {
		case "-C", "--codegen":
			if o.val == nil || !o.val.static {
				argFileDoubt(sc, o.name)
				continue
			}
			key, val, _ := strings.Cut(o.val.s, "=")
			key = strings.ReplaceAll(key, "_", "-")
			switch {
			case key == "linker":
				sc.readOnly = false
				v := staticWordPath(val)
				a.optProgram(sc, o.name+" linker", &v, ctx)
				argFileDoubt(sc, o.name+" linker") // a doubt in every mode
			case !rustcSafeCodegen[key]:
				argFileDoubt(sc, o.name+" "+key)
			}
		case "-Z", "--extern":
			if o.name == "--extern" && o.val != nil && o.val.static && !strings.Contains(o.val.s, "=") {
				continue // --extern NAME: a crate found by the search path
			}
			argFileDoubt(sc, o.name)
		case "--emit", "--print":
			if o.val == nil || !o.val.static {
				argFileDoubt(sc, o.name)
				continue
			}
			for _, item := range strings.Split(o.val.s, ",") {
				if _, f, has := strings.Cut(item, "="); has {
					sc.readOnly = false
					v := staticWordPath(f)
					a.plainWrite(sc, &v)
				}
			}
		}
	}
}

// gpgPrograms: gpg's options whose value is a program it runs.
var gpgPrograms = []string{"--agent-program", "--dirmngr-program", "--keyboxd-program", "--photo-viewer", "--exec-path"}

// gpgHook: an option of gpgPrograms runs a
// program of the caller's choosing: besides what optProgram records, a
// doubt in every mode (bypassPermissions included).
func gpgHook(a *analyzer, sc *subCmd, opts []declOpt, plain []word, ctx walkCtx) {
	for _, o := range opts {
		if containsStr(gpgPrograms, o.name) {
			argFileDoubt(sc, o.name)
		}
	}
}

// opensslBuiltinProviders: providers OpenSSL carries (no module of the
// caller's choosing).
var opensslBuiltinProviders = map[string]bool{"default": true, "base": true, "legacy": true, "fips": true, "null": true}

// opensslHook: -provider NAME other than a built-in one loads NAME's module.
func opensslHook(a *analyzer, sc *subCmd, opts []declOpt, plain []word, ctx walkCtx) {
	for _, o := range opts {
		if o.name != "-provider" && o.name != "--provider" {
			continue
		}
		if o.val == nil || !o.val.static || !opensslBuiltinProviders[o.val.s] {
			argFileDoubt(sc, o.name)
		}
	}
}

// dashBoth: each of opts with one and with two dashes (openssl reads both).
func dashBoth(opts ...string) []string {
	out := make([]string, 0, 2*len(opts))
	for _, o := range opts {
		out = append(out, o, "-"+o)
	}
	return out
}

var opensslValued = dashBoth("-config", "-engine", "-provider-path", "-provider", "-propquery", "-in", "-out", "-key", "-keyout",
	"-inkey", "-passin", "-passout", "-subj", "-days", "-newkey", "-pkeyopt", "-sigopt", "-extensions", "-reqexts", "-set_serial",
	"-CA", "-CAkey", "-CAfile", "-CApath", "-cert", "-certfile", "-signer", "-recip", "-inform", "-outform", "-keyform", "-digest",
	"-connect", "-servername", "-host", "-port", "-rand", "-writerand", "-name", "-cipher", "-ciphersuites", "-md", "-algorithm",
	"-pass", "-iter", "-kdf", "-macopt", "-kdfopt", "-verify", "-signature", "-sigfile", "-extfile", "-section", "-addext")

var programsRunWriteDecls = [...]*progDecl{
	&progDecl{name: "rustc", valued: []string{"-o", "--out-dir", "-C", "--codegen", "-L", "-l", "--crate-type", "--crate-name",
		"--edition", "--emit", "--target", "--cfg", "-A", "-W", "-D", "-F", "--allow", "--warn", "--deny", "--forbid", "--cap-lints",
		"--extern", "--sysroot", "--print", "--explain", "-Z", "--error-format", "--json", "--color", "--remap-path-prefix",
		"--check-cfg", "--diagnostic-width", "--force-warn"},
		writes: []string{"-o", "--out-dir"}, atFiles: true, atArgs: true, hook: rustcHook,
		flags:   []string{"-O", "-g", "--test", "--verbose", "-v"},
		match:   []string{"rustc -C linker=./evil main.rs", "rustc @args.txt main.rs", "rustc -Clink-arg=-B. main.rs"},
		noMatch: []string{"rustc -O main.rs", "rustc -C opt-level=3 --edition 2021 main.rs"}},
	&progDecl{name: "gpg", aliases: []string{"gpg2"}, valued: []string{"-o", "--output", "-r", "--recipient", "-R", "--hidden-recipient",
		"-u", "--local-user", "--default-key", "--keyserver", "--options", "--homedir", "--trust-model", "--cipher-algo",
		"--digest-algo", "--compress-algo", "--passphrase", "--passphrase-file", "--passphrase-fd", "--status-fd", "--logger-fd",
		"--logger-file", "--status-file", "--attribute-file", "--keyring", "--secret-keyring", "--primary-keyring", "--trustdb-name",
		"--default-recipient", "--encrypt-to", "--pinentry-mode", "--import-options", "--export-options", "--list-options",
		"--verify-options", "--keyserver-options", "--auto-key-locate", "--agent-program", "--dirmngr-program", "--keyboxd-program",
		"--photo-viewer", "--exec-path", "--keyid-format", "--load-extension", "--sender", "--set-filename", "-z"},
		argFiles: []string{"--options", "--homedir", "--load-extension"}, hook: gpgHook,
		programs: gpgPrograms,
		writes:   []string{"-o", "--output", "--logger-file", "--status-file", "--attribute-file"},
		reads:    []string{"--passphrase-file", "--keyring", "--secret-keyring", "--primary-keyring"},
		flags:    []string{"--list-keys", "--batch", "--yes", "--armor", "--verify", "--decrypt", "--encrypt", "--sign", "--import", "--export"},
		match:    []string{"gpg --options ./o --list-keys", "gpg --homedir ./g --list-keys", "gpg --photo-viewer ./v --list-keys"},
		noMatch:  []string{"gpg --list-keys", "gpg --armor --export ABCD"}},
	&progDecl{name: "openssl", valued: opensslValued, hook: opensslHook,
		argFiles: dashBoth("-config", "-engine", "-provider-path"),
		match:    []string{"openssl req -config x.cnf -new", "openssl req -engine ./e.so", "openssl list --provider evil"},
		noMatch:  []string{"openssl version", "openssl list -provider default", "openssl rand -hex 16"}},
}

func init() {
	declare(programsRunWriteDecls[:]...)
}
