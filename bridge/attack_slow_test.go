package bridge

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/internal/testkit"
)

// Red team 1: a path of 60,000 components (117 KB) in fs/read_text_file,
// under the docs' own example deny rules, took the policy 42 s of CPU to
// decide (quadratic in components): an agent could pin the cores and make
// any decision slow enough to race a cancel or a settings change. A path
// longer than the system opens (policy.MaxPathLen) is now refused as bad
// input before anything reads it, and the editor never sees it.
func TestAttackOverlongPathIsRefusedUnread(t *testing.T) {
	h := start(t, "defaultAgent: alpha\nsandbox: {enabled: false}\npermissions: {deny: [\"Read(~/.ssh/**)\", \"Read(.env*)\"]}\nagents:\n"+testkit.FakeAgentYAML("alpha"))
	h.editor.OnRequest = func(method string, params json.RawMessage) (any, error) {
		if method == acp.MethodFSReadTextFile {
			return map[string]any{"content": "x"}, nil
		}
		return nil, acp.MethodNotFound(method)
	}
	h.init(true)
	sid := h.session("")
	p := h.ws + strings.Repeat("/a", 60000)
	if _, err := h.editor.Prompt(tctx(t), sid, `call fs/read_text_file {"sessionId":"$SID","path":"`+p+`"}`); err != nil {
		t.Fatal(err)
	}
	got := testkit.Texts(h.editor.Messages(), sid)
	if len(got) != 1 || !strings.HasPrefix(got[0], "call=-32602") || !strings.Contains(got[0], "the system opens no path longer than 4096") {
		t.Fatalf("the agent got %q: want -32602 naming the length bound", got)
	}
	for _, m := range h.editor.Messages() {
		if m.Method == acp.MethodFSReadTextFile || m.Method == acp.MethodRequestPermission {
			t.Fatalf("an overlong path reached the editor: %s", m.Method)
		}
	}
}
