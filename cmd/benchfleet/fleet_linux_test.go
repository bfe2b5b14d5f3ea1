//go:build linux

package benchfleet

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/acp-bridge/acp-bridge/hooks"
	"github.com/acp-bridge/acp-bridge/internal/testkit"
	"github.com/acp-bridge/acp-bridge/orgpolicy"
	"github.com/acp-bridge/acp-bridge/orgpolicy/opatest"
	"github.com/acp-bridge/acp-bridge/orgproc"
	"github.com/acp-bridge/acp-bridge/policy"
	"github.com/acp-bridge/acp-bridge/telemetry/otelcoltest"
)

var (
	fleetN       = flag.Int("fleet.n", 2, "bridge processes (make bench-fleet: 50)")
	fleetDown    = flag.Int("fleet.down", 3, "decisions per bridge while the collector is down")
	fleetE2E     = flag.Int("fleet.e2e", 3, "end-to-end decisions per bridge and kind (OPA-decided, built-in rule)")
	fleetSamples = flag.Int("fleet.samples", 150, "in-process samples per stage")
	fleetOut     = flag.String("fleet.out", "", "write the Fleet section of this file (docs/benchmarks.md)")
)

func TestMain(m *testing.M) {
	testkit.ServeFakeAgentIfChild()
	os.Exit(m.Run())
}

const rego = `package acp

default decision := "ask"

decision := {"decision": "deny", "reason": "REASON"} if {
	startswith(input.call.command, "ls")
}

decision := {"decision": "allow", "reason": "read-only"} if {
	startswith(input.call.command, "true")
}
`

func regoRev(reason string) string { return strings.Replace(rego, "REASON", reason, 1) }

// bundleServer serves one swappable bundle on loopback, with ETags.
type bundleServer struct {
	mu   sync.Mutex
	data []byte
	rev  int
}

func (s *bundleServer) set(b []byte) {
	s.mu.Lock()
	s.data, s.rev = b, s.rev+1
	s.mu.Unlock()
}

func (s *bundleServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	data, rev := s.data, s.rev
	s.mu.Unlock()
	if data == nil || r.URL.Path != "/b/acp.tar.gz" {
		http.NotFound(w, r)
		return
	}
	tag := fmt.Sprintf(`"%d"`, rev)
	if r.Header.Get("If-None-Match") == tag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Header().Set("ETag", tag)
	_, _ = w.Write(data)
}

// BenchmarkFleet runs the fleet once per iteration (the bench smoke: once,
// with 2 bridges). Its metrics are the numbers docs/benchmarks.md shows.
func BenchmarkFleet(b *testing.B) {
	need(b)
	for i := 0; i < b.N; i++ {
		res := runFleet(b, *fleetN)
		b.ReportMetric(res.bundleMax.Seconds()*1000, "bundle-reach-all-ms")
		b.ReportMetric(float64(res.opaAdded.p99.Microseconds()), "opa-added-p99-µs")
		b.ReportMetric(float64(res.delivered), "events-after-restart")
		b.ReportMetric(float64(res.outage), "events-in-outage")
		if res.delivered != res.outage {
			b.Errorf("%d of %d decision events made while the collector was down reached it after its restart", res.delivered, res.outage)
		}
		if *fleetOut != "" && i == 0 {
			if err := writeSection(*fleetOut, res.markdown()); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// need skips when the fleet cannot be built here.
func need(b *testing.B) {
	if os.Getuid() != 0 {
		b.Skip("the fleet places /etc/acp-bridge in a mount namespace: needs root")
	}
	for _, p := range []string{"unshare", "nsenter", "go"} {
		if _, err := exec.LookPath(p); err != nil {
			b.Skipf("%s not found", p)
		}
	}
	if _, err := otelcoltest.Ready(); err != nil {
		b.Skip(err.Error())
	}
}

type dist struct{ n, p50, p99, max time.Duration }

func distOf(ds []time.Duration) dist {
	if len(ds) == 0 {
		return dist{}
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	at := func(q float64) time.Duration { return s[min(len(s)-1, int(q*float64(len(s))))] }
	return dist{n: time.Duration(len(s)), p50: at(0.50), p99: at(0.99), max: s[len(s)-1]}
}

func (d dist) String() string {
	return fmt.Sprintf("%s / %s (max %s, n=%d)", round(d.p50), round(d.p99), round(d.max), int(d.n))
}

func round(d time.Duration) string {
	switch {
	case d < 10*time.Microsecond:
		return d.Round(10 * time.Nanosecond).String()
	case d < 10*time.Millisecond:
		return d.Round(time.Microsecond).String()
	}
	return d.Round(time.Millisecond).String()
}

type fleetResult struct {
	n                    int
	start                time.Duration // all bridges up, sessions open, bundle rev-1 active
	poll                 string
	bundle               []time.Duration
	bundleMax            time.Duration
	e2eOPA, e2eBuiltin   dist
	builtin, withOPA     dist
	opaAdded             dist
	hookCmd, hookAuthZEN dist
	outage, delivered    int
	redelivery           time.Duration
	auditKept            bool
	procs                int
	loadStart            string
}

// loadAverage is the 1-minute load average (/proc/loadavg).
func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Fields(string(data))[0]
}

func (r fleetResult) markdown() string {
	host, _ := os.Hostname()
	cpu := cpuModel()
	var b strings.Builder
	fmt.Fprintf(&b, "## Fleet: %d bridges under one policy\n\n", r.n)
	var set []string
	flag.Visit(func(f *flag.Flag) {
		if strings.HasPrefix(f.Name, "fleet.") && f.Name != "fleet.out" {
			set = append(set, "-"+f.Name+" "+f.Value.String())
		}
	})
	fmt.Fprintf(&b, "Measured %s on %s (%s, %d cores, %s; load average %s at the start, %s at the end: the machine was shared) by `make bench-fleet` (`%s`). ",
		time.Now().UTC().Format("2006-01-02 15:04 MST"), host, cpu, runtime.NumCPU(), runtime.Version(), r.loadStart, loadAverage(), strings.Join(set, " "))
	fmt.Fprintf(&b, "%d real acp-bridge processes (each with its fake agent, %d processes in all) on loopback, one managed tier at /etc/acp-bridge (a private mount namespace) naming one OPA bundle server (signed bundles, polled every %s) and one required OpenTelemetry Collector (tools/otelcol, OTLP/HTTP). Starting them, opening a session in each and activating the first bundle took %s.\n\n",
		r.n, r.procs, r.poll, r.start.Round(100*time.Millisecond))
	b.WriteString("| What | p50 / p99 |\n|---|---|\n")
	fmt.Fprintf(&b, "| A new bundle revision reaches every bridge (from the server's swap to each bridge's log line; %s poll) | %s; all %d by %s |\n",
		r.poll, distOf(r.bundle), r.n, round(r.bundleMax))
	fmt.Fprintf(&b, "| Built-in rules alone, in process (policy.Evaluate) | %s |\n", r.builtin)
	fmt.Fprintf(&b, "| Built-in rules + OPA stage, in process, same calls interleaved | %s |\n", r.withOPA)
	fmt.Fprintf(&b, "| **Added by the OPA stage** (its own time per call) | **%s** |\n", r.opaAdded)
	fmt.Fprintf(&b, "| End to end across the fleet, call denied by OPA (agent's request to its answer, through the editor's prompt) | %s |\n", r.e2eOPA)
	fmt.Fprintf(&b, "| End to end across the fleet, call denied by a built-in rule (OPA not consulted) | %s |\n", r.e2eBuiltin)
	fmt.Fprintf(&b, "| Decision hook, command (`sh`, JSON in and out) | %s |\n", r.hookCmd)
	fmt.Fprintf(&b, "| Decision hook, AuthZEN over HTTP on loopback, through the companion acp-bridge-org | %s |\n", r.hookAuthZEN)
	fmt.Fprintf(&b, "\nCollector restart: it was stopped, every bridge made %d decisions (%d in all), and it was started again on the same ports: **%d of %d** of those decision events reached it, the last %s after the restart (the exporter's retry backoff); every bridge's JSONL audit log had every record meanwhile: %s.\n\n",
		r.outage/r.n, r.outage, r.delivered, r.outage, round(r.redelivery), map[bool]string{true: "yes", false: "**no**"}[r.auditKept])
	b.WriteString("The in-process rows time the same stage the bridges run in their companion process acp-bridge-org (orgpolicy.Stage.Decide against the same bundle server) without the process and pipe noise of the end-to-end rows; the end-to-end rows include the fake agent, two JSON-RPC hops and the prompt turn, on a machine the whole fleet shares.\n")
	return b.String()
}

func cpuModel() string {
	data, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "model name"); ok {
			return strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(v), ":"))
		}
	}
	return runtime.GOARCH
}

const (
	sectionStart = "<!-- bench-fleet:start -->"
	sectionEnd   = "<!-- bench-fleet:end -->"
)

// writeSection puts md between the fleet markers of path (appended with
// them when absent).
func writeSection(path, md string) error {
	old, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("fleet section: %w", err)
	}
	block := sectionStart + "\n" + md + sectionEnd
	s := string(old)
	i, j := strings.Index(s, sectionStart), strings.Index(s, sectionEnd)
	if i >= 0 && j > i {
		s = s[:i] + block + s[j+len(sectionEnd):]
	} else if k := strings.LastIndex(s, "Fault-injection and fuzzing coverage"); k >= 0 {
		s = s[:k] + block + "\n\n" + s[k:] // where make bench keeps it (bench.KeepFleetSection)
	} else {
		s = strings.TrimRight(s, "\n") + "\n\n" + block + "\n"
	}
	return os.WriteFile(path, []byte(s), 0o644)
}

func runFleet(b *testing.B, n int) fleetResult {
	res := fleetResult{n: n, poll: "1 s", loadStart: loadAverage()}
	last := time.Now()
	var steps []string
	step := func(name string) {
		steps = append(steps, fmt.Sprintf("%s %v", name, time.Since(last).Round(time.Millisecond)))
		last = time.Now()
	}
	defer func() { b.Logf("steps: %s", strings.Join(steps, ", ")) }()
	b.StopTimer() // building is not the fleet
	bin := buildBridge(b)
	b.StartTimer()
	step("build")
	priv, pub := opatest.Keys(b)
	srv := &bundleServer{}
	hs := httptest.NewServer(srv)
	b.Cleanup(hs.Close)
	srv.set(opatest.Build(b, regoRev("rev-1 says no"), "rev-1", priv))

	step("bundle")
	col := otelcoltest.New(b)
	step("collector")
	indent := "      " + strings.ReplaceAll(strings.TrimSpace(pub), "\n", "\n      ")
	managed := fmt.Sprintf("opa:\n  bundleUrl: %s/b/acp.tar.gz\n  pollMinSeconds: 1\n  pollMaxSeconds: 1\n  signingKeyId: org\n  signingKey: |\n%s\n  query: data.acp.decision\n"+
		"telemetry:\n  enabled: true\n  protocol: http/protobuf\n  endpoint: http://%s\n", hs.URL, indent, col.HTTP)
	ns := managedNamespace(b, managed)

	began := time.Now()
	members := make([]*member, n)
	errs := make(chan error, n)
	sem := make(chan struct{}, 4)
	for i := range members {
		go func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			m, err := startMember(b, ns, bin, i)
			members[i] = m
			errs <- err
		}()
	}
	for range members {
		if err := <-errs; err != nil {
			b.Fatal(err)
		}
	}
	for _, m := range members {
		if _, err := m.await("rev-1", 2*time.Minute); err != nil {
			b.Fatal(err)
		}
	}
	res.start = time.Since(began)
	step("fleet up")
	res.procs = 2*n + 2

	// End to end: a call OPA denies and one a built-in rule denies, interleaved.
	var e2eOPA, e2eBuiltin []time.Duration
	for k := 0; k < *fleetE2E; k++ {
		for j, m := range members {
			// Which goes first alternates: the first prompt to a bridge
			// that was idle pays its wake-up.
			kinds := []struct {
				prompt string
				into   *[]time.Duration
			}{{"bash ls -la", &e2eOPA}, {"bash echo hi", &e2eBuiltin}}
			if (k+j)%2 == 1 {
				slices.Reverse(kinds)
			}
			for _, kd := range kinds {
				d, err := m.decide(kd.prompt)
				if err != nil {
					b.Fatal(err)
				}
				*kd.into = append(*kd.into, d)
			}
		}
	}
	res.e2eOPA, res.e2eBuiltin = distOf(e2eOPA), distOf(e2eBuiltin)
	step("e2e")

	// A bundle change reaching the fleet.
	rev2 := opatest.Build(b, regoRev("rev-2 says no"), "rev-2", priv)
	swapped := time.Now()
	srv.set(rev2)
	for _, m := range members {
		at, err := m.await("rev-2", time.Minute)
		if err != nil {
			b.Fatal(err)
		}
		res.bundle = append(res.bundle, at.Sub(swapped))
	}
	res.bundleMax = slices.Max(res.bundle)
	step("bundle change")

	res.builtin, res.withOPA, res.opaAdded = opaInProcess(b, hs.URL, pub, *fleetSamples)
	step("opa in process")
	res.hookCmd, res.hookAuthZEN = hookLatency(b, filepath.Join(filepath.Dir(bin), orgproc.Name), *fleetSamples)
	step("hooks")

	// The collector goes down; decisions go on; it comes back.
	auditBefore := auditLines(b, members)
	pre := col.AwaitCount(auditBefore, 2*time.Minute)
	if pre != auditBefore {
		b.Fatalf("before the outage the collector has %d events, the audit logs %d", pre, auditBefore)
	}
	step("pre-outage flush")
	col.Stop()
	step("collector stop")
	var wg sync.WaitGroup
	prompt := strings.Repeat("bash ls -la\n", *fleetDown)
	for _, m := range members {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := m.decide(prompt); err != nil {
				b.Error(err)
			}
		}()
	}
	wg.Wait()
	res.outage = n * *fleetDown
	res.auditKept = auditLines(b, members) == auditBefore+res.outage
	step("outage decisions")
	col.Start()
	step("collector start")
	restarted := time.Now()
	got := col.AwaitCount(auditBefore+res.outage, 3*time.Minute)
	res.redelivery = time.Since(restarted)
	res.delivered = got - pre
	step("redelivery")
	if !res.auditKept {
		b.Errorf("the audit logs lack records made while the collector was down")
	}
	b.Logf("fleet of %d: start %v; bundle %v; e2e OPA %v, built-in %v; in process built-in %v, +OPA %v, OPA alone %v; hook cmd %v, AuthZEN %v; outage %d/%d in %v",
		n, res.start, distOf(res.bundle), res.e2eOPA, res.e2eBuiltin, res.builtin, res.withOPA, res.opaAdded, res.hookCmd, res.hookAuthZEN, res.delivered, res.outage, res.redelivery)
	return res
}

// buildBridge builds ./cmd/acp-bridge and, beside it, its companion
// ./cmd/acp-bridge-org, which runs the fleet's OPA and telemetry (no
// -race: this measures them), or takes $ACP_BRIDGE_BIN (make bench-fleet:
// bin/acp-bridge, with bin/acp-bridge-org beside it).
func buildBridge(b *testing.B) string {
	if p := os.Getenv("ACP_BRIDGE_BIN"); p != "" {
		if _, err := os.Stat(filepath.Join(filepath.Dir(p), "acp-bridge-org")); err != nil {
			b.Fatalf("no companion beside %s: %v (make build builds both)", p, err)
		}
		return p
	}
	dir := b.TempDir()
	bin := filepath.Join(dir, "acp-bridge")
	for _, pkg := range []string{"../acp-bridge", "../acp-bridge-org"} {
		cmd := exec.Command("go", "build", "-o", dir+"/", pkg)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("build %s: %v\n%s", pkg, err, out)
		}
	}
	return bin
}

// managedNamespace starts a process that holds a private mount namespace
// whose /etc is an overlay with /etc/acp-bridge/managed-settings.yaml;
// the bridges enter it (nsenter). It returns that process's pid.
func managedNamespace(b *testing.B, managed string) int {
	root, err := os.MkdirTemp("", "acpb-fleet-") // under /tmp: root-owned path up to /
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = os.RemoveAll(root) })
	upper, work := filepath.Join(root, "upper"), filepath.Join(root, "work")
	for _, d := range []string{work, filepath.Join(upper, "acp-bridge")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(upper, "acp-bridge", "managed-settings.yaml"), []byte(managed), 0o644); err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command("unshare", "-m", "--propagation", "private", "sh", "-c",
		`mount -t overlay overlay -o lowerdir=/etc,upperdir="$1",workdir="$2" /etc && test -f /etc/acp-bridge/managed-settings.yaml && echo ready && exec sleep 86400`, "sh", upper, work)
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "ready\n" {
		b.Fatalf("cannot place /etc/acp-bridge in a mount namespace: %q %v", line, err)
	}
	return cmd.Process.Pid
}

// member is one bridge of the fleet, with its editor and session.
type member struct {
	i     int
	cmd   *exec.Cmd
	ed    *testkit.Editor
	ctx   context.Context
	sid   string
	audit string
	mu    sync.Mutex
	revs  map[string]time.Time // bundle revision -> when the bridge logged it active
	more  chan struct{}        // a revision was logged
	tail  []string
}

var activated = regexp.MustCompile(`OPA bundle activated.*"revision": "([^"]+)"`)

func startMember(b *testing.B, ns int, bin string, i int) (*member, error) {
	home, ws := b.TempDir(), b.TempDir()
	m := &member{i: i, audit: filepath.Join(home, "audit.jsonl"), revs: map[string]time.Time{}, more: make(chan struct{}, 1)}
	cfg := filepath.Join(home, "config.yaml")
	user := fmt.Sprintf("defaultAgent: f\naudit: {path: %q}\npermissions:\n  deny: [\"Bash(echo *)\"]\nagents:\n%s", m.audit, testkit.FakeAgentYAML("f"))
	if err := os.WriteFile(cfg, []byte(user), 0o600); err != nil {
		return nil, err
	}
	cmd := exec.Command("nsenter", "-t", fmt.Sprint(ns), "-m", "--", bin, "--workspace", ws, "--config", cfg, "--log-level", "info")
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"))
	cmd.Dir = ws
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("bridge %d: %w", i, err)
	}
	m.cmd = cmd
	ctx, cancel := context.WithCancel(context.Background())
	m.ctx = ctx
	done := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			m.mu.Lock()
			if len(m.tail) < 200 {
				m.tail = append(m.tail, line)
			}
			if g := activated.FindStringSubmatch(line); g != nil {
				if _, ok := m.revs[g[1]]; !ok {
					m.revs[g[1]] = time.Now()
				}
				select {
				case m.more <- struct{}{}:
				default:
				}
			}
			m.mu.Unlock()
		}
		close(done)
	}()
	b.Cleanup(func() {
		cancel()
		_ = stdin.Close()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		}
		_ = cmd.Wait()
	})
	m.ed = testkit.NewEditor(ctx, stdout, stdin)
	c, stop := context.WithTimeout(ctx, 2*time.Minute)
	defer stop()
	if _, err := m.ed.Initialize(c, false, false); err != nil {
		return m, fmt.Errorf("bridge %d: initialize: %w\n%s", i, err, m.log())
	}
	if m.sid, err = m.ed.NewSession(c, ws, ""); err != nil {
		return m, fmt.Errorf("bridge %d: session/new: %w\n%s", i, err, m.log())
	}
	return m, nil
}

func (m *member) log() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return strings.Join(m.tail, "\n")
}

// await returns when the bridge logged bundle revision rev active.
func (m *member) await(rev string, within time.Duration) (time.Time, error) {
	deadline := time.After(within)
	for {
		m.mu.Lock()
		at, ok := m.revs[rev]
		m.mu.Unlock()
		if ok {
			return at, nil
		}
		select {
		case <-m.more:
		case <-deadline:
			return time.Time{}, fmt.Errorf("bridge %d: bundle %s not active within %v\n%s", m.i, rev, within, m.log())
		}
	}
}

// decide sends one prompt whose calls are all denied without a card and
// returns how long the turn took.
func (m *member) decide(prompt string) (time.Duration, error) {
	c, stop := context.WithTimeout(m.ctx, time.Minute)
	defer stop()
	before := len(testkit.Texts(m.ed.Messages(), m.sid))
	start := time.Now()
	if _, err := m.ed.Prompt(c, m.sid, prompt); err != nil {
		return 0, fmt.Errorf("bridge %d: %w", m.i, err)
	}
	d := time.Since(start)
	texts := testkit.Texts(m.ed.Messages(), m.sid)[before:]
	want := strings.Count(prompt, "\n") + 1
	if strings.HasSuffix(prompt, "\n") {
		want--
	}
	if len(texts) != want || slices.ContainsFunc(texts, func(s string) bool { return s != "bash=reject" }) {
		return 0, fmt.Errorf("bridge %d: %q answered %q, want %d denials", m.i, prompt, texts, want)
	}
	return d, nil
}

// auditLines counts the records in every bridge's JSONL audit log.
func auditLines(b *testing.B, ms []*member) int {
	n := 0
	for _, m := range ms {
		data, err := os.ReadFile(m.audit)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			b.Fatal(err)
		}
		n += strings.Count(string(data), "\n")
	}
	return n
}

// opaInProcess times the built-in rules alone and with the OPA stage after
// them, on the same calls, interleaved, against the fleet's bundle server.
func opaInProcess(b *testing.B, url, pub string, samples int) (builtin, withOPA, added dist) {
	ctx := context.Background()
	st, err := orgpolicy.Start(ctx, orgpolicy.Config{BundleURL: url + "/b/acp.tar.gz", PollMin: time.Second, PollMax: time.Second,
		KeyID: "org", Key: pub, Algorithm: "RS256", Query: "data.acp.decision", PersistDir: b.TempDir(), Timeout: 10 * time.Second}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Stop(ctx)
	var rules []policy.RuleText
	o := policy.Origin{Layer: "user", Root: "/w"}
	for i := 0; i < 100; i++ {
		rules = append(rules, policy.RuleText{List: []string{"allow", "deny", "ask"}[i%3], Text: fmt.Sprintf("Bash(tool%d *)", i), Origin: o})
	}
	pol, errs := policy.Compile(rules)
	if len(errs) > 0 {
		b.Fatal(errs)
	}
	env := policy.Env{Cwd: "/w", ProjectRoot: "/w", Home: "/root"}
	cmds := []string{"ls -la", "true", "git status", "tool7 x", "npm test && ls"}
	deadline := time.Now().Add(time.Minute)
	for st.Decide(ctx, orgpolicy.Input{Call: policy.Call{Tool: "Bash", Command: "ls"}, Mode: "default"}).Outcome != hooks.OutcomeVerdict {
		if time.Now().After(deadline) {
			b.Fatal("the in-process OPA stage got no bundle")
		}
		time.Sleep(20 * time.Millisecond)
	}
	var tb, tw, ta []time.Duration
	for i := 0; i < samples; i++ {
		call := policy.Call{Tool: "Bash", Command: cmds[i%len(cmds)]}
		in := policy.Input{Call: call, Mode: policy.ModeDefault, Env: env, Policy: pol}
		t0 := time.Now()
		v := policy.Evaluate(in)
		t1 := time.Now()
		r := st.Decide(ctx, orgpolicy.Input{Call: call, Agent: "f", SessionID: "s", Mode: "default", Workspace: "/w",
			Earlier: hooks.EarlierOf(v)})
		t2 := time.Now()
		if r.Outcome != hooks.OutcomeVerdict {
			b.Fatalf("OPA: %+v", r)
		}
		// The built-in rules alone, again, so both columns see the same cache state.
		t3 := time.Now()
		policy.Evaluate(in)
		tb = append(tb, time.Since(t3))
		tw = append(tw, t2.Sub(t0))
		ta = append(ta, t2.Sub(t1))
	}
	return distOf(tb), distOf(tw), distOf(ta)
}

// hookLatency times a command hook and an AuthZEN hook on loopback, whose
// request goes through the companion at companion, as the bridge's does
// (orgproc.Client.AuthZEN).
func hookLatency(b *testing.B, companion string, samples int) (cmd, authzen dist) {
	ctx := context.Background()
	// The companion's version, which the client must name (a make build
	// sets it): `acp-bridge-org --version` says "acp-bridge-org <version>".
	out, err := exec.Command(companion, "--version").CombinedOutput()
	if err != nil {
		b.Fatalf("%s --version: %v\n%s", companion, err, out)
	}
	cl := orgproc.New(orgproc.Options{Path: companion, Version: strings.TrimPrefix(strings.TrimSpace(string(out)), orgproc.Name+" ")})
	defer func() {
		cctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		cl.Close(cctx)
	}()
	req := hooks.Request{Call: policy.Call{Tool: "Bash", Command: "ls -la"}, Agent: "f", SessionID: "s", Mode: "default", Workspace: "/w"}
	script := filepath.Join(b.TempDir(), "hook.sh") // a hook runs a script file, never shell code (settings/hookpaths.go)
	if err := os.WriteFile(script, []byte(`cat >/dev/null; echo '{"decision":"allow","reason":"ok"}'`+"\n"), 0o755); err != nil {
		b.Fatal(err)
	}
	h := hooks.Hook{Name: "cmd", Command: []string{"/bin/sh", script}, Timeout: 10 * time.Second}
	az := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"decision": true}`))
	}))
	defer az.Close()
	ha := hooks.Hook{Name: "az", URL: az.URL + "/access/v1/evaluation", Timeout: 10 * time.Second, Post: cl.AuthZEN}
	var tc, ta []time.Duration
	for i := 0; i < samples; i++ {
		if i%3 == 0 { // a command is a fork and exec: a third of the samples suffice
			r := hooks.Consult(ctx, h, req)
			if r.Outcome != hooks.OutcomeVerdict || r.Decision != policy.Allow {
				b.Fatalf("command hook: %+v", r)
			}
			tc = append(tc, r.Elapsed)
		}
		r := hooks.Consult(ctx, ha, req)
		if r.Outcome != hooks.OutcomeVerdict || r.Decision != policy.Allow {
			b.Fatalf("AuthZEN hook: %+v", r)
		}
		ta = append(ta, r.Elapsed)
	}
	return distOf(tc), distOf(ta)
}
