package main

import (
	"context"
	"errors"

	"go.uber.org/zap"

	"github.com/acp-bridge/acp-bridge/bridge"
	"github.com/acp-bridge/acp-bridge/orgproc"
	"github.com/acp-bridge/acp-bridge/settings"
	"github.com/acp-bridge/acp-bridge/wire"
)

// withTelemetry returns the auditor that also hands every record to the
// OpenTelemetry sink the settings ask for, which runs in the companion
// (docs/org.md "The collector"), the status initialize reports (nil:
// off), and a function that flushes and stops the sink. With telemetry
// off, or when the sink cannot start (logged, and reported), it returns
// auditor as it is; when the managed tier requires the events, the status
// then says so and the bridge starts no agent (bridge.requiredTelemetryDown).
// A companion that is not running is a sink that cannot start; records
// are still handed to it, counted as lost until it runs again.
//
// down says why the companion is not running now ("" while it runs; nil
// with telemetry off): bridge.Options.TelemetryDown.
func withTelemetry(cfg settings.Telemetry, auditor bridge.Auditor, version string, log *zap.Logger) (_ bridge.Auditor, _ *wire.TelemetryStatus, stop func(), down func() string) {
	if !cfg.Enabled {
		return auditor, nil, func() {}, nil
	}
	cl := companion(log)
	started, err := cl.StartTelemetry(context.Background(), orgproc.TelemetryStart{Telemetry: cfg, Version: version})
	if err != nil {
		var refused *orgproc.StartError
		if cfg.Managed {
			log.Error("telemetry: the managed settings require decision events and their exporter cannot start: no agent starts", zap.Error(err))
		} else {
			log.Error("telemetry: decision events are OFF; the audit log still has every decision", zap.Error(err))
		}
		st := &wire.TelemetryStatus{Managed: cfg.Managed, Error: err.Error()}
		if errors.As(err, &refused) {
			return auditor, st, closeCompanion(cl), cl.Down
		}
		return orgproc.Tee(auditor, cl), st, closeCompanion(cl), cl.Down
	}
	status := &wire.TelemetryStatus{Enabled: true, Endpoint: started.Endpoint, Protocol: started.Protocol, Managed: cfg.Managed, LogInput: cfg.LogInput}
	log.Info("telemetry: decision events on", zap.String("endpoint", started.Endpoint), zap.String("protocol", started.Protocol), zap.Bool("managed", cfg.Managed))
	return orgproc.Tee(auditor, cl), status, closeCompanion(cl), cl.Down
}
