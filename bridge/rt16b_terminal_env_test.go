package bridge

import (
	"strings"
	"sync"
	"testing"

	"github.com/acp-bridge/acp-bridge/internal/testkit"
)

// TestRT16bTerminalEnvNamesConfig (red team 16b, finding 7): terminal/create's
// env is judged as assignments in front of the command (clientops.go), so
// the policy's table of variables that name configuration, code or output
// (policy/shell_env_files.go) holds there too: under an allow-all rule in
// dontAsk, {command: git, args: [status], env: [{OPENSSL_CONF: ...}]} is denied and never
// reaches the editor. Control: the same request with LANG=C (and FOO=1)
// reaches it.
func TestRT16bTerminalEnvNamesConfig(t *testing.T) {
	h := start(t, "defaultAgent: alpha\npermissions: {defaultMode: dontAsk, allow: [\"Bash\"]}\nagents:\n"+testkit.FakeAgentYAML("alpha"))
	var mu sync.Mutex
	var got []string
	serveTerminals(t, h, func(p termCreate) {
		// the env as sent, or moved into the sandboxed command's
		// arguments (env -- NAME=VALUE, sandbox.go).
		mu.Lock()
		for _, e := range p.Env {
			got = append(got, e.Name)
		}
		for _, a := range p.argv() {
			if n, _, ok := strings.Cut(a, "="); ok {
				got = append(got, n)
			}
		}
		mu.Unlock()
	})
	sid := h.session("")
	reached := func(name string) bool {
		t.Helper()
		call := `call terminal/create {"sessionId":"$SID","command":"git","args":["status"],"env":[{"name":"` + name + `","value":"/w/x"}]}`
		if _, err := h.editor.Prompt(tctx(t), sid, call); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		defer mu.Unlock()
		for _, n := range got {
			if n == name {
				return true
			}
		}
		return false
	}
	for _, n := range []string{"LANG", "FOO"} {
		if !reached(n) {
			t.Fatalf("control: terminal/create with %s did not reach the editor (%q): the test proves nothing; agent saw %q",
				n, got, testkit.Texts(h.editor.Messages(), sid))
		}
	}
	for _, n := range []string{"OPENSSL_CONF", "OPENSSL_MODULES", "OPENSSL_ENGINES", "WGETRC", "PSQLRC", "SSLKEYLOGFILE",
		"GNUPGHOME", "HOSTALIASES", "CURL_HOME", "HISTFILE", "GIT_CONFIG_GLOBAL", "ACME_PLUGINS"} {
		if reached(n) {
			t.Errorf("terminal/create with %s=/w/x reached the editor under dontAsk (want denied); agent saw %q",
				n, strings.Join(testkit.Texts(h.editor.Messages(), sid), " | "))
		}
	}
}
