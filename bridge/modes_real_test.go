package bridge

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/policy"
)

// The real Claude Agent ACP adapter (npm @agentclientprotocol/claude-agent-acp),
// offline: it starts its sessions in its own `auto`; the bridge puts it in
// `default` and shows the editor its own modes. Runs when
// ACP_BRIDGE_CLAUDE_ACP names the adapter's dist/index.js (node on PATH).
func TestRealClaudeIsKeptAsking(t *testing.T) {
	js := os.Getenv("ACP_BRIDGE_CLAUDE_ACP")
	if js == "" {
		t.Skip("ACP_BRIDGE_CLAUDE_ACP (path of claude-agent-acp's dist/index.js) not set")
	}
	home := t.TempDir()
	h := start(t, fmt.Sprintf("defaultAgent: claude\nagents:\n  claude:\n    command: node\n    args: [%q]\n    initTimeoutSeconds: 60\n"+
		"    env: {IS_SANDBOX: \"1\", HOME: %q, ANTHROPIC_API_KEY: sk-fake, ANTHROPIC_BASE_URL: \"http://127.0.0.1:9\"}\n", js, home))
	h.init(false)
	res := h.newSession("claude")
	if want := (childModeReport{Asking: true, Mode: "default", Via: "config_option"}); res.Meta["acp-bridge"].ChildMode != want {
		t.Fatalf("childMode = %+v, want %+v", res.Meta["acp-bridge"].ChildMode, want)
	}
	if res.Modes.CurrentModeID != "default" || len(res.Modes.AvailableModes) != 5 {
		t.Fatalf("modes = %+v", res.Modes)
	}
	if o := optionByID(res.ConfigOptions, "mode"); o == nil || o["currentValue"] != "default" || len(o["options"].([]any)) != 5 {
		t.Fatalf("mode option = %v", o)
	}
	if optionByID(res.ConfigOptions, "model") == nil {
		t.Fatalf("the model option did not pass: %v", res.ConfigOptions)
	}
	ctx := tctx(t)
	err := h.editor.Conn.Call(ctx, acp.MethodSessionSetMode, map[string]string{"sessionId": res.SessionID, "modeId": "auto"}, nil)
	var ae *acp.Error
	if !errors.As(err, &ae) || ae.Code != acp.CodeInvalidParams || !strings.Contains(ae.Message, "acp-bridge's modes are") {
		t.Fatalf("set_mode auto: %v", err)
	}
	if err := h.editor.Conn.Call(ctx, acp.MethodSessionSetMode, map[string]string{"sessionId": res.SessionID, "modeId": "bypassPermissions"}, nil); err != nil {
		t.Fatal(err)
	}
	s, _ := h.bridge.session(res.SessionID)
	if got := h.bridge.effectiveMode(s); got != policy.ModeBypass {
		t.Fatalf("bridge mode %s", got)
	}
	if st := s.childState(); st.current != "default" {
		t.Fatalf("the child is in %q", st.current)
	}
}
