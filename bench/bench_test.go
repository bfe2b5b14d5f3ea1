package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

func tctx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func TestQuantileAndSpread(t *testing.T) {
	cases := []struct {
		xs          []float64
		q, want     float64
		med, lo, hi float64
	}{
		{[]float64{5}, 0.99, 5, 5, 5, 5},
		{[]float64{3, 1, 2}, 0.5, 2, 2, 1, 3},
		{[]float64{4, 1, 3, 2}, 0.5, 2.5, 2.5, 1, 4},
		{[]float64{0, 10}, 0.99, 9.9, 5, 0, 10},
	}
	for _, c := range cases {
		if got := Quantile(c.xs, c.q); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("Quantile(%v, %v) = %v, want %v", c.xs, c.q, got, c.want)
		}
		s := SpreadOf(c.xs)
		if s.Median != c.med || s.Min != c.lo || s.Max != c.hi || s.N != len(c.xs) {
			t.Errorf("SpreadOf(%v) = %+v", c.xs, s)
		}
	}
	if !math.IsNaN(Quantile(nil, .5)) || !math.IsNaN(SpreadOf(nil).Median) {
		t.Error("empty input must give NaN")
	}
}

func TestParseBench(t *testing.T) {
	out := []byte(`goos: linux
BenchmarkEvaluateSimple-2     	  500000	      2301 ns/op	    1096 B/op	      10 allocs/op
BenchmarkEvaluateSimple-2     	  500000	      2501 ns/op	    1096 B/op	      10 allocs/op
BenchmarkEvaluateCompound10-2 	   40000	     28053 ns/op	    3760 B/op	      13 allocs/op
PASS
`)
	got := parseBench(out)
	if len(got) != 2 || got[0].Name != "BenchmarkEvaluateSimple" || got[0].NsPerOp.Median != 2401 || got[0].NsPerOp.N != 2 ||
		got[1].Name != "BenchmarkEvaluateCompound10" || got[1].AllocsPerOp != 13 || got[1].BytesPerOp != 3760 {
		t.Fatalf("parseBench = %+v", got)
	}
}

func TestMarkerAndIsUpdate(t *testing.T) {
	line := []byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"content":{"text":"#SEQ:000000042# #TS:17#"}}}}`)
	if !isUpdate(line) {
		t.Fatal("not recognised as an update")
	}
	if v, ok := Marker(line, "SEQ"); !ok || string(v) != "000000042" {
		t.Fatalf("SEQ = %q %v", v, ok)
	}
	if v, ok := Marker(line, "TS"); !ok || string(v) != "17" {
		t.Fatalf("TS = %q %v", v, ok)
	}
	if _, ok := Marker(line, "RTT"); ok {
		t.Fatal("absent marker found")
	}
	if isUpdate([]byte(`{"id":3,"jsonrpc":"2.0","method":"session/request_permission","params":{}}`)) ||
		isUpdate([]byte(`{"id":1,"jsonrpc":"2.0","method":"session/update"}`)) {
		t.Fatal("a request taken for an update")
	}
}

// The scripted agent and the client, in process over pipes: streams arrive
// complete and in order before the answer, permission requests are answered
// and counted, paced updates carry their timestamps.
func TestAgentAndClient(t *testing.T) {
	aR, cW := io.Pipe()
	cR, aW := io.Pipe()
	go func() { _ = ServeAgent(aR, aW); aW.Close() }()
	var mu sync.Mutex
	var seqs []int
	var texts []string
	c := NewClient(cW)
	c.OnUpdate = func(line []byte, _ time.Time) {
		mu.Lock()
		defer mu.Unlock()
		if v, ok := Marker(line, "SEQ"); ok {
			n, _ := strconv.Atoi(string(v))
			seqs = append(seqs, n)
		}
		var u struct {
			Params struct {
				Update struct {
					Content json.RawMessage `json:"content"`
				} `json:"update"`
			} `json:"params"`
		}
		if err := json.Unmarshal(line, &u); err != nil {
			t.Errorf("update is not JSON: %v", err)
		}
		texts = append(texts, string(u.Params.Update.Content))
	}
	c.OnRequest = func(method string, params json.RawMessage) (any, *RPCError) { return AllowOnce(params) }
	go func() { _ = c.Run(cR) }()
	ctx := tctx(t)
	if err := c.Initialize(ctx); err != nil {
		t.Fatal(err)
	}
	sid, err := c.NewSession(ctx, "/tmp", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		script string
		n      int
	}{{"stream 1000 100", 1000}, {"diff 20 4096", 20}, {"pace 20 100", 20}} {
		mu.Lock()
		seqs, texts = nil, nil
		mu.Unlock()
		stop, err := c.Prompt(ctx, sid, tc.script)
		if err != nil || stop != "end_turn" {
			t.Fatalf("%s: %q %v", tc.script, stop, err)
		}
		mu.Lock()
		if len(seqs) != tc.n {
			t.Fatalf("%s: %d updates, want %d", tc.script, len(seqs), tc.n)
		}
		for i, s := range seqs {
			if s != i+1 {
				t.Fatalf("%s: update %d has seq %d", tc.script, i+1, s)
			}
		}
		mu.Unlock()
	}
	mu.Lock()
	texts = nil
	mu.Unlock()
	if _, err := c.Prompt(ctx, sid, "perm 3\npermc 5"); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	rtt, _ := Marker([]byte(strings.Join(texts, "")), "RTT")
	if len(texts) != 2 || len(strings.Split(string(rtt), ",")) != 3 ||
		!strings.Contains(texts[1], "#PERM:allowed=5,rejected=0,cancelled=0,error=0#") {
		t.Fatalf("perm reports %q", texts)
	}
	err = c.Call(ctx, "nonsense", map[string]any{}, nil)
	if !strings.Contains(fmt.Sprint(err), "-32601") {
		t.Fatalf("unknown method: %v, want -32601", err)
	}
}

// The scenarios against the real binaries at tiny sizes: the harness
// itself works (numbers are not checked; this machine is shared).
func TestScenariosSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("builds acp-bridge")
	}
	dir := t.TempDir()
	root, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	bin, err := Build(tctx(t), root+"/..", dir)
	if err != nil {
		t.Fatal(err)
	}
	r := &Runner{Bin: bin, Dir: dir}
	ctx := tctx(t)
	pin, canPin := PinningFor()
	for _, m := range []Mode{Direct, Bridged} {
		res, err := r.Stream(ctx, m, "stream 2000 100", 2000, nil)
		if err != nil || res.Msgs != 2000 || res.Bytes == 0 {
			t.Fatalf("stream %s: %+v %v", m, res, err)
		}
		if canPin {
			res, err := r.Stream(ctx, m, "diff 20 65536", 20, &pin)
			if err != nil || res.Msgs != 20 {
				t.Fatalf("pinned diffs %s: %+v %v", m, res, err)
			}
		}
		lat, err := r.Latency(ctx, m, 10, 5, 5)
		if err != nil || len(lat.Update) != 10 || len(lat.Prompt) != 5 || len(lat.Approval) != 5 {
			t.Fatalf("latency %s: %+v %v", m, lat, err)
		}
		if d, err := r.Startup(ctx, m); err != nil || d <= 0 {
			t.Fatalf("startup %s: %v %v", m, d, err)
		}
	}
	sc, err := r.Scale(ctx, 2, 3, 5, 4) // sessions ask 2, 1, 1
	if err != nil {
		t.Fatalf("scale: %v", err)
	}
	if sc.PendingCount != 8 || sc.Answered != 8 || sc.Resolved != 8 || sc.StreamUpdates != 30 || sc.Idle.RSS == 0 {
		t.Fatalf("scale: %+v", sc)
	}
}

func TestProcField(t *testing.T) {
	status := "Name:\tacp-bridge\nVmHWM:\t   16896 kB\nVmRSS:\t   15000 kB\nvoluntary_ctxt_switches:\t42\nnonvoluntary_ctxt_switches:\t7\n"
	for _, tc := range []struct {
		name string
		want int64
		ok   bool
	}{
		{"VmRSS", 15000, true},
		{"VmHWM", 16896, true},
		{"voluntary_ctxt_switches", 42, true}, // not confused with nonvoluntary_
		{"nonvoluntary_ctxt_switches", 7, true},
		{"Name", 0, false}, // not a number
		{"VmSwap", 0, false},
	} {
		if got, ok := procField(status, tc.name); got != tc.want || ok != tc.ok {
			t.Errorf("procField(%s) = %d, %v; want %d, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

// The /proc readers see this process: its memory, its system calls, its
// context switches (it has waited for something by now) and its CPU time.
func TestProcReadersOnSelf(t *testing.T) {
	pid := os.Getpid()
	m, err := ReadMemory(pid)
	if err != nil || m.RSS <= 0 || m.HWM < m.RSS {
		t.Errorf("ReadMemory = %+v, %v", m, err)
	}
	c, err := ReadSyscalls(pid)
	if err != nil || c.Reads <= 0 {
		t.Errorf("ReadSyscalls = %+v, %v", c, err)
	}
	if s, err := ReadSwitches(pid); err != nil || s.Voluntary+s.Involuntary <= 0 {
		t.Errorf("ReadSwitches = %+v, %v", s, err)
	}
	if st := readStats(0); st != (procStats{}) {
		t.Errorf("readStats(0) = %+v, want zero", st)
	}
}

// ScaleApprovals spreads an agent's approvals over its sessions: they add
// up to the agent's count, and no two sessions differ by more than one.
func TestScaleApprovalsSpread(t *testing.T) {
	for _, tc := range []struct{ perAgent, sessions int }{{60, 50}, {4, 3}, {7, 5}, {3, 5}, {50, 50}, {0, 4}, {128, 50}} {
		sum, lo, hi := 0, tc.perAgent, 0
		for j := range tc.sessions {
			k := ScaleApprovals(tc.perAgent, tc.sessions, j)
			sum += k
			lo, hi = min(lo, k), max(hi, k)
		}
		if sum != tc.perAgent || hi-lo > 1 {
			t.Errorf("%d over %d sessions: sum %d, from %d to %d per session", tc.perAgent, tc.sessions, sum, lo, hi)
		}
	}
}
