package telemetry

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlplog/otlploggrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlplog/otlploghttp"
	otellog "go.opentelemetry.io/otel/log"
	sdklog "go.opentelemetry.io/otel/sdk/log"
	"go.opentelemetry.io/otel/sdk/resource"
	"go.uber.org/zap"
	"google.golang.org/grpc"

	"github.com/acp-bridge/acp-bridge/internal/audit"
	"github.com/acp-bridge/acp-bridge/settings"
)

// managedExportTimeout bounds one export to the managed tier's collector:
// OTEL_EXPORTER_OTLP_TIMEOUT, which the person sets, does not apply there.
const managedExportTimeout = 10 * time.Second

// Protocols the exporter speaks (OTEL_EXPORTER_OTLP_PROTOCOL values).
const (
	ProtocolHTTP = "http/protobuf"
	ProtocolGRPC = "grpc"
)

// Defaults of Config's delivery fields.
const (
	DefaultQueueSize      = 8192
	DefaultExportInterval = time.Second
	DefaultRetryFor       = 5 * time.Minute
	DefaultRetryInitial   = time.Second
)

// Config configures a Sink.
type Config struct {
	settings.Telemetry
	// Version is the bridge's version (service.version).
	Version string
	// QueueSize bounds the records waiting for the collector; past it the
	// oldest are dropped (the SDK reports how many). 0: DefaultQueueSize.
	QueueSize int
	// ExportInterval is how long a record may wait before its batch is
	// sent. 0: DefaultExportInterval.
	ExportInterval time.Duration
	// RetryFor is how long a batch is retried while the collector is
	// unreachable before it is given up; RetryInitial the first wait.
	// 0: the defaults.
	RetryFor, RetryInitial time.Duration
	// Getenv reads the OTEL_* variables; nil: os.Getenv.
	Getenv func(string) string
	// Logger receives the SDK's errors (a failed export); nil: discarded.
	Logger *zap.Logger
}

// Sink emits one log record per decision. Its methods are safe for
// concurrent use; a nil *Sink ignores everything.
type Sink struct {
	lp       *sdklog.LoggerProvider
	logger   otellog.Logger
	logInput bool
	// Endpoint and Protocol are where the events go, for messages.
	Endpoint, Protocol string

	mu     sync.Mutex
	closed bool
}

// New starts a Sink that exports to the collector cfg names. It does not
// contact the collector: an unreachable one costs nothing until a batch
// is due, and then only the export goroutine waits.
func New(ctx context.Context, cfg Config) (*Sink, error) {
	getenv := cfg.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	proto, err := protocolOf(cfg, getenv)
	if err != nil {
		return nil, err
	}
	retryFor := orDur(cfg.RetryFor, DefaultRetryFor)
	retryInitial := orDur(cfg.RetryInitial, DefaultRetryInitial)
	var exp sdklog.Exporter
	endpoint := cfg.Endpoint
	switch proto {
	case ProtocolHTTP:
		opts := []otlploghttp.Option{otlploghttp.WithRetry(otlploghttp.RetryConfig{
			Enabled: true, InitialInterval: retryInitial, MaxInterval: min(30*time.Second, retryFor), MaxElapsedTime: retryFor,
		})}
		if endpoint != "" {
			u, err := url.Parse(endpoint)
			if err != nil {
				return nil, fmt.Errorf("telemetry: endpoint %q: %w", endpoint, err)
			}
			// A base URL, like OTEL_EXPORTER_OTLP_ENDPOINT: the logs path is added.
			u.Path = strings.TrimSuffix(u.Path, "/") + "/v1/logs"
			endpoint = u.String()
			opts = append(opts, otlploghttp.WithEndpointURL(endpoint))
		}
		if cfg.Headers != nil || cfg.Managed {
			opts = append(opts, otlploghttp.WithHeaders(headersOrEmpty(cfg.Headers)))
		}
		if cfg.Managed {
			// The organisation's collector: no HTTPS_PROXY of the person's
			// in between, and no OTEL_*_TIMEOUT that makes every export fail.
			opts = append(opts, otlploghttp.WithProxy(func(*http.Request) (*url.URL, error) { return nil, nil }),
				otlploghttp.WithTimeout(managedExportTimeout))
		}
		exp, err = otlploghttp.New(ctx, opts...)
	case ProtocolGRPC:
		opts := []otlploggrpc.Option{otlploggrpc.WithRetry(otlploggrpc.RetryConfig{
			Enabled: true, InitialInterval: retryInitial, MaxInterval: min(30*time.Second, retryFor), MaxElapsedTime: retryFor,
		})}
		if endpoint != "" {
			opts = append(opts, otlploggrpc.WithEndpointURL(endpoint))
		}
		if cfg.Headers != nil || cfg.Managed {
			opts = append(opts, otlploggrpc.WithHeaders(headersOrEmpty(cfg.Headers)))
		}
		if cfg.Managed {
			opts = append(opts, otlploggrpc.WithTimeout(managedExportTimeout),
				otlploggrpc.WithDialOption(grpc.WithNoProxy()))
		}
		exp, err = otlploggrpc.New(ctx, opts...)
	}
	if err != nil {
		return nil, fmt.Errorf("telemetry: %s exporter: %w", proto, err)
	}
	if endpoint == "" {
		endpoint = envEndpoint(getenv)
	}
	// The OTLP/HTTP exporter retries only what it takes for temporary: a
	// collector that is down (connection refused) would lose the batch.
	exp = &retryExporter{Exporter: exp, initial: retryInitial, max: min(30*time.Second, retryFor), total: retryFor}
	res, err := resource.New(ctx,
		resource.WithAttributes(attribute.String("service.name", "acp-bridge"), attribute.String("service.version", cfg.Version)),
		resource.WithTelemetrySDK(),
		resource.WithFromEnv(), // OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES
	)
	if err != nil && res == nil {
		return nil, fmt.Errorf("telemetry: resource: %w", err)
	}
	if cfg.Logger != nil {
		log := cfg.Logger
		otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
			log.Warn("telemetry: decision events not delivered yet (the JSONL audit log has them)", zap.Error(err))
		}))
	}
	// The export timeout covers the retries: a batch is given up only
	// after RetryFor.
	proc := sdklog.NewBatchProcessor(exp,
		sdklog.WithMaxQueueSize(orInt(cfg.QueueSize, DefaultQueueSize)),
		sdklog.WithExportInterval(orDur(cfg.ExportInterval, DefaultExportInterval)),
		sdklog.WithExportTimeout(retryFor+30*time.Second),
	)
	lp := sdklog.NewLoggerProvider(sdklog.WithResource(res), sdklog.WithProcessor(proc))
	return &Sink{
		lp:       lp,
		logger:   lp.Logger("github.com/acp-bridge/acp-bridge/telemetry", otellog.WithInstrumentationVersion(cfg.Version)),
		logInput: cfg.LogInput,
		Endpoint: endpoint,
		Protocol: proto,
	}, nil
}

// Record hands r to the batch processor. It never waits for the
// collector.
func (s *Sink) Record(r audit.Record) {
	if s == nil {
		return
	}
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return
	}
	rec, ctx := logRecord(r, s.logInput)
	s.logger.Emit(ctx, rec)
}

// Flush exports what is queued, waiting at most until ctx ends.
func (s *Sink) Flush(ctx context.Context) error {
	if s == nil {
		return nil
	}
	if err := s.lp.ForceFlush(ctx); err != nil {
		return fmt.Errorf("telemetry: flush: %w", err)
	}
	return nil
}

// Shutdown exports what is queued (until ctx ends) and stops the Sink.
func (s *Sink) Shutdown(ctx context.Context) error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	if err := s.lp.Shutdown(ctx); err != nil {
		return fmt.Errorf("telemetry: shutdown: %w", err)
	}
	return nil
}

// Auditor is what the bridge appends decisions to (bridge.Auditor).
type Auditor interface {
	Append(audit.Record) error
}

// tee appends to the audit log, then hands the record to the sink.
type tee struct {
	log  Auditor
	sink *Sink
}

// Tee returns an Auditor that appends every record to log (which may be
// nil: no JSONL audit) and hands it to sink. The sink gets the record
// whatever the log's write returned; the log's error is returned.
func Tee(log Auditor, sink *Sink) Auditor {
	return tee{log: log, sink: sink}
}

func (t tee) Append(r audit.Record) error {
	if r.Time.IsZero() {
		r.Time = time.Now().UTC()
	}
	var err error
	if t.log != nil {
		err = t.log.Append(r)
	}
	t.sink.Record(r)
	return err
}

// protocolOf is the OTLP transport: the settings', else (unless the
// managed tier fixes it) OTEL_EXPORTER_OTLP_LOGS_PROTOCOL, then
// OTEL_EXPORTER_OTLP_PROTOCOL, else http/protobuf (the OTLP default).
func protocolOf(cfg Config, getenv func(string) string) (string, error) {
	p := cfg.Protocol
	if p == "" && !cfg.Managed {
		for _, k := range []string{"OTEL_EXPORTER_OTLP_LOGS_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"} {
			if v := strings.TrimSpace(getenv(k)); v != "" {
				p = v
				break
			}
		}
	}
	switch p {
	case "", ProtocolHTTP:
		return ProtocolHTTP, nil
	case ProtocolGRPC:
		return ProtocolGRPC, nil
	}
	return "", fmt.Errorf("telemetry: protocol %q is not supported (use %s or %s)", p, ProtocolHTTP, ProtocolGRPC)
}

func envEndpoint(getenv func(string) string) string {
	for _, k := range []string{"OTEL_EXPORTER_OTLP_LOGS_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT"} {
		if v := getenv(k); v != "" {
			return v
		}
	}
	return "(OTLP default: localhost)"
}

func headersOrEmpty(h map[string]string) map[string]string {
	if h == nil {
		return map[string]string{}
	}
	return h
}

func orDur(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

func orInt(n, def int) int {
	if n <= 0 {
		return def
	}
	return n
}

// retryExporter retries a batch the collector could not be reached for
// (connection refused or reset: it is down or restarting), with backoff,
// for total; other errors (a refusal by a running collector) are
// returned at once.
type retryExporter struct {
	sdklog.Exporter
	initial, max, total time.Duration
}

func (e *retryExporter) Export(ctx context.Context, recs []sdklog.Record) error {
	deadline := time.Now().Add(e.total)
	wait := e.initial
	for {
		err := e.Exporter.Export(ctx, recs)
		if err == nil || !unreachable(err) || time.Now().Add(wait).After(deadline) {
			return err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return errors.Join(err, ctx.Err())
		case <-t.C:
		}
		wait = min(wait*2, e.max)
	}
}

// unreachable reports whether err says the collector could not be
// reached at all.
func unreachable(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET)
}
