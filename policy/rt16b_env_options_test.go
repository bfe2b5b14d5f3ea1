package policy

import (
	"strings"
	"testing"
)

// Red team 16b, findings 4, 7-10: environment variables that name a
// program's configuration, code or output, and options that run programs
// or write files (shell_env_files.go, programs_runwrite.go).

var rt16bEnv = Env{Cwd: "/w/proj", ProjectRoot: "/w/proj", Home: "/home/u"}

// rt16bDecide evaluates cmd as Bash under the allow rules in mode.
func rt16bDecide(t *testing.T, cmd string, allow []string, mode Mode) Verdict {
	t.Helper()
	var rules []RuleText
	for _, r := range allow {
		rules = append(rules, RuleText{List: "allow", Text: r})
	}
	pol, errs := Compile(rules)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	return Evaluate(Input{Call: Call{Tool: "Bash", Command: cmd}, Mode: mode, Env: rt16bEnv, Policy: pol})
}

// rt16bDoubt: cmd asks in default and bypassPermissions and is denied in
// dontAsk, under allow.
func rt16bDoubt(t *testing.T, cmd string, allow []string) {
	t.Helper()
	for _, m := range []struct {
		mode Mode
		want Decision
	}{{ModeDefault, Ask}, {ModeBypass, Ask}, {ModeDontAsk, Deny}} {
		if v := rt16bDecide(t, cmd, allow, m.mode); v.Decision != m.want && !(m.want == Ask && v.Decision == Deny) {
			t.Errorf("%q under %q in %s: %s (%s: %s), want %s", cmd, allow, m.mode, v.Decision, v.Source, v.Reason, m.want)
		}
	}
}

// envForms: every way a command passes NAME=VALUE to the programs it runs.
var envForms = []string{
	"%s=%s curl https://ok.example/",
	"export %s=%s; curl https://ok.example/",
	"env %s=%s curl https://ok.example/",
	"env -i %s=%s curl https://ok.example/",
	"declare -x %s=%s; curl https://ok.example/",
	"%s=%s; export %[1]s; curl https://ok.example/",
	"export %[1]s; %s=%s; curl https://ok.example/",
	"declare -x %[1]s; %s=%s; curl https://ok.example/",
	"set -a; %s=%s; curl https://ok.example/",
	"set -o allexport; %s=%s; curl https://ok.example/",
	"x=1 %s=%s git fetch",
	"sudo %s=%s curl https://ok.example/",
	"command env %s=%s curl https://ok.example/",
	"typeset -x %s=%s; curl https://ok.example/",
	"export -- %s=%s; curl https://ok.example/",
	"(export %s=%s; curl https://ok.example/)",
	"f() { export %s=%s; }; f; curl https://ok.example/",
	"bash -c 'export %s=%s; curl https://ok.example/'",
	"%s=%s python3 -m pip --version",
}

func envFormCmd(form, name, value string) string {
	form = strings.ReplaceAll(form, "%[1]s", name)
	return strings.Replace(strings.Replace(form, "%s", name, 1), "%s", value, 1)
}

// TestConfigEnvEveryForm: every variable naming configuration, code or an
// output file, in every form, is a doubt under an allow-all rule; a
// variable of each ending the table lists is too (a name the table gains
// is covered). Control: harmless names in the same forms are allowed.
func TestConfigEnvEveryForm(t *testing.T) {
	names := []string{"OPENSSL_CONF", "OPENSSL_MODULES", "OPENSSL_ENGINES", "WGETRC", "PSQLRC", "GNUPGHOME", "CURL_HOME",
		"HOSTALIASES", "SSLKEYLOGFILE", "HISTFILE", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_COUNT", "NETRC", "CURLRC", "PGSERVICEFILE",
		"PGPASSFILE", "PGSYSCONFDIR", "MYSQL_HOME", "SQLITE_HISTORY", "IPYTHONDIR", "SSL_CERT_FILE", "REQUESTS_CA_BUNDLE",
		"AWS_CONFIG_FILE", "GOOGLE_APPLICATION_CREDENTIALS", "LOCALDOMAIN", "RES_OPTIONS", "KRB5CCNAME", "SCREENRC",
		"openssl_conf", "wgetrc"}
	for _, s := range envFileSuffixes {
		names = append(names, "ACME_"+s, "ACME"+s)
	}
	for _, n := range names {
		if !envDangerous(n) {
			t.Errorf("%s: want dangerous (it names configuration, code or output)", n)
		}
		for _, f := range envForms {
			rt16bDoubt(t, envFormCmd(f, n, "/w/proj/x"), []string{"Bash"})
		}
	}
	// Control: the same forms with harmless names pass under Bash.
	for _, n := range []string{"LANG", "FOO", "AWS_PROFILE", "SRC", "DEBUG", "TZ"} {
		if envDangerous(n) {
			t.Errorf("control %s: dangerous", n)
		}
		for _, f := range envForms {
			cmd := envFormCmd(f, n, "1")
			if v := rt16bDecide(t, cmd, []string{"Bash"}, ModeDefault); v.Decision != Allow {
				t.Errorf("control %q: %s (%s), want allow", cmd, v.Decision, v.Reason)
			}
		}
	}
}

// TestOptionEffectsSpellings: options that run a program, write a file or
// load configuration or code, in every spelling the program accepts, are
// not allowed by the prefix rule for the program. Control: the same
// program's ordinary calls are.
func TestOptionEffectsSpellings(t *testing.T) {
	for _, tc := range []struct {
		rule     string
		doubts   []string
		controls []string
	}{
		{"Bash(wget *)", []string{
			"wget --use-askpass=./evil https://ok.example/", "wget --use-askpass ./evil https://ok.example/",
			"wget --use-ask=./evil https://ok.example/", "wget -q --use-askpass=/bin/sh https://ok.example/",
			"wget -e use_askpass=./evil https://ok.example/"},
			[]string{"wget -q https://ok.example/a", "wget -O out.html https://ok.example/"}},
		{"Bash(curl *)", []string{
			"curl -w '%output{/home/u/.bashrc}x' https://ok.example/", "curl -sw '%output{/home/u/.bashrc}x' https://ok.example/",
			"curl -w'%output{/home/u/.bashrc}x' https://ok.example/", "curl --write-out '%output{/home/u/.bashrc}x' https://ok.example/",
			"curl --write-out='%output{/home/u/.bashrc}x' https://ok.example/", "curl --write-o '%output{/home/u/.bashrc}x' https://ok.example/",
			"curl -w '%output{>>/home/u/.bashrc}x' https://ok.example/", "curl -w 'a%output{/w/proj/.git/hooks/pre-commit}x' https://ok.example/",
			"curl -w '%{http_code}%output{/home/u/.bashrc}x' https://ok.example/", "curl -w \"$F\" https://ok.example/",
			"curl -w @fmt.txt https://ok.example/", "curl -w '%output{x' https://ok.example/",
			"curl --variable f=/home/u/.bashrc --expand-output '{{f}}' https://ok.example/"},
			[]string{"curl -s https://ok.example/", "curl -sw '%{http_code}' https://ok.example/", "curl -o out.html https://ok.example/"}},
		{"Bash(rustc *)", []string{
			"rustc -C linker=/w/proj/evil main.rs", "rustc -Clinker=./evil main.rs", "rustc --codegen linker=./evil main.rs",
			"rustc --codegen=linker=./evil main.rs", "rustc -C link-arg=-B. main.rs", "rustc -C link_args=-B. main.rs",
			"rustc -C linker-flavor=ld main.rs", "rustc -Z unpretty=x main.rs", "rustc -o /home/u/.bashrc main.rs",
			"rustc @args.txt main.rs", "rustc --emit=link=/home/u/.bashrc main.rs", "rustc --extern m=./libm.so main.rs",
			"rustc -C \"$X\" main.rs"},
			[]string{"rustc -O main.rs", "rustc -C opt-level=3 --edition 2021 main.rs", "rustc -o app main.rs", "rustc -g --crate-type lib lib.rs"}},
		{"Bash(gpg *)", []string{
			"gpg --options /w/proj/o --list-keys", "gpg --options=/w/proj/o --list-keys", "gpg --opt /w/proj/o --list-keys",
			"gpg --homedir /w/proj/g --list-keys", "gpg --photo-viewer ./v --list-keys", "gpg --agent-program ./a --list-keys",
			"gpg2 --options o --list-keys", "gpg -o /home/u/.bashrc --export"},
			[]string{"gpg --list-keys", "gpg --armor --export ABCD"}},
		{"Bash(openssl *)", []string{
			"openssl req -config x.cnf -new", "openssl req -config=x.cnf -new", "openssl req --config x.cnf -new",
			"openssl req -engine /w/proj/evil.so -new", "openssl req --engine=/w/proj/evil.so -new",
			"openssl list -provider-path /w/proj -provider evil", "openssl list -provider evil", "openssl list --provider=evil",
			"openssl list -provider ./evil.so"},
			[]string{"openssl version", "openssl list -provider default", "openssl rand -hex 16"}},
	} {
		for _, cmd := range tc.doubts {
			for _, m := range []Mode{ModeDefault, ModeBypass} {
				if v := rt16bDecide(t, cmd, []string{tc.rule}, m); v.Decision == Allow {
					t.Errorf("%q under %s in %s: allowed (%s), want a doubt", cmd, tc.rule, m, v.Reason)
				}
			}
			if v := rt16bDecide(t, cmd, []string{tc.rule}, ModeDontAsk); v.Decision != Deny {
				t.Errorf("%q under %s in dontAsk: %s (%s), want deny", cmd, tc.rule, v.Decision, v.Reason)
			}
		}
		for _, cmd := range tc.controls {
			if v := rt16bDecide(t, cmd, []string{tc.rule}, ModeDefault); v.Decision != Allow {
				t.Errorf("control %q under %s: %s (%s), want allow", cmd, tc.rule, v.Decision, v.Reason)
			}
		}
	}
}

// TestCurlOutputFiles: the files a -w format writes.
func TestCurlOutputFiles(t *testing.T) {
	for _, tc := range []struct {
		format string
		files  []string
		ok     bool
	}{
		{"%{http_code}", nil, true},
		{"%output{a}x%output{>>b}y", []string{"a", "b"}, true},
		{"%output{a", nil, false},
		{"%output{}x", nil, false},
	} {
		files, ok := curlOutputFiles(tc.format)
		if ok != tc.ok || strings.Join(files, "|") != strings.Join(tc.files, "|") {
			t.Errorf("%q: %q %v, want %q %v", tc.format, files, ok, tc.files, tc.ok)
		}
	}
}

// TestCompilerEnvEveryForm (red team 17b): the compiler drivers'
// environment that picks the programs they run, compiles again with other
// options or writes a dependency file is a doubt in every form, also as a
// plain shell assignment (the name may be exported already). Control: an
// ordinary compile, with a harmless name in front, is allowed.
func TestCompilerEnvEveryForm(t *testing.T) {
	names := []string{"GCC_EXEC_PREFIX", "GCC_COMPARE_DEBUG", "SUNPRO_DEPENDENCIES", "DEPENDENCIES_OUTPUT",
		"COMPILER_PATH", "LIBRARY_PATH", "CPATH", "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH", "OBJC_INCLUDE_PATH",
		"COLLECT_GCC", "COLLECT_LTO_WRAPPER", "COLLECT_GCC_OPTIONS", "CCC_OVERRIDE_OPTIONS", "GCC_ANY_NEW_NAME"}
	forms := append([]string{"%s=%s; gcc -c x.c", "%s=%s cc -c x.c", "env %s=%s clang -c x.c"}, envForms...)
	for _, n := range names {
		if !shellVarDangerous(n) || !envDangerous(n) {
			t.Errorf("%s: want dangerous in every form (shellVarDangerous %v, envDangerous %v)", n, shellVarDangerous(n), envDangerous(n))
		}
		for _, f := range forms {
			rt16bDoubt(t, envFormCmd(f, n, "'./evil/ -wrapper ./w.sh'"), []string{"Bash"})
		}
	}
	for _, cmd := range []string{"gcc -c x.c", "LANG=C gcc -O2 -o x x.c", "cc -c x.c", "clang -c x.c", "FOO=1; gcc -c x.c"} {
		if v := rt16bDecide(t, cmd, []string{"Bash"}, ModeDefault); v.Decision != Allow {
			t.Errorf("control %q: %s (%s), want allow", cmd, v.Decision, v.Reason)
		}
	}
}
