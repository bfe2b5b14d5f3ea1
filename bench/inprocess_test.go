package bench

import (
	stdbytes "bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/acp-bridge/acp-bridge/bridge"
	"github.com/acp-bridge/acp-bridge/internal/audit"
	"github.com/acp-bridge/acp-bridge/settings"
)

// inProcessBridge runs bridge.Serve in this process (so -cpuprofile sees
// it) with the bench agent binary as its one child, and connects a Client.
func inProcessBridge(tb testing.TB, agentBin string, configure func(*Client)) (*Client, string) {
	tb.Helper()
	dir := tb.TempDir()
	bin := Binaries{Agent: agentBin}
	env, err := NewEnv(dir, bin, []string{"bench"})
	if err != nil {
		tb.Fatal(err)
	}
	store, err := settings.Load(settings.Options{ConfigFile: env.Config, UserConfigDir: dir, WorkspaceDir: env.Workspace(), Environ: []string{}, Executable: agentBin})
	if err != nil {
		tb.Fatal(err)
	}
	// The audit log the binary writes (cmd/acp-bridge): an approval is
	// recorded before its answer.
	al, err := audit.Open(env.Audit, 0, nil)
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	b := bridge.New(bridge.Options{Settings: store, Logger: zap.NewNop(), Version: "bench", WorkspaceDir: env.Workspace(), Audit: al, AuditPath: env.Audit})
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = b.Serve(ctx, inR, outW)
		_ = outW.Close()
	}()
	c := NewClient(inW)
	if configure != nil {
		configure(c)
	}
	go func() { _ = c.Run(outR) }()
	tb.Cleanup(func() {
		cancel()
		_ = inW.Close()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			tb.Errorf("bridge did not stop")
		}
		store.Close()
		_ = al.Close()
	})
	tctx, tcancel := context.WithTimeout(context.Background(), time.Minute)
	defer tcancel()
	if err := c.Initialize(tctx); err != nil {
		tb.Fatal(err)
	}
	sid, err := c.NewSession(tctx, env.Workspace(), "")
	if err != nil {
		tb.Fatal(err)
	}
	return c, sid
}

func buildAgent(tb testing.TB) string {
	tb.Helper()
	out := filepath.Join(tb.TempDir(), "bench-agent")
	cmd := exec.Command("go", "build", "-o", out, "./cmd/bench-agent")
	if b, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("build bench-agent: %v\n%s", err, b)
	}
	return out
}

var seqMark = []byte("#SEQ:")

// BenchmarkInProcessBridge streams through a bridge running in the test
// process, for profiling the forwarding path:
//
//	go test -run '^$' -bench InProcessBridge -cpuprofile cpu.out ./bench/
func BenchmarkInProcessBridge(b *testing.B) {
	agent := buildAgent(b)
	for _, tc := range []struct {
		name, cmd string
		size      int
	}{
		{"chunks", "stream", 100},
		{"diffs", "diff", 64 << 10},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var n int
			var bytes int64
			c, sid := inProcessBridge(b, agent, func(c *Client) {
				// The agent's own updates carry a sequence mark; the
				// bridge's notices (e.g. that this agent offers no
				// asking mode) are not counted.
				c.OnUpdate = func(line []byte, _ time.Time) {
					if stdbytes.Contains(line, seqMark) {
						n++
						bytes += int64(len(line))
					}
				}
			})
			b.SetBytes(int64(tc.size))
			b.ResetTimer()
			stop, err := c.Prompt(context.Background(), sid, fmt.Sprintf("%s %d %d", tc.cmd, b.N, tc.size))
			if err != nil || stop != "end_turn" || n != b.N {
				b.Fatalf("stop %q err %v: %d of %d updates", stop, err, n, b.N)
			}
		})
	}
}

// BenchmarkInProcessApproval is one permission request through a bridge in
// the test process: decided "ask" by the policy, answered at once by the
// client with acp-bridge:allow_once, audited and announced.
//
//	go test -run '^$' -bench InProcessApproval -cpuprofile cpu.out ./bench/
func BenchmarkInProcessApproval(b *testing.B) {
	agent := buildAgent(b)
	c, sid := inProcessBridge(b, agent, func(c *Client) {
		c.OnRequest = func(method string, params json.RawMessage) (any, *RPCError) { return AllowOnce(params) }
	})
	b.ResetTimer()
	stop, err := c.Prompt(context.Background(), sid, fmt.Sprintf("perm %d", b.N))
	if err != nil || stop != "end_turn" {
		b.Fatalf("stop %q err %v", stop, err)
	}
}

// BenchmarkInProcessPrompt is one session/prompt round trip through a
// bridge in the test process whose agent ends the turn at once: the
// forwarding path both ways and the turn's bookkeeping, with no decision.
//
//	go test -run '^$' -bench InProcessPrompt -cpuprofile cpu.out ./bench/
func BenchmarkInProcessPrompt(b *testing.B) {
	agent := buildAgent(b)
	c, sid := inProcessBridge(b, agent, nil)
	ctx := context.Background()
	for b.Loop() {
		if stop, err := c.Prompt(ctx, sid, "noop"); err != nil || stop != "end_turn" {
			b.Fatalf("stop %q err %v", stop, err)
		}
	}
}

// BenchmarkInProcessPending holds 60 approvals pending at once in a bridge
// in the test process (within the 64 one agent may have in flight) and
// reports what each costs: heap in use and goroutine stacks after a GC,
// against the same bridge idle. For heap profiles:
//
//	go test -run '^$' -bench InProcessPending -benchtime 1x -memprofile mem.out ./bench/
func BenchmarkInProcessPending(b *testing.B) {
	const pending = 60
	agent := buildAgent(b)
	for range b.N {
		var idle, held runtime.MemStats
		holdPending(b, agent, pending, func() { idle = memNow() }, func() { held = memNow() })
		b.ReportMetric(float64(held.HeapInuse-idle.HeapInuse)/pending, "heap-B/pending")
		b.ReportMetric(float64(held.StackInuse-idle.StackInuse)/pending, "stack-B/pending")
	}
}

// holdPending runs a bridge in the test process whose agent asks n
// permission requests at once (within the 64 one agent may have in flight),
// holds every card open in its client, calls whileHeld once all n are
// pending (before: once the bridge and its agent are up, before the
// prompt), then answers them all and waits for the turn to end.
func holdPending(tb testing.TB, agent string, n int, before, whileHeld func()) {
	tb.Helper()
	var arrived atomic.Int64
	all := make(chan struct{})
	release := make(chan struct{})
	c, sid := inProcessBridge(tb, agent, func(c *Client) {
		c.OnRequest = func(method string, params json.RawMessage) (any, *RPCError) {
			if arrived.Add(1) == int64(n) {
				close(all)
			}
			<-release
			return AllowOnce(params)
		}
	})
	before()
	done := make(chan error, 1)
	go func() {
		_, err := c.Prompt(context.Background(), sid, fmt.Sprintf("permc %d", n))
		done <- err
	}()
	select {
	case <-all:
	case err := <-done:
		tb.Fatalf("the prompt ended with %d of %d approvals pending: %v", arrived.Load(), n, err)
	}
	whileHeld()
	close(release)
	if err := <-done; err != nil {
		tb.Fatal(err)
	}
}

func memNow() runtime.MemStats {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m
}
