package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/internal/audit"
	"github.com/acp-bridge/acp-bridge/orgpolicy"
	"github.com/acp-bridge/acp-bridge/orgpolicy/opastage"
	"github.com/acp-bridge/acp-bridge/orgproc"
	"github.com/acp-bridge/acp-bridge/telemetry"
)

// version is set at build time with -ldflags "-X main.version=..."; it
// must equal the bridge's (the bridge refuses another).
var version = "0.1.0-dev"

// stopTimeout bounds the flush and stop at the end.
const stopTimeout = 5 * time.Second

func main() {
	os.Exit(run(os.Args[1:], pollable(os.Stdin), pollable(os.Stdout), os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet(orgproc.Name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	level := fs.String("log-level", "info", "debug, info, warn or error")
	showVersion := fs.Bool("version", false, "print the version and exit")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *showVersion {
		fmt.Fprintf(stderr, "%s %s\n", orgproc.Name, version)
		return 0
	}
	lvl := zapcore.InfoLevel
	if err := lvl.UnmarshalText([]byte(*level)); err != nil {
		fmt.Fprintf(stderr, "%s: log level %q: want debug, info, warn or error\n", orgproc.Name, *level)
		return 2
	}
	enc := zap.NewProductionEncoderConfig()
	log := zap.New(zapcore.NewCore(zapcore.NewJSONEncoder(enc), zapcore.Lock(zapcore.AddSync(stderr)), lvl))
	s := &server{log: log, shut: make(chan struct{})}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	defer s.cancel()
	s.serve(stdin, stdout)
	return 0
}

type server struct {
	ctx      context.Context
	cancel   func()
	log      *zap.Logger
	conn     *acp.Conn
	shut     chan struct{} // closed once shutdown is answered
	once     sync.Once     // stop
	shutOnce sync.Once     // shut

	mu   sync.Mutex
	opa  *orgpolicy.Stage
	sink *telemetry.Sink
	// opaStarting and telStarting are open while a start the read loop
	// has taken runs (PrepareRequest): acp runs each request in its own
	// goroutine, so what arrives after a start waits for it, as it would
	// behind a serial reader: a decision, a flush, and records (kept in
	// early, at most orgproc.DefaultQueueSize, handed to the sink once it
	// runs).
	opaStarting, telStarting chan struct{}
	early                    []audit.Record
	busy                     sync.WaitGroup // the status forwarder
}

// serve answers the bridge through acp's engine (orgproc.NewConn) until
// its stdin ends or shutdown, then stops and waits for every handler.
func (s *server) serve(stdin io.Reader, stdout io.Writer) {
	gate := make(chan struct{})
	s.conn = orgproc.NewConn(stdin, stdout, s, func(ev acp.StreamEvent) {
		// Skipped, not the end: the bridge never sends a line over the
		// bound (orgproc.TooLongError), so it is a fault to survive; the
		// stream has answered the id it could read.
		s.log.Error("reading the bridge: a line skipped", zap.String("kind", ev.Kind), zap.Int("bytes", ev.Bytes),
			zap.String("prefix", ev.Prefix), zap.String("reply", ev.Reply), zap.Error(ev.Err))
	}, acp.ConnOptions{Gate: gate, Logf: func(format string, args ...any) {
		s.log.Warn("reading the bridge: " + fmt.Sprintf(format, args...))
	}})
	close(gate)
	select {
	case <-s.conn.Done():
	case <-s.shut:
	}
	s.stop()
	_ = s.conn.Close()
	s.conn.Wait()
}

// HandleNotification takes telemetry.record, inline and in order: a
// request after it (telemetry.flush) finds it in the sink.
func (s *server) HandleNotification(_ context.Context, method string, params json.RawMessage) {
	if method != orgproc.MethodTelemetryRecord {
		s.log.Warn("an unknown notification from the bridge", zap.String("method", method))
		return
	}
	var r audit.Record
	if err := json.Unmarshal(params, &r); err != nil {
		s.log.Error("telemetry.record: not a record", zap.Error(err))
		return
	}
	s.mu.Lock()
	sink := s.sink
	if sink == nil && s.telStarting != nil {
		kept := len(s.early) < orgproc.DefaultQueueSize
		if kept {
			s.early = append(s.early, r)
		}
		s.mu.Unlock()
		if !kept {
			s.log.Warn("telemetry: a decision event while the sink starts, past the bound: not exported (the audit log has it)")
		}
		return
	}
	s.mu.Unlock()
	sink.Record(r) // a nil sink ignores it
}

// PrepareRequest runs on the read loop, in arrival order, before the
// request's goroutine: a start is marked as under way before the next
// message is read.
func (s *server) PrepareRequest(ctx context.Context, method string, _ json.RawMessage) context.Context {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case method == orgproc.MethodOPAStart && s.opaStarting == nil:
		s.opaStarting = make(chan struct{})
	case method == orgproc.MethodTelemetryStart && s.telStarting == nil:
		s.telStarting = make(chan struct{})
	}
	return ctx
}

// after waits for a start under way (its channel, read under s.mu), or ctx.
func (s *server) after(ctx context.Context, starting *chan struct{}) error {
	s.mu.Lock()
	ch := *starting
	s.mu.Unlock()
	if ch == nil {
		return nil
	}
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// started ends a start under way (s.mu held).
func started(starting *chan struct{}) {
	if *starting != nil {
		close(*starting)
		*starting = nil
	}
}

// HandleRequest answers one request, each in its own goroutine (acp);
// ctx ends with the bridge's $/cancel_request or its stdin. Errors take
// their code from acp's table: params that do not decode, or a
// configuration an engine refuses, are -32602 (the bridge's StartError).
func (s *server) HandleRequest(ctx context.Context, method string, params json.RawMessage) (any, error) {
	switch method {
	case orgproc.MethodHello:
		var h orgproc.Hello
		if err := json.Unmarshal(params, &h); err != nil {
			return nil, acp.InvalidParams(method, err)
		}
		if h.Version != version || h.Protocol != orgproc.Protocol {
			s.log.Error("the bridge's version is not ours: it will refuse us", zap.String("bridge", h.Version), zap.String("companion", version))
		}
		return orgproc.Hello{Version: version, Protocol: orgproc.Protocol}, nil
	case orgproc.MethodOPAStart:
		var cfg opastage.Config
		if err := json.Unmarshal(params, &cfg); err != nil {
			return nil, acp.InvalidParams(method, err)
		}
		if err := s.startOPA(cfg); err != nil {
			return nil, acp.InvalidParams(method, err)
		}
		return orgproc.Empty{}, nil
	case orgproc.MethodOPADecide:
		if len(params) == 0 || params[0] != '{' {
			return nil, acp.InvalidParams(method, errors.New("the input is not an object"))
		}
		if err := s.after(ctx, &s.opaStarting); err != nil {
			return opastage.NoVerdict("OPA is starting", 0), nil
		}
		s.mu.Lock()
		st := s.opa
		s.mu.Unlock()
		if st == nil {
			return opastage.NoVerdict("not started", 0), nil
		}
		return st.DecideJSON(ctx, params), nil
	case orgproc.MethodTelemetryStart:
		var ts orgproc.TelemetryStart
		if err := json.Unmarshal(params, &ts); err != nil {
			return nil, acp.InvalidParams(method, err)
		}
		res, err := s.startTelemetry(ts)
		if err != nil {
			return nil, acp.InvalidParams(method, err)
		}
		return res, nil
	case orgproc.MethodTelemetryFlush:
		if err := s.after(ctx, &s.telStarting); err != nil {
			return nil, fmt.Errorf("telemetry.flush: %w", err)
		}
		s.mu.Lock()
		sink := s.sink
		s.mu.Unlock()
		fctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		if err := sink.Flush(fctx); err != nil {
			return nil, fmt.Errorf("telemetry.flush: %w", err)
		}
		return orgproc.Empty{}, nil
	case orgproc.MethodAuthZENEvaluate:
		var p orgproc.AuthZENEvaluate
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, acp.InvalidParams(method, err)
		}
		return authzenEvaluate(ctx, p)
	case orgproc.MethodShutdown:
		s.stop()
		return acp.AfterReply{Result: orgproc.Empty{}, Then: func() { s.shutOnce.Do(func() { close(s.shut) }) }}, nil
	}
	return nil, acp.MethodNotFound(method)
}

func (s *server) startOPA(cfg opastage.Config) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer started(&s.opaStarting)
	if s.opa != nil {
		return errors.New("opa.start: OPA is already running")
	}
	st, err := orgpolicy.Start(s.ctx, cfg, s.log)
	if err != nil {
		return err
	}
	s.opa = st
	s.busy.Add(1)
	go func() {
		defer s.busy.Done()
		for {
			bs, next := st.Status()
			if bs.Seq > 0 || bs.Ready {
				if err := s.conn.Notify(s.ctx, orgproc.MethodOPAStatus, orgproc.BundleStatus{Revision: bs.Revision, Error: bs.Error, Seq: bs.Seq, Ready: bs.Ready}); err != nil {
					s.log.Debug("opa.status not sent", zap.Error(err))
				}
			}
			select {
			case <-next:
			case <-s.ctx.Done():
				return
			}
		}
	}()
	return nil
}

func (s *server) startTelemetry(ts orgproc.TelemetryStart) (orgproc.TelemetryStarted, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer started(&s.telStarting)
	early := s.early
	s.early = nil
	if s.sink != nil {
		return orgproc.TelemetryStarted{}, errors.New("telemetry.start: the sink is already running")
	}
	sink, err := telemetry.New(s.ctx, telemetry.Config{Telemetry: ts.Telemetry, Version: ts.Version, Logger: s.log})
	if err != nil {
		if len(early) > 0 {
			s.log.Warn("telemetry: decision events sent while the sink started were not exported (the audit log has them)", zap.Int("records", len(early)))
		}
		return orgproc.TelemetryStarted{}, err
	}
	s.sink = sink
	for _, r := range early {
		sink.Record(r)
	}
	return orgproc.TelemetryStarted{Endpoint: sink.Endpoint, Protocol: sink.Protocol}, nil
}

// stop flushes the sink and stops OPA, each bounded, and waits for the
// status forwarder; once (shutdown, then the end of serve).
func (s *server) stop() { s.once.Do(s.stopOnce) }

func (s *server) stopOnce() {
	s.mu.Lock()
	st, sink := s.opa, s.sink
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), stopTimeout)
	defer cancel()
	if sink != nil {
		if err := sink.Shutdown(ctx); err != nil {
			s.log.Warn("telemetry: events still queued at exit were not delivered (the audit log has them)", zap.Error(err))
		}
	}
	if st != nil {
		st.Stop(ctx)
	}
	s.cancel()
	s.busy.Wait()
}
