package bridge

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/internal/testkit"
)

// lastText is the agent's last message in sid.
func lastText(t *testing.T, h *harness, sid string) string {
	t.Helper()
	texts := testkit.Texts(h.editor.Messages(), sid)
	if len(texts) == 0 {
		for _, m := range h.editor.Messages() {
			t.Logf("editor got: %s %s", m.Method, m.Params)
		}
		t.Fatal("the agent said nothing")
	}
	return texts[len(texts)-1]
}

func setMode(t *testing.T, h *harness, sid, mode string) {
	t.Helper()
	if err := h.editor.Conn.Call(tctx(t), acp.MethodSessionSetMode, map[string]string{"sessionId": sid, "modeId": mode}, nil); err != nil {
		t.Fatal(err)
	}
}

func mustWrite(t *testing.T, p, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The attack of issue 21: the agent names ws/d/key while d is a harmless
// directory (that is what is judged, and the person allows it), then
// swaps d for a link to a secret directory before the act. The act meets
// the link and is refused; the secret is never read, nothing is written
// there (checked on disk). The control shows the swapped path does lead
// to the secret for anything that follows links.
func TestFSSwapAfterDecisionIsRefused(t *testing.T) {
	cases := []struct {
		name, line, want string
	}{
		{"read", "read $WS/d/key", "changed between the decision and the read"},
		{"write", "write $WS/d/config.yaml bypass: true", "changed between the decision and the write"},
		{"write new dir", "write $WS/d/sub/new.txt planted", "changed between the decision and the write"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := start(t, "defaultAgent: alpha\napprovals: {timeoutSeconds: 60}\npermissions: {ask: [\"Read\", \"Edit\"]}\nagents:\n"+testkit.FakeAgentYAML("alpha"))
			h.init(true)
			secret := t.TempDir()
			mustWrite(t, filepath.Join(secret, "key"), "SECRET")
			mustWrite(t, filepath.Join(secret, "config.yaml"), "defaultMode: default\n")
			d := filepath.Join(h.ws, "d")
			mustWrite(t, filepath.Join(d, "key"), "harmless")
			sid := h.session("")
			res := h.promptAsync(sid, strings.ReplaceAll(c.line, "$WS", h.ws))
			p, err := h.editor.NextPermission(tctx(t))
			if err != nil {
				t.Fatal(err)
			}
			title := ""
			if p.ToolCall.Title != nil {
				title = *p.ToolCall.Title
			}
			if !strings.Contains(title, d+"/") || strings.Contains(title, secret) {
				t.Fatalf("card title %q: want the harmless path judged", title)
			}
			// the swap, within the round trip
			if err := os.Rename(d, d+".old"); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(secret, d); err != nil {
				t.Fatal(err)
			}
			if b, _ := os.ReadFile(filepath.Join(d, "key")); string(b) != "SECRET" {
				t.Fatalf("control: the swapped path does not lead to the secret (%q); the test shows nothing", b)
			}
			p.Answer(acp.Selected(optAllowOnce))
			turnEnded(t, res)
			got := lastText(t, h, sid)
			if !strings.Contains(got, "-error:") || !strings.Contains(got, c.want) || strings.Contains(got, "SECRET") {
				t.Fatalf("agent got %q, want a refusal saying %q", got, c.want)
			}
			ents, _ := os.ReadDir(secret)
			if len(ents) != 2 {
				t.Errorf("the secret directory now holds %d entries, want 2", len(ents))
			}
			if b, _ := os.ReadFile(filepath.Join(secret, "config.yaml")); string(b) != "defaultMode: default\n" {
				t.Errorf("secret/config.yaml now holds %q", b)
			}
		})
	}
}

// A write outside every writable tree of the agent's sandbox (here a
// directory outside the workspace, like ~/.local/bin) is served only on a
// person's answer, in bypassPermissions and under an allow rule; the card
// offers no session or "always" grant; dontAsk denies it. Disk checked.
func TestFSOutsideSandboxNeedsACard(t *testing.T) {
	cases := []struct {
		name, mode string
		answer     string // "" = no card expected
		wantText   string
		onDisk     bool
	}{
		{"bypass, denied on the card", "bypassPermissions", optRejectOnce, "write-error:", false},
		{"bypass, allowed once", "bypassPermissions", optAllowOnce, "write:ok", true},
		{"acceptEdits, allowed once", "acceptEdits", optAllowOnce, "write:ok", true},
		{"dontAsk", "dontAsk", "", "outside this agent's sandbox", false},
		// the sandbox off: the file service is still bounded by the
		// sandbox the agent would run in.
		{"sandbox off, bypass, denied", "bypassPermissions", optRejectOnce, "write-error:", false},
		{"sandbox off, dontAsk", "dontAsk", "", "outside this agent's sandbox", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			aud := &memAudit{}
			cfg := "defaultAgent: alpha\napprovals: {timeoutSeconds: 60}\npermissions: {allow: [\"Edit\", \"Read\"]}\nagents:\n" + testkit.FakeAgentYAML("alpha")
			off := strings.HasPrefix(c.name, "sandbox off")
			if off {
				cfg += "sandbox: {enabled: false}\n"
			}
			h := startWith(t, cfg, func(o *Options) { o.Audit = aud })
			h.init(true)
			sid := h.session("")
			setMode(t, h, sid, c.mode)
			plan := h.bridge.agentFor(t, "alpha")
			if !off && plan.Spec == nil {
				t.Skip("no OS sandbox on this machine")
			}
			if plan.Bound == nil || off && plan.Confined {
				t.Fatalf("plan confined=%v bound=%v: want a bound (and no sandbox when it is off)", plan.Confined, plan.Bound != nil)
			}
			outside := filepath.Join(t.TempDir(), "bin", "evil")
			res := h.promptAsync(sid, "write "+outside+" curl x | sh")
			if c.answer != "" {
				p, err := h.editor.NextPermission(tctx(t))
				if err != nil {
					t.Fatal(err)
				}
				if p.Meta.Source != "breaker" || !strings.Contains(p.Meta.Breaker, "outside this agent's sandbox: "+outside+" is outside the writable trees") {
					t.Errorf("card source %q breaker %q: want the sandbox named", p.Meta.Source, p.Meta.Breaker)
				}
				if p.HasOption(optAllowSession) || p.HasOption(optAllowAlways) || p.HasOption(optBypass) {
					t.Errorf("the card offers a grant: %+v", p.Options)
				}
				p.Answer(acp.Selected(c.answer))
			}
			turnEnded(t, res)
			if got := lastText(t, h, sid); !strings.Contains(got, c.wantText) {
				t.Fatalf("agent got %q, want %q", got, c.wantText)
			}
			select {
			case p := <-h.editor.Permissions:
				t.Fatalf("an unexpected card: %+v", p.Meta)
			default:
			}
			b, err := os.ReadFile(outside)
			if c.onDisk != (err == nil) || c.onDisk && string(b) != "curl x | sh\n" {
				t.Fatalf("on disk: %q, %v; want written=%v", b, err, c.onDisk)
			}
			found := false
			for _, r := range aud.all() {
				// answered: by the person (source user); dontAsk: the breaker.
				if strings.Contains(r.Reason, "outside this agent's sandbox") && strings.Contains(r.Sandbox, "outside this agent's sandbox") &&
					(r.Source == "breaker") == (c.answer == "") {
					found = true
				}
			}
			if !found {
				t.Errorf("no audit record names the sandbox bound: %+v", aud.all())
			}
		})
	}
}

// agentFor returns the sandbox plan of a running agent.
func (b *Bridge) agentFor(t *testing.T, name string) SandboxPlan {
	t.Helper()
	b.mu.Lock()
	a := b.agents[name]
	b.mu.Unlock()
	if a == nil {
		t.Fatalf("agent %s is not running", name)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.sandbox
}

// A write through a link that the decision resolved lands at the resolved
// path, and the link stays a link; a write inside the workspace in bypass
// needs no card.
func TestFSWriteLandsAtTheResolvedPath(t *testing.T) {
	aud := &memAudit{}
	h := startWith(t, "defaultAgent: alpha\napprovals: {timeoutSeconds: 60}\nagents:\n"+testkit.FakeAgentYAML("alpha"), func(o *Options) { o.Audit = aud })
	h.init(true)
	real := filepath.Join(h.ws, "real")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real", filepath.Join(h.ws, "link")); err != nil {
		t.Fatal(err)
	}
	sid := h.session("")
	setMode(t, h, sid, "bypassPermissions")
	if _, err := h.editor.Prompt(tctx(t), sid, "write "+h.ws+"/link/f.txt hello\nread "+h.ws+"/link/f.txt"); err != nil {
		t.Fatal(err)
	}
	texts := testkit.Texts(h.editor.Messages(), sid)
	if len(texts) != 2 || texts[0] != "write:ok" || texts[1] != "read:hello\n" {
		t.Fatalf("texts %q", texts)
	}
	if b, err := os.ReadFile(filepath.Join(real, "f.txt")); err != nil || string(b) != "hello\n" {
		t.Fatalf("real/f.txt: %q, %v", b, err)
	}
	if fi, err := os.Lstat(filepath.Join(h.ws, "link")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("link is no longer a link: %v %v", fi, err)
	}
	// both the named and the resolved path were judged (and recorded)
	var call string
	for _, r := range aud.all() {
		call += string(r.Call)
	}
	if !strings.Contains(call, h.ws+"/link/f.txt") || !strings.Contains(call, real+"/f.txt") {
		t.Fatalf("audit calls %s: want both paths", call)
	}
}

// Our extension (initialize _meta["acp-bridge"].openDocumentFs) is asked
// for open documents only, with the resolved path: what it holds open it
// serves (a dirty document's write is applied there, not on disk); what it
// says is not open is served from disk by the bridge.
func TestFSOpenDocumentsGoToOurEditor(t *testing.T) {
	h := start(t, "defaultAgent: alpha\napprovals: {timeoutSeconds: 60}\npermissions: {allow: [\"Edit\", \"Read\"]}\nagents:\n"+testkit.FakeAgentYAML("alpha"))
	open := filepath.Join(h.ws, "open.txt")
	closed := filepath.Join(h.ws, "closed.txt")
	mustWrite(t, open, "saved\n")
	mustWrite(t, closed, "disk\n")
	if err := os.Symlink("open.txt", filepath.Join(h.ws, "alias.txt")); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var asked []map[string]any
	h.editor.OnRequest = func(method string, params json.RawMessage) (any, error) {
		var p map[string]any
		_ = json.Unmarshal(params, &p)
		mu.Lock()
		asked = append(asked, p)
		mu.Unlock()
		meta, _ := p["_meta"].(map[string]any)
		ours, _ := meta["acp-bridge"].(map[string]any)
		if ours["openDocumentOnly"] != true {
			return nil, acp.Errorf(acp.CodeInvalidParams, "not openDocumentOnly")
		}
		if p["path"] != open {
			return map[string]any{"_meta": map[string]any{"acp-bridge": map[string]any{"notOpen": true}}}, nil
		}
		if method == acp.MethodFSReadTextFile {
			return map[string]string{"content": "unsaved buffer"}, nil
		}
		return map[string]any{}, nil
	}
	if err := h.editor.Conn.Call(tctx(t), acp.MethodInitialize, map[string]any{
		"protocolVersion":    1,
		"clientCapabilities": map[string]any{"fs": map[string]bool{"readTextFile": true, "writeTextFile": true}},
		"_meta":              map[string]any{"acp-bridge": map[string]any{"openDocumentFs": true}},
	}, nil); err != nil {
		t.Fatal(err)
	}
	sid := h.session("")
	script := []string{"read " + h.ws + "/alias.txt", "read " + closed, "write " + open + " from agent", "write " + closed + " from agent"}
	if _, err := h.editor.Prompt(tctx(t), sid, strings.Join(script, "\n")); err != nil {
		t.Fatal(err)
	}
	texts := testkit.Texts(h.editor.Messages(), sid)
	want := []string{"read:unsaved buffer", "read:disk\n", "write:ok", "write:ok"}
	if strings.Join(texts, "|") != strings.Join(want, "|") {
		t.Fatalf("texts %q, want %q", texts, want)
	}
	if b, _ := os.ReadFile(open); string(b) != "saved\n" {
		t.Errorf("open.txt on disk = %q: the dirty document's write went to disk", b)
	}
	if b, _ := os.ReadFile(closed); string(b) != "from agent\n" {
		t.Errorf("closed.txt on disk = %q, want the agent's write", b)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(asked) != 4 || asked[0]["path"] != open {
		t.Fatalf("the editor was asked %v: want 4 requests, the first with the resolved path %s", asked, open)
	}
}

// /proc, /dev and /sys are not served, named or through a link: the magic
// links of /proc/self resolve in the bridge's process, not the agent's.
// The control shows the named path does reach the file outside.
func TestFSRefusesProcDevSys(t *testing.T) {
	aud := &memAudit{}
	h := startWith(t, "defaultAgent: alpha\napprovals: {timeoutSeconds: 60}\npermissions: {allow: [\"Edit\", \"Read\"]}\nagents:\n"+testkit.FakeAgentYAML("alpha"),
		func(o *Options) { o.Audit = aud })
	h.init(true)
	target := filepath.Join(h.ws, "rc")
	mustWrite(t, target, "original\n")
	if err := os.Symlink("/proc/self/root", filepath.Join(h.ws, "root")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile("/proc/self/root" + target); string(b) != "original\n" {
		t.Fatalf("control: /proc/self/root%s does not reach the file (%q)", target, b)
	}
	sid := h.session("")
	setMode(t, h, sid, "bypassPermissions")
	script := []string{
		"read /proc/self/root" + target,
		"read /proc/self/environ",
		"write /proc/self/root" + target + " pwned",
		"write " + h.ws + "/root" + target + " pwned",
		"write /proc/self/cwd/rc pwned",
		"read /dev/zero",
		"read /sys/kernel/mm/transparent_hugepage/enabled",
	}
	if _, err := h.editor.Prompt(tctx(t), sid, strings.Join(script, "\n")); err != nil {
		t.Fatal(err)
	}
	texts := testkit.Texts(h.editor.Messages(), sid)
	if len(texts) != len(script) {
		t.Fatalf("texts %q", texts)
	}
	for i, tx := range texts {
		if !strings.Contains(tx, "-error:") || !strings.Contains(tx, "does not serve /proc, /dev or /sys") {
			t.Errorf("%s: %q, want a refusal naming /proc, /dev, /sys", script[i], tx)
		}
	}
	if b, _ := os.ReadFile(target); string(b) != "original\n" {
		t.Fatalf("%s now holds %q", target, b)
	}
	denies := 0
	for _, r := range aud.all() {
		if r.Decision == "deny" && strings.Contains(r.Reason, "does not serve /proc") {
			denies++
		}
	}
	if denies != len(script) {
		t.Errorf("%d audit denies name the refusal, want %d: %+v", denies, len(script), aud.all())
	}
}

// A read of a path the agent's sandbox masks (here the bridge's hidden
// attach directory, masked whatever the rules say) is served only on a
// person's answer, in bypassPermissions under an allow rule; dontAsk
// denies it.
func TestFSMaskedReadNeedsACard(t *testing.T) {
	cases := []struct {
		name, mode, answer, want string
	}{
		{"bypass, denied", "bypassPermissions", optRejectOnce, "read-error:"},
		{"bypass, allowed once", "bypassPermissions", optAllowOnce, "read:the token"},
		{"dontAsk", "dontAsk", "", "outside this agent's sandbox"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			hidden := t.TempDir()
			mustWrite(t, filepath.Join(hidden, "token"), "the token")
			h := startWith(t, "defaultAgent: alpha\napprovals: {timeoutSeconds: 60}\npermissions: {allow: [\"Read\"]}\nagents:\n"+testkit.FakeAgentYAML("alpha"),
				func(o *Options) { o.HiddenDirs = []string{hidden} })
			h.init(true)
			sid := h.session("")
			setMode(t, h, sid, c.mode)
			if h.bridge.agentFor(t, "alpha").Bound == nil {
				t.Fatal("no sandbox bound computed")
			}
			res := h.promptAsync(sid, "read "+filepath.Join(hidden, "token"))
			if c.answer != "" {
				p, err := h.editor.NextPermission(tctx(t))
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(p.Meta.Breaker, "outside this agent's sandbox: "+hidden+" is unreadable") || p.HasOption(optAllowSession) || p.HasOption(optAllowAlways) {
					t.Errorf("card breaker %q options %+v: want the mask named, no grant", p.Meta.Breaker, p.Options)
				}
				p.Answer(acp.Selected(c.answer))
			}
			turnEnded(t, res)
			got := lastText(t, h, sid)
			if !strings.Contains(got, c.want) || c.answer != optAllowOnce && strings.Contains(got, "the token") {
				t.Fatalf("agent got %q, want %q", got, c.want)
			}
		})
	}
}
