package settings

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestApplyEditor(t *testing.T) {
	e := newEnv(t)
	writeFile(t, e.userFile(), "permissions: {deny: [\"Read(.env*)\"]}\n")
	s := e.mustLoad()
	changes, _ := subscribe(s)

	// Valid: applied at once, subscribers told.
	if err := s.ApplyEditor([]byte(`{"permissions":{"allow":["Bash(npm test)"],"defaultMode":"plan"},"approvals":{"timeoutSeconds":60}}`)); err != nil {
		t.Fatalf("valid editor settings refused: %v", err)
	}
	sn := s.Snapshot()
	if sn.Config.Permissions.DefaultMode != "plan" || sn.Config.Approvals.Timeout != time.Minute || !hasRule(sn.Rules, "allow", "Bash(npm test)") {
		t.Fatalf("editor settings not applied: %+v %q", sn.Config, ruleTexts(sn.Rules))
	}
	await(t, changes, "the editor's allow rule", func(sn *Snapshot) bool { return hasRule(sn.Rules, "allow", "Bash(npm test)") })

	// Invalid: every bad key reported, previous editor layer kept.
	err := s.ApplyEditor([]byte(`{"permissions":{"allow":["Bash(*)"],"defaultMode":"yolo"},"approvals":{"timeoutSeconds":0},"agents":{"demo":{"comand":"x"}}}`))
	want := []string{
		`editor settings: agents.demo.comand: unknown key (did you mean command?)`,
		`editor settings: approvals.timeoutSeconds: must be > 0`,
		`editor settings: permissions.defaultMode: "yolo" is not a mode (default, acceptEdits, plan, dontAsk, bypassPermissions, or aliases autonomous, ask_every_time, auto_accept_read_only, auto_accept_all)`,
	}
	if got := problems(t, err); !slices.Equal(got, want) {
		t.Errorf("problems:\n got %q\nwant %q", got, want)
	}
	if got := s.Snapshot(); got != sn {
		t.Errorf("invalid editor settings changed the snapshot: allow rules %q", ruleTexts(got.Rules))
	}

	// Dotted keys (as VS Code may flatten them), with or without the prefix.
	if err := s.ApplyEditor([]byte(`{"acpBridge.permissions.ask":["Edit"],"log.level":"warn"}`)); err != nil {
		t.Fatalf("dotted keys: %v", err)
	}
	sn = s.Snapshot()
	if sn.Config.Log.Level != "warn" || !hasRule(sn.Rules, "ask", "Edit") || hasRule(sn.Rules, "allow", "Bash(npm test)") {
		t.Errorf("dotted keys: level %q rules %q", sn.Config.Log.Level, ruleTexts(sn.Rules))
	}

	// null clears the editor layer; the user file stays.
	if err := s.ApplyEditor([]byte(`null`)); err != nil {
		t.Fatal(err)
	}
	sn = s.Snapshot()
	if got := ruleTexts(sn.Rules); !slices.Equal(got, []string{"user deny Read(.env*)"}) || sn.Config.Log.Level != "info" {
		t.Errorf("after null: rules %q level %q", got, sn.Config.Log.Level)
	}
}

func TestApplyEditorMalformed(t *testing.T) {
	cases := map[string]string{
		`[1,2]`:    "editor settings: must be an object, got a list",
		`{"a":`:    "editor settings: not JSON: unexpected end of JSON input",
		`"string"`: `editor settings: must be an object, got string "string"`,
		`{"log.level":"debug","log":{"level":"info"}}`: "editor settings: log.level: set twice",
		`{"defaultAgent":"claude"}`:                    `editor settings: defaultAgent: "claude" is not a configured agent (configured: demo)`,
	}
	for in, want := range cases {
		t.Run(in, func(t *testing.T) {
			s := newEnv(t).mustLoad()
			before := s.Snapshot()
			err := s.ApplyEditor([]byte(in))
			if got := problems(t, err); len(got) != 1 || got[0] != want {
				t.Errorf("got %q, want %q", got, want)
			}
			if s.Snapshot() != before {
				t.Error("snapshot changed")
			}
		})
	}
}

// TestLiveReload edits the workspace file on disk: removing a rule takes
// it away without a restart (ask rules: they apply from a changed file
// without an approval, approval_test.go); an invalid edit keeps the last valid settings and
// is reported; fixing it applies again.
func TestLiveReload(t *testing.T) {
	e := newEnv(t)
	writeFile(t, e.wsFile(), "permissions:\n  ask: [\"Bash(npm run build)\", \"Bash(rm -rf build)\"]\n")
	s := e.mustLoad()
	changes, errs := subscribe(s)
	if !hasRule(s.Snapshot().Rules, "ask", "Bash(rm -rf build)") {
		t.Fatal("rule not loaded")
	}

	writeFile(t, e.wsFile(), "permissions:\n  ask: [\"Bash(npm run build)\"]\n")
	sn := await(t, changes, "the rule revoked", func(sn *Snapshot) bool { return !hasRule(sn.Rules, "ask", "Bash(rm -rf build)") })
	if !hasRule(sn.Rules, "ask", "Bash(npm run build)") || s.Snapshot() != sn {
		t.Fatalf("reload lost the other rule or is not current: %q", ruleTexts(sn.Rules))
	}

	writeFile(t, e.wsFile(), "permissions:\n  ask: [\"Bash(*)\"]\n  defaultMode: yolo\n")
	select {
	case err := <-errs:
		if !strings.Contains(err.Error(), e.wsFile()+":3: permissions.defaultMode: \"yolo\" is not a mode") {
			t.Errorf("reload error does not name file, line and key: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("invalid edit not reported within 10s")
	}
	if got := s.Snapshot(); got != sn || hasRule(got.Rules, "ask", "Bash(*)") {
		t.Fatalf("invalid edit was applied: %q", ruleTexts(got.Rules))
	}

	writeFile(t, e.wsFile(), "permissions:\n  deny: [\"Bash(curl *)\"]\n")
	await(t, changes, "the fixed file", func(sn *Snapshot) bool {
		return hasRule(sn.Rules, "deny", "Bash(curl *)") && !hasRule(sn.Rules, "ask", "Bash(npm run build)")
	})
}

// TestLiveReloadUserFile covers the user file: created after Load, replaced
// by rename (as editors save), removed.
func TestLiveReloadUserFile(t *testing.T) {
	e := newEnv(t)
	s := e.mustLoad()
	changes, _ := subscribe(s)

	writeFile(t, e.userFile(), "permissions: {deny: [\"Read(.env*)\"]}\n")
	await(t, changes, "the new user file", func(sn *Snapshot) bool { return hasRule(sn.Rules, "deny", "Read(.env*)") })

	tmp := filepath.Join(e.userDir, ".config.yaml.swp")
	writeFile(t, tmp, "permissions: {deny: [\"Read(secrets/**)\"]}\n")
	if err := os.Rename(tmp, e.userFile()); err != nil {
		t.Fatal(err)
	}
	await(t, changes, "the renamed-over file", func(sn *Snapshot) bool {
		return hasRule(sn.Rules, "deny", "Read(secrets/**)") && !hasRule(sn.Rules, "deny", "Read(.env*)")
	})

	if err := os.Remove(e.userFile()); err != nil {
		t.Fatal(err)
	}
	sn := await(t, changes, "the removed file", func(sn *Snapshot) bool { return len(sn.Rules) == 0 })
	if len(sn.Sources) != 0 {
		t.Errorf("Sources after removal: %q", sn.Sources)
	}
}

func TestCloseStopsDelivery(t *testing.T) {
	e := newEnv(t)
	s := e.mustLoad()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if s.Snapshot() == nil {
		t.Fatal("no snapshot after Close")
	}
}

// TestSubscriberMayCallStore: callbacks run on the event goroutine, so
// they may call back into the store without deadlock.
func TestSubscriberMayCallStore(t *testing.T) {
	e := newEnv(t)
	s := e.mustLoad()
	done := make(chan string, 1)
	s.OnChange(func(sn *Snapshot) {
		if hasRule(sn.Rules, "allow", "Bash(a)") {
			_, err := s.Persist(Grant{Kind: GrantRule, Scope: ScopeWorkspace, List: "allow", Rule: "Bash(b)"})
			done <- strings.TrimSpace(strings.Join(ruleTexts(s.Snapshot().Rules), ",")) + errString(err)
		}
	})
	if err := s.ApplyEditor([]byte(`{"permissions":{"allow":["Bash(a)"]}}`)); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-done:
		if got != "workspace allow Bash(b),editor allow Bash(a)" {
			t.Errorf("got %q", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("subscriber did not run")
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return " error: " + err.Error()
}

// TestReloadSettles: a reload that finds a file emptied or broken (as a
// writer that truncates, then writes, shows for a moment) changes nothing
// until the re-check confirms it.
func TestReloadSettles(t *testing.T) {
	cases := []struct{ name, content string }{
		{"emptied", ""},
		{"broken", "permissions: {deny: [\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			writeFile(t, e.wsFile(), "permissions: {deny: [\"Bash(rm *)\"]}\n")
			s := e.mustLoad()
			_ = s.Close() // no watcher: this test drives the reloads itself
			before := s.Snapshot()
			writeFile(t, e.wsFile(), tc.content)
			if again := s.reloadFiles(false); !again {
				t.Fatal("first look did not ask for a re-check")
			}
			if s.Snapshot() != before {
				t.Fatal("first look changed the settings")
			}
			s.reloadFiles(true)
			emptiedNow := !hasRule(s.Snapshot().Rules, "deny", "Bash(rm *)")
			if wantApplied := tc.content == ""; emptiedNow != wantApplied {
				t.Errorf("after the re-check: deny rule dropped = %v, want %v", emptiedNow, wantApplied)
			}
		})
	}
}
