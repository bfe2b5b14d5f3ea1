package main

import (
	"bufio"
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
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
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
	s := &server{out: bufio.NewWriter(stdout), log: log}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	defer s.cancel()
	s.serve(stdin)
	return 0
}

type server struct {
	ctx    context.Context
	cancel func()
	log    *zap.Logger

	wmu sync.Mutex
	out *bufio.Writer

	mu   sync.Mutex
	opa  *orgpolicy.Stage
	sink *telemetry.Sink
	busy sync.WaitGroup // decisions in flight and the status forwarder
}

func (s *server) send(m orgproc.Message) {
	line, err := json.Marshal(m)
	if err != nil {
		s.log.Error("cannot encode an answer", zap.Error(err))
		return
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	_, _ = s.out.Write(append(line, '\n'))
	_ = s.out.Flush()
}

func (s *server) answer(id uint64, result any, err error) {
	m := orgproc.Message{ID: id}
	if err != nil {
		m.Error = err.Error()
	} else {
		raw, merr := json.Marshal(result)
		if merr != nil {
			m.Error = merr.Error()
		} else {
			m.Result = raw
		}
	}
	s.send(m)
}

// serve reads requests until stdin ends or shutdown, then stops.
func (s *server) serve(stdin io.Reader) {
	br := bufio.NewReaderSize(stdin, 64<<10)
	for {
		line, err := orgproc.ReadLine(br)
		var long *orgproc.LongLineError
		if errors.As(err, &long) {
			// Skipped, not the end: the bridge never sends such a line
			// (orgproc.TooLongError), so it is a fault to survive.
			s.log.Error("reading the bridge: a line skipped", zap.Error(err))
			if long.ID != 0 {
				s.answer(long.ID, nil, err)
			}
			continue
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				s.log.Error("reading the bridge", zap.Error(err))
			}
			s.stop()
			return
		}
		var m orgproc.Message
		if err := json.Unmarshal(line, &m); err != nil {
			s.log.Error("a line that is not a message", zap.Error(err))
			continue
		}
		if s.handle(m) {
			return
		}
	}
}

// handle runs one message; it reports whether the companion is done.
func (s *server) handle(m orgproc.Message) bool {
	switch m.Method {
	case orgproc.MethodHello:
		var h orgproc.Hello
		if err := json.Unmarshal(m.Params, &h); err != nil {
			s.answer(m.ID, nil, fmt.Errorf("hello: %w", err))
			return false
		}
		if h.Version != version || h.Protocol != orgproc.Protocol {
			s.log.Error("the bridge's version is not ours: it will refuse us", zap.String("bridge", h.Version), zap.String("companion", version))
		}
		s.answer(m.ID, orgproc.Hello{Version: version, Protocol: orgproc.Protocol}, nil)
	case orgproc.MethodOPAStart:
		var cfg opastage.Config
		if err := json.Unmarshal(m.Params, &cfg); err != nil {
			s.answer(m.ID, nil, fmt.Errorf("opa.start: %w", err))
			return false
		}
		s.answer(m.ID, struct{}{}, s.startOPA(cfg))
	case orgproc.MethodOPADecide:
		if !json.Valid(m.Params) || len(m.Params) == 0 || m.Params[0] != '{' {
			s.answer(m.ID, nil, errors.New("opa.decide: the input is not an object"))
			return false
		}
		s.mu.Lock()
		st := s.opa
		s.mu.Unlock()
		if st == nil {
			s.answer(m.ID, opastage.NoVerdict("not started", 0), nil)
			return false
		}
		s.busy.Add(1)
		go func() {
			defer s.busy.Done()
			s.answer(m.ID, st.DecideJSON(s.ctx, m.Params), nil)
		}()
	case orgproc.MethodTelemetryStart:
		var ts orgproc.TelemetryStart
		if err := json.Unmarshal(m.Params, &ts); err != nil {
			s.answer(m.ID, nil, fmt.Errorf("telemetry.start: %w", err))
			return false
		}
		res, err := s.startTelemetry(ts)
		s.answer(m.ID, res, err)
	case orgproc.MethodTelemetryRecord:
		var r audit.Record
		if err := json.Unmarshal(m.Params, &r); err != nil {
			s.log.Error("telemetry.record: not a record", zap.Error(err))
			return false
		}
		s.mu.Lock()
		sink := s.sink
		s.mu.Unlock()
		sink.Record(r) // a nil sink ignores it
	case orgproc.MethodTelemetryFlush:
		s.mu.Lock()
		sink := s.sink
		s.mu.Unlock()
		ctx, cancel := context.WithTimeout(s.ctx, 30*time.Second)
		err := sink.Flush(ctx)
		cancel()
		s.answer(m.ID, struct{}{}, err)
	case orgproc.MethodShutdown:
		s.stop()
		s.answer(m.ID, struct{}{}, nil)
		return true
	default:
		if m.ID != 0 {
			s.answer(m.ID, nil, fmt.Errorf("unknown method %q", m.Method))
		}
	}
	return false
}

func (s *server) startOPA(cfg opastage.Config) error {
	s.mu.Lock()
	defer s.mu.Unlock()
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
				raw, _ := json.Marshal(orgproc.BundleStatus{Revision: bs.Revision, Error: bs.Error, Seq: bs.Seq, Ready: bs.Ready})
				s.send(orgproc.Message{Method: orgproc.MethodOPAStatus, Params: raw})
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
	if s.sink != nil {
		return orgproc.TelemetryStarted{}, errors.New("telemetry.start: the sink is already running")
	}
	sink, err := telemetry.New(s.ctx, telemetry.Config{Telemetry: ts.Telemetry, Version: ts.Version, Logger: s.log})
	if err != nil {
		return orgproc.TelemetryStarted{}, err
	}
	s.sink = sink
	return orgproc.TelemetryStarted{Endpoint: sink.Endpoint, Protocol: sink.Protocol}, nil
}

// stop flushes the sink and stops OPA, each bounded, and waits for the
// decisions in flight.
func (s *server) stop() {
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
