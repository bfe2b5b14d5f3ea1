package policy

import (
	"path"
	"strings"
)

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
//     loads F (a proc-macro crate runs in the compiler): a doubt, and so
//     is the search path it finds crates in (red team 17): -L PATH and -L
//     crate=, dependency=, all=PATH (not native= and framework=, the
//     linker's), --sysroot and --target given by a file.
//   - gpg --options F and --homedir D: configuration (a doubt);
//     --log-file F (the synonym of --logger-file, red team 17),
//     --trustdb-name and the keyrings (created when missing) write;
//     --use-embedded-filename writes where the message says (uncertain);
//     --agent-program, --dirmngr-program, --keyboxd-program, --photo-viewer
//     and --exec-path run programs.
//   - openssl -config F: configuration (engines, providers: a doubt);
//     -engine, -provider-path and -provider (other than the built-in
//     providers) load code: a doubt. openssl takes -opt and --opt, with the
//     value next or after "=". Its output options write (red team 17):
//     -out, -keyout, -writerand, -sess_out, -keylogfile, -msgfile, -outdir,
//     -reqout, -respout, -certsout, -signer (cms/smime -verify write the
//     signer's certificates there), -CAserial, -srpvfile, -outpubkey;
//     x509 -CA F writes F's serial file, F.srl (-CAcreateserial creates it);
//     s_server -WWW and -HTTP serve the working directory's files to the
//     network (a circuit breaker, as python -m http.server).

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
		case "-L":
			// -L [KIND=]PATH: crates (proc macros among them, which run
			// in the compiler) load from PATH, named by `extern crate`
			// in the source or by --extern NAME (red team 17); native and
			// framework paths are for the linker.
			if o.val != nil && o.val.static {
				if kind, _, has := strings.Cut(o.val.s, "="); has && (kind == "native" || kind == "framework") {
					continue
				}
			}
			argFileDoubt(sc, o.name)
		case "--sysroot":
			argFileDoubt(sc, o.name) // the standard crates, proc_macro among them, load from it
		case "--target":
			// a target given by a file (its JSON names the linker).
			if o.val == nil || !o.val.static || strings.ContainsRune(o.val.s, '/') || strings.HasSuffix(o.val.s, ".json") {
				argFileDoubt(sc, o.name)
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
	a.gpgDerivedWrites(sc, opts, plain)
}

// gpgReadsOnly: gpg's commands that write no file named after their
// operands (to standard output, the keyring, or nothing).
var gpgReadsOnly = []string{"--verify", "--import", "-k", "--list-keys", "-K", "--list-secret-keys", "--list-sigs",
	"--check-sigs", "--fingerprint", "--export", "--export-secret-keys", "--export-secret-subkeys", "--export-ssh-key",
	"--recv-keys", "--search-keys", "--send-keys", "--refresh-keys", "--print-md", "--print-mds", "--version", "--help", "-h",
	"--list-packets", "--show-keys", "--import-ownertrust", "--export-ownertrust", "--gen-key", "--full-gen-key",
	"--generate-key", "--full-generate-key", "--quick-gen-key", "--quick-generate-key", "--edit-key", "--delete-keys",
	"--delete-secret-keys", "--sign-key", "--lsign-key", "--quick-sign-key", "--quick-lsign-key", "--gen-revoke",
	"--generate-revocation", "--card-status", "--card-edit", "--change-pin", "--list-config", "--update-trustdb",
	"--check-trustdb", "--fix-trustdb", "--dump-options", "--gen-random", "--locate-keys", "--locate-external-keys",
	"--passwd", "--tofu-policy", "--quick-add-uid", "--quick-add-key", "--quick-set-expire", "--quick-revoke-uid",
	"--list-public-keys", "--check-signatures", "--list-signatures", "--fetch-keys", "--verify-files", "--with-colons"}

// gpgEncodes: gpg's commands that write each operand F to F.gpg, F.asc or
// F.sig (no -o); gpgDecodes: those that write it to F without its
// .gpg/.pgp/.asc/.sig, as a bare `gpg F` does.
var (
	gpgEncodes = []string{"-e", "--encrypt", "--encrypt-files", "-s", "--sign", "-c", "--symmetric", "--clearsign",
		"--clear-sign", "-b", "--detach-sign", "--detach-sig", "--enarmor", "--dearmor", "--store"}
	gpgDecodes = []string{"--decrypt-files", "--multifile"}
)

// gpgDerivedWrites: without -o, gpg writes a file named after each
// operand: F.gpg/.asc/.sig when it encrypts, signs or armors, F without
// its extension when it decrypts a file (gpg --decrypt-files
// ~/.bashrc.gpg writes ~/.bashrc: red team 17). The names are judged as
// writes, for every operand, unless the command only reads; a decrypted
// name the reader cannot derive (no known extension) is uncertain.
func (a *analyzer) gpgDerivedWrites(sc *subCmd, opts []declOpt, plain []word) {
	encode, decode, readsOnly := false, false, false
	for _, o := range opts {
		switch {
		case o.name == "-o" || o.name == "--output":
			return // written there (declared)
		case containsStr(gpgEncodes, o.name):
			encode = true
		case containsStr(gpgDecodes, o.name):
			decode = true
		case containsStr(gpgReadsOnly, o.name), o.name == "-d", o.name == "--decrypt":
			readsOnly = true
		case len(o.name) > 2 && o.name[0] == '-' && o.name[1] != '-':
			// a cluster (-se, -sear KEY): its letters up to a valued one.
			for _, c := range o.name[1:] {
				if strings.ContainsRune("rRuoz", c) {
					break
				}
				encode = encode || strings.ContainsRune("escb", c)
				readsOnly = readsOnly || c == 'd' || c == 'k' || c == 'K'
			}
		}
	}
	if !encode && !decode && readsOnly {
		return // gpg -d F, gpg --verify F: standard output or nothing
	}
	for _, f := range plain {
		if f.s == "-" {
			continue
		}
		names := []string{f.s + ".gpg", f.s + ".asc", f.s + ".sig"}
		if decode || !encode {
			switch ext := path.Ext(f.s); ext {
			case ".gpg", ".pgp", ".asc", ".sig":
				names = append(names, strings.TrimSuffix(f.s, ext))
			default:
				if decode {
					a.setUncertain("gpg decrypts " + f.s + " into a file whose name the reader cannot derive")
				}
			}
		}
		sc.readOnly = false
		for _, n := range names {
			v := staticWordPath(n)
			if !f.static {
				v.static, v.pathOK = false, false
			}
			a.plainWrite(sc, &v)
		}
	}
}

// opensslBuiltinProviders: providers OpenSSL carries (no module of the
// caller's choosing).
var opensslBuiltinProviders = map[string]bool{"default": true, "base": true, "legacy": true, "fips": true, "null": true}

// opensslHook: -provider NAME other than a built-in one loads NAME's
// module; x509 -CA F without -CAserial writes (updates, or with
// -CAcreateserial creates) the serial file named after F: F's name with
// its extension replaced by .srl.
func opensslHook(a *analyzer, sc *subCmd, opts []declOpt, plain []word, ctx walkCtx) {
	var ca *word
	serial := false
	for _, o := range opts {
		switch "-" + strings.TrimLeft(o.name, "-") { // -CA, --CA
		case "-CA":
			ca = o.val
		case "-CAserial":
			serial = true
		case "-provider":
			if o.val == nil || !o.val.static || !opensslBuiltinProviders[o.val.s] {
				argFileDoubt(sc, o.name)
			}
		}
	}
	if ca != nil && !serial && len(plain) > 0 && plain[0].s == "x509" {
		srl := *ca
		if dot := strings.LastIndexByte(srl.s, '.'); dot >= 0 {
			srl.s = srl.s[:dot] // openssl cuts at the last dot, even a directory's (./ca: .srl)
		}
		srl.s += ".srl"
		if ca.static {
			srl = staticWordPath(srl.s)
		} else {
			srl.pathOK = false
		}
		sc.readOnly = false
		a.plainWrite(sc, &srl)
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
	"-pass", "-iter", "-kdf", "-macopt", "-kdfopt", "-verify", "-signature", "-sigfile", "-extfile", "-section", "-addext",
	"-sess_out", "-sess_in", "-keylogfile", "-msgfile", "-outdir", "-reqout", "-respout", "-certsout", "-CAserial", "-srpvfile",
	"-outpubkey", "-accept")

// opensslWrites: openssl's options whose value is a file (or, -outdir, a
// directory) it writes.
var opensslWrites = dashBoth("-out", "-keyout", "-writerand", "-sess_out", "-keylogfile", "-msgfile", "-outdir", "-reqout",
	"-respout", "-certsout", "-signer", "-CAserial", "-srpvfile", "-outpubkey")

// opensslBreaker: s_server -WWW / -HTTP serve the files under the working
// directory to whoever connects.
func opensslBreaker(args []string) string {
	for _, a := range args {
		switch strings.TrimPrefix(a, "-") { // -WWW, --WWW
		case "WWW", "HTTP", "-WWW", "-HTTP":
			return "openssl s_server " + a + " serves the working directory's files to the network"
		}
	}
	return ""
}

var programsRunWriteDecls = [...]*progDecl{
	&progDecl{name: "rustc", valued: []string{"-o", "--out-dir", "-C", "--codegen", "-L", "-l", "--crate-type", "--crate-name",
		"--edition", "--emit", "--target", "--cfg", "-A", "-W", "-D", "-F", "--allow", "--warn", "--deny", "--forbid", "--cap-lints",
		"--extern", "--sysroot", "--print", "--explain", "-Z", "--error-format", "--json", "--color", "--remap-path-prefix",
		"--check-cfg", "--diagnostic-width", "--force-warn"},
		writes: []string{"-o", "--out-dir"}, atFiles: true, atArgs: true, hook: rustcHook,
		flags: []string{"-O", "-g", "--test", "--verbose", "-v"},
		match: []string{"rustc -C linker=./evil main.rs", "rustc @args.txt main.rs", "rustc -Clink-arg=-B. main.rs",
			"rustc -L . main.rs", "rustc -Ldependency=. main.rs", "rustc --sysroot ./s main.rs", "rustc --target ./t.json main.rs"},
		noMatch: []string{"rustc -O main.rs", "rustc -C opt-level=3 --edition 2021 main.rs", "rustc -L native=/usr/lib main.rs",
			"rustc --target x86_64-unknown-linux-gnu main.rs"}},
	&progDecl{name: "gpg", aliases: []string{"gpg2"}, valued: []string{"-o", "--output", "-r", "--recipient", "-R", "--hidden-recipient",
		"-u", "--local-user", "--default-key", "--keyserver", "--options", "--homedir", "--trust-model", "--cipher-algo",
		"--digest-algo", "--compress-algo", "--passphrase", "--passphrase-file", "--passphrase-fd", "--status-fd", "--logger-fd",
		"--logger-file", "--status-file", "--attribute-file", "--keyring", "--secret-keyring", "--primary-keyring", "--trustdb-name",
		"--default-recipient", "--encrypt-to", "--pinentry-mode", "--import-options", "--export-options", "--list-options",
		"--verify-options", "--keyserver-options", "--auto-key-locate", "--agent-program", "--dirmngr-program", "--keyboxd-program",
		"--photo-viewer", "--exec-path", "--keyid-format", "--load-extension", "--sender", "--set-filename", "-z", "--log-file"},
		argFiles: []string{"--options", "--homedir", "--load-extension"}, hook: gpgHook,
		programs: gpgPrograms,
		writes: []string{"-o", "--output", "--logger-file", "--log-file", "--status-file", "--attribute-file", "--trustdb-name",
			"--keyring", "--secret-keyring", "--primary-keyring"},
		reads:         []string{"--passphrase-file", "--keyring", "--secret-keyring", "--primary-keyring"},
		uncertainWith: []string{"--use-embedded-filename"},
		flags: []string{"--list-keys", "--batch", "--yes", "--armor", "--verify", "--decrypt", "--encrypt", "--sign", "--import", "--export",
			"--use-embedded-filename"},
		match: []string{"gpg --options ./o --list-keys", "gpg --homedir ./g --list-keys", "gpg --photo-viewer ./v --list-keys",
			"gpg --log-file /home/u/.bashrc --list-keys", "gpg --log-f=/home/u/.bashrc --list-keys",
			"gpg --batch --decrypt-files /home/u/.bashrc.gpg", "gpg --batch /home/u/.profile.asc"},
		noMatch: []string{"gpg --list-keys", "gpg --armor --export ABCD", "gpg -d /home/u/.bashrc.gpg",
			"gpg --verify /home/u/.bashrc.sig"}},
	&progDecl{name: "openssl", valued: opensslValued, hook: opensslHook, breaker: opensslBreaker,
		argFiles: dashBoth("-config", "-engine", "-provider-path"),
		writes:   opensslWrites,
		flags:    dashBoth("-WWW", "-HTTP", "-CAcreateserial"),
		match: []string{"openssl req -config x.cnf -new", "openssl req -engine ./e.so", "openssl list --provider evil",
			"openssl rand -writerand /home/u/.bashrc 16", "openssl rand --out=/home/u/.bashrc 16",
			"openssl s_server -accept 8443 -WWW", "openssl x509 -req -in r.csr -CA .git/hooks/pre-commit.pem -CAcreateserial"},
		noMatch: []string{"openssl version", "openssl list -provider default", "openssl rand -hex 16", "openssl rand -out r.bin 16",
			"openssl x509 -req -in r.csr -CA ca.pem -CAkey k.pem -CAcreateserial -out c.pem"}},
}

func init() {
	declare(programsRunWriteDecls[:]...)
}
