package settings

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The audit log and the log file are refused inside any tree an agent's
// sandbox may write, at load, naming the key, the path and why.
func TestRecordPathsRefusedInWritableTrees(t *testing.T) {
	tmpSandbox := filepath.Join(os.TempDir(), SandboxTempPrefix+"x1", "audit.jsonl")
	cases := []struct {
		name string
		// user writes the user file; {ws}, {home}, {other} are replaced.
		user    string
		key     string
		refused bool
		why     string
	}{
		{"default audit path", "", "", false, ""},
		{"audit outside every tree", "audit: {path: '{other}/audit.jsonl'}", "", false, ""},
		{"audit in the workspace", "audit: {path: '{ws}/.logs/audit.jsonl'}", "audit.path", true, "it is the workspace"},
		{"log in the workspace", "log: {file: '{ws}/bridge.log'}", "log.file", true, "it is the workspace"},
		{"audit in an additional directory", "permissions: {additionalDirectories: ['{other}']}\naudit: {path: '{other}/a/audit.jsonl'}", "audit.path", true, "additionalDirectories"},
		{"audit in sandbox.allowWrite", "sandbox: {allowWrite: ['{other}']}\naudit: {path: '{other}/audit.jsonl'}", "audit.path", true, "sandbox.allowWrite"},
		{"audit in an agent's cwd", "agents: {claude: {cwd: '{other}'}}\naudit: {path: '{other}/audit.jsonl'}", "audit.path", true, "working directory"},
		{"audit in claude's state directory", "agents: {claude: {command: claude-code-acp}}\naudit: {path: '{home}/.claude/audit.jsonl'}", "audit.path", true, "state directory agent claude"},
		{"log in gemini's state directory", "agents: {gem: {command: gemini, args: [--experimental-acp]}}\nlog: {file: '{home}/.gemini/bridge.log'}", "log.file", true, "state directory agent gem (gemini)"},
		{"audit in an agent's private temp", "audit: {path: '" + tmpSandbox + "'}", "audit.path", true, "private temp"},
		{"audit through a symlink to the workspace", "audit: {path: '{other}/link/audit.jsonl'}", "audit.path", true, "it is the workspace"},
		// The user config directory is read-only in every sandbox: fine even
		// when a writable tree holds it.
		{"audit in the user config dir inside a writable tree", "sandbox: {allowWrite: ['{cfgparent}']}\naudit: {path: '{cfg}/audit.jsonl'}", "", false, ""},
		{"audit next to the user config dir inside a writable tree", "sandbox: {allowWrite: ['{cfgparent}']}\naudit: {path: '{cfgparent}/audit.jsonl'}", "audit.path", true, "sandbox.allowWrite"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			home := filepath.Join(filepath.Dir(e.userDir), "home")
			other := filepath.Join(filepath.Dir(e.userDir), "other")
			if err := os.MkdirAll(other, 0o755); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(tc.name, "symlink") {
				if err := os.Symlink(e.wsDir, filepath.Join(other, "link")); err != nil {
					t.Fatal(err)
				}
			}
			if tc.user != "" {
				r := strings.NewReplacer("{ws}", e.wsDir, "{home}", home, "{other}", other, "{cfgparent}", filepath.Dir(e.userDir), "{cfg}", e.userDir)
				writeFile(t, e.userFile(), r.Replace(tc.user)+"\n")
			}
			s, err := e.load(func(o *Options) { o.Environ = []string{"HOME=" + home} })
			if !tc.refused {
				if err != nil {
					t.Fatalf("Load refused a safe path: %v", err)
				}
				if p := s.Snapshot().Config.Audit.Path; p == "" {
					t.Fatal("no audit path")
				}
				return
			}
			if err == nil {
				t.Fatalf("Load accepted %s inside a writable tree (audit %s, log %s)", tc.key, s.Snapshot().Config.Audit.Path, s.Snapshot().Config.Log.File)
			}
			msg := err.Error()
			if !strings.Contains(msg, tc.key+":") || !strings.Contains(msg, tc.why) || !strings.Contains(msg, "could erase or rewrite the record") {
				t.Errorf("error does not name %s and why (%q): %v", tc.key, tc.why, msg)
			}
		})
	}
}

// On a live reload, a user file that moves the audit log into the workspace
// is refused and the previous settings stay.
func TestRecordPathRefusedOnReload(t *testing.T) {
	e := newEnv(t)
	s := e.mustLoad()
	changes, errs := subscribe(s)
	before := s.Snapshot()
	writeFile(t, e.userFile(), "audit: {path: '"+filepath.Join(e.wsDir, "audit.jsonl")+"'}\n")
	select {
	case err := <-errs:
		if !strings.Contains(err.Error(), "audit.path") || !strings.Contains(err.Error(), filepath.Join(e.wsDir, "audit.jsonl")) || !strings.Contains(err.Error(), "workspace") {
			t.Errorf("reload error does not name the key, the path and why: %v", err)
		}
	case sn := <-changes:
		t.Fatalf("the reload was applied: audit.path %s", sn.Config.Audit.Path)
	case <-time.After(10 * time.Second):
		t.Fatal("the refused reload was not reported within 10s")
	}
	if got := s.Snapshot(); got != before {
		t.Fatalf("the snapshot changed to audit.path %s", got.Config.Audit.Path)
	}
}
