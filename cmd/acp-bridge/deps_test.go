package main

import (
	"os/exec"
	"strings"
	"testing"
)

// The bridge carries neither OPA nor OpenTelemetry: they run in the
// companion (cmd/acp-bridge-org), which only a bridge whose settings name
// them starts (docs/org.md). A bridge that imports them again pays their
// memory whether it uses them or not.
func TestBridgeImportsNoFleetEngine(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 50 {
		t.Fatalf("go list -deps listed %d packages: not the bridge's", len(deps))
	}
	for _, d := range deps {
		for _, banned := range []string{"github.com/open-policy-agent/", "go.opentelemetry.io/", "google.golang.org/grpc"} {
			if strings.HasPrefix(d, banned) {
				t.Errorf("the bridge imports %s", d)
			}
		}
	}
	// The companion does import them: the check above can fail.
	out, err = exec.Command("go", "list", "-deps", "../acp-bridge-org").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	if !strings.Contains(string(out), "github.com/open-policy-agent/opa/v1/sdk") || !strings.Contains(string(out), "go.opentelemetry.io/otel/sdk/log") {
		t.Errorf("the companion does not import OPA's SDK and OTel's: the control is wrong")
	}
}
