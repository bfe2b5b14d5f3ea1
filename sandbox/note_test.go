package sandbox

import (
	"strings"
	"testing"
)

func TestNote(t *testing.T) {
	s := &Spec{
		Writable: []string{"/w/proj", "/h/.gemini"},
		ReadOnly: []string{"/w/proj/.acp-bridge.yaml", "/w/proj/.git/hooks"},
		Masked:   []Path{{Path: "/w/proj/.env", Rule: "Read(.env*)"}, {Path: "/h/.ssh", Dir: true, Rule: "Read(~/.ssh/**)"}},
	}
	cases := []struct {
		spec      *Spec
		tool      string
		paths     []string
		viaEditor bool
		want      string
	}{
		{s, "Read", []string{".env"}, false, "will block this read: /w/proj/.env is unreadable (Read(.env*))"},
		{s, "Read", []string{"/h/.ssh/id_rsa"}, false, "/h/.ssh is unreadable"},
		{s, "Read", []string{"main.go"}, false, "except for 2 masked paths"},
		{s, "Edit", []string{".acp-bridge.yaml"}, false, "/w/proj/.acp-bridge.yaml is read-only in the sandbox"},
		{s, "Edit", []string{".git/hooks/pre-commit"}, false, "/w/proj/.git/hooks is read-only"},
		{s, "Write", []string{"/etc/hosts"}, false, "/etc/hosts is outside the writable trees"},
		{s, "Edit", []string{"src/a.go"}, false, "allowed; the OS sandbox keeps writes inside the workspace"},
		{s, "Edit", []string{".acp-bridge.yaml"}, true, "outside this agent's sandbox: /w/proj/.acp-bridge.yaml is read-only"},
		{s, "Edit", []string{"/h/.local/bin/x"}, true, "outside this agent's sandbox: /h/.local/bin/x is outside the writable trees"},
		{s, "Read", []string{"/h/.ssh/id_rsa"}, true, "outside this agent's sandbox: /h/.ssh is unreadable"},
		{s, "Edit", []string{"src/a.go"}, true, "within what this agent's sandbox permits"},
		{s, "Bash", nil, false, "keeps writes inside /w/proj, /h/.gemini and a private temp directory, keeps 2 protected paths read-only and 2 denied paths unreadable"},
		{nil, "Bash", nil, false, "no OS sandbox"},
	}
	for _, c := range cases {
		if got := Note(c.spec, c.tool, c.paths, "/w/proj", c.viaEditor); !strings.Contains(got, c.want) {
			t.Errorf("Note(%s %v editor=%v) = %q, want it to say %q", c.tool, c.paths, c.viaEditor, got, c.want)
		}
	}
}

func TestPermits(t *testing.T) {
	s := &Spec{
		Writable: []string{"/w/proj"},
		ReadOnly: []string{"/w/proj/.git/hooks"},
		Masked:   []Path{{Path: "/w/proj/.env", Rule: "Read(.env)"}, {Path: "/h/.ssh", Dir: true, Rule: "Read(~/.ssh/**)"}},
		Homes: []HomeSpec{{Dir: "/t/homes/a/codex-home",
			Copies: []HomeCopy{{From: "/h/.codex/config.toml", To: "/t/homes/a/codex-home/config.toml", ReadOnly: true}},
			Places: []HomeBind{{From: "/h/.codex/rules", To: "/t/homes/a/codex-home/rules", Dir: true}}}},
		HomesRoot: "/t/homes",
	}
	s.Writable = append(s.Writable, "/t/homes/a/codex-home")
	cases := []struct {
		op   Op
		path string
		ok   bool
		why  string
	}{
		{OpRead, "/w/proj/a.go", true, ""},
		{OpRead, "/etc/hosts", true, ""},
		{OpRead, "/w/proj/.env", false, "/w/proj/.env is unreadable (Read(.env))"},
		{OpRead, "/w/proj/.env.local", true, ""}, // a file mask covers that file only
		{OpRead, "/h/.ssh/id_rsa", false, "/h/.ssh is unreadable"},
		{OpRead, "/h/.sshx", true, ""},
		{OpWrite, "/w/proj/a.go", true, ""},
		{OpWrite, "/w/proj/.git/hooks/pre-commit", false, "/w/proj/.git/hooks is read-only"},
		{OpWrite, "/w/proj/.env", false, "/w/proj/.env is masked"},
		{OpWrite, "/h/.local/bin/x", false, "/h/.local/bin/x is outside the writable trees"},
		{OpWrite, "/w/projx/a", false, "outside the writable trees"},
		{OpWrite, "/t/homes/a/codex-home/sessions/x", true, ""},
		{OpWrite, "/t/homes/a/codex-home/config.toml", false, "config.toml is read-only"},
		{OpWrite, "/t/homes/a/codex-home/rules/evil.rules", false, "rules is read-only"},
		{OpRead, "/t/homes/a/codex-home/config.toml", true, ""},
		{OpRead, "/t/homes/b/qwen-home/settings.json", false, "another agent's private home"},
		{OpRead, "/t/homes", false, "another agent's private home"},
		{OpRead, "/t/homesx/f", true, ""},
	}
	for _, c := range cases {
		ok, why := s.Permits(c.op, c.path)
		if ok != c.ok || !strings.Contains(why, c.why) || (c.ok && why != "") {
			t.Errorf("Permits(%s, %s) = %v, %q; want %v, %q", c.op, c.path, ok, why, c.ok, c.why)
		}
	}
	var none *Spec
	if ok, _ := none.Permits(OpWrite, "/etc/passwd"); !ok {
		t.Error("a nil Spec (no sandbox) refused a write")
	}
}
