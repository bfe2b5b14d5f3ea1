package settings

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/config/persist")

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("..", "testdata", "config", "persist", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := readFile(t, path)
	if got != want {
		t.Errorf("%s differs from golden (run with -update after checking):\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// TestPersistYAMLKeepsComments persists several grants into a commented
// user file and compares the result with a golden file.
func TestPersistYAMLKeepsComments(t *testing.T) {
	e := newEnv(t)
	writeFile(t, e.userFile(), readFile(t, filepath.Join("..", "testdata", "config", "persist", "input.yaml")))
	s := e.mustLoad()
	grants := []Grant{
		{Kind: GrantRule, Scope: ScopeUser, List: "allow", Rule: "Bash(npm run build)"},
		{Kind: GrantRule, Scope: ScopeUser, List: "deny", Rule: "Bash(git push *)"},
		{Kind: GrantRule, Scope: ScopeUser, List: "ask", Rule: "WebFetch(domain:*.example.com)"},
		{Kind: GrantRule, Scope: ScopeUser, Agent: "claude", List: "allow", Rule: "Edit(src/**)"},
		{Kind: GrantBypass, Scope: ScopeUser, Agent: "demo"},
		{Kind: GrantRule, Scope: ScopeUser, List: "allow", Rule: "Bash(npm run test *)"}, // already there: no-op
	}
	for _, g := range grants {
		path, err := s.Persist(g)
		if err != nil {
			t.Fatalf("Persist(%+v): %v", g, err)
		}
		if path != e.userFile() {
			t.Errorf("Persist wrote %s, want %s", path, e.userFile())
		}
	}
	golden(t, "want.yaml", readFile(t, e.userFile()))

	sn := s.Snapshot()
	for _, r := range []struct{ list, text string }{{"allow", "Bash(npm run build)"}, {"deny", "Bash(git push *)"}, {"ask", "WebFetch(domain:*.example.com)"}} {
		if !hasRule(sn.Rules, r.list, r.text) {
			t.Errorf("snapshot lacks %s %s right after Persist", r.list, r.text)
		}
	}
	if n := strings.Count(strings.Join(ruleTexts(sn.Rules), "\n"), "Bash(npm run test *)"); n != 1 {
		t.Errorf("duplicate grant stored %d times", n)
	}
	if !hasRule(sn.Config.Agents["claude"].Rules, "allow", "Edit(src/**)") || !sn.Config.Agents["demo"].BypassPermissions {
		t.Errorf("agent grants missing: %+v", sn.Config.Agents)
	}
	if sn.Config.Approvals.Timeout.Seconds() != 120 || sn.Config.Agents["claude"].Env["IS_SANDBOX"] != "1" {
		t.Errorf("other settings lost: %+v", sn.Config)
	}

	// Revoke what was granted: the file returns to the input.
	for _, g := range grants[:5] {
		if _, err := s.RemoveRule(g); err != nil {
			t.Fatalf("RemoveRule(%+v): %v", g, err)
		}
	}
	golden(t, "revoked.yaml", readFile(t, e.userFile()))
	sn = s.Snapshot()
	if hasRule(sn.Rules, "allow", "Bash(npm run build)") || sn.Config.Agents["demo"].BypassPermissions {
		t.Errorf("revoked grants still in the snapshot: %q", ruleTexts(sn.Rules))
	}
	_, err := s.RemoveRule(grants[0])
	if !errors.Is(err, ErrRuleNotFound) {
		t.Errorf("removing an absent rule: %v, want ErrRuleNotFound", err)
	}
}

func TestPersistNewFiles(t *testing.T) {
	cases := []struct {
		name    string
		initial string // "" = no file
		g       Grant
		want    string
	}{
		{"new workspace file", "", Grant{Kind: GrantRule, Scope: ScopeWorkspace, List: "allow", Rule: "Bash(make *)"},
			"permissions:\n  allow:\n    - \"Bash(make *)\"\n"},
		{"comment-only file", "# settings for this repo\n", Grant{Kind: GrantRule, Scope: ScopeWorkspace, List: "deny", Rule: "Read(.env)"},
			"# settings for this repo\npermissions:\n  deny:\n    - \"Read(.env)\"\n"},
		{"null value", "permissions:\n  allow:\n", Grant{Kind: GrantRule, Scope: ScopeWorkspace, List: "allow", Rule: "Bash(ls)"},
			"permissions:\n  allow:\n    - \"Bash(ls)\"\n"},
		{"flow list stays flow", "permissions: {allow: []}\n", Grant{Kind: GrantRule, Scope: ScopeWorkspace, List: "allow", Rule: "Bash(ls)"},
			"permissions: {allow: [\"Bash(ls)\"]}\n"},
		{"four-space indent kept", "agents:\n    demo:\n        mode: plan\n", Grant{Kind: GrantRule, Scope: ScopeWorkspace, Agent: "demo", List: "ask", Rule: "Edit"},
			"agents:\n    demo:\n        mode: plan\n        permissions:\n            ask:\n                - \"Edit\"\n"},
		{"bypass in workspace for a user-defined agent", "", Grant{Kind: GrantBypass, Scope: ScopeWorkspace, Agent: "demo"},
			"agents:\n  demo:\n    bypassPermissions: true\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			if tc.initial != "" {
				writeFile(t, e.wsFile(), tc.initial)
			}
			s := e.mustLoad()
			path, err := s.Persist(tc.g)
			if err != nil {
				t.Fatal(err)
			}
			if path != e.wsFile() {
				t.Errorf("path %s", path)
			}
			if got := readFile(t, e.wsFile()); got != tc.want {
				t.Errorf("file:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

func TestPersistCreatesUserFile(t *testing.T) {
	e := newEnv(t)
	e.userDir = filepath.Join(e.userDir, "not-yet")
	s := e.mustLoad()
	changes, _ := subscribe(s)
	path, err := s.Persist(Grant{Kind: GrantRule, Scope: ScopeUser, List: "deny", Rule: "Bash(curl *)"})
	if err != nil {
		t.Fatal(err)
	}
	if path != filepath.Join(e.userDir, "config.yaml") {
		t.Errorf("path %s", path)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("new file mode %v, want 0600 (it may hold API keys)", fi.Mode().Perm())
	}
	want := []Rule{{List: "deny", Text: "Bash(curl *)", Layer: "user", File: path, Root: e.userDir}}
	if got := s.Snapshot().Rules; !slices.Equal(got, want) {
		t.Errorf("rules %+v", got)
	}
	// The new directory is watched from now on.
	writeFile(t, path, "permissions: {deny: [\"Bash(wget *)\"]}\n")
	await(t, changes, "an edit of the created file", func(sn *Snapshot) bool { return hasRule(sn.Rules, "deny", "Bash(wget *)") })
}

func TestPersistJSON(t *testing.T) {
	e := newEnv(t)
	file := filepath.Join(e.userDir, "config.json")
	writeFile(t, file, `{"defaultAgent": "demo", "log": {"level": "debug"}, "agents": {"demo": {"env": {"MixedCase": "kept"}}}, "permissions": {"deny": ["Read(.env*)"]}, "maxLineBytes": 1048576}`)
	s := e.mustLoad()
	for _, g := range []Grant{
		{Kind: GrantRule, Scope: ScopeUser, List: "allow", Rule: "Bash(go test *)"},
		{Kind: GrantRule, Scope: ScopeUser, List: "deny", Rule: "Read(.env*)"}, // present: no-op
		{Kind: GrantRule, Scope: ScopeUser, Agent: "demo", List: "ask", Rule: "Edit"},
		{Kind: GrantBypass, Scope: ScopeUser, Agent: "demo"},
	} {
		if path, err := s.Persist(g); err != nil || path != file {
			t.Fatalf("Persist(%+v) = %s, %v", g, path, err)
		}
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(readFile(t, file)), &got); err != nil {
		t.Fatalf("written file is not JSON: %v", err)
	}
	want := `{"agents":{"demo":{"bypassPermissions":true,"env":{"MixedCase":"kept"},"permissions":{"ask":["Edit"]}}},"defaultAgent":"demo","log":{"level":"debug"},"maxLineBytes":1048576,"permissions":{"allow":["Bash(go test *)"],"deny":["Read(.env*)"]}}`
	if b, _ := json.Marshal(got); string(b) != want {
		t.Errorf("file:\n%s\nwant\n%s", b, want)
	}
	sn := s.Snapshot()
	if !hasRule(sn.Rules, "allow", "Bash(go test *)") || !sn.Config.Agents["demo"].BypassPermissions || sn.Config.MaxLineBytes != 1048576 {
		t.Errorf("snapshot: %+v", sn)
	}
	if _, err := s.RemoveRule(Grant{Kind: GrantRule, Scope: ScopeUser, List: "deny", Rule: "Read(.env*)"}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(readFile(t, file), "Read(.env*)") || hasRule(s.Snapshot().Rules, "deny", "Read(.env*)") {
		t.Error("rule not removed")
	}
}

func TestPersistTOML(t *testing.T) {
	e := newEnv(t)
	file := filepath.Join(e.userDir, "config.toml")
	writeFile(t, file, "defaultAgent = \"demo\"\n[approvals]\ntimeoutSeconds = 30\n")
	s := e.mustLoad()
	if _, err := s.Persist(Grant{Kind: GrantRule, Scope: ScopeUser, List: "ask", Rule: "Bash(git commit *)"}); err != nil {
		t.Fatal(err)
	}
	// Read it back through a fresh Load: the file must stay valid TOML.
	sn := newEnvAt(t, e).mustLoad().Snapshot()
	if !hasRule(sn.Rules, "ask", "Bash(git commit *)") || sn.Config.Approvals.Timeout.Seconds() != 30 {
		t.Errorf("TOML round trip: %+v %q\n%s", sn.Config, ruleTexts(sn.Rules), readFile(t, file))
	}
}

// newEnvAt reuses e's directories for a second Store.
func newEnvAt(t *testing.T, e *env) *env { return &env{t: t, userDir: e.userDir, wsDir: e.wsDir} }

// TestPersistConcurrent: 20 goroutines persisting at once lose nothing.
func TestPersistConcurrent(t *testing.T) {
	e := newEnv(t)
	writeFile(t, e.wsFile(), "# shared\npermissions:\n  deny: [\"Read(.env*)\"]\n")
	s := e.mustLoad()
	const n = 20
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			g := Grant{Kind: GrantRule, Scope: ScopeWorkspace, List: "allow", Rule: fmt.Sprintf("Bash(task-%02d *)", i)}
			if i%2 == 1 {
				g.Agent = "demo"
			}
			if _, err := s.Persist(g); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	sn := s.Snapshot()
	content := readFile(t, e.wsFile())
	for i := range n {
		rule := fmt.Sprintf("Bash(task-%02d *)", i)
		rules := sn.Rules
		if i%2 == 1 {
			rules = sn.Config.Agents["demo"].Rules
		}
		if !hasRule(rules, "allow", rule) {
			t.Errorf("snapshot lost %s", rule)
		}
		if strings.Count(content, rule) != 1 {
			t.Errorf("file holds %s %d times", rule, strings.Count(content, rule))
		}
	}
	if !strings.HasPrefix(content, "# shared\n") || !hasRule(sn.Rules, "deny", "Read(.env*)") {
		t.Errorf("file lost its comment or deny rule:\n%s", content)
	}
	if left, _ := filepath.Glob(filepath.Join(e.wsDir, ".*.tmp-*")); len(left) != 0 {
		t.Errorf("temp files left: %v", left)
	}
}

// TestPersistFailedWriteKeepsOldFile: when replacing the file fails, the
// old file is intact, no temp file is left, and the snapshot is unchanged.
func TestPersistFailedWriteKeepsOldFile(t *testing.T) {
	e := newEnv(t)
	const before = "# mine\npermissions:\n  allow: [\"Bash(ls)\"]\n"
	writeFile(t, e.userFile(), before)
	s := e.mustLoad()
	snap := s.Snapshot()
	s.rename = func(oldpath, newpath string) error {
		return &os.LinkError{Op: "rename", Old: oldpath, New: newpath, Err: syscall.EIO}
	}
	_, err := s.Persist(Grant{Kind: GrantRule, Scope: ScopeUser, List: "allow", Rule: "Bash(rm *)"})
	if !errors.Is(err, syscall.EIO) || !strings.Contains(err.Error(), "replace "+e.userFile()) {
		t.Fatalf("error %v, want the rename failure naming the file", err)
	}
	if got := readFile(t, e.userFile()); got != before {
		t.Errorf("old file changed:\n%s", got)
	}
	if left, _ := filepath.Glob(filepath.Join(e.userDir, ".*.tmp-*")); len(left) != 0 {
		t.Errorf("temp files left: %v", left)
	}
	if s.Snapshot() != snap {
		t.Error("snapshot changed after a failed write")
	}
}

// TestPersistReadOnlyDir: a directory that refuses the temp file (not as
// root, which ignores permission bits).
func TestPersistReadOnlyDir(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root ignores directory permissions; TestPersistFailedWriteKeepsOldFile covers the failure")
	}
	e := newEnv(t)
	writeFile(t, e.wsFile(), "permissions: {}\n")
	s := e.mustLoad()
	if err := os.Chmod(e.wsDir, 0o500); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(e.wsDir, 0o755) })
	if _, err := s.Persist(Grant{Kind: GrantRule, Scope: ScopeWorkspace, List: "allow", Rule: "Bash(x)"}); err == nil {
		t.Fatal("Persist into a read-only directory succeeded")
	}
	if got := readFile(t, e.wsFile()); got != "permissions: {}\n" {
		t.Errorf("file changed: %q", got)
	}
}

// TestPersistRefusesInvalidResult: a grant that would make the settings
// invalid, or a file that is broken now, is not written.
func TestPersistRefusesInvalidResult(t *testing.T) {
	e := newEnv(t)
	s := e.mustLoad()
	_, err := s.Persist(Grant{Kind: GrantBypass, Scope: ScopeWorkspace, Agent: "ghost"})
	if err == nil || !strings.Contains(err.Error(), "agents.ghost.command: required") {
		t.Errorf("bypass for an unknown agent: %v", err)
	}
	if _, statErr := os.Stat(e.wsFile()); !os.IsNotExist(statErr) {
		t.Error("workspace file written anyway")
	}

	writeFile(t, e.wsFile(), "permissions: [\n")
	_, err = s.Persist(Grant{Kind: GrantRule, Scope: ScopeWorkspace, List: "allow", Rule: "Bash(ls)"})
	if err == nil || !strings.Contains(err.Error(), "cannot parse yaml") {
		t.Errorf("persist into a broken file: %v", err)
	}
	if got := readFile(t, e.wsFile()); got != "permissions: [\n" {
		t.Errorf("broken file rewritten: %q", got)
	}

	writeFile(t, e.wsFile(), "permissions: {allow: \"Bash(ls)\"}\n")
	_, err = s.Persist(Grant{Kind: GrantRule, Scope: ScopeWorkspace, List: "allow", Rule: "Bash(pwd)"})
	if err == nil || !strings.Contains(err.Error(), "permissions.allow is not a list") {
		t.Errorf("persist into a scalar: %v", err)
	}
}

func TestGrantCheck(t *testing.T) {
	cases := map[string]Grant{
		`grant: kind "x" is not one of rule, bypass`:          {Kind: "x", Scope: ScopeUser},
		`grant: scope "global" is not one of user, workspace`: {Kind: GrantRule, Scope: "global", List: "allow", Rule: "Bash"},
		`grant: list "maybe" is not one of allow, ask, deny`:  {Kind: GrantRule, Scope: ScopeUser, List: "maybe", Rule: "Bash"},
		`grant: empty rule`:                            {Kind: GrantRule, Scope: ScopeUser, List: "allow", Rule: " "},
		`grant: rule "Bash(a\nb)" spans several lines`: {Kind: GrantRule, Scope: ScopeUser, List: "allow", Rule: "Bash(a\nb)"},
		`grant: a bypass needs an agent`:               {Kind: GrantBypass, Scope: ScopeUser},
		`grant: "a.b" is not a valid agent name`:       {Kind: GrantBypass, Scope: ScopeUser, Agent: "a.b"},
		`persist grant: no workspace directory`:        {Kind: GrantRule, Scope: ScopeWorkspace, List: "allow", Rule: "Bash"},
	}
	e := newEnv(t)
	s := e.mustLoad(func(o *Options) { o.WorkspaceDir = "" })
	for want, g := range cases {
		_, err := s.Persist(g)
		if err == nil || err.Error() != want {
			t.Errorf("Persist(%+v) = %v, want %q", g, err, want)
		}
	}
	if _, err := s.Persist(Grant{Kind: GrantRule, Scope: ScopeWorkspace, List: "allow", Rule: "Bash"}); !errors.Is(err, ErrNoWorkspace) {
		t.Errorf("no workspace: %v is not ErrNoWorkspace", err)
	}
}

func TestPersistThroughSymlink(t *testing.T) {
	e := newEnv(t)
	real := filepath.Join(t.TempDir(), "dotfiles", "acp-bridge.yaml")
	writeFile(t, real, "permissions: {}\n")
	if err := os.Symlink(real, e.userFile()); err != nil {
		t.Skip("no symlinks:", err)
	}
	s := e.mustLoad()
	if _, err := s.Persist(Grant{Kind: GrantRule, Scope: ScopeUser, List: "ask", Rule: "Bash(x)"}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(e.userFile()); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("symlink replaced by a file")
	}
	if !strings.Contains(readFile(t, real), "Bash(x)") {
		t.Errorf("target not written: %s", readFile(t, real))
	}
}
