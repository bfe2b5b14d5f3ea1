package bridge

import (
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/internal/testkit"
	"github.com/acp-bridge/acp-bridge/policy"
)

// slowDecider is the real policy decider, except that a call whose command
// holds "SLOW" is decided first (under the settings of that moment) and
// then held until release is closed: a decision an agent made slow. The
// red team made one slow with a long path (now bounded, policy.MaxPathLen);
// the mechanisms below must hold for any slow decision.
type slowDecider struct {
	once    sync.Once
	inner   Decider
	entered chan struct{}
	release chan struct{}
}

func (d *slowDecider) Decide(req DecisionRequest) (policy.Verdict, policy.Env) {
	v, env := d.inner.Decide(req)
	if strings.Contains(req.Call.Command, "SLOW") {
		d.once.Do(func() { close(d.entered) })
		<-d.release
	}
	return v, env
}

func startSlow(t *testing.T, config string) (*harness, *slowDecider) {
	t.Helper()
	d := &slowDecider{entered: make(chan struct{}), release: make(chan struct{})}
	h := startWith(t, config, func(o *Options) { o.Decider = d })
	d.inner = newPolicyDecider(h.bridge)
	return h, d
}

// sync waits until the editor's read loop has handled everything sent
// before: a request is read after the notifications ahead of it.
func (h *harness) sync(t *testing.T) {
	t.Helper()
	if err := h.editor.Conn.Call(tctx(t), acp.MethodAgentsList, map[string]any{}, nil); err != nil {
		t.Fatal(err)
	}
}

// ACP: after session/cancel every pending permission request is answered
// cancelled. A request whose decision was under way when the person pressed
// Stop, and that the policy allowed, is answered cancelled, not allow.
func TestPermissionDecidedAcrossCancelIsCancelled(t *testing.T) {
	h, d := startSlow(t, "defaultAgent: alpha\nsandbox: {enabled: false}\npermissions: {allow: [\"Bash(cat *)\"]}\nagents:\n"+testkit.FakeAgentYAML("alpha"))
	h.init(false)
	sid := h.session("")
	// Control: the same kind of call, not slowed, is allowed.
	if _, err := h.editor.Prompt(tctx(t), sid, "bash cat main.go"); err != nil {
		t.Fatal(err)
	}
	if got := testkit.Texts(h.editor.Messages(), sid); len(got) != 1 || !strings.HasPrefix(got[0], "bash=allow") {
		t.Fatalf("control: %q", got)
	}
	res := h.promptAsync(sid, "bash cat SLOW")
	wait(t, d.entered, "the slow decision")
	if err := h.editor.Conn.Notify(tctx(t), acp.MethodSessionCancel, map[string]string{"sessionId": sid}); err != nil {
		t.Fatal(err)
	}
	h.sync(t)
	close(d.release)
	wait(t, res, "prompt")
	got := testkit.Texts(h.editor.Messages(), sid)
	if last := got[len(got)-1]; !strings.HasPrefix(last, "bash=cancelled") {
		t.Fatalf("decided across session/cancel: the agent got %q, want cancelled", last)
	}
}

// The same for a child's fs/write_text_file: nothing is written for a turn
// the person stopped, whether the request came after the cancel or while
// it was being decided.
func TestFSWriteAcrossCancelIsRefused(t *testing.T) {
	h := start(t, "defaultAgent: alpha\nsandbox: {enabled: false}\npermissions: {allow: [\"Edit\", \"Bash(touch *)\"]}\nagents:\n"+testkit.FakeAgentYAML("alpha"))
	h.init(true)
	sid := h.session("")
	after := h.ws + "/after-cancel"
	res := h.promptAsync(sid, "wait\nbash touch x\nwrite "+after+" written after the person pressed Stop")
	if err := h.editor.WaitFor(tctx(t), "waiting", func(m []testkit.Message) bool { return len(testkit.Texts(m, sid)) > 0 }); err != nil {
		t.Fatal(err)
	}
	if err := h.editor.Conn.Notify(tctx(t), acp.MethodSessionCancel, map[string]string{"sessionId": sid}); err != nil {
		t.Fatal(err)
	}
	wait(t, res, "prompt")
	texts := testkit.Texts(h.editor.Messages(), sid)
	if len(texts) < 3 || !strings.Contains(texts[1], "cancelled") || !strings.Contains(texts[2], "write-error") {
		t.Fatalf("after cancel the agent saw %q: want its permission request cancelled and its write refused", texts)
	}
	if fileExists(after) {
		t.Fatalf("the turn was cancelled, yet %s was written for the agent", after)
	}
}

// A decision holds for the settings it was made under: a deny rule the
// person adds while a call is being decided applies to that call.
func TestDenyAddedWhileDecidingHolds(t *testing.T) {
	h, d := startSlow(t, "defaultAgent: alpha\nsandbox: {enabled: false}\npermissions: {allow: [\"Bash(cat *)\"]}\nagents:\n"+testkit.FakeAgentYAML("alpha"))
	h.init(false)
	sid := h.session("")
	res := h.promptAsync(sid, "bash cat SLOW")
	wait(t, d.entered, "the slow decision")
	if err := h.editor.Conn.Notify(tctx(t), acp.MethodSettingsDidChange, map[string]any{
		"settings": map[string]any{"permissions": map[string]any{"deny": []string{"Bash(cat *)"}}},
	}); err != nil {
		t.Fatal(err)
	}
	h.sync(t)
	close(d.release)
	wait(t, res, "prompt")
	got := testkit.Texts(h.editor.Messages(), sid)
	if last := got[len(got)-1]; !strings.HasPrefix(last, "bash=reject") && !strings.HasPrefix(last, "bash=deny") {
		t.Fatalf("Bash(cat *) was denied while the call was decided, yet the agent got %q", last)
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
