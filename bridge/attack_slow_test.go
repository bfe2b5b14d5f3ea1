package bridge

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/internal/testkit"
)

// RT1: with the documented example deny rules (Read(~/.ssh/**),
// Read(.env*)), one fs/read_text_file whose path has many components costs
// the policy time quadratic in their number: "/a" 10,000 times (20 KB) 0.4 s,
// 100,000 times (200 KB, far below the 64 MiB line limit) about 40 s of CPU.
// Four requests of 120 KB pinned both cores here for 70 s. Without those
// rules the same requests take about a second.
func TestAttackManyComponentPathDecisionIsQuadratic(t *testing.T) {
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
	t0 := time.Now()
	if _, err := h.editor.Prompt(tctx(t), sid, `call fs/read_text_file {"sessionId":"$SID","path":"`+p+`"}`); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(t0); d > 3*time.Second {
		t.Fatalf("one fs/read_text_file of a %d KB path took %v to decide", len(p)>>10, d)
	}
}
