package bridge

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/internal/testkit"
)

// RT1: fs/write_text_file is judged on the path's real path at decision
// time; the editor (outside every sandbox) writes it afterwards, following
// whatever link is there then. An agent that swaps a workspace file for a
// link to ~/.bashrc between the two (it may write its workspace) gets the
// editor to write the denied file. The fake editor writes as VS Code's file
// service does: through the path, following links.
func TestAttackFSWriteSymlinkSwapAfterDecision(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	bashrc := filepath.Join(home, ".bashrc")
	if err := os.WriteFile(bashrc, []byte("# original\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	h := start(t, "defaultAgent: alpha\nsandbox: {enabled: false}\npermissions: {allow: [\"Edit\"], deny: [\"Edit(~/.bashrc)\"]}\nagents:\n"+testkit.FakeAgentYAML("alpha"))
	var written atomic.Int64
	h.editor.OnRequest = func(method string, params json.RawMessage) (any, error) {
		if method == acp.MethodFSWriteTextFile {
			var p struct{ Path, Content string }
			_ = json.Unmarshal(params, &p)
			written.Add(1)
			return map[string]any{}, os.WriteFile(p.Path, []byte(p.Content), 0o644)
		}
		return nil, acp.MethodNotFound(method)
	}
	h.init(true)
	sid := h.session("")
	// Control: writing through a link to ~/.bashrc is denied.
	link := filepath.Join(h.ws, "link")
	if err := os.Symlink(bashrc, link); err != nil {
		t.Fatal(err)
	}
	if _, err := h.editor.Prompt(tctx(t), sid, "write "+link+" PWNED"); err != nil {
		t.Fatal(err)
	}
	if got := testkit.Texts(h.editor.Messages(), sid); len(got) != 1 || !strings.Contains(got[0], "write-error") {
		t.Fatalf("control: %q", got)
	}
	// The agent's own process swaps f between a file and a link, while it
	// asks the editor to write f.
	f := filepath.Join(h.ws, "f")
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			tmp := filepath.Join(h.ws, ".swap")
			_ = os.Remove(tmp)
			if i%2 == 0 {
				_ = os.WriteFile(tmp, nil, 0o644)
			} else {
				_ = os.Symlink(bashrc, tmp)
			}
			_ = os.Rename(tmp, f)
		}
	}()
	var lines []string
	for range 300 {
		lines = append(lines, "write "+f+" PWNED")
	}
	_, err := h.editor.Prompt(tctx(t), sid, strings.Join(lines, "\n"))
	close(stop)
	<-done
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(bashrc)
	t.Logf("editor wrote %d of 301 requests", written.Load())
	if strings.Contains(string(got), "PWNED") {
		t.Fatalf("Edit(~/.bashrc) is denied, yet the editor wrote it: %q", got)
	}
}

// RT1: the same for fs/read_text_file: Read(~/.ssh/**) is denied (and the
// sandbox masks it from the agent), but the editor, outside the sandbox,
// reads through a link swapped in after the decision and hands the agent
// the key.
func TestAttackFSReadSymlinkSwapAfterDecision(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	key := filepath.Join(home, ".ssh", "id_rsa")
	if err := os.MkdirAll(filepath.Dir(key), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(key, []byte("SECRETKEY"), 0o600); err != nil {
		t.Fatal(err)
	}
	h := start(t, "defaultAgent: alpha\npermissions: {allow: [\"Read\"], deny: [\"Read(~/.ssh/**)\"]}\nagents:\n"+testkit.FakeAgentYAML("alpha"))
	h.editor.OnRequest = func(method string, params json.RawMessage) (any, error) {
		if method == acp.MethodFSReadTextFile {
			var p struct{ Path string }
			_ = json.Unmarshal(params, &p)
			b, err := os.ReadFile(p.Path)
			if err != nil {
				return nil, err
			}
			return map[string]any{"content": string(b)}, nil
		}
		return nil, acp.MethodNotFound(method)
	}
	h.init(true)
	sid := h.session("")
	link := filepath.Join(h.ws, "link")
	if err := os.Symlink(key, link); err != nil {
		t.Fatal(err)
	}
	if _, err := h.editor.Prompt(tctx(t), sid, "read "+link); err != nil {
		t.Fatal(err)
	}
	if got := testkit.Texts(h.editor.Messages(), sid); len(got) != 1 || !strings.Contains(got[0], "read-error") {
		t.Fatalf("control: %q", got)
	}
	f := filepath.Join(h.ws, "f")
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			tmp := filepath.Join(h.ws, ".swap")
			_ = os.Remove(tmp)
			if i%2 == 0 {
				_ = os.WriteFile(tmp, []byte("harmless"), 0o644)
			} else {
				_ = os.Symlink(key, tmp)
			}
			_ = os.Rename(tmp, f)
		}
	}()
	var lines []string
	for range 300 {
		lines = append(lines, "read "+f)
	}
	_, err := h.editor.Prompt(tctx(t), sid, strings.Join(lines, "\n"))
	close(stop)
	<-done
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range testkit.Texts(h.editor.Messages(), sid) {
		if strings.Contains(x, "SECRETKEY") {
			t.Fatalf("Read(~/.ssh/**) is denied, yet the agent got %q through the editor", x)
		}
	}
}
