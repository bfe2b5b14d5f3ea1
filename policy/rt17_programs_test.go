package policy

import (
	"strings"
	"testing"
)

// Red team 17: openssl's and gpg's options that write files, openssl
// s_server's file serving, rustc's crate search path (programs_runwrite.go).

// rt17Check: each doubt is not allowed under rule in default and
// bypassPermissions and is denied in dontAsk; each control is allowed in
// default.
func rt17Check(t *testing.T, rule string, doubts, controls []string) {
	t.Helper()
	for _, cmd := range doubts {
		for _, m := range []Mode{ModeDefault, ModeBypass} {
			if v := rt16bDecide(t, cmd, []string{rule}, m); v.Decision == Allow {
				t.Errorf("%q under %s in %s: allowed (%s), want a doubt", cmd, rule, m, v.Reason)
			}
		}
		if v := rt16bDecide(t, cmd, []string{rule}, ModeDontAsk); v.Decision != Deny {
			t.Errorf("%q under %s in dontAsk: %s (%s), want deny", cmd, rule, v.Decision, v.Reason)
		}
	}
	for _, cmd := range controls {
		if v := rt16bDecide(t, cmd, []string{rule}, ModeDefault); v.Decision != Allow {
			t.Errorf("control %q under %s: %s (%s), want allow", cmd, rule, v.Decision, v.Reason)
		}
	}
}

// optionSpellings: OPT VALUE in the spellings a program takes: next word,
// after "=", and (dashes) with one and two dashes.
func optionSpellings(opt, val string, dashes bool) []string {
	names := []string{opt}
	if dashes {
		o := strings.TrimLeft(opt, "-")
		names = []string{"-" + o, "--" + o}
	}
	var out []string
	for _, n := range names {
		out = append(out, n+" "+val, n+"="+val)
	}
	return out
}

// TestOpensslWritesEverySpelling: every write option openssl's
// declaration names, in every spelling, to a protected file is a doubt
// under Bash(openssl *), and to a workspace file it is allowed (control:
// the option is read as a write, not as a failure).
func TestOpensslWritesEverySpelling(t *testing.T) {
	var doubts, controls []string
	seen := map[string]bool{}
	for _, opt := range opensslWrites {
		o := "-" + strings.TrimLeft(opt, "-")
		if seen[o] {
			continue
		}
		seen[o] = true
		for _, sp := range optionSpellings(o, "/home/u/.bashrc", true) {
			doubts = append(doubts, "openssl rand "+sp+" 16")
		}
		for _, sp := range optionSpellings(o, ".git/hooks/pre-commit", true) {
			doubts = append(doubts, "openssl req -new "+sp)
		}
		controls = append(controls, "openssl req -new "+o+" out/x.pem")
	}
	if len(seen) < 10 {
		t.Fatalf("openssl declares %d write options", len(seen))
	}
	doubts = append(doubts,
		"openssl s_server -accept 8443 -cert c.pem -key k.pem -WWW", "openssl s_server -accept 8443 -HTTP",
		"openssl s_server --WWW -accept 8443", "openssl s_server -accept 8443 --HTTP",
		"openssl x509 -req -in r.csr -CA .git/hooks/pre-commit.pem -CAkey k.pem -CAcreateserial",
		"openssl x509 -req -in r.csr -CA .git/hooks/pre-push.x -CAkey k.pem")
	controls = append(controls, "openssl rand -hex 16", "openssl s_server -accept 8443 -www",
		"openssl x509 -req -in r.csr -CA ca.pem -CAkey k.pem -CAcreateserial -out c.pem",
		"openssl x509 -req -in r.csr -CA .git/hooks/pre-push.x -CAserial s.srl -out c.pem",
		"openssl list -provider default", "openssl base64 -d -in p.b64 -out=out.txt")
	rt17Check(t, "Bash(openssl *)", doubts, controls)
}

// TestGpgWritesEverySpelling: gpg's write options, with the abbreviations
// gpg takes, to a protected file are a doubt under Bash(gpg *).
func TestGpgWritesEverySpelling(t *testing.T) {
	var doubts []string
	for _, opt := range []string{"--log-file", "--log-fi", "--logger-file", "--logger-fi", "--status-file", "--trustdb-name",
		"--keyring", "--primary-keyring", "--output"} {
		for _, sp := range optionSpellings(opt, "/home/u/.bashrc", false) {
			doubts = append(doubts, "gpg --batch "+sp+" --list-keys")
		}
	}
	doubts = append(doubts, "gpg2 --log-file .git/hooks/pre-commit --list-keys", "gpg --batch -o /home/u/.profile --export",
		// the file named after the operand, without -o
		"gpg --batch --decrypt-files /home/u/.bashrc.gpg", "gpg --batch /home/u/.bashrc.gpg", "gpg /home/u/.profile.asc",
		"gpg --batch --multifile --decrypt /home/u/.bashrc.pgp", "gpg --batch --decrypt-files ./x $F",
		"gpg --batch -c .git/hooks/pre-commit", "gpg -e -r bob .git/hooks/pre-push", "gpg --batch --dearmor .git/hooks/x",
		"gpg -sea -r bob .git/hooks/x", "gpg --clearsign .git/hooks/x", "gpg --batch --decrypt-files /w/proj/.git/hooks/pre-commit.gpg")
	rt17Check(t, "Bash(gpg *)", doubts, []string{"gpg --list-keys", "gpg --batch --log-file gpg.log --list-keys",
		"gpg --keyring ./k.kbx --list-keys", "gpg -d /home/u/.bashrc.gpg", "gpg --verify /home/u/.bashrc.sig",
		"gpg --import /home/u/.bashrc.asc", "gpg -e -r bob notes.txt", "gpg --batch --decrypt-files notes.txt.gpg",
		"gpg -o out.gpg -e -r bob /home/u/.bashrc", "gpg -ser bob notes.txt"})
	// --use-embedded-filename writes where the message says: never allowed
	// by the program's rule alone in default.
	if v := rt16bDecide(t, "gpg --use-embedded-filename -d m.gpg", []string{"Bash(gpg *)"}, ModeDefault); v.Decision == Allow {
		t.Errorf("gpg --use-embedded-filename: allowed (%s)", v.Reason)
	}
}

// TestRustcSearchPath: -L in every kind a crate is loaded from, --sysroot
// and a target file are a doubt under Bash(rustc *); the linker's kinds and
// a target triple are not; a rule naming -L allows it.
func TestRustcSearchPath(t *testing.T) {
	var doubts []string
	for _, v := range []string{".", "crate=.", "dependency=target/debug/deps", "all=/tmp/x", "$D"} {
		doubts = append(doubts, "rustc -L "+v+" main.rs", "rustc -L"+v+" main.rs")
	}
	doubts = append(doubts, "rustc --sysroot ./s main.rs", "rustc --sysroot=./s main.rs", "rustc --target ./t.json main.rs",
		"rustc --target=t.json main.rs", "rustc -L . --extern evil main.rs", "rustc --extern evil=./libevil.so main.rs")
	rt17Check(t, "Bash(rustc *)", doubts, []string{"rustc -O main.rs", "rustc -L native=/usr/lib main.rs",
		"rustc -Lnative=/usr/lib main.rs", "rustc -L framework=/x main.rs", "rustc --target x86_64-unknown-linux-gnu main.rs",
		"rustc --target=wasm32-unknown-unknown lib.rs"})
	if v := rt16bDecide(t, "rustc -L target/debug/deps main.rs", []string{"Bash(rustc -L *)"}, ModeDefault); v.Decision != Allow {
		t.Errorf("rustc -L under Bash(rustc -L *): %s (%s), want allow", v.Decision, v.Reason)
	}
}
