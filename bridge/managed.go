package bridge

import (
	"fmt"
	"io"
	"strings"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/policy"
	"github.com/acp-bridge/acp-bridge/settings"
	"github.com/acp-bridge/acp-bridge/wire"
)

// managedFloor is the mode a decision uses when the session's mode is one
// the managed tier forbids: its floor, else default.
func managedFloor(mg *settings.Managed) policy.Mode {
	if mg != nil && mg.ModeFloor != "" {
		return policy.Mode(mg.ModeFloor)
	}
	return policy.ModeDefault
}

// requiredTelemetryDown returns why no agent may start when the managed
// tier requires decision events and this bridge has no sink sending them
// (the exporter could not be configured or started, or the tier came to
// require them after the bridge started): nil when none is required or
// the sink runs. Fails closed: docs/org.md, "The collector".
func (b *Bridge) requiredTelemetryDown(snap *settings.Snapshot) error {
	if !snap.Config.Telemetry.Managed {
		return nil
	}
	st := b.opts.Telemetry
	switch {
	case st != nil && st.Enabled && b.opts.TelemetryDown != nil:
		if why := b.opts.TelemetryDown(); why != "" {
			return fmt.Errorf("no agent starts: the managed settings (%s) require decision events (telemetry) and their exporter is not running now: %s",
				strings.Join(snap.Managed.Files, ", "), why)
		}
		return nil
	case st != nil && st.Enabled:
		return nil
	case st != nil && st.Error != "":
		return fmt.Errorf("no agent starts: the managed settings (%s) require decision events (telemetry) and their exporter cannot start: %s",
			strings.Join(snap.Managed.Files, ", "), st.Error)
	}
	return fmt.Errorf("no agent starts: the managed settings (%s) require decision events (telemetry), which this bridge did not start with; restart it",
		strings.Join(snap.Managed.Files, ", "))
}

// sessionsBlocked says why no session may open now (session/new, load,
// resume, fork), on an agent that runs or not: the managed tier requires
// decision events and their exporter is down (red team 14: the check at an
// agent's start alone let a running agent open sessions while it was).
func (b *Bridge) sessionsBlocked(method string) error {
	if err := b.requiredTelemetryDown(b.snapshot()); err != nil {
		return acp.Errorf(acp.CodeInternalError, "%s refused: %v", method, err)
	}
	return nil
}

// managedOf is initialize's _meta["acp-bridge"].managed: the
// organisation's hand, for the editor to show as not changeable.
func managedOf(snap *settings.Snapshot) *wire.ManagedReport {
	mg := snap.Managed
	if !mg.Active() {
		return nil
	}
	r := &wire.ManagedReport{Files: mg.Files, DisableBypass: mg.DisableBypass, ManagedRulesOnly: mg.ManagedRulesOnly,
		AllowedAgents: mg.AllowedAgents, ModeFloor: mg.ModeFloor, Notes: mg.Notes}
	for _, ig := range mg.Ignored {
		r.Ignored = append(r.Ignored, wire.IgnoredSetting{Key: ig.Key, File: ig.File, Line: ig.Line, Reason: ig.Reason, Value: ig.Value})
	}
	for _, p := range mg.Problems {
		r.Problems = append(r.Problems, p.Error())
	}
	return r
}

// PrintManaged writes what the managed tier does, for the CLI: its files,
// and that it cannot be changed from here; or why no agent starts.
func PrintManaged(w io.Writer, snap *settings.Snapshot) {
	mg := snap.Managed
	if !mg.Active() {
		return
	}
	if len(mg.Problems) > 0 {
		fmt.Fprintf(w, "Managed settings are invalid; no agent starts until an administrator fixes them:\n")
		for _, p := range mg.Problems {
			fmt.Fprintf(w, "  %s\n", p.Error())
		}
		return
	}
	fmt.Fprintf(w, "Managed settings (set by your organisation; cannot be changed from here): %s\n", strings.Join(mg.Files, ", "))
	if mg.DisableBypass {
		fmt.Fprintf(w, "  bypassPermissions is disabled\n")
	}
	if mg.ModeFloor != "" {
		fmt.Fprintf(w, "  no mode looser than %s\n", mg.ModeFloor)
	}
	if mg.ManagedRulesOnly {
		fmt.Fprintf(w, "  only the managed allow rules count\n")
	}
	if mg.AllowedAgents != nil {
		fmt.Fprintf(w, "  allowed agents: %s\n", strings.Join(mg.AllowedAgents, ", "))
	}
	if tl := snap.Config.Telemetry; tl.Managed {
		fmt.Fprintf(w, "  every decision is sent to the organisation's collector at %s (OpenTelemetry)\n", tl.Endpoint)
	}
	for _, ig := range mg.Ignored {
		fmt.Fprintf(w, "  overrides %s: %s\n", ig.Loosening(), ig.Reason)
	}
	for _, n := range mg.Notes {
		fmt.Fprintf(w, "  note: %s\n", n)
	}
}
