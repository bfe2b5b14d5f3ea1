package bridge

import (
	"encoding/json"
	"testing"

	"github.com/acp-bridge/acp-bridge/acp"
)

// termCreate is a terminal/create as the editor receives it.
type termCreate struct {
	Command string   `json:"command"`
	Args    []string `json:"args"`
	Cwd     string   `json:"cwd"`
	Env     []struct{ Name, Value string }
}

// argv is the command and its arguments.
func (c termCreate) argv() []string { return append([]string{c.Command}, c.Args...) }

// serveTerminals makes h's editor offer terminals and initializes it so:
// each terminal/create is handed to onCreate (on the editor's handler
// goroutine: onCreate guards what it records) and answered with terminal
// t1; terminal/output answers an empty output.
func serveTerminals(t *testing.T, h *harness, onCreate func(termCreate)) {
	t.Helper()
	h.editor.OnRequest = func(method string, params json.RawMessage) (any, error) {
		switch method {
		case acp.MethodTerminalCreate:
			var p termCreate
			_ = json.Unmarshal(params, &p)
			onCreate(p)
			return map[string]string{"terminalId": "t1"}, nil
		case acp.MethodTerminalOutput:
			return map[string]any{"output": "", "truncated": false}, nil
		}
		return nil, acp.MethodNotFound(method)
	}
	if _, err := h.editor.Initialize(tctx(t), false, true); err != nil {
		t.Fatal(err)
	}
}
