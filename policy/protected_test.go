package policy

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func compileT(t *testing.T, allow, deny, session []string) (*Policy, *Policy) {
	t.Helper()
	var rules []RuleText
	for _, r := range allow {
		rules = append(rules, RuleText{List: "allow", Text: r, Origin: Origin{Layer: "user"}})
	}
	for _, r := range deny {
		rules = append(rules, RuleText{List: "deny", Text: r, Origin: Origin{Layer: "user"}})
	}
	pol, errs := Compile(rules)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	var sess *Policy
	if len(session) > 0 {
		var srules []RuleText
		for _, r := range session {
			srules = append(srules, RuleText{List: "allow", Text: r, Origin: Origin{Layer: "session"}})
		}
		sess, errs = Compile(srules)
		if len(errs) > 0 {
			t.Fatal(errs)
		}
	}
	return pol, sess
}

func TestMapFSKernelOrder(t *testing.T) {
	fs := MapFS{
		"/w/link":   "/home/u/.ssh",
		"/w/rel":    "../home/u/.ssh",
		"/w/a":      "b",
		"/w/b":      "/home/u/x/y",
		"/w/loop1":  "loop2",
		"/w/loop2":  "loop1",
		"/w/self":   "self",
		"/home/u/x": "/opt/x",
	}
	for _, tc := range []struct{ in, want string }{
		{"/w/link/../.ssh/id_rsa", "/home/u/.ssh/id_rsa"},
		{"/w/link/./../.ssh", "/home/u/.ssh"},
		{"/w/rel/../.bashrc", "/home/u/.bashrc"},
		{"/w/a/../z", "/opt/x/z"}, // a -> b -> /home/u/x/y, and /home/u/x -> /opt/x
		{"/w/plain/../f", "/w/f"},
		{"/w/link", "/home/u/.ssh"},
		{"/nolink/x", "/nolink/x"},
	} {
		got, err := fs.EvalSymlinks(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("EvalSymlinks(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, p := range []string{"/w/loop1/x", "/w/self", "/w/loop2/../x"} {
		if _, err := fs.EvalSymlinks(p); !errors.Is(err, errSymlinkLoop) {
			t.Errorf("EvalSymlinks(%q): err %v, want a loop", p, err)
		}
	}
	for _, tc := range []struct {
		raw    string
		want   string
		unsure bool
	}{
		{"link/../.ssh/id_rsa", "/home/u/.ssh/id_rsa", false},
		{"~/x/../.ssh", "/opt/.ssh", false}, // ~/x -> /opt/x, then ..
		{"loop1/x", "", true},
		{"sub/../link/../.ssh", "/home/u/.ssh", false},
	} {
		got, unsure := realPath(fs, tc.raw, "/w", "/home/u")
		if unsure != tc.unsure || (!tc.unsure && got != tc.want) {
			t.Errorf("realPath(%q) = %q, unsure %v; want %q, %v", tc.raw, got, unsure, tc.want, tc.unsure)
		}
	}
}

// The kernel's order on a real file system: a link followed by .. leads
// into the link's target's parent; the deny rule must see it.
func TestOSFSSymlinkThenDotDot(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	ws := filepath.Join(root, "ws")
	ssh := filepath.Join(home, ".ssh")
	for _, d := range []string{ssh, ws} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(ssh, "id_rsa"), []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(ssh, filepath.Join(ws, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("loopB", filepath.Join(ws, "loopA")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("loopA", filepath.Join(ws, "loopB")); err != nil {
		t.Fatal(err)
	}
	// a dangling link into the user config directory: writing through it
	// creates the protected file
	cfgDir := filepath.Join(home, ".config", "acp-bridge")
	if err := os.MkdirAll(cfgDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(cfgDir, "config.yaml"), filepath.Join(ws, "dangling")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../home/.ssh/authorized_keys", filepath.Join(ws, "dangrel")); err != nil {
		t.Fatal(err)
	}
	// what the kernel opens
	data, err := os.ReadFile(ws + "/link/../.ssh/id_rsa")
	if err != nil || string(data) != "secret" {
		t.Fatalf("the kernel does not read link/../.ssh/id_rsa as the secret (%v): the test premise is wrong", err)
	}
	pol, _ := compileT(t, []string{"Read", "Bash"}, []string{"Read(~/.ssh/**)"}, nil)
	env := Env{Cwd: ws, ProjectRoot: ws, Home: home, FS: OSFS{}}
	for _, c := range []Call{
		{Tool: "Read", Paths: []string{"link/../.ssh/id_rsa"}},
		{Tool: "Bash", Command: "cat link/../.ssh/id_rsa"},
		{Tool: "Bash", Command: "cat < link/../.ssh/id_rsa"},
	} {
		for _, m := range Modes {
			if v := Evaluate(Input{Call: c, Mode: m, Env: env, Policy: pol}); v.Decision != Deny {
				t.Errorf("%s in %s: %s (%s), want deny", Specifier(c), m, v.Decision, v.Reason)
			}
		}
	}
	allowAll, _ := compileT(t, []string{"Edit", "Bash"}, nil, nil)
	for _, c := range []Call{
		{Tool: "Edit", Paths: []string{"dangling"}},
		{Tool: "Bash", Command: "echo 'allow: [Bash]' > dangling"},
		{Tool: "Edit", Paths: []string{"dangrel"}},
		{Tool: "Bash", Command: "cat key.pub >> dangrel"},
	} {
		v := Evaluate(Input{Call: c, Mode: ModeBypass, Env: env, Policy: allowAll})
		if v.Decision != Ask || v.Source != SourceBreaker {
			t.Errorf("%s through a dangling link in bypass: %s %s (%s), want a breaker", Specifier(c), v.Decision, v.Source, v.Reason)
		}
	}
	for _, c := range []Call{
		{Tool: "Read", Paths: []string{"loopA/x"}},
		{Tool: "Bash", Command: "cat loopA/x"},
	} {
		v := Evaluate(Input{Call: c, Mode: ModeBypass, Env: env, Policy: pol})
		if v.Decision != Ask || !strings.Contains(v.Reason, "symlink") {
			t.Errorf("%s through a loop in bypass: %s (%s), want ask naming the symlinks", Specifier(c), v.Decision, v.Reason)
		}
	}
}

// Every way the evaluator can allow is beaten by a protected-file breaker:
// allow rules, session grants, acceptEdits, bypass, the agent's bypass, an
// agent's own tool allowed by name.
func TestProtectedBeatsEveryAllow(t *testing.T) {
	userConf := "/cfg/acp/config.yaml"
	env := Env{Cwd: "/w/proj", ProjectRoot: "/w/proj", Home: "/home/u", ProtectedPaths: []string{userConf, "/cfg/extra-dir", "relative/ignored"}}
	calls := []Call{
		{Tool: "Edit", Paths: []string{".acp-bridge.yaml"}, Kind: "edit"},
		{Tool: "Write", Paths: []string{"/w/proj/.acp-bridge.yaml"}},
		{Tool: "Edit", Paths: []string{userConf}},
		{Tool: "Edit", Paths: []string{"/cfg/extra-dir/x.json"}},
		{Tool: "write_file", Kind: "edit", Paths: []string{".vscode/settings.json"}},
		{Tool: "do_things", Kind: "other", Paths: []string{".claude/settings.json"}},
		{Tool: "", Title: "something", Paths: []string{"~/.bashrc"}},
		{Tool: "mcp__fs__write", Paths: []string{".git/hooks/pre-push"}},
		{Tool: "move_file", Kind: "move", Paths: []string{".acp-bridge.yaml", "/tmp/x"}},
		{Tool: "Bash", Command: "echo 'allow: [Bash]' > .acp-bridge.yaml"},
		{Tool: "Bash", Command: "cp /tmp/x " + userConf},
		{Tool: "run_shell", Kind: "execute", Command: "tee " + userConf + " < /tmp/x"},
		{Tool: "Bash", Command: "sed -i /deny/d .acp-bridge.yaml"},
	}
	grantSets := []struct {
		name           string
		allow, session []string
	}{
		{"none", nil, nil},
		{"allow rules", []string{"Edit", "Write", "Bash", "write_file", "do_things", "run_shell", "mcp__fs", "move_file", "Edit(//**)", "Edit(.acp-bridge.yaml)"}, nil},
		{"session grants", nil, []string{"Edit", "Bash", "write_file", "do_things", "run_shell", "mcp__fs__write", "move_file", "Edit(**)"}},
	}
	for _, c := range calls {
		for _, g := range grantSets {
			pol, sess := compileT(t, g.allow, nil, g.session)
			for _, m := range adversarialModes {
				v := Evaluate(Input{Call: c, Mode: m.mode, AgentBypass: m.agentBypass, Env: env, Policy: pol, Session: sess})
				want := Ask
				if m.mode == ModeDontAsk || m.mode == ModePlan {
					want = Deny
				}
				if v.Decision != want || v.Source != SourceBreaker || v.Breaker == "" {
					t.Errorf("%s with %s in %s: %s %s (%s), want %s by a breaker", Specifier(c), g.name, m.name, v.Decision, v.Source, v.Reason, want)
				}
			}
		}
	}
	// the verdict names the protected file
	pol, _ := compileT(t, []string{"Edit"}, nil, nil)
	v := Evaluate(Input{Call: Call{Tool: "Edit", Paths: []string{userConf}}, Mode: ModeBypass, Env: env, Policy: pol})
	if !strings.Contains(v.Breaker, "protected policy file "+userConf) {
		t.Errorf("breaker %q does not name %s", v.Breaker, userConf)
	}
	v = Evaluate(Input{Call: Call{Tool: "Edit", Paths: []string{".acp-bridge.yaml"}}, Mode: ModeAcceptEdits, Env: env, Policy: pol})
	if !strings.Contains(v.Breaker, "protected policy file .acp-bridge.yaml") {
		t.Errorf("breaker %q does not name .acp-bridge.yaml", v.Breaker)
	}
	// a relative ProtectedPaths entry is ignored (it would move with the cwd)
	v = Evaluate(Input{Call: Call{Tool: "Edit", Paths: []string{"relative/ignored"}}, Mode: ModeAcceptEdits, Env: env, Policy: pol})
	if v.Decision != Allow {
		t.Errorf("relative protected path: %s (%s)", v.Decision, v.Reason)
	}
}

// What the breakers must not catch: ordinary work stays allowed under a
// broad allow rule and in bypass.
func TestBreakersLeaveOrdinaryWork(t *testing.T) {
	pol, _ := compileT(t, []string{"Bash", "Edit"}, nil, nil)
	env := Env{Cwd: "/w/proj", ProjectRoot: "/w/proj", Home: "/home/u"}
	for _, cmd := range []string{
		"rm -rf build/*", "rm *.o", "rm -rf node_modules", "rm -rf ./dist ./build", "cp -r src dist", "cp a.txt b/",
		"tar -xf x.tar -C build", "tar -czf out.tgz src", "tar -tf x.tar", "unzip -l x.zip", "unzip x.zip -d vendor",
		"curl -o out.json https://example.com/x", "curl -fsSL https://example.com/x", "curl -O https://example.com/pkg.tgz",
		"wget https://example.com/file.tgz", "wget -O - https://example.com | head", "git config --get user.name",
		"git config user.name", "git config -l", "kill -9 1234", "kill -1 1234", "kill %1", "fdisk -l", "parted -l",
		"mv a b", "mv src/x.go src/y.go", "sed -i s/a/b/ main.go", "echo x > out.txt", "chmod -R 755 build",
		"chmod +x script.sh", "ln -s ../lib lib2", "rsync -a src/ dist/", "rm -rf /tmp/x", "rm -rf ~/tmp/cache",
		"rm -rf /var/tmp/build", "echo x > /dev/null", "pkill -f myserver", "find build -name '*.o' -delete",
		"find build -exec rm {} +", "f(){ echo hi; }; f | cat", "cp .env.example .env.local", "touch .vscode/notes.md",
		"gunzip data.csv.gz", "gzip -d x.gz", "gzip -c x > x.gz", "uniq a.txt b.txt", "git diff --output=patch.diff",
		"7z x a.7z -obuild", "openssl enc -in a -out b", "awk '{print}' f", "xz -d big.xz", "cpio -o < list > out.cpio",
		"git diff", "git log -p", "ar t lib.a", "cd -P . && ls", "find . -name '*.go' -exec sed -i s/a/b/ {} +", "find src -type f -exec chmod 644 {} +", "mv ../x.txt .", "mv /tmp/x ~", "cp -r /tmp/tpl ./tpl", "mv build dist", "chmod -R g+w ./build", "chown -R me ./out",
	} {
		for _, m := range []Mode{ModeDefault, ModeBypass} {
			v := evalWithin(t, Input{Call: Call{Tool: "Bash", Command: cmd}, Mode: m, Env: env, Policy: pol})
			if v.Decision != Allow {
				t.Errorf("%q in %s: %s (%s), want allow", cmd, m, v.Decision, v.Reason)
			}
		}
	}
}

// An agent's delete and move tools act on whole directories, but a file or
// an ordinary directory in the workspace stays theirs in acceptEdits.
func TestDeleteToolsLeaveOrdinaryWork(t *testing.T) {
	pol, _ := compileT(t, nil, nil, nil)
	env := Env{Cwd: "/w/proj", ProjectRoot: "/w/proj", Home: "/home/u"}
	for _, c := range []Call{
		{Tool: "delete_file", Kind: "delete", Paths: []string{"src/x.go"}},
		{Tool: "delete_file", Kind: "delete", Paths: []string{"build"}},
		{Tool: "move_file", Kind: "move", Paths: []string{"src", "lib"}},
	} {
		if v := Evaluate(Input{Call: c, Mode: ModeAcceptEdits, Env: env, Policy: pol}); v.Decision != Allow {
			t.Errorf("%s %v in acceptEdits: %s (%s)", c.Tool, c.Paths, v.Decision, v.Reason)
		}
	}
}

// Large inputs stay fast: many function definitions, many globs.
func TestBreakersStayFast(t *testing.T) {
	pol, _ := compileT(t, []string{"Bash"}, nil, nil)
	env := Env{Cwd: "/w/proj", ProjectRoot: "/w/proj", Home: "/home/u", FS: MapFS{"/w/proj/l": "l"}}
	var fns, globs, braces strings.Builder
	for i := 0; i < 200; i++ {
		n := string(rune('a'+i%26)) + strings.Repeat("x", i/26)
		fns.WriteString(n + "(){ " + n + "y | " + n + "z & }; ")
		globs.WriteString("echo x > /*/*/*/*/*/*/" + n + "*; ")
	}
	braces.WriteString("rm -rf " + strings.Repeat("{a,b}", 40))
	for _, cmd := range []string{fns.String(), globs.String(), braces.String(), "cat " + strings.Repeat("l/", 200) + "x"} {
		evalWithin(t, Input{Call: Call{Tool: "Bash", Command: cmd}, Mode: ModeBypass, Env: env, Policy: pol})
	}
}
