package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acp-bridge/acp-bridge/policy"
)

func compile(t *testing.T, deny ...string) *policy.Policy {
	t.Helper()
	var rules []policy.RuleText
	for _, d := range deny {
		rules = append(rules, policy.RuleText{List: "deny", Text: d, Origin: policy.Origin{Layer: "user"}})
	}
	pol, errs := policy.Compile(rules)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	return pol
}

func touch(t *testing.T, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestCompute(t *testing.T) {
	base := t.TempDir()
	home, ws := filepath.Join(base, "home"), filepath.Join(base, "ws")
	touch(t,
		filepath.Join(ws, ".env"), filepath.Join(ws, "a", "b", ".env.prod"), filepath.Join(ws, "main.go"),
		filepath.Join(ws, "docs", "x.md"), filepath.Join(ws, ".acp-bridge.yaml"), filepath.Join(ws, ".git", "hooks", "h"),
		filepath.Join(ws, "proj.code-workspace"),
		filepath.Join(home, ".ssh", "id_rsa"), filepath.Join(home, ".bashrc"), filepath.Join(home, ".gemini", "settings.json"),
	)
	s, err := Compute(Options{
		Workspace: []string{ws}, Home: home,
		StateDirs: StateDirs("gemini", home),
		Policy:    compile(t, "Read(.env*)", "Read(~/.ssh/**)", "Edit(/docs/**)"),
		Env:       policy.Env{Cwd: ws, ProjectRoot: ws, Home: home},
	})
	if err != nil {
		t.Fatal(err)
	}
	var masked []string
	for _, m := range s.Masked {
		if !strings.HasPrefix(m.Rule, "host IPC") { // the machine's own sockets (TestHostIPCClosed)
			masked = append(masked, m.Path)
		}
	}
	wantMasked := []string{filepath.Join(home, ".ssh"), filepath.Join(ws, ".env"), filepath.Join(ws, "a", "b", ".env.prod")}
	slices.Sort(wantMasked)
	if !slices.Equal(masked, wantMasked) {
		t.Errorf("masked = %v, want %v", masked, wantMasked)
	}
	for _, m := range s.Masked {
		if m.Path == filepath.Join(home, ".ssh") && (!m.Dir || m.Rule != "Read(~/.ssh/**)") {
			t.Errorf("~/.ssh mask = %+v, want a directory masked by Read(~/.ssh/**)", m)
		}
	}
	for _, p := range []string{
		filepath.Join(ws, ".acp-bridge.yaml"), filepath.Join(ws, ".git", "hooks"), filepath.Join(ws, "proj.code-workspace"),
		filepath.Join(ws, "docs"), filepath.Join(home, ".gemini", "settings.json"),
	} {
		if !slices.Contains(s.ReadOnly, p) {
			t.Errorf("read-only lacks %s: %v", p, s.ReadOnly)
		}
	}
	if slices.Contains(s.ReadOnly, filepath.Join(home, ".bashrc")) {
		t.Errorf("~/.bashrc is outside every writable tree: it needs no read-only bind")
	}
	if !slices.Contains(s.Writable, filepath.Join(home, ".gemini")) || !slices.Contains(s.Writable, ws) {
		t.Errorf("writable = %v", s.Writable)
	}
	if s.Network != NetworkAll {
		t.Errorf("network = %q", s.Network)
	}
}

func TestComputeWalkBound(t *testing.T) {
	ws := t.TempDir()
	for i := 0; i < 30; i++ {
		touch(t, filepath.Join(ws, "d", strings.Repeat("x", i+1)))
	}
	s, err := Compute(Options{Workspace: []string{ws}, Policy: compile(t, "Read(.env)"), Env: policy.Env{Cwd: ws, ProjectRoot: ws}, MaxEntries: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Notes) == 0 || !strings.Contains(s.Notes[0], "after 10 entries") {
		t.Errorf("notes = %q, want the walk bound said", s.Notes)
	}
}

func TestComputeErrors(t *testing.T) {
	if _, err := Compute(Options{}); !errors.Is(err, ErrNoWorkspace) {
		t.Errorf("no workspace: %v", err)
	}
	if _, err := Compute(Options{Workspace: []string{"rel/dir"}}); err == nil || !strings.Contains(err.Error(), `"rel/dir" is not absolute`) {
		t.Errorf("relative workspace: %v", err)
	}
	if _, err := ParseNetwork("lan"); err == nil || !strings.Contains(err.Error(), `"lan"`) {
		t.Errorf("bad network: %v", err)
	}
}

func TestBwrapArgsOrder(t *testing.T) {
	s := Spec{
		Writable: []string{"/w/proj/sub", "/w/proj"},
		ReadOnly: []string{"/w/proj/.git/hooks"},
		Masked:   []Path{{Path: "/w/proj/.env"}, {Path: "/h/.ssh", Dir: true}},
		Network:  NetworkNone,
	}
	a := strings.Join(BwrapArgs(s, "/m", "/t", "/w/proj", []string{"agent", "--acp"}), " ")
	for _, want := range []string{
		"--cap-drop ALL", "--ro-bind / /", "--unshare-net", "--unshare-pid",
		"--bind-try /w/proj /w/proj --bind-try /w/proj/sub /w/proj/sub", "--bind-try /t /t",
		"--ro-bind-try /w/proj/.git/hooks /w/proj/.git/hooks",
		"--ro-bind-try /m /w/proj/.env", "--perms 0000 --tmpfs /h/.ssh --remount-ro /h/.ssh",
		"--setenv TMPDIR /t --chdir /w/proj -- agent --acp",
	} {
		if !strings.Contains(a, want) {
			t.Errorf("bwrap args lack %q:\n%s", want, a)
		}
	}
	if strings.Index(a, "--bind-try /w/proj ") > strings.Index(a, "--ro-bind-try /w/proj/.git/hooks") ||
		strings.Index(a, "--ro-bind-try /w/proj/.git/hooks") > strings.Index(a, "--ro-bind-try /m /w/proj/.env") {
		t.Errorf("writable binds must come before read-only re-binds, and those before masks:\n%s", a)
	}
}

func TestSeatbeltProfile(t *testing.T) {
	p := SeatbeltProfile(Spec{
		Writable: []string{"/Users/u/proj", `/Users/u/we"ird`},
		ReadOnly: []string{"/Users/u/proj/.acp-bridge.yaml"},
		Masked:   []Path{{Path: "/Users/u/proj/.env"}, {Path: "/Users/u/.ssh", Dir: true}},
		Network:  NetworkNone,
	})
	for _, want := range []string{
		"(version 1)", "(deny file-write*)", `(subpath "/Users/u/proj")`, `(subpath "/Users/u/we\"ird")`,
		"(deny file-write*\n  (subpath \"/Users/u/proj/.acp-bridge.yaml\")",
		"(deny file-read* file-write*\n  (literal \"/Users/u/proj/.env\")\n  (subpath \"/Users/u/.ssh\")",
		"(deny network*)",
	} {
		if !strings.Contains(p, want) {
			t.Errorf("profile lacks %q:\n%s", want, p)
		}
	}
	// Seatbelt: the last matching rule wins, so the read-only and mask
	// denials must follow the write allowance.
	if strings.Index(p, "(allow file-write*") > strings.Index(p, "(deny file-read* file-write*") {
		t.Errorf("masks must come after the allowances:\n%s", p)
	}
}

func TestProbePlatforms(t *testing.T) {
	missing := func(string) (string, error) { return "", errors.New("not found") }
	cases := []struct {
		goos, problem string
	}{
		{"windows", "windows is not supported"},
		{"linux", "bubblewrap (bwrap) is not installed"},
		{"darwin", "sandbox-exec is missing"},
		{"plan9", "not supported"},
	}
	for _, c := range cases {
		m := probe(c.goos, missing)
		if m.Available || !strings.Contains(m.Problem, c.problem) {
			t.Errorf("%s: %+v, want unavailable with %q", c.goos, m, c.problem)
		}
	}
	if m := probe("darwin", func(string) (string, error) { return "/usr/bin/sandbox-exec", nil }); m.Available || m.Name != "seatbelt" {
		t.Errorf("darwin with sandbox-exec: %+v (not offered until it is tested there)", m)
	}
}

// The sandbox keeps read-only (or blocks) only what the policy protects:
// both read the one table (policy.Places), and every place the sandbox
// computes for a tree holding each of the table's places is a protected
// file to the engine too.
func TestSandboxPlacesAreProtectedByThePolicy(t *testing.T) {
	home := t.TempDir()
	ws := filepath.Join(home, "proj")
	mustMkdir(t, filepath.Join(ws, ".git", "hooks"))
	mustWrite(t, filepath.Join(ws, ".git", "config"), "[core]\n\thooksPath = .husky\n")
	s, err := Compute(Options{Workspace: []string{ws}, Home: home, StateDirs: StateDirs("claude", home), Policy: mustCompile(t)})
	if err != nil {
		t.Fatal(err)
	}
	env := policy.Env{Cwd: ws, ProjectRoot: ws, Home: home}
	n := 0
	check := func(p string) {
		n++
		if policy.Protected(env, p) == "" {
			t.Errorf("%s is kept by the sandbox but not protected by the policy", p)
		}
	}
	for _, p := range s.ReadOnly {
		check(p)
	}
	for _, b := range s.Blocked {
		switch filepath.Base(b.Path) {
		case ".claude", ".vscode":
			check(filepath.Join(b.Path, "settings.json"))
			continue
		case ".cursor":
			check(filepath.Join(b.Path, "mcp.json"))
			continue
		}
		check(b.Path)
	}
	if n < 10 {
		t.Errorf("only %d places computed: %+v", n, s)
	}
}

func TestRunnerDirs(t *testing.T) {
	cases := []struct {
		command string
		want    []string
	}{
		{"npx", []string{"/h/.npm"}},
		{"/usr/bin/npm", []string{"/h/.npm"}},
		{"node", nil},
		{"/usr/local/bin/claude-agent-acp", nil},
		{"bunx", []string{"/h/.bun/install/cache"}},
	}
	for _, c := range cases {
		if got := RunnerDirs(c.command, "/h"); !slices.Equal(got, c.want) {
			t.Errorf("RunnerDirs(%q) = %v, want %v", c.command, got, c.want)
		}
	}
	for _, fam := range []string{"claude", "gemini", "codex", "qwen", "opencode", "goose", "kimi"} {
		for _, d := range StateDirs(fam, "/h") {
			if strings.Contains(d, ".npm") {
				t.Errorf("%s's state directories hold %s: a runner's cache is writable only for agents a runner starts", fam, d)
			}
		}
	}
}

func mustMkdir(t *testing.T, p string) {
	t.Helper()
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
}

func mustWrite(t *testing.T, p, content string) {
	t.Helper()
	mustMkdir(t, filepath.Dir(p))
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mustCompile(t *testing.T, rules ...policy.RuleText) *policy.Policy {
	t.Helper()
	pol, errs := policy.Compile(rules)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	return pol
}
