package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/internal/testkit"
)

// An AuthZEN hook through the real binary, whose HTTP request the
// companion (acp-bridge-org beside it) makes: the bridge starts it for
// the URL hook alone (no OPA, no telemetry). The PDP's deny holds in
// bypassPermissions; its allow answers an ask (the control: the PDP is
// consulted and its answer decides); with the companion absent from the
// bridge's directory the same hook gives no verdict and the call asks,
// naming the companion, and the PDP is never reached; that bridge tried
// to start its companion at start-up, before any consultation (the log
// says it is not running before the session opens).
func TestAuthZENHookThroughBinary(t *testing.T) {
	lonely := filepath.Join(t.TempDir(), "acp-bridge")
	data, err := os.ReadFile(binPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(lonely, data, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, bin, mode, answer string
		wantCard                bool
		wantText                string
		wantSource              string // in the audit log
		wantAsked               bool   // the PDP got the request
	}{
		{"pdp denies", binPath, "bypassPermissions", `{"decision":false,"context":{"reason":"no listing today"}}`, false, "bash=reject", "hook", true},
		{"control: pdp allows an ask", binPath, "default", `{"decision":true}`, false, "bash=allow", "hook", true},
		{"companion missing: asks", lonely, "default", `{"decision":true}`, true, "bash=reject", "hook-no-verdict", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			var asked atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body)
				asked.Add(1)
				_, _ = io.WriteString(w, c.answer)
			}))
			defer srv.Close()
			home := t.TempDir()
			audit := filepath.Join(home, "audit.jsonl")
			cfg := fmt.Sprintf("defaultAgent: f\naudit: {path: %q}\npermissions: {defaultMode: %s}\nhooks:\n  - name: org-pdp\n    url: %s/access/v1/evaluation\n    timeoutMs: 20000\nagents:\n%s",
				audit, c.mode, srv.URL, testkit.FakeAgentYAML("f"))
			// Run c.bin in place of binPath (the wrapper drops binPath).
			p := startBinVia(t, []string{"sh", "-c", `shift; exec "$0" "$@"`, c.bin}, home, t.TempDir(), cfg)
			if !c.wantAsked {
				// The bridge tried to start its companion at start-up, for
				// the URL hook alone (no OPA, no telemetry), before any
				// consultation.
				deadline := time.Now().Add(30 * time.Second)
				for !strings.Contains(p.stderr.String(), "acp-bridge-org is not running") {
					if time.Now().After(deadline) {
						t.Fatalf("the bridge never tried to start its companion at start-up:\n%s", p.stderr.String())
					}
					time.Sleep(50 * time.Millisecond) // a log line has no channel to await
				}
			}
			ctx, sid := p.open(t)
			cmd := "bash ls -la"
			if c.mode == "default" {
				cmd = "bash npm install left-pad" // asks in default mode
			}
			res := make(chan error, 1)
			go func() { _, err := p.editor.Prompt(ctx, sid, cmd); res <- err }()
			if c.wantCard {
				perm, err := p.editor.NextPermission(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if perm.Meta.Source != c.wantSource || !strings.Contains(perm.Meta.Reason, "org-pdp") || !strings.Contains(perm.Meta.Reason, "acp-bridge-org") {
					t.Errorf("card source %q reason %q, want %s naming the hook and the companion", perm.Meta.Source, perm.Meta.Reason, c.wantSource)
				}
				perm.Answer(acp.Selected("acp-bridge:reject_once"))
			}
			select {
			case err := <-res:
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(60 * time.Second):
				t.Fatal("the prompt did not end (a card nobody answered?)")
			}
			if !c.wantCard && len(p.editor.Permissions) != 0 {
				t.Error("a card was shown")
			}
			if got := testkit.Texts(p.editor.Messages(), sid); len(got) != 1 || got[0] != c.wantText {
				t.Errorf("texts %q, want %q", got, c.wantText)
			}
			if n := asked.Load(); (n > 0) != c.wantAsked {
				t.Errorf("the PDP got %d requests, want asked=%v", n, c.wantAsked)
			}
			log, _ := os.ReadFile(audit)
			key := `"source":"`
			if c.wantCard {
				key = `"askedBy":"` // the person decided; the hook asked
			}
			if !strings.Contains(string(log), key+c.wantSource+`"`) || !strings.Contains(string(log), "org-pdp") {
				t.Errorf("audit log lacks the hook's %s record:\n%s", c.wantSource, log)
			}
		})
	}
}
