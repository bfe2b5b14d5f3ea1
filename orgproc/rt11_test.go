package orgproc

// Red team rt11 (docs/red-team.md), the companion client: each test was a
// repro of a hole and now asserts the fixed behaviour, with its control.

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/acp-bridge/acp-bridge/hooks"
	"github.com/acp-bridge/acp-bridge/internal/audit"
	"github.com/acp-bridge/acp-bridge/settings"
)

// signal returns a zap option that closes the returned channel at the
// first entry whose message contains snippet.
func signal(snippet string) (zap.Option, <-chan struct{}) {
	ch := make(chan struct{})
	var once sync.Once
	return zap.Hooks(func(e zapcore.Entry) error {
		if strings.Contains(e.Message, snippet) {
			once.Do(func() { close(ch) })
		}
		return nil
	}), ch
}

func await(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(30 * time.Second):
		t.Fatalf("no %s within 30s", what)
	}
}

// rt11: records already in a companion's queue when it dies are counted
// as lost and logged (docs/org.md: "counted and logged"); they used to
// vanish. Control: nothing is lost before the crash.
func TestRT11RecordsQueuedAtCrashAreCounted(t *testing.T) {
	core, logs := observer.New(zap.DebugLevel)
	hook, dropped := signal("queued for " + Name + " when it stopped")
	c := newClientBackoff(t, companionBin, zap.New(core, hook), 2*time.Second)
	if _, err := c.StartTelemetry(t.Context(), TelemetryStart{Telemetry: settings.Telemetry{Enabled: true, Managed: true, Endpoint: "http://127.0.0.1:9"}, Version: testVersion}); err != nil {
		t.Fatal(err)
	}
	cn := current(c)
	// A companion that stops reading: its pipe fills, the records wait in
	// the queue.
	if err := cn.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	big := []byte(`{"tool":"Bash","command":"` + strings.Repeat("x", 4000) + `"}`)
	const n = 500
	for range n {
		c.Record(audit.Record{Time: time.Now().UTC(), Agent: "a", SessionID: "s", Decision: "allow", Source: "rule", Call: big})
	}
	if c.Lost() != 0 {
		t.Fatalf("control: lost %d before the crash (the queue holds %d)", c.Lost(), DefaultQueueSize)
	}
	_ = cn.cmd.Process.Kill()
	await(t, dropped, "log of the records queued at the crash")
	// At most what the pipe (64 KiB) and the writer held was handed over.
	inFlight := uint64(64<<10)/uint64(len(big)) + 2
	if lost := c.Lost(); lost < n-inFlight || lost > n {
		t.Errorf("%d records sent to a companion that stopped reading and died; Lost() = %d, want %d..%d", n, lost, n-inFlight, n)
	}
	if e := logs.FilterMessageSnippet("when it stopped").All(); len(e) != 1 || e[0].Level != zapcore.WarnLevel {
		t.Errorf("the loss is logged once at warn, got %v", e)
	}
}

// rt11: a companion's stderr line is relayed at most at error: fatal,
// panic, dpanic and unknown levels used to reach the bridge's logger as
// Fatal (os.Exit) or Panic entries. The hooks here record instead of
// exiting. Control: the same logger's own Fatal entry calls the hook, and
// info/warn lines keep their level.
func TestRT11CompanionLogLevelCapped(t *testing.T) {
	for _, tc := range []struct{ level, want string }{
		{"fatal", "error"}, {"panic", "error"}, {"dpanic", "error"}, {"FATAL", "error"},
		{"bogus", "error"}, {"", "error"}, {"error", "error"}, {"warn", "warn"}, {"info", "info"},
	} {
		t.Run(tc.level, func(t *testing.T) {
			dir := t.TempDir()
			fake := filepath.Join(dir, Name)
			script := "#!/bin/sh\nread line\nprintf '%s\\n' '" + helloAnswer + "'\n" +
				"printf '%s\\n' '{\"level\":\"" + tc.level + "\",\"msg\":\"from the companion\"}' >&2\n" +
				"read line\nprintf '%s\\n' '{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}'\nexec cat >/dev/null\n"
			if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			ended := make(chan string, 4)
			end := func(what string) zapcore.CheckWriteHook {
				return hookFunc(func(*zapcore.CheckedEntry, []zapcore.Field) { ended <- what })
			}
			core, logs := observer.New(zap.DebugLevel)
			relayed, got := signal("from the companion")
			log := zap.New(core, relayed, zap.WithFatalHook(end("os.Exit(1)")), zap.WithPanicHook(end("panic")))
			c := New(Options{Path: fake, Version: testVersion, Logger: log, StartTimeout: 5 * time.Second})
			if _, err := c.StartTelemetry(t.Context(), TelemetryStart{Telemetry: settings.Telemetry{Enabled: true}, Version: testVersion}); err != nil {
				t.Fatal(err)
			}
			await(t, got, "relayed line")
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			c.Close(ctx) // every goroutine of the companion has returned
			select {
			case what := <-ended:
				t.Errorf("a companion's stderr line at level %q makes the bridge's logger call %s", tc.level, what)
			default:
			}
			e := logs.FilterMessage("from the companion").All()
			if len(e) != 1 || e[0].Level.String() != tc.want {
				t.Errorf("level %q relayed as %v, want one entry at %s", tc.level, e, tc.want)
			}
			log.Fatal("control")
			if what := <-ended; what != "os.Exit(1)" {
				t.Errorf("control: the logger's own Fatal called %s", what)
			}
		})
	}
}

type hookFunc func(*zapcore.CheckedEntry, []zapcore.Field)

func (f hookFunc) OnWrite(ce *zapcore.CheckedEntry, fs []zapcore.Field) { f(ce, fs) }

// rt11: an agent's call longer than the companion reads (a 17 MiB Bash
// command) used to reach it whole in telemetry.record: it refused the
// line and exited. The record is now cut as the JSONL log cuts its copy;
// the companion keeps running and takes the next request. Control: the
// uncut record's line is longer than MaxLine (what used to be sent).
func TestRT11HugeCallRecordIsCut(t *testing.T) {
	for _, size := range []int{1 << 20, MaxLine + 1024} {
		call := []byte(`{"tool":"Bash","command":"` + strings.Repeat("a", size) + `"}`)
		r := audit.Record{Agent: "a", SessionID: "s", Decision: "deny", Source: "rule", Call: call}
		raw, _ := json.Marshal(r)
		if size > MaxLine && len(raw) <= MaxLine {
			t.Fatalf("control: the uncut record is %d bytes, not over MaxLine", len(raw))
		}
		c := newClientBackoff(t, companionBin, nil, 3*time.Second)
		if _, err := c.StartTelemetry(t.Context(), TelemetryStart{Telemetry: settings.Telemetry{Enabled: true, Managed: true, Endpoint: "http://127.0.0.1:9"}, Version: testVersion}); err != nil {
			t.Fatal(err)
		}
		cn := current(c)
		_ = Tee(nil, c).Append(r)
		// The writer takes records in order and a request after them is
		// read after them: once the record is handed over and the pipe
		// has taken all that was queued, an answer means the companion
		// read the record (OPA is not started: "not started").
		for cn.handed.Load() < 1 || cn.m.pending() != nil {
			select {
			case <-cn.dead:
				t.Fatalf("the companion died on a record with a %d-byte call: %v", size, cn.err)
			case <-time.After(time.Millisecond):
			}
		}
		if d := c.Decide(t.Context(), lsCall); !strings.Contains(d.Reason, "not started") {
			t.Errorf("after a record with a %d-byte call the companion answers %+v", size, d)
		}
		select {
		case <-cn.dead:
			t.Errorf("a record whose call has %d bytes made the companion exit: %v", size, cn.err)
		default:
		}
		if current(c) != cn || c.Lost() != 0 {
			t.Errorf("after a %d-byte call: companion replaced %v, lost %d", size, current(c) != cn, c.Lost())
		}
	}
}

// A record that stays over MaxLine after the cut (a field the cut does
// not bound) is not sent: counted and logged. Control: the same record
// with a short field gives a line.
func TestRecordLineOverBoundNotSent(t *testing.T) {
	var lost []string
	cn := &conn{lost: func(n uint64, why string) { lost = append(lost, why) }}
	r := audit.Record{Agent: "a", Decision: "allow", Traceparent: "00-x"}
	if line := cn.recordLine(r); line == nil || len(lost) != 0 {
		t.Fatalf("control: a short record gives no line (lost %v)", lost)
	}
	r.Traceparent = strings.Repeat("t", MaxLine)
	audit.CutRecord(&r)
	if line := cn.recordLine(r); line != nil || len(lost) != 1 || !strings.Contains(lost[0], "not sent") {
		t.Errorf("a record of %d bytes: line of %d bytes, lost %v", MaxLine, len(line), lost)
	}
}

// rt11: an opa.decide input longer than the companion reads is never
// sent: no verdict (the call asks) with the reason, and the running
// companion stays. It used to kill the companion, which an agent could
// use to make the bridge start the file at the companion's path again
// (the planted-companion class itself is the sandbox's: docs/org.md).
// Control: the bundle's deny before and after, from the same process.
func TestRT11OversizedDecideNotSent(t *testing.T) {
	bridgeDir := t.TempDir()
	comp := filepath.Join(bridgeDir, Name)
	data, err := os.ReadFile(companionBin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(comp, data, 0o755); err != nil {
		t.Fatal(err)
	}
	c := newClientBackoff(t, comp, nil, 100*time.Millisecond)
	if err := c.StartOPA(t.Context(), opaConfig(t, 5*time.Second)); err != nil {
		t.Fatal(err)
	}
	awaitRevision(t, c, "rev-1", 60*time.Second)
	if r := c.Decide(t.Context(), lsCall); r.Decision != "deny" {
		t.Fatalf("control: the bundle's verdict for ls is %+v, want deny", r)
	}
	// A file renamed over the companion: used only if it is restarted.
	tmp := filepath.Join(bridgeDir, ".x")
	if err := os.WriteFile(tmp, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, comp); err != nil {
		t.Fatal(err)
	}
	cn := current(c)
	huge := lsCall
	huge.Call.Command = "ls " + strings.Repeat("a", MaxLine)
	r := c.Decide(t.Context(), huge)
	if r.Outcome != hooks.OutcomeNoVerdict || !strings.Contains(r.Reason, "not sent") {
		t.Errorf("an over-long input: %+v, want no verdict, not sent", r)
	}
	if r := c.Decide(t.Context(), lsCall); r.Decision != "deny" || current(c) != cn {
		t.Errorf("after an over-long input: %+v (companion replaced: %v), want the same companion's deny", r, current(c) != cn)
	}
	select {
	case <-cn.dead:
		t.Errorf("the companion died: %v", cn.err)
	default:
	}
}
