package telemetry

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/bridge"
	"github.com/acp-bridge/acp-bridge/internal/audit"
	"github.com/acp-bridge/acp-bridge/internal/testkit"
	"github.com/acp-bridge/acp-bridge/settings"
	"github.com/acp-bridge/acp-bridge/wire"
)

func TestMain(m *testing.M) {
	testkit.ServeFakeAgentIfChild()
	os.Exit(m.Run())
}

// TestBridgeDecisionsReachTheCollector runs the real bridge with a fake
// agent and an editor over pipes, the audit log wrapped by Tee as
// cmd/acp-bridge does: a deny rule decides a permission request made in a
// prompt that carries a traceparent, and the Collector's export holds the
// event with every field equal to the JSONL audit line's.
func TestBridgeDecisionsReachTheCollector(t *testing.T) {
	const tp = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	t.Setenv("OTEL_SERVICE_NAME", "acp-bridge-test")
	t.Setenv("OTEL_RESOURCE_ATTRIBUTES", "deployment.environment=ci")
	col := newCollector(t)
	ws, userDir := t.TempDir(), t.TempDir()
	cfg := filepath.Join(userDir, "config.yaml")
	if err := os.WriteFile(cfg, []byte("defaultAgent: alpha\npermissions:\n  deny: [\"Bash(touch d1)\"]\nagents:\n"+testkit.FakeAgentYAML("alpha")), 0o600); err != nil {
		t.Fatal(err)
	}
	store, err := settings.Load(settings.Options{ConfigFile: cfg, UserConfigDir: userDir, WorkspaceDir: ws, Environ: []string{}, Executable: os.Args[0]})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	sink, err := New(t.Context(), Config{Telemetry: settings.Telemetry{Enabled: true, Endpoint: "http://" + col.http}, Version: "9.9.9", ExportInterval: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer sink.Shutdown(context.Background())
	auditPath := filepath.Join(userDir, "audit.jsonl")
	al, err := audit.Open(auditPath, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer al.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	b := bridge.New(bridge.Options{Settings: store, Logger: zap.NewNop(), Version: "test", WorkspaceDir: ws, Audit: Tee(al, sink),
		Telemetry:   &wire.TelemetryStatus{Enabled: true, Endpoint: sink.Endpoint, Protocol: sink.Protocol},
		InitTimeout: 5 * time.Second, StopTimeout: 5 * time.Second})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = b.Serve(ctx, inR, outW)
		_ = outW.Close()
	}()
	defer func() {
		cancel()
		_ = inW.Close()
		<-done
	}()
	ed := testkit.NewEditor(ctx, outR, inW)
	initRes, err := ed.Initialize(ctx, false, false)
	if err != nil {
		t.Fatal(err)
	}
	var ini struct {
		Meta map[string]struct {
			Telemetry struct {
				Enabled  bool   `json:"enabled"`
				Endpoint string `json:"endpoint"`
			} `json:"telemetry"`
		} `json:"_meta"`
	}
	if err := json.Unmarshal(initRes, &ini); err != nil {
		t.Fatal(err)
	}
	if tl := ini.Meta[acp.MetaKey].Telemetry; !tl.Enabled || tl.Endpoint != "http://"+col.http+"/v1/logs" {
		t.Errorf("initialize says telemetry %+v, want enabled to http://%s/v1/logs", tl, col.http)
	}
	sid, err := ed.NewSession(ctx, ws, "")
	if err != nil {
		t.Fatal(err)
	}
	var res acp.PromptResponse
	if err := ed.Conn.Call(ctx, acp.MethodSessionPrompt, map[string]any{
		"sessionId": sid, "prompt": []map[string]string{{"type": "text", "text": "perm d1"}}, "_meta": map[string]any{"traceparent": tp},
	}, &res); err != nil {
		t.Fatal(err)
	}

	var line audit.Record
	if err := audit.Read(auditPath, audit.Filter{}, func(r audit.Record) error {
		if r.ToolCallID == "d1" {
			line = r
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if line.Decision != "deny" || line.Rule != "Bash(touch d1)" || line.RuleFile != cfg || line.RuleTier == "" || line.Traceparent != tp || line.SessionID != sid {
		t.Fatalf("audit line %+v", line)
	}
	flush(t, sink, 30*time.Second)
	all := col.awaitRecords(30*time.Second, func(e []exported) bool {
		got, _ := byApproval(e)
		_, ok := got[line.ApprovalID]
		return ok
	})
	got, n := byApproval(all)
	e, ok := got[line.ApprovalID]
	if !ok || n[line.ApprovalID] != 1 {
		t.Fatalf("approval %s exported %d times", line.ApprovalID, n[line.ApprovalID])
	}
	checkEvent(t, e, line, "rule", false)
	if e.Attrs["tool_name"] != "Bash" || e.Attrs["acp_bridge.rule.file"] != cfg {
		t.Errorf("event %v", e.Attrs)
	}
}
