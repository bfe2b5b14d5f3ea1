package bridge

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/internal/testkit"
	"github.com/acp-bridge/acp-bridge/sandbox"
)

// createdNotices are the protectedCreated notices of a session so far.
func createdNotices(ms []testkit.Message, sid string) []string {
	var out []string
	for _, m := range ms {
		if m.Method == acp.MethodSessionUpdate && strings.Contains(string(m.Params), `"notice":"protectedCreated"`) && strings.Contains(string(m.Params), sid) {
			out = append(out, string(m.Params))
		}
	}
	return out
}

// A turn in which the agent creates protected files that did not exist
// (git init with a hook, VS Code tasks): before the turn's answer the chat
// gets a notice naming each; a later turn does not repeat it; a file that
// existed at the start is never named.
func TestCreatedProtectedFilesAreNamed(t *testing.T) {
	h := start(t, "defaultAgent: plain\nagents:\n"+testkit.FakeAgentYAML("plain", "--modes=none"))
	h.init(false)
	if err := os.WriteFile(filepath.Join(h.ws, ".mcp.json"), []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	sid := h.session("")
	ctx := tctx(t)
	if _, err := h.editor.Prompt(ctx, sid, "run mkdir -p .git/hooks .vscode && echo x > .git/config && echo '{}' > .vscode/tasks.json && echo '{}' > .mcp.json"); err != nil {
		t.Fatal(err)
	}
	got := createdNotices(h.editor.Messages(), sid)
	if len(got) != 1 {
		t.Fatalf("want one protectedCreated notice before the answer, got %d: %v", len(got), got)
	}
	for _, want := range []string{".git/config", ".git/hooks", "outside the sandbox"} {
		if !strings.Contains(got[0], want) {
			t.Errorf("notice lacks %q: %s", want, got[0])
		}
	}
	if sandbox.Probe().Available {
		// a missing place that runs code cannot be created in the sandbox
		// (docs/sandbox.md "Places, not files"); a repository can.
		if _, err := os.Stat(filepath.Join(h.ws, ".vscode", "tasks.json")); err == nil {
			t.Errorf(".vscode/tasks.json was created through the sandbox")
		}
	} else if !strings.Contains(got[0], ".vscode/tasks.json") {
		t.Errorf("notice lacks .vscode/tasks.json: %s", got[0])
	}
	if strings.Contains(got[0], ".mcp.json") {
		t.Errorf("a file that existed at the start is named: %s", got[0])
	}
	if _, err := h.editor.Prompt(ctx, sid, "run true"); err != nil {
		t.Fatal(err)
	}
	if n := len(createdNotices(h.editor.Messages(), sid)); n != 1 {
		t.Errorf("the notice was repeated: %d", n)
	}
	if !slices.Contains(newCreatedWatch(h.ws).missing, filepath.Join(h.ws, ".vscode", "settings.json")) {
		t.Error("a new watch still lists what is missing")
	}
}
