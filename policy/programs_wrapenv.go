package policy

import "strings"

// Wrappers that run their arguments as a command (runsArgs) and set that
// command's environment through their own options (red team 17's
// environment forms; docs/policy.md, "Environment that changes what
// runs"): bwrap --setenv NAME VALUE, firejail --env=NAME=VALUE,
// flatpak-spawn --env=NAME=VALUE (or --env NAME=VALUE). The name is set as
// by env NAME=VALUE: a dangerous one is a doubt in every mode. fakeroot
// --lib/-l LIB preloads a library of the caller's choosing and --faked/-f
// runs a program: doubts; -s F saves its state to F, -i F loads it.

func init() {
	declare(programsWrapEnvDecls[:]...)
}

// wrapEnvHook records the names the wrapper's env options set.
func wrapEnvHook(a *analyzer, sc *subCmd, opts []declOpt, plain []word, ctx walkCtx) {
	for _, o := range opts {
		switch o.name {
		case "--setenv": // bwrap: NAME VALUE
			if o.first == nil || !o.first.static {
				a.setUncertain("bwrap --setenv sets a variable whose name the reader cannot see")
				continue
			}
			a.vt.setEnv(o.first.s)
		case "--env": // firejail, flatpak-spawn: NAME=VALUE
			if o.val == nil || !o.val.static {
				a.setUncertain(o.name + " sets a variable the reader cannot see")
				continue
			}
			if name, _, ok := strings.Cut(o.val.s, "="); ok && name != "" {
				a.vt.setEnv(name)
			}
		case "-l", "--lib", "-f", "--faked": // fakeroot
			argFileDoubt(sc, o.name)
		}
	}
}

var programsWrapEnvDecls = [...]*progDecl{
	&progDecl{name: "bwrap", valued: []string{"--setenv"}, pairs: []string{"--setenv"}, hook: wrapEnvHook,
		match:   []string{"bwrap --dev-bind / / --setenv LD_PRELOAD ./e.so ls", "bwrap --setenv WGETRC rc wget https://ok.example/"},
		noMatch: []string{"bwrap --dev-bind / / --setenv LANG C ls"}},
	&progDecl{name: "firejail", valued: []string{"--env"}, hook: wrapEnvHook,
		match:   []string{"firejail --env=LD_PRELOAD=./e.so ls", "firejail --env=ACME_RC=x wget https://ok.example/"},
		noMatch: []string{"firejail --env=LANG=C ls"}},
	&progDecl{name: "flatpak-spawn", valued: []string{"--env"}, hook: wrapEnvHook,
		match: []string{"flatpak-spawn --host --env=LD_PRELOAD=./e.so ls", "flatpak-spawn --host --env LD_PRELOAD=./e.so ls"}},
	&progDecl{name: "fakeroot", valued: []string{"-l", "--lib", "-f", "--faked", "-s", "-i"}, hook: wrapEnvHook,
		writes: []string{"-s"}, reads: []string{"-i"},
		match:   []string{"fakeroot -l ./evil.so ls", "fakeroot --lib ./evil.so ls", "fakeroot --faked ./f ls"},
		noMatch: []string{"fakeroot ls"}},
}
