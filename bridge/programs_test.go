package bridge

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/internal/testkit"
)

// What runs outside every sandbox with the bridge's rights (Options.Programs:
// its own executable and its companion) is a protected place for the policy
// too: in acceptEdits, which writes workspace files without asking, a write
// that would plant the companion beside a bridge built into the workspace
// gets a breaker's card (red team 11). The control, without Programs, writes.
func TestBridgeProgramsAreProtectedPlaces(t *testing.T) {
	for _, protected := range []bool{true, false} {
		t.Run(fmt.Sprintf("protected=%v", protected), func(t *testing.T) {
			var companion string
			h := start(t, "defaultAgent: f\npermissions: {defaultMode: acceptEdits}\nagents:\n"+testkit.FakeAgentYAML("f"), func(o *Options) {
				companion = filepath.Join(o.WorkspaceDir, "bin", "acp-bridge-org")
				if protected {
					o.Programs = []string{filepath.Join(o.WorkspaceDir, "bin", "acp-bridge"), companion}
				}
			})
			if err := os.MkdirAll(filepath.Dir(companion), 0o755); err != nil {
				t.Fatal(err)
			}
			h.editor.OnRequest = func(method string, params json.RawMessage) (any, error) {
				if method == acp.MethodFSWriteTextFile {
					var p struct{ Path, Content string }
					_ = json.Unmarshal(params, &p)
					return map[string]any{}, os.WriteFile(p.Path, []byte(p.Content), 0o755)
				}
				return nil, acp.MethodNotFound(method)
			}
			h.init(true)
			sid := h.session("")
			res := make(chan error, 1)
			go func() { _, err := h.editor.Prompt(tctx(t), sid, "write "+companion+" planted"); res <- err }()
			if protected {
				perm, err := h.editor.NextPermission(tctx(t))
				if err != nil {
					t.Fatal(err)
				}
				if perm.Meta.Source != "breaker" {
					t.Errorf("card source %q reason %q, want a breaker", perm.Meta.Source, perm.Meta.Reason)
				}
				perm.Answer(acp.Selected("acp-bridge:reject_once"))
			}
			if err := <-res; err != nil {
				t.Fatal(err)
			}
			_, err := os.Stat(companion)
			switch {
			case protected && err == nil:
				t.Fatalf("the companion was planted beside the bridge")
			case !protected && err != nil:
				t.Fatalf("control: the write did not happen (%v): the test proves nothing", err)
			}
		})
	}
}
