package bridge

import (
	"strings"
	"testing"

	"github.com/acp-bridge/acp-bridge/settings"
	"github.com/acp-bridge/acp-bridge/wire"
)

// While the managed tier requires decision events, an exporter that was
// running at start-up and is not now (its companion died, and is being
// restarted) keeps agents from starting, as one that could not start does;
// running again, they start. Without the requirement nothing is refused.
func TestRequiredTelemetryDownWhileRunning(t *testing.T) {
	down := ""
	b := &Bridge{opts: Options{Telemetry: &wire.TelemetryStatus{Enabled: true, Managed: true}, TelemetryDown: func() string { return down }}}
	snap := &settings.Snapshot{Managed: &settings.Managed{}}
	snap.Config.Telemetry.Managed = true
	snap.Managed.Files = []string{"/etc/acp-bridge/managed-settings.yaml"}
	cases := []struct {
		name    string
		managed bool
		down    string
		refused bool
	}{
		{"running", true, "", false},
		{"companion died", true, "signal: killed", true},
		{"back", true, "", false},
		{"not required", false, "signal: killed", false},
	}
	for _, c := range cases {
		down = c.down
		snap.Config.Telemetry.Managed = c.managed
		err := b.requiredTelemetryDown(snap)
		if (err != nil) != c.refused {
			t.Fatalf("%s: %v, want refused %v", c.name, err, c.refused)
		}
		if err != nil && (!strings.Contains(err.Error(), "no agent starts") || !strings.Contains(err.Error(), c.down) || !strings.Contains(err.Error(), "managed-settings.yaml")) {
			t.Fatalf("%s: the refusal does not say why: %v", c.name, err)
		}
	}
}
