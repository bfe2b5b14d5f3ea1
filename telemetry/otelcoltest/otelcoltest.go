// Package otelcoltest runs a real OpenTelemetry Collector for tests: one
// built from its Go modules (tools/otelcol, by scripts/build-otelcol.sh)
// on loopback, with the OTLP receiver (both protocols) and the file
// exporter, and reads back what it exported. It is shared by the tests of
// telemetry, orgproc and the binaries that send decision events.
package otelcoltest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Binary finds the Collector: $ACP_BRIDGE_OTELCOL, else the cache
// directory scripts/build-otelcol.sh builds into (waiting for a build that
// is running). Missing, the test fails, unless ACP_BRIDGE_OTELCOL_OPTIONAL=1
// (and not ACP_BRIDGE_REQUIRE_OTELCOL=1): then it is skipped, at once, and
// also while a build is still running: scripts/test.sh's main go test run
// must not wait for the build; its collector stage, after it, requires the
// collector.
func Binary(t testing.TB) string {
	t.Helper()
	optional := os.Getenv("ACP_BRIDGE_OTELCOL_OPTIONAL") == "1" && os.Getenv("ACP_BRIDGE_REQUIRE_OTELCOL") != "1"
	if p := os.Getenv("ACP_BRIDGE_OTELCOL"); p != "" {
		return p
	}
	bin, lock, err := location()
	if err != nil {
		t.Fatal(err)
	}
	if optional {
		if pid := building(lock); pid != 0 {
			t.Skipf("scripts/build-otelcol.sh (pid %d) is still building %s; skipped because ACP_BRIDGE_OTELCOL_OPTIONAL=1", pid, bin)
		}
	} else {
		waitForBuild(t, lock, 20*time.Minute)
	}
	if _, err := os.Stat(bin); err == nil {
		return bin
	}
	msg := fmt.Sprintf("no OpenTelemetry Collector at %s: run scripts/build-otelcol.sh (or set ACP_BRIDGE_OTELCOL)", bin)
	if optional {
		t.Skip(msg + "; skipped because ACP_BRIDGE_OTELCOL_OPTIONAL=1")
	}
	t.Fatal(msg + " (set ACP_BRIDGE_OTELCOL_OPTIONAL=1 to skip these tests)")
	return ""
}

// location is where scripts/build-otelcol.sh builds the Collector
// ($ACP_BRIDGE_OTELCOL_CACHE, else the user's cache directory), and the
// lock file it holds while building.
func location() (bin, lock string, err error) {
	cache := os.Getenv("ACP_BRIDGE_OTELCOL_CACHE")
	if cache == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			return "", "", fmt.Errorf("no cache directory: %w", err)
		}
		cache = filepath.Join(dir, "acp-bridge", "otelcol")
	}
	return filepath.Join(cache, "otelcol"), filepath.Join(cache, "otelcol.building"), nil
}

// Ready is the Collector when it can run now ($ACP_BRIDGE_OTELCOL, else
// the built one), without waiting: an error says why not (missing, or a
// build still running). For a benchmark that skips rather than waits.
func Ready() (string, error) {
	if p := os.Getenv("ACP_BRIDGE_OTELCOL"); p != "" {
		return p, nil
	}
	bin, lock, err := location()
	if err != nil {
		return "", err
	}
	if pid := building(lock); pid != 0 {
		return "", fmt.Errorf("scripts/build-otelcol.sh (pid %d) is still building %s", pid, bin)
	}
	if _, err := os.Stat(bin); err != nil {
		return "", fmt.Errorf("no OpenTelemetry Collector at %s: run scripts/build-otelcol.sh", bin)
	}
	return bin, nil
}

// building is the pid of the scripts/build-otelcol.sh whose pid is in
// lock, if it is still running; 0 if none is (no lock, or a stale one).
func building(lock string) int {
	b, err := os.ReadFile(lock)
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 || syscall.Kill(pid, 0) != nil {
		return 0
	}
	return pid
}

// waitForBuild waits while scripts/build-otelcol.sh, whose pid is in
// lock, is still building. The build is another process: there is no
// channel to wait on, so the lock file is polled.
func waitForBuild(t testing.TB, lock string, limit time.Duration) {
	deadline := time.Now().Add(limit)
	tick := time.NewTicker(2 * time.Second)
	defer tick.Stop()
	for {
		pid := building(lock)
		if pid == 0 {
			return // no build, or a stale lock
		}
		if time.Now().After(deadline) {
			t.Fatalf("scripts/build-otelcol.sh (pid %d) still building after %v", pid, limit)
		}
		t.Logf("waiting for scripts/build-otelcol.sh (pid %d) to finish", pid)
		<-tick.C
	}
}

// Collector is one running Collector.
type Collector struct {
	t          testing.TB
	bin, dir   string
	GRPC, HTTP string // host:port of the OTLP receiver's two protocols
	n          int    // how many times it was started: each run exports to out-<n>.json
	cmd        *exec.Cmd
	exited     chan struct{}
}

// FreePort is a loopback host:port nobody listens on right now.
func FreePort(t testing.TB) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// New starts a Collector for t (stopped at t's end).
func New(t testing.TB) *Collector {
	c := &Collector{t: t, bin: Binary(t), dir: t.TempDir(), GRPC: FreePort(t), HTTP: FreePort(t)}
	c.Start()
	t.Cleanup(c.Stop)
	return c
}

// Start runs the Collector and returns once it says it is ready.
func (c *Collector) Start() {
	t := c.t
	c.n++
	cfg := fmt.Sprintf(`receivers:
  otlp:
    protocols:
      grpc: {endpoint: %q}
      http: {endpoint: %q}
exporters:
  file:
    path: %q
    flush_interval: 100ms
service:
  telemetry:
    metrics: {level: none}
    logs: {level: info}
  pipelines:
    logs: {receivers: [otlp], exporters: [file]}
`, c.GRPC, c.HTTP, filepath.Join(c.dir, fmt.Sprintf("out-%d.json", c.n)))
	cfgPath := filepath.Join(c.dir, "config.yaml")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(c.bin, "--config", "file:"+cfgPath)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start the collector: %v", err)
	}
	c.cmd, c.exited = cmd, make(chan struct{})
	ready := make(chan struct{})
	var logTail strings.Builder
	go func() {
		sc := bufio.NewScanner(stderr)
		said := false
		for sc.Scan() {
			line := sc.Text()
			if logTail.Len() < 1<<16 {
				logTail.WriteString(line + "\n")
			}
			if !said && strings.Contains(line, "Everything is ready") {
				said = true
				close(ready)
			}
		}
		_, _ = io.Copy(io.Discard, stderr)
		_ = cmd.Wait()
		close(c.exited)
	}()
	select {
	case <-ready:
	case <-c.exited:
		t.Fatalf("the collector exited: %s", logTail.String())
	case <-time.After(60 * time.Second):
		t.Fatalf("the collector did not get ready: %s", logTail.String())
	}
}

// Stop ends the Collector (SIGTERM: the file exporter writes what it has).
func (c *Collector) Stop() {
	if c.cmd == nil {
		return
	}
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.exited:
	case <-time.After(30 * time.Second):
		_ = c.cmd.Process.Kill()
		<-c.exited
	}
	c.cmd = nil
}

// Exported is one log record as the file exporter wrote it (OTLP JSON).
type Exported struct {
	Resource  map[string]string
	Scope     string
	EventName string
	Severity  string
	Body      string
	TraceID   string
	SpanID    string
	Attrs     map[string]any
}

// Records reads every log record the Collector exported so far, over all
// its runs. A last line without its newline is one the file exporter is
// still writing: it is left for the next read.
func (c *Collector) Records() []Exported {
	c.t.Helper()
	var out []Exported
	c.eachLine(func(line []byte) {
		var doc otlpLogs
		if err := json.Unmarshal(line, &doc); err != nil {
			c.t.Fatalf("exported line %q: %v", line, err)
		}
		out = append(out, doc.flatten()...)
	})
	return out
}

// eachLine calls f with every complete line the Collector exported, over
// all its runs. A last line without its newline is one the file exporter
// is still writing: it is left for the next read.
func (c *Collector) eachLine(f func(line []byte)) {
	c.t.Helper()
	for i := 1; i <= c.n; i++ {
		data, err := os.ReadFile(filepath.Join(c.dir, fmt.Sprintf("out-%d.json", i)))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			c.t.Fatal(err)
		}
		data = data[:bytes.LastIndexByte(data, '\n')+1]
		for line := range bytes.SplitSeq(data, []byte("\n")) {
			if len(line) > 0 {
				f(line)
			}
		}
	}
}

// AwaitRecords reads the export until pred holds. The file exporter is
// another process writing a file: the file is read again every 100 ms.
func (c *Collector) AwaitRecords(within time.Duration, pred func([]Exported) bool) []Exported {
	c.t.Helper()
	deadline := time.Now().Add(within)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		got := c.Records()
		if pred(got) {
			return got
		}
		if time.Now().After(deadline) {
			return got
		}
		<-tick.C
	}
}

// Count is how many log records the Collector exported so far, over all
// its runs (complete lines only), read without decoding their fields: for
// a benchmark that awaits thousands.
func (c *Collector) Count() int {
	c.t.Helper()
	n := 0
	c.eachLine(func(line []byte) {
		var doc struct {
			ResourceLogs []struct {
				ScopeLogs []struct {
					LogRecords []json.RawMessage `json:"logRecords"`
				} `json:"scopeLogs"`
			} `json:"resourceLogs"`
		}
		if err := json.Unmarshal(line, &doc); err != nil {
			c.t.Fatalf("exported line %q: %v", line, err)
		}
		for _, rl := range doc.ResourceLogs {
			for _, sl := range rl.ScopeLogs {
				n += len(sl.LogRecords)
			}
		}
	})
	return n
}

// AwaitCount reads the export every 100 ms until it holds want records or
// within has passed, and returns the count.
func (c *Collector) AwaitCount(want int, within time.Duration) int {
	c.t.Helper()
	deadline := time.Now().Add(within)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		n := c.Count()
		if n >= want || time.Now().After(deadline) {
			return n
		}
		<-tick.C
	}
}

type otlpValue struct {
	StringValue *string  `json:"stringValue"`
	IntValue    *string  `json:"intValue"`
	DoubleValue *float64 `json:"doubleValue"`
	BoolValue   *bool    `json:"boolValue"`
}

func (v otlpValue) value() any {
	switch {
	case v.StringValue != nil:
		return *v.StringValue
	case v.IntValue != nil:
		return *v.IntValue
	case v.DoubleValue != nil:
		return *v.DoubleValue
	case v.BoolValue != nil:
		return *v.BoolValue
	}
	return nil
}

type otlpKV struct {
	Key   string    `json:"key"`
	Value otlpValue `json:"value"`
}

type otlpLogs struct {
	ResourceLogs []struct {
		Resource struct {
			Attributes []otlpKV `json:"attributes"`
		} `json:"resource"`
		ScopeLogs []struct {
			Scope struct {
				Name string `json:"name"`
			} `json:"scope"`
			LogRecords []struct {
				EventName    string    `json:"eventName"`
				SeverityText string    `json:"severityText"`
				Body         otlpValue `json:"body"`
				TraceID      string    `json:"traceId"`
				SpanID       string    `json:"spanId"`
				Attributes   []otlpKV  `json:"attributes"`
			} `json:"logRecords"`
		} `json:"scopeLogs"`
	} `json:"resourceLogs"`
}

func (d otlpLogs) flatten() []Exported {
	var out []Exported
	for _, rl := range d.ResourceLogs {
		res := map[string]string{}
		for _, kv := range rl.Resource.Attributes {
			res[kv.Key] = fmt.Sprint(kv.Value.value())
		}
		for _, sl := range rl.ScopeLogs {
			for _, lr := range sl.LogRecords {
				e := Exported{Resource: res, Scope: sl.Scope.Name, EventName: lr.EventName, Severity: lr.SeverityText,
					Body: fmt.Sprint(lr.Body.value()), TraceID: lr.TraceID, SpanID: lr.SpanID, Attrs: map[string]any{}}
				for _, kv := range lr.Attributes {
					e.Attrs[kv.Key] = kv.Value.value()
				}
				out = append(out, e)
			}
		}
	}
	return out
}
