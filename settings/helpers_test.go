package settings

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// testExe stands for the running binary in tests.
const testExe = "/opt/acp-bridge/bin/acp-bridge"

// env is a test's fixture: a user config dir and a workspace dir, both
// empty until written.
type env struct {
	t       *testing.T
	userDir string
	wsDir   string
	// firstTrust: load as the person's first trust does. Otherwise a
	// trusted load finds the workspace file already approved (as after
	// the person approved it): most tests are about merging layers.
	firstTrust bool
}

// newTrustEnv is newEnv for the tests of trust and approval themselves.
func newTrustEnv(t *testing.T) *env {
	e := newEnv(t)
	e.firstTrust = true
	return e
}

// preApprove pins the workspace file as it is now, unless a version is
// pinned already, as the person's approval does.
func (e *env) preApprove() {
	e.t.Helper()
	data, err := os.ReadFile(e.wsFile())
	if err != nil {
		return
	}
	path := filepath.Join(e.userDir, ApprovalsFileName)
	m, err := readApprovals(path)
	if err != nil {
		return
	}
	if _, ok := m[e.wsFile()]; ok {
		return
	}
	m[e.wsFile()] = approvalRecord{Digest: ContentDigest(data, true)}
	doc, _ := json.Marshal(approvalsDoc{Version: 1, Files: m})
	writeFile(e.t, path, string(doc))
}

func newEnv(t *testing.T) *env {
	t.Helper()
	root := t.TempDir()
	e := &env{t: t, userDir: filepath.Join(root, "config", "acp-bridge"), wsDir: filepath.Join(root, "ws")}
	for _, d := range []string{e.userDir, e.wsDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

func (e *env) userFile() string { return filepath.Join(e.userDir, "config.yaml") }
func (e *env) wsFile() string   { return filepath.Join(e.wsDir, WorkspaceFileName) }

// managedFile and managedDropins stand for /etc/acp-bridge's (managed.go).
func (e *env) managedFile() string {
	return filepath.Join(filepath.Dir(filepath.Dir(e.userDir)), "managed", "managed-settings.yaml")
}
func (e *env) claudeFile() string {
	return filepath.Join(filepath.Dir(filepath.Dir(e.userDir)), "claude-code", "managed-settings.json")
}
func (e *env) managedDropins() string {
	return filepath.Join(filepath.Dir(filepath.Dir(e.userDir)), "managed", "managed-settings.d")
}

// opts trusts the workspace: most tests are about merging every layer.
// Workspace trust's own tests (trust_test.go) set WorkspaceTrusted false.
func (e *env) opts() Options {
	return Options{UserConfigDir: e.userDir, WorkspaceDir: e.wsDir, Environ: []string{}, Executable: testExe, WorkspaceTrusted: true,
		managedFile: e.managedFile(), managedDropins: e.managedDropins(),
		claudeFile: e.claudeFile(), claudeDropins: e.claudeFile() + ".d"}
}

func (e *env) load(mod ...func(*Options)) (*Store, error) {
	e.t.Helper()
	o := e.opts()
	for _, m := range mod {
		m(&o)
	}
	if o.WorkspaceTrusted && !e.firstTrust {
		e.preApprove()
	}
	s, err := Load(o)
	if s != nil {
		e.t.Cleanup(func() { _ = s.Close() })
	}
	return s, err
}

func (e *env) mustLoad(mod ...func(*Options)) *Store {
	e.t.Helper()
	s, err := e.load(mod...)
	if err != nil {
		e.t.Fatalf("Load: %v", err)
	}
	return s
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// problems returns the error's problems as strings; it fails the test if
// err is not a *ValidationError.
func problems(t *testing.T, err error) []string {
	t.Helper()
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("error %v (%T) is not a *ValidationError", err, err)
	}
	out := make([]string, len(ve.Problems))
	for i, p := range ve.Problems {
		out[i] = p.Error()
	}
	return out
}

// ruleTexts renders rules as "layer[ agent:x] list text" for comparisons.
func ruleTexts(rules []Rule) []string {
	out := make([]string, len(rules))
	for i, r := range rules {
		s := r.Layer
		if r.Agent != "" {
			s += " agent:" + r.Agent
		}
		out[i] = s + " " + r.List + " " + r.Text
	}
	return out
}

// subscribe returns channels fed by OnChange and OnError.
func subscribe(s *Store) (<-chan *Snapshot, <-chan error) {
	changes := make(chan *Snapshot, 16)
	errs := make(chan error, 16)
	s.OnChange(func(sn *Snapshot) { changes <- sn })
	s.OnError(func(err error) { errs <- err })
	return changes, errs
}

// await waits for a snapshot that satisfies ok, failing after a bound.
func await(t *testing.T, ch <-chan *Snapshot, what string, ok func(*Snapshot) bool) *Snapshot {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case sn := <-ch:
			if ok(sn) {
				return sn
			}
		case <-deadline:
			t.Fatalf("no change with %s within 10s", what)
			return nil
		}
	}
}

func hasRule(rules []Rule, list, text string) bool {
	for _, r := range rules {
		if r.List == list && r.Text == text {
			return true
		}
	}
	return false
}

func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func joinLines(ss []string) string { return strings.Join(ss, "\n") }
