package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/acp-bridge/acp-bridge/wire"
)

// Mode says how the client reaches the agent.
type Mode string

const (
	Direct  Mode = "direct"  // the agent process on the client's pipes
	Bridged Mode = "bridged" // the same agent behind the acp-bridge binary
)

// Runner starts targets for the scenarios.
type Runner struct {
	Bin Binaries
	Dir string // scratch directory
	seq atomic.Int64
}

// target is one started process and one open session.
type target struct {
	proc *Proc
	sid  string
	env  Env
}

func (r *Runner) scratch(name string) (string, error) {
	dir := filepath.Join(r.Dir, fmt.Sprintf("%s-%d", name, r.seq.Add(1)))
	return dir, os.MkdirAll(dir, 0o700)
}

// open starts the agent directly or behind the bridge, initializes and opens
// one session. configure sets the client's hooks.
//
// With pin set, the process starts on one CPU: the agent (direct) on the
// agent's, the bridge on the other (see Pinning).
func (r *Runner) open(ctx context.Context, mode Mode, configure func(*Client), pin *Pinning) (*target, error) {
	dir, err := r.scratch(string(mode))
	if err != nil {
		return nil, err
	}
	t := &target{}
	var cmd *exec.Cmd
	cwd := dir
	if mode == Direct {
		cmd = exec.Command(r.Bin.Agent)
		cmd.Dir = dir
	} else {
		if t.env, err = NewEnv(dir, r.Bin, []string{"bench"}); err != nil {
			return nil, err
		}
		cmd = t.env.BridgeCmd(r.Bin)
		cwd = t.env.Workspace()
	}
	spawn := func() (err error) {
		t.proc, err = Spawn(cmd, configure)
		return err
	}
	if pin != nil {
		cpu := pin.RestCPU
		if mode == Direct {
			cpu = pin.AgentCPU
		}
		err = pin.start(cpu, spawn)
	} else {
		err = spawn()
	}
	if err != nil {
		return nil, err
	}
	if err := t.proc.Client.Initialize(ctx); err != nil {
		return nil, t.fail(err)
	}
	if t.sid, err = t.proc.Client.NewSession(ctx, cwd, ""); err != nil {
		return nil, t.fail(err)
	}
	return t, nil
}

func (t *target) fail(err error) error {
	_ = t.proc.Close()
	if s := strings.TrimSpace(t.proc.Stderr()); s != "" {
		return fmt.Errorf("%w\nstderr:\n%s", err, s)
	}
	return err
}

func (t *target) close() error { return t.proc.Close() }

// StreamResult is one streaming run.
type StreamResult struct {
	Msgs    int
	Bytes   int64 // session/update lines as delivered to the client, newlines included
	Elapsed time.Duration
	PeakRSS int64 // the bridge's VmHWM after the run (0 direct)
	// CPU time each process used during the run (user + system, 10 ms
	// resolution; the client's is this whole process). Zero if unreadable.
	AgentCPU, BridgeCPU, ClientCPU time.Duration
	BridgeSys                      time.Duration // of BridgeCPU, in the kernel
	BridgeFaults                   int64         // minor page faults the bridge took
	// System calls the bridge made during the run (zero if unreadable, and
	// direct).
	BridgeCalls Syscalls
	// Context switches of the agent's and the bridge's threads.
	AgentSwitches, BridgeSwitches Switches
}

// MsgsPerSec and MBPerSec are the delivered rates.
func (s StreamResult) MsgsPerSec() float64 { return float64(s.Msgs) / s.Elapsed.Seconds() }
func (s StreamResult) MBPerSec() float64   { return float64(s.Bytes) / 1e6 / s.Elapsed.Seconds() }

// Stream runs one prompt whose script (e.g. "stream 100000 100") yields n
// updates numbered 1..n, and checks each arrived once, in order, before the
// prompt's answer.
//
// With pin set, the agent runs alone on one CPU and the bridge and this
// process (the client) on another, for the run (see Pinning).
func (r *Runner) Stream(ctx context.Context, mode Mode, script string, n int, pin *Pinning) (StreamResult, error) {
	var got int
	var bytes int64
	var orderErr error
	t, err := r.open(ctx, mode, func(c *Client) {
		c.OnUpdate = func(line []byte, _ time.Time) {
			seq, ok := Marker(line, "SEQ")
			if !ok {
				return
			}
			got++
			bytes += int64(len(line) + 1)
			if orderErr == nil {
				if v, _ := strconv.Atoi(string(seq)); v != got {
					orderErr = fmt.Errorf("update %d carries #SEQ:%s#: out of order or lost", got, seq)
				}
			}
		}
	}, pin)
	if err != nil {
		return StreamResult{}, err
	}
	defer t.close()
	agentPIDs, bridgePID := []int{t.proc.Pid()}, 0
	if mode == Bridged {
		bridgePID = t.proc.Pid()
		agentPIDs = AgentChain(bridgePID)
	}
	if pin != nil {
		if len(agentPIDs) == 0 {
			return StreamResult{}, fmt.Errorf("pinning: the agent's pid is unknown")
		}
		restore, err := pin.apply(agentPIDs...)
		defer restore()
		if err != nil {
			return StreamResult{}, err
		}
	}
	a0, b0, c0 := readStats(agentPIDs...), readStats(bridgePID), SelfCPU()
	start := time.Now()
	stop, err := t.proc.Client.Prompt(ctx, t.sid, script)
	elapsed := time.Since(start)
	if err != nil {
		return StreamResult{}, t.fail(err)
	}
	agent, bridge, client := readStats(agentPIDs...).sub(a0), readStats(bridgePID).sub(b0), SelfCPU()-c0
	// OnUpdate runs on the read loop before the answer is dispatched, so
	// got and bytes are final here.
	res := StreamResult{Msgs: got, Bytes: bytes, Elapsed: elapsed,
		AgentCPU: agent.CPU.Total(), BridgeCPU: bridge.CPU.Total(), ClientCPU: client,
		BridgeSys: bridge.CPU.System, BridgeFaults: bridge.CPU.MinorFaults, BridgeCalls: bridge.Calls,
		AgentSwitches: agent.Switches, BridgeSwitches: bridge.Switches}
	if mode == Bridged {
		if m, err := ReadMemory(t.proc.Pid()); err == nil {
			res.PeakRSS = m.HWM
		}
	}
	switch {
	case stop != "end_turn":
		return res, fmt.Errorf("stop reason %q", stop)
	case orderErr != nil:
		return res, orderErr
	case got != n:
		return res, fmt.Errorf("%d updates delivered, want %d", got, n)
	}
	return res, nil
}

// LatencyResult holds one latency run's samples, in microseconds.
type LatencyResult struct {
	Update   []float64 // agent wrote an update -> client read it (wall clock)
	Prompt   []float64 // client sent an empty prompt -> client read its answer
	Approval []float64 // agent asked permission -> agent read the answer (client answers at once)
	// ApprovalCPU is the bridge's CPU time (user + system) per approval over
	// the approvals, in µs; 0 in direct runs.
	ApprovalCPU float64
}

// Latency measures one-way update latency with paced updates (so queueing
// does not dominate), the round trip of an empty prompt, and the round trip
// of a permission request answered at once by the client.
func (r *Runner) Latency(ctx context.Context, mode Mode, updates, prompts, approvals int) (LatencyResult, error) {
	var res LatencyResult
	var rtts string
	t, err := r.open(ctx, mode, func(c *Client) {
		c.OnUpdate = func(line []byte, at time.Time) {
			if ts, ok := Marker(line, "TS"); ok {
				ns, _ := strconv.ParseInt(string(ts), 10, 64)
				res.Update = append(res.Update, float64(at.UnixNano()-ns)/1e3)
			}
			if x, ok := Marker(line, "RTT"); ok {
				rtts = string(x)
			}
		}
		c.OnRequest = func(method string, params json.RawMessage) (any, *RPCError) {
			if method != "session/request_permission" {
				return nil, &RPCError{Code: -32601, Message: "method not found: " + method}
			}
			return AllowOnce(params)
		}
	}, nil)
	if err != nil {
		return res, err
	}
	defer t.close()
	c := t.proc.Client
	if _, err := c.Prompt(ctx, t.sid, fmt.Sprintf("pace %d 500", updates)); err != nil {
		return res, t.fail(err)
	}
	if len(res.Update) != updates {
		return res, fmt.Errorf("%d paced updates delivered, want %d", len(res.Update), updates)
	}
	for range prompts {
		start := time.Now()
		if _, err := c.Prompt(ctx, t.sid, "noop"); err != nil {
			return res, t.fail(err)
		}
		res.Prompt = append(res.Prompt, float64(time.Since(start).Nanoseconds())/1e3)
	}
	var cpu0 CPUTime
	if mode != Direct {
		cpu0, _ = ReadCPU(t.proc.Pid())
	}
	if _, err := c.Prompt(ctx, t.sid, fmt.Sprintf("perm %d", approvals)); err != nil {
		return res, t.fail(err)
	}
	if mode != Direct && approvals > 0 {
		if cpu1, err := ReadCPU(t.proc.Pid()); err == nil {
			res.ApprovalCPU = float64(cpu1.Sub(cpu0).Total().Microseconds()) / float64(approvals)
		}
	}
	for _, f := range strings.Split(rtts, ",") {
		ns, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return res, fmt.Errorf("approval round trip %q: the agent's request failed", f)
		}
		res.Approval = append(res.Approval, float64(ns)/1e3)
	}
	if len(res.Approval) != approvals {
		return res, fmt.Errorf("%d approval round trips, want %d", len(res.Approval), approvals)
	}
	return res, nil
}

// Startup times spawning the process until its initialize answer.
func (r *Runner) Startup(ctx context.Context, mode Mode) (time.Duration, error) {
	dir, err := r.scratch("startup")
	if err != nil {
		return 0, err
	}
	var cmd *exec.Cmd
	if mode == Direct {
		cmd = exec.Command(r.Bin.Agent)
	} else {
		env, err := NewEnv(dir, r.Bin, []string{"bench"})
		if err != nil {
			return 0, err
		}
		cmd = env.BridgeCmd(r.Bin)
	}
	start := time.Now()
	p, err := Spawn(cmd, nil)
	if err != nil {
		return 0, err
	}
	defer p.Close()
	if err := p.Client.Initialize(ctx); err != nil {
		return 0, fmt.Errorf("%w; stderr: %s", err, p.Stderr())
	}
	return time.Since(start), nil
}

// ScaleResult is the bridge's memory across the scale scenario.
type ScaleResult struct {
	Agents, SessionsPerAgent int
	Base                     Memory // after initialize, no agent started
	OneEach                  Memory // one session per agent (every agent running)
	Idle                     Memory // every session open, idle
	Streaming                Memory // after every session streamed at once (HWM = peak)
	StreamUpdates            int
	Pending                  Memory // with every approval pending
	PendingCount             int
	Answered                 int // approvals the agents saw allowed
	Resolved                 int // _acp-bridge/approval/resolved notifications
	ChildRSS                 int64
	Elapsed                  time.Duration
}

// PerSessionBytes is the idle memory each session beyond the first costs.
func (s ScaleResult) PerSessionBytes() float64 {
	n := s.Agents * (s.SessionsPerAgent - 1)
	if n <= 0 {
		return 0
	}
	return float64(s.Idle.RSS-s.OneEach.RSS) / float64(n)
}

// ScaleApprovals is how many approvals session j of an agent with
// sessions sessions asks at once when the agent holds perAgent pending:
// spread evenly, the first sessions one more.
func ScaleApprovals(perAgent, sessions, j int) int {
	n := perAgent / sessions
	if j < perAgent%sessions {
		n++
	}
	return n
}

// Scale runs agents x sessions through one bridge: idle, all streaming
// (updates each), then perAgent approvals pending in each agent at once,
// spread over its sessions (ScaleApprovals; all held by the client until
// every one has arrived), then all answered. perAgent stays within what the
// bridge lets one child have in flight (64 requests; beyond, it refuses
// with -32005).
func (r *Runner) Scale(ctx context.Context, agents, sessions, updates, perAgent int) (ScaleResult, error) {
	res := ScaleResult{Agents: agents, SessionsPerAgent: sessions}
	start := time.Now()
	dir, err := r.scratch("scale")
	if err != nil {
		return res, err
	}
	names := make([]string, agents)
	for i := range names {
		names[i] = fmt.Sprintf("a%02d", i+1)
	}
	env, err := NewEnv(dir, r.Bin, names)
	if err != nil {
		return res, err
	}
	total := agents * sessions
	wantPending := agents * perAgent
	var (
		updatesSeen atomic.Int64
		arrived     atomic.Int64
		resolved    atomic.Int64
		release     = make(chan struct{})
		allArrived  = make(chan struct{})
		permMu      sync.Mutex
		permLines   = map[string]string{}
	)
	p, err := Spawn(env.BridgeCmd(r.Bin), func(c *Client) {
		c.OnUpdate = func(line []byte, _ time.Time) {
			if x, ok := Marker(line, "PERM"); ok {
				permMu.Lock()
				permLines[SessionOf(line)] = string(x)
				permMu.Unlock()
				return
			}
			if bytes.Contains(line, []byte(`"notice":"`)) {
				return // the bridge's own notice (a child not known to ask), not the agent's stream
			}
			updatesSeen.Add(1)
		}
		c.OnNotify = func(method string, _ json.RawMessage) {
			if method == wire.ApprovalResolved {
				resolved.Add(1)
			}
		}
		c.OnRequest = func(method string, params json.RawMessage) (any, *RPCError) {
			if method != "session/request_permission" {
				return nil, &RPCError{Code: -32601, Message: "method not found: " + method}
			}
			if arrived.Add(1) == int64(wantPending) {
				close(allArrived)
			}
			select {
			case <-release:
			case <-ctx.Done():
			}
			return AllowOnce(params)
		}
	})
	if err != nil {
		return res, err
	}
	t := &target{proc: p, env: env}
	defer t.close()
	c := p.Client
	if err := c.Initialize(ctx); err != nil {
		return res, t.fail(err)
	}
	mem := func(dst *Memory) error {
		m, err := ReadMemory(p.Pid())
		*dst = m
		return err
	}
	if err := mem(&res.Base); err != nil {
		return res, err
	}
	sids := make([][]string, agents)
	open := func(from, to int) error {
		var wg sync.WaitGroup
		errs := make(chan error, agents)
		for i, name := range names {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range to - from {
					sid, err := c.NewSession(ctx, env.Workspace(), name)
					if err != nil {
						errs <- err
						return
					}
					sids[i] = append(sids[i], sid)
				}
			}()
		}
		wg.Wait()
		close(errs)
		return <-errs
	}
	if err := open(0, 1); err != nil {
		return res, t.fail(err)
	}
	if err := mem(&res.OneEach); err != nil {
		return res, err
	}
	if err := open(1, sessions); err != nil {
		return res, t.fail(err)
	}
	if err := mem(&res.Idle); err != nil {
		return res, err
	}
	all := make([]string, 0, total)
	for _, s := range sids {
		all = append(all, s...)
	}
	if len(all) != total {
		return res, fmt.Errorf("%d sessions open, want %d", len(all), total)
	}
	promptAll := func(script string) error {
		var wg sync.WaitGroup
		errs := make(chan error, len(all))
		for _, sid := range all {
			wg.Add(1)
			go func() {
				defer wg.Done()
				stop, err := c.Prompt(ctx, sid, script)
				if err == nil && stop != "end_turn" {
					err = fmt.Errorf("session %s: stop reason %q", sid, stop)
				}
				if err != nil {
					errs <- err
				}
			}()
		}
		wg.Wait()
		close(errs)
		return <-errs
	}
	if err := promptAll(fmt.Sprintf("stream %d 100", updates)); err != nil {
		return res, t.fail(err)
	}
	res.StreamUpdates = int(updatesSeen.Load())
	if err := mem(&res.Streaming); err != nil {
		return res, err
	}
	if res.StreamUpdates != total*updates {
		return res, fmt.Errorf("%d updates delivered, want %d", res.StreamUpdates, total*updates)
	}
	// asking: each session with its count of approvals, those that ask.
	asking := map[string]int{}
	for _, s := range sids {
		for j, sid := range s {
			if k := ScaleApprovals(perAgent, sessions, j); k > 0 {
				asking[sid] = k
			}
		}
	}
	done := make(chan error, 1)
	go func() {
		var wg sync.WaitGroup
		errs := make(chan error, len(asking))
		for sid, k := range asking {
			wg.Add(1)
			go func() {
				defer wg.Done()
				stop, err := c.Prompt(ctx, sid, fmt.Sprintf("permc %d", k))
				if err == nil && stop != "end_turn" {
					err = fmt.Errorf("session %s: stop reason %q", sid, stop)
				}
				if err != nil {
					errs <- err
				}
			}()
		}
		wg.Wait()
		close(errs)
		done <- <-errs
	}()
	select {
	case <-allArrived:
	case err := <-done:
		return res, t.fail(fmt.Errorf("prompts ended before every approval arrived (%d of %d): %v", arrived.Load(), wantPending, err))
	case <-ctx.Done():
		return res, t.fail(fmt.Errorf("%d of %d approvals arrived: %w", arrived.Load(), wantPending, ctx.Err()))
	}
	res.PendingCount = int(arrived.Load())
	if err := mem(&res.Pending); err != nil {
		return res, err
	}
	close(release)
	if err := <-done; err != nil {
		return res, t.fail(err)
	}
	permMu.Lock()
	for sid := range asking {
		line, ok := permLines[sid]
		if !ok {
			permMu.Unlock()
			return res, fmt.Errorf("session %s reported no permission answers", sid)
		}
		var allowed, rejected, cancelled, failed int
		if _, err := fmt.Sscanf(line, "allowed=%d,rejected=%d,cancelled=%d,error=%d", &allowed, &rejected, &cancelled, &failed); err != nil {
			permMu.Unlock()
			return res, fmt.Errorf("session %s: %q: %w", sid, line, err)
		}
		res.Answered += allowed
	}
	permMu.Unlock()
	// The resolved notices go out before each child's answer; all are in by now.
	res.Resolved = int(resolved.Load())
	res.ChildRSS = childrenRSS(p.Pid())
	res.Elapsed = time.Since(start)
	if res.Answered != wantPending || res.Resolved != wantPending {
		return res, fmt.Errorf("%d approvals answered allowed and %d announced resolved, want %d each", res.Answered, res.Resolved, wantPending)
	}
	return res, nil
}

// childrenRSS sums VmRSS of the descendants of pid (an agent in the OS
// sandbox is the last of a chain of processes: AgentChain).
func childrenRSS(pid int) int64 {
	var sum int64
	for _, child := range ChildPIDs(pid) {
		if m, err := ReadMemory(child); err == nil {
			sum += m.RSS
		}
		sum += childrenRSS(child)
	}
	return sum
}
