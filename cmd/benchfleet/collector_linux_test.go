//go:build linux

package benchfleet

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// collector is the real OpenTelemetry Collector (tools/otelcol): OTLP in,
// a file out (one file per run, so a restart keeps what came before).
type collector struct {
	b          *testing.B
	bin, dir   string
	grpc, http string
	n          int
	cmd        *exec.Cmd
	exited     chan struct{}
}

func newCollector(b *testing.B) *collector {
	bin, err := otelcolBinary()
	if err != nil {
		b.Fatal(err)
	}
	c := &collector{b: b, bin: bin, dir: b.TempDir(), grpc: freePort(b), http: freePort(b)}
	c.start()
	b.Cleanup(c.stop)
	return c
}

// start runs the Collector and returns once it says it is ready.
func (c *collector) start() {
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
`, c.grpc, c.http, filepath.Join(c.dir, fmt.Sprintf("out-%d.json", c.n)))
	path := filepath.Join(c.dir, "config.yaml")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		c.b.Fatal(err)
	}
	cmd := exec.Command(c.bin, "--config", "file:"+path)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		c.b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		c.b.Fatalf("start the collector: %v", err)
	}
	c.cmd, c.exited = cmd, make(chan struct{})
	ready := make(chan struct{})
	var tail strings.Builder
	go func() {
		sc := bufio.NewScanner(stderr)
		said := false
		for sc.Scan() {
			if tail.Len() < 1<<16 {
				tail.WriteString(sc.Text() + "\n")
			}
			if !said && strings.Contains(sc.Text(), "Everything is ready") {
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
		c.b.Fatalf("the collector exited: %s", tail.String())
	case <-time.After(60 * time.Second):
		c.b.Fatalf("the collector did not get ready: %s", tail.String())
	}
}

// stop ends the Collector (SIGTERM: the file exporter writes what it has).
func (c *collector) stop() {
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

// count is how many log records the Collector exported over all its runs
// (complete lines only: a last line without its newline is still being
// written).
func (c *collector) count() int {
	n := 0
	for i := 1; i <= c.n; i++ {
		data, err := os.ReadFile(filepath.Join(c.dir, fmt.Sprintf("out-%d.json", i)))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			c.b.Fatal(err)
		}
		data = data[:bytes.LastIndexByte(data, '\n')+1]
		for line := range bytes.SplitSeq(data, []byte("\n")) {
			if len(line) == 0 {
				continue
			}
			var doc struct {
				ResourceLogs []struct {
					ScopeLogs []struct {
						LogRecords []json.RawMessage `json:"logRecords"`
					} `json:"scopeLogs"`
				} `json:"resourceLogs"`
			}
			if err := json.Unmarshal(line, &doc); err != nil {
				c.b.Fatalf("exported line %q: %v", line, err)
			}
			for _, rl := range doc.ResourceLogs {
				for _, sl := range rl.ScopeLogs {
					n += len(sl.LogRecords)
				}
			}
		}
	}
	return n
}

// awaitCount reads the export every 100 ms until it holds want records
// or within has passed, and returns the count.
func (c *collector) awaitCount(want int, within time.Duration) int {
	deadline := time.Now().Add(within)
	for {
		n := c.count()
		if n >= want || time.Now().After(deadline) {
			return n
		}
		time.Sleep(100 * time.Millisecond)
	}
}
