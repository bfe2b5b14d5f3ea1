package orgproc

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/acp-bridge/acp-bridge/hooks"
	"github.com/acp-bridge/acp-bridge/internal/audit"
	"github.com/acp-bridge/acp-bridge/orgpolicy"
	"github.com/acp-bridge/acp-bridge/orgpolicy/opastage"
	"github.com/acp-bridge/acp-bridge/orgpolicy/opatest"
	"github.com/acp-bridge/acp-bridge/policy"
	"github.com/acp-bridge/acp-bridge/settings"
	"github.com/acp-bridge/acp-bridge/telemetry"
	"github.com/acp-bridge/acp-bridge/telemetry/otelcoltest"
)

const testVersion = "0.1.0-dev"

// companionBin is the real companion, built once; otherBin the same with
// another version.
var companionBin, otherBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "acp-bridge-org")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	companionBin, otherBin = filepath.Join(dir, Name), filepath.Join(dir, "other", Name)
	for _, b := range []struct {
		out   string
		flags []string
	}{{companionBin, nil}, {otherBin, []string{"-ldflags", "-X main.version=9.9.9-other"}}} {
		args := append(append([]string{"build", "-o", b.out}, b.flags...), "../cmd/acp-bridge-org")
		build := exec.Command("go", args...)
		build.Stderr = os.Stderr
		if err := build.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "build acp-bridge-org:", err)
			os.RemoveAll(dir)
			os.Exit(1)
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

const testPolicy = `package acp

default decision := "ask"

decision := {"decision": "deny", "reason": "no listing"} if {
	startswith(input.call.command, "ls")
}

decision := "allow" if {
	input.call.command == "echo hi"
}
`

// bundles serves one signed bundle on loopback.
type bundles struct {
	mu   sync.Mutex
	data []byte
}

func (s *bundles) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	data := s.data
	s.mu.Unlock()
	if data == nil || r.URL.Path != "/b/acp.tar.gz" {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("ETag", `"1"`)
	if r.Header.Get("If-None-Match") == `"1"` {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	_, _ = w.Write(data)
}

// opaConfig serves a signed bundle (revision rev-1) and returns the
// configuration that points OPA at it.
func opaConfig(t testing.TB, timeout time.Duration) opastage.Config {
	priv, pub := opatest.Keys(t)
	srv := &bundles{data: opatest.Build(t, testPolicy, "rev-1", priv)}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	return opastage.Config{BundleURL: hs.URL + "/b/acp.tar.gz", PollMin: time.Second, PollMax: time.Second,
		KeyID: "org", Key: pub, Query: "data.acp.decision", Timeout: timeout}
}

func newClient(t testing.TB, path string, log *zap.Logger) *Client {
	return newClientBackoff(t, path, log, 50*time.Millisecond)
}

func newClientBackoff(t testing.TB, path string, log *zap.Logger, backoff time.Duration) *Client {
	c := New(Options{Path: path, Version: testVersion, Logger: log, Backoff: backoff, MaxBackoff: 4 * backoff})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		c.Close(ctx)
	})
	return c
}

// awaitRevision waits (on the status channel) until the companion says
// the bundle with rev is active and OPA decides; at most within.
func awaitRevision(t testing.TB, c *Client, rev string, within time.Duration) {
	t.Helper()
	deadline := time.NewTimer(within)
	defer deadline.Stop()
	for {
		st, next := c.Status()
		if st.Revision == rev && st.Ready {
			return
		}
		select {
		case <-next:
		case <-deadline.C:
			t.Fatalf("no bundle %s within %v (last status %+v)", rev, within, st)
		}
	}
}

var lsCall = opastage.Input{Call: policy.Call{Tool: "Bash", Command: "ls -la"}, Agent: "a", SessionID: "s", Mode: "default", Workspace: "/w"}

func current(c *Client) *conn {
	cn, _ := c.state()
	return cn
}

// awaitState waits until the running companion satisfies ok.
func awaitState(t *testing.T, c *Client, ok func(*conn) bool) {
	t.Helper()
	deadline := time.NewTimer(60 * time.Second)
	defer deadline.Stop()
	for {
		cn, moved := c.state()
		if ok(cn) {
			return
		}
		select {
		case <-moved:
		case <-deadline.C:
			t.Fatal("the companion's state did not change within 60s")
		}
	}
}

// The companion's OPA decides as the in-process one does, with OPA's
// decision id and the bundle's revision.
func TestDecidesThroughCompanion(t *testing.T) {
	cfg := opaConfig(t, 10*time.Second)
	core, logs := observer.New(zap.DebugLevel)
	c := newClient(t, companionBin, zap.New(core))
	if err := c.StartOPA(t.Context(), cfg); err != nil {
		t.Fatal(err)
	}
	awaitRevision(t, c, "rev-1", 60*time.Second)
	inproc, err := orgpolicy.Start(t.Context(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer inproc.Stop(context.Background())
	for _, tc := range []struct {
		command string
		want    policy.Decision
	}{{"ls -la", policy.Deny}, {"echo hi", policy.Allow}, {"make", policy.Ask}} {
		in := lsCall
		in.Call.Command = tc.command
		got := c.Decide(t.Context(), in)
		if got.Outcome != hooks.OutcomeVerdict || got.Decision != tc.want || got.DecisionID == "" || got.Revision != "rev-1" || got.Hook != "opa" {
			t.Errorf("%s: %+v, want a verdict %s with a decision id from rev-1", tc.command, got, tc.want)
		}
		deadline := time.Now().Add(60 * time.Second)
		want := inproc.Decide(t.Context(), in)
		for want.Outcome != hooks.OutcomeVerdict && time.Now().Before(deadline) {
			st, next := inproc.Status()
			if st.Revision == "" {
				<-next
			}
			want = inproc.Decide(t.Context(), in)
		}
		if want.Decision != got.Decision || want.Reason != got.Reason {
			t.Errorf("%s: in process %s %q, through the companion %s %q", tc.command, want.Decision, want.Reason, got.Decision, got.Reason)
		}
	}
	// The companion's log reaches the client's, fields kept.
	if logs.FilterMessage("OPA bundle activated").FilterField(zap.String("revision", "rev-1")).Len() == 0 {
		t.Errorf("the companion's log did not reach the bridge's: %v", logs.All())
	}
}

// A companion of another version is refused: no verdict, and it is not used.
func TestVersionMismatchRefused(t *testing.T) {
	c := newClient(t, otherBin, nil)
	err := c.StartOPA(t.Context(), opaConfig(t, time.Second))
	if err == nil || !strings.Contains(err.Error(), "refused") || !strings.Contains(err.Error(), "9.9.9-other") {
		t.Fatalf("StartOPA: %v, want a refusal naming the other version", err)
	}
	if r := c.Decide(t.Context(), lsCall); r.Outcome != hooks.OutcomeNoVerdict || !strings.Contains(r.Reason, "refused") {
		t.Errorf("Decide: %+v, want no verdict naming the refusal", r)
	}
	if _, err := c.StartTelemetry(t.Context(), TelemetryStart{Telemetry: settings.Telemetry{Enabled: true, Endpoint: "http://127.0.0.1:1"}, Version: testVersion}); err == nil {
		t.Error("StartTelemetry on a refused companion: no error")
	}
	// The control: the same client code with the right version starts.
	ok := newClient(t, companionBin, nil)
	if err := ok.StartOPA(t.Context(), opaConfig(t, time.Second)); err != nil {
		t.Fatalf("control: %v", err)
	}
}

// A companion that is not there: no verdict, never an allow.
func TestMissingCompanionAsks(t *testing.T) {
	c := newClient(t, filepath.Join(t.TempDir(), Name), nil)
	if err := c.StartOPA(t.Context(), opaConfig(t, time.Second)); err == nil {
		t.Fatal("StartOPA with no companion: no error")
	}
	if r := c.Decide(t.Context(), lsCall); r.Outcome != hooks.OutcomeNoVerdict {
		t.Errorf("Decide: %+v, want no verdict", r)
	}
}

// A refused configuration is a StartError (the stage is broken for good).
func TestBadConfigIsStartError(t *testing.T) {
	c := newClient(t, companionBin, nil)
	err := c.StartOPA(t.Context(), opastage.Config{BundleURL: "ftp://x/b", KeyID: "k", Key: "k", Query: "data.acp.decision"})
	if _, ok := err.(*StartError); !ok || !strings.Contains(err.Error(), "not an http(s) URL") {
		t.Fatalf("StartOPA: %v (%T), want a StartError naming the URL", err, err)
	}
}

// Killed mid-run: calls get no verdict, the companion is restarted (OPA
// with it) and decides again.
func TestKilledCompanionAsksAndRestarts(t *testing.T) {
	c := newClient(t, companionBin, nil)
	if err := c.StartOPA(t.Context(), opaConfig(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	awaitRevision(t, c, "rev-1", 60*time.Second)
	if r := c.Decide(t.Context(), lsCall); r.Decision != policy.Deny {
		t.Fatalf("before the kill: %+v", r)
	}
	if d := c.Down(); d != "" {
		t.Errorf("Down says %q while the companion runs", d)
	}
	cn := current(c)
	_, next := c.Status()
	if err := cn.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-cn.dead
	if r := c.Decide(t.Context(), lsCall); r.Outcome != hooks.OutcomeNoVerdict {
		t.Errorf("right after the kill: %+v, want no verdict", r)
	}
	// The restarted companion's OPA reports its bundle again.
	select {
	case <-next:
	case <-time.After(60 * time.Second):
		t.Fatal("the companion was not restarted")
	}
	awaitRevision(t, c, "rev-1", 60*time.Second)
	if r := c.Decide(t.Context(), lsCall); r.Decision != policy.Deny || r.Outcome != hooks.OutcomeVerdict {
		t.Errorf("after the restart: %+v", r)
	}
	if cur := current(c); cur == nil || cur == cn || c.spawns.Load() < 2 {
		t.Errorf("not a new companion: spawns %d", c.spawns.Load())
	}
}

// A hung companion (stopped): Decide returns no verdict within OPA's
// budget (plus the pipe's margin); after it hangs twice it is killed and
// restarted.
func TestHungCompanionDecideBounded(t *testing.T) {
	const budget = 300 * time.Millisecond
	c := newClient(t, companionBin, nil)
	if err := c.StartOPA(t.Context(), opaConfig(t, budget)); err != nil {
		t.Fatal(err)
	}
	awaitRevision(t, c, "rev-1", 60*time.Second)
	// Stop the companion that serves now, and be sure it is stopped and
	// still the one serving (on a loaded machine a slow decision while the
	// bundle loaded may have had it replaced).
	var cn *conn
	var next <-chan struct{}
	for attempt := 0; ; attempt++ {
		cn = current(c)
		_, next = c.Status()
		if err := cn.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
			t.Fatal(err)
		}
		stopped := false
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", cn.cmd.Process.Pid)); err == nil {
				if f := strings.Fields(string(st[strings.LastIndexByte(string(st), ')')+1:])); len(f) > 0 && f[0] == "T" {
					stopped = true
					break
				}
			}
		}
		if stopped && current(c) == cn {
			break
		}
		if attempt == 5 {
			t.Fatalf("could not stop the serving companion (stopped %v)", stopped)
		}
		_ = cn.cmd.Process.Signal(syscall.SIGCONT)
		awaitRevision(t, c, "rev-1", 60*time.Second)
	}
	for i := range hungAfter {
		start := time.Now()
		r := c.Decide(t.Context(), lsCall)
		if el := time.Since(start); el > budget+decideMargin+500*time.Millisecond {
			t.Errorf("decision %d took %v, budget %v", i, el, budget)
		}
		if r.Outcome != hooks.OutcomeNoVerdict || !strings.Contains(r.Reason, "does not answer") {
			t.Errorf("decision %d: %+v, want no verdict", i, r)
		}
	}
	select {
	case <-cn.dead:
	case <-time.After(10 * time.Second):
		t.Fatal("the hung companion was not killed")
	}
	select {
	case <-next:
	case <-time.After(60 * time.Second):
		t.Fatal("the companion was not restarted")
	}
	awaitRevision(t, c, "rev-1", 60*time.Second)
	if r := c.Decide(t.Context(), lsCall); r.Decision != policy.Deny {
		t.Errorf("after the restart: %+v", r)
	}
}

// Records reach a real Collector through the companion; a record handed
// while the companion is down is counted as lost, and those after the
// restart arrive.
func TestRecordsReachCollectorThroughCompanion(t *testing.T) {
	col := otelcoltest.New(t)
	core, logs := observer.New(zap.DebugLevel)
	// A restart 3 s after the kill: time to hand a record while it is down.
	c := newClientBackoff(t, companionBin, zap.New(core), 3*time.Second)
	st, err := c.StartTelemetry(t.Context(), TelemetryStart{Telemetry: settings.Telemetry{Enabled: true, Endpoint: "http://" + col.HTTP}, Version: testVersion})
	if err != nil {
		t.Fatal(err)
	}
	if st.Protocol != telemetry.ProtocolHTTP || !strings.Contains(st.Endpoint, col.HTTP) {
		t.Errorf("started %+v", st)
	}
	var al memAudit
	a := Tee(&al, c)
	rec := func(id string) audit.Record {
		return audit.Record{Time: time.Now().UTC(), Agent: "a", SessionID: "s", ApprovalID: id, Decision: "deny", Source: "rule",
			Call: []byte(`{"tool":"Bash","command":"rm -rf /"}`), Reason: "no"}
	}
	for i := range 3 {
		if err := a.Append(rec(fmt.Sprintf("before-%d", i))); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if err := c.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	got := col.AwaitRecords(30*time.Second, func(e []otelcoltest.Exported) bool { return len(e) >= 3 })
	ids := map[string]bool{}
	for _, e := range got {
		id, _ := e.Attrs[telemetry.AttrApprovalID].(string)
		ids[id] = true
		if e.Attrs[telemetry.AttrDecision] != "deny" || e.EventName != telemetry.EventName {
			t.Errorf("exported %+v", e)
		}
	}
	for i := range 3 {
		if !ids[fmt.Sprintf("before-%d", i)] {
			t.Errorf("before-%d not exported: %v", i, ids)
		}
	}

	// Down: the record is counted and logged; the audit log has it.
	cn := current(c)
	if err := cn.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-cn.dead
	awaitState(t, c, func(cur *conn) bool { return cur != cn })
	lostBefore := c.Lost()
	if current(c) != nil {
		t.Fatal("restarted within its backoff")
	}
	_ = a.Append(rec("while-down"))
	if c.Lost() != lostBefore+1 {
		t.Errorf("a record while down: lost %d, want %d", c.Lost(), lostBefore+1)
	}
	if logs.FilterMessageSnippet("not handed to").Len() == 0 {
		t.Error("the lost record was not logged")
	}
	if len(al.recs) != 4 || al.recs[3].ApprovalID != "while-down" {
		t.Errorf("the audit log has %d records, the last not the one while down", len(al.recs))
	}
	// Back: records flow again (the supervisor restarts the sink).
	awaitState(t, c, func(cur *conn) bool { return cur != nil })
	_ = a.Append(rec("after"))
	if err := c.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	got = col.AwaitRecords(30*time.Second, func(e []otelcoltest.Exported) bool {
		for _, x := range e {
			if x.Attrs[telemetry.AttrApprovalID] == "after" {
				return true
			}
		}
		return false
	})
	found := false
	for _, x := range got {
		found = found || x.Attrs[telemetry.AttrApprovalID] == "after"
	}
	if !found {
		t.Error("a record after the restart was not exported")
	}
}

// Close flushes: records appended right before it reach the Collector.
func TestCloseFlushes(t *testing.T) {
	col := otelcoltest.New(t)
	before := runtime.NumGoroutine()
	c := New(Options{Path: companionBin, Version: testVersion})
	if _, err := c.StartTelemetry(t.Context(), TelemetryStart{Telemetry: settings.Telemetry{Enabled: true, Endpoint: "http://" + col.HTTP}, Version: testVersion}); err != nil {
		t.Fatal(err)
	}
	for i := range 50 {
		c.Record(audit.Record{Time: time.Now().UTC(), Agent: "a", SessionID: "s", ApprovalID: fmt.Sprintf("r%d", i), Decision: "allow", Source: "rule"})
	}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	c.Close(ctx)
	// Close waited for every goroutine of the client and its companion (a
	// goroutine that has said it is done may take a moment to end, and the
	// Collector helper's own may come and go: a leak stays).
	after := runtime.NumGoroutine()
	for deadline := time.Now().Add(5 * time.Second); after > before && time.Now().Before(deadline); after = runtime.NumGoroutine() {
		time.Sleep(10 * time.Millisecond)
	}
	if after > before {
		buf := make([]byte, 1<<20)
		t.Errorf("%d goroutines before, %d after Close:\n%s", before, after, buf[:runtime.Stack(buf, true)])
	}
	if got := col.AwaitRecords(30*time.Second, func(e []otelcoltest.Exported) bool { return len(e) >= 50 }); len(got) != 50 {
		t.Errorf("%d records exported after Close, want 50", len(got))
	}
	if c.Lost() != 0 {
		t.Errorf("lost %d", c.Lost())
	}
}

type memAudit struct {
	mu   sync.Mutex
	recs []audit.Record
}

func (m *memAudit) Append(r audit.Record) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.recs = append(m.recs, r)
	return nil
}

// BenchmarkDecide times one OPA decision in process and through the
// companion (the pipe both ways and JSON), against the same bundle.
func BenchmarkDecide(b *testing.B) {
	cfg := opaConfig(b, 10*time.Second)
	b.Run("in-process", func(b *testing.B) {
		st, err := orgpolicy.Start(b.Context(), cfg, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer st.Stop(context.Background())
		for st.Decide(b.Context(), lsCall).Outcome != hooks.OutcomeVerdict {
			_, next := st.Status()
			<-next
		}
		b.ResetTimer()
		for b.Loop() {
			if r := st.Decide(b.Context(), lsCall); r.Decision != policy.Deny {
				b.Fatal(r)
			}
		}
	})
	b.Run("companion", func(b *testing.B) {
		c := newClient(b, companionBin, nil)
		if err := c.StartOPA(b.Context(), cfg); err != nil {
			b.Fatal(err)
		}
		awaitRevision(b, c, "rev-1", 60*time.Second)
		b.ResetTimer()
		for b.Loop() {
			if r := c.Decide(b.Context(), lsCall); r.Decision != policy.Deny {
				b.Fatal(r)
			}
		}
	})
}

// Down says why no companion runs: before any start, and after Close.
func TestDownBeforeStartAndAfterClose(t *testing.T) {
	c := New(Options{Path: companionBin, Version: testVersion})
	if d := c.Down(); !strings.Contains(d, "not started") {
		t.Errorf("before any start: Down %q", d)
	}
	if err := c.StartOPA(t.Context(), opaConfig(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	if d := c.Down(); d != "" {
		t.Errorf("running: Down %q", d)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	c.Close(ctx)
	if d := c.Down(); d == "" {
		t.Errorf("after Close: Down says it runs")
	}
}
