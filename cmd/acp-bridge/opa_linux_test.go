package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/internal/testkit"
	"github.com/acp-bridge/acp-bridge/orgpolicy/opatest"
)

// bundleServer serves one swappable bundle on loopback.
type bundleServer struct {
	mu   sync.Mutex
	data []byte
	rev  int
}

func (s *bundleServer) set(b []byte) {
	s.mu.Lock()
	s.data, s.rev = b, s.rev+1
	s.mu.Unlock()
}

func (s *bundleServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	data, rev := s.data, s.rev
	s.mu.Unlock()
	if data == nil || r.URL.Path != "/b/acp.tar.gz" {
		http.NotFound(w, r)
		return
	}
	tag := fmt.Sprintf(`"%d"`, rev)
	if r.Header.Get("If-None-Match") == tag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Header().Set("ETag", tag)
	_, _ = w.Write(data)
}

const opaPolicy = `package acp

default decision := "ask"

decision := {"decision": "deny", "reason": "REASON"} if {
	startswith(input.call.command, "ls")
}
`

// A real OPA, named by the managed tier, decides through the real binary:
// with no bundle yet a call asks (even in bypass); a signed bundle's deny
// holds with its reason and decision id in the audit log; a new revision
// reaches the running bridge.
func TestOPADecidesThroughBinary(t *testing.T) {
	priv, pub := opatest.Keys(t)
	srv := &bundleServer{}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	indent := "      " + strings.ReplaceAll(strings.TrimSpace(pub), "\n", "\n      ")
	managed := fmt.Sprintf("opa:\n  bundleUrl: %s/b/acp.tar.gz\n  pollMinSeconds: 1\n  pollMaxSeconds: 1\n  signingKeyId: org\n  signingKey: |\n%s\n  query: data.acp.decision\n  timeoutMs: 20000\n",
		hs.URL, indent)
	prefix := managedNS(t, map[string]string{"managed-settings.yaml": managed})
	home, ws := t.TempDir(), t.TempDir()
	audit := filepath.Join(home, "audit.jsonl")
	p := startBinVia(t, prefix, home, ws, fmt.Sprintf("defaultAgent: f\naudit: {path: %q}\npermissions: {defaultMode: bypassPermissions}\nagents:\n%s", audit, testkit.FakeAgentYAML("f")))
	c, sid := p.open(t)

	prompt := func(text string, answer string) []string {
		t.Helper()
		before := len(testkit.Texts(p.editor.Messages(), sid))
		res := make(chan error, 1)
		go func() { _, err := p.editor.Prompt(c, sid, text); res <- err }()
		if answer != "" {
			perm, err := p.editor.NextPermission(c)
			if err != nil {
				t.Fatal(err)
			}
			if perm.Meta.Source != "opa-no-verdict" {
				t.Errorf("card source %q reason %q", perm.Meta.Source, perm.Meta.Reason)
			}
			perm.Answer(acp.Selected(answer))
		}
		if err := <-res; err != nil {
			t.Fatal(err)
		}
		return testkit.Texts(p.editor.Messages(), sid)[before:]
	}

	// No bundle yet: bypassPermissions would allow; OPA has no verdict: a card.
	if got := prompt("bash ls -la", "acp-bridge:reject_once"); len(got) != 1 || got[0] != "bash=reject" {
		t.Fatalf("no bundle yet: %q", got)
	}

	srv.set(opatest.Build(t, strings.Replace(opaPolicy, "REASON", "no listing on company laptops", 1), "rev-1", priv))
	waitLog(t, p, `"revision": "rev-1"`)
	if got := prompt("bash ls -la", ""); len(got) != 1 || got[0] != "bash=reject" {
		t.Fatalf("rev-1: %q", got)
	}
	srv.set(opatest.Build(t, strings.Replace(opaPolicy, "REASON", "still no listing", 1), "rev-2", priv))
	waitLog(t, p, `"revision": "rev-2"`)
	if got := prompt("bash ls -la", ""); len(got) != 1 || got[0] != "bash=reject" {
		t.Fatalf("rev-2: %q", got)
	}
	data, _ := os.ReadFile(audit)
	for _, want := range []string{`"source":"opa"`, "no listing on company laptops", "bundle rev-1", "still no listing", "bundle rev-2", `"askedBy":"opa-no-verdict"`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("audit log lacks %s:\n%s", want, data)
		}
	}
	// OPA's decision id is its own field (the telemetry's
	// acp_bridge.opa.decision_id) on the lines OPA decided, the id its
	// reason names; an ask for want of a verdict has none.
	opaLines := 0
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var r struct{ Source, Reason, OPADecisionID string }
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("audit line %q: %v", line, err)
		}
		switch r.Source {
		case "opa":
			opaLines++
			if r.OPADecisionID == "" || !strings.Contains(r.Reason, "(decision "+r.OPADecisionID+", bundle") {
				t.Errorf("opa line: opaDecisionId %q, reason %q", r.OPADecisionID, r.Reason)
			}
		default:
			if r.OPADecisionID != "" {
				t.Errorf("a %s line has opaDecisionId %q", r.Source, r.OPADecisionID)
			}
		}
	}
	if opaLines != 2 {
		t.Errorf("%d audit lines by OPA, want 2:\n%s", opaLines, data)
	}
}

// waitLog waits for the bridge's log to say want.
func waitLog(t *testing.T, p *proc, want string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for !strings.Contains(p.stderr.String(), want) {
		select {
		case <-ctx.Done():
			t.Fatalf("the bridge's log never said %s", want)
		case <-time.After(50 * time.Millisecond):
		}
	}
}
