package main

import (
	"context"
	"time"

	"go.uber.org/zap"

	"github.com/acp-bridge/acp-bridge/bridge"
	"github.com/acp-bridge/acp-bridge/settings"
	"github.com/acp-bridge/acp-bridge/telemetry"
	"github.com/acp-bridge/acp-bridge/wire"
)

// withTelemetry returns the auditor that also hands every record to the
// OpenTelemetry sink the settings ask for (docs/org.md "The collector"),
// the status initialize reports (nil: off), and a function that flushes
// and stops the sink. With telemetry off, or when the sink cannot start
// (logged, and reported), it returns auditor as it is; when the managed
// tier requires the events, the status then says so and the bridge starts
// no agent (bridge.requiredTelemetryDown).
func withTelemetry(cfg settings.Telemetry, auditor bridge.Auditor, version string, log *zap.Logger) (bridge.Auditor, *wire.TelemetryStatus, func()) {
	if !cfg.Enabled {
		return auditor, nil, func() {}
	}
	sink, err := telemetry.New(context.Background(), telemetry.Config{Telemetry: cfg, Version: version, Logger: log})
	if err != nil {
		if cfg.Managed {
			log.Error("telemetry: the managed settings require decision events and their exporter cannot start: no agent starts", zap.Error(err))
			return auditor, &wire.TelemetryStatus{Managed: true, Error: err.Error()}, func() {}
		}
		log.Error("telemetry: decision events are OFF; the audit log still has every decision", zap.Error(err))
		return auditor, &wire.TelemetryStatus{Managed: cfg.Managed, Error: err.Error()}, func() {}
	}
	status := &wire.TelemetryStatus{Enabled: true, Endpoint: sink.Endpoint, Protocol: sink.Protocol, Managed: cfg.Managed, LogInput: cfg.LogInput}
	log.Info("telemetry: decision events on", zap.String("endpoint", sink.Endpoint), zap.String("protocol", sink.Protocol), zap.Bool("managed", cfg.Managed))
	var inner telemetry.Auditor
	if auditor != nil {
		inner = auditor
	}
	return telemetry.Tee(inner, sink), status, func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := sink.Shutdown(ctx); err != nil {
			log.Warn("telemetry: events still queued at exit were not delivered (the audit log has them)", zap.Error(err))
		}
	}
}
