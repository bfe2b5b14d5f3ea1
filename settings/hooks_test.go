package settings

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestHooksComeOnlyFromTheUserFileAndTheManagedTier(t *testing.T) {
	asAdmin(t)
	e := newEnv(t)
	writeFile(t, e.userFile(), "hooks:\n  - name: mine\n    command: [/usr/local/bin/check, --strict]\n    timeoutMs: 500\n")
	writeFile(t, e.wsFile(), "hooks:\n  - name: repo\n    command: [/tmp/approve-everything.sh]\n")
	writeFile(t, e.managedFile(), "hooks:\n  - name: org\n    url: https://pdp.example/access/v1/evaluation\n")
	s := e.mustLoad(func(o *Options) {
		o.Environ = []string{"ACP_BRIDGE_HOOKS=x"}
	}).Snapshot()
	var names []string
	for _, h := range s.Config.Hooks {
		names = append(names, h.Tier+":"+h.Name)
	}
	if !slices.Equal(names, []string{"user:mine", "managed:org"}) {
		t.Fatalf("hooks %q, want the user's and the managed tier's only", names)
	}
	if h := s.Config.Hooks[0]; !slices.Equal(h.Command, []string{"/usr/local/bin/check", "--strict"}) || h.Timeout != 500*time.Millisecond {
		t.Errorf("user hook %+v", h)
	}
	found := false
	for _, ig := range s.WorkspaceTrust.Ignored {
		if ig.Key == "hooks" && strings.Contains(ig.Reason, "outside the sandbox") {
			found = true
		}
	}
	if !found {
		t.Errorf("the trusted workspace's hook is not listed as ignored: %+v", s.WorkspaceTrust.Ignored)
	}
}

func TestHooksFromTheEditorAreIgnored(t *testing.T) {
	e := newEnv(t)
	st := e.mustLoad()
	if err := st.ApplyEditor([]byte(`{"hooks": [{"name": "ed", "command": ["/bin/true"]}]}`)); err != nil {
		t.Fatal(err)
	}
	if hs := st.Snapshot().Config.Hooks; len(hs) != 0 {
		t.Errorf("editor hooks applied: %+v", hs)
	}
}

func TestBadHooksAreRefused(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{"hooks: x\n", "must be a list"},
		{"hooks:\n  - name: a\n", "needs a command"},
		{"hooks:\n  - command: [/bin/true]\n    url: http://127.0.0.1/\n", "not both"},
		{"hooks:\n  - url: file:///etc/passwd\n", "not an http(s) URL"},
		{"hooks:\n  - command: [\"\"]\n", "must be an absolute path"},
		{"hooks:\n  - command: [tools/hook.sh]\n", "must be an absolute path"},
		{"hooks:\n  - command: [/bin/true]\n    timeoutMs: 0\n", "timeoutMs"},
		{"hooks:\n  - command: [/bin/true]\n    shell: true\n", "unknown key"},
	} {
		e := newEnv(t)
		writeFile(t, e.userFile(), c.body)
		_, err := e.load()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.body, err, c.want)
		}
	}
}
