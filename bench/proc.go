package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/acp-bridge/acp-bridge/internal/pipesize"
)

// Binaries are the programs a run uses.
type Binaries struct {
	Bridge string // acp-bridge, built with plain go build
	Agent  string // bench-agent
	// BridgeEnv is added to the bridge's environment (acp-bench
	// -bridge-env), e.g. GOMAXPROCS=1 for an experiment.
	BridgeEnv []string
	// NoSandbox adds sandbox.enabled: false to the bridge's config
	// (Config.NoSandbox).
	NoSandbox bool
}

// Build compiles acp-bridge and bench-agent into dir with plain `go build`
// (no -race), from the module at root.
func Build(ctx context.Context, root, dir string) (Binaries, error) {
	b := Binaries{Bridge: filepath.Join(dir, "acp-bridge"), Agent: filepath.Join(dir, "bench-agent")}
	for _, x := range []struct{ out, pkg string }{{b.Bridge, "./cmd/acp-bridge"}, {b.Agent, "./bench/cmd/bench-agent"}} {
		cmd := exec.CommandContext(ctx, "go", "build", "-o", x.out, x.pkg)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			return b, fmt.Errorf("go build %s: %w\n%s", x.pkg, err, out)
		}
	}
	return b, nil
}

// Proc is a process under test with a Client on its stdio.
type Proc struct {
	Cmd    *exec.Cmd
	Client *Client
	stdin  io.WriteCloser
	stderr *tailBuffer
	waited chan struct{}
	runErr chan error
}

// Pid is the process id.
func (p *Proc) Pid() int { return p.Cmd.Process.Pid }

// Stderr returns the last lines the process wrote to stderr.
func (p *Proc) Stderr() string { return p.stderr.String() }

// Spawn starts cmd with a Client on its stdio. The client's hooks must be
// set by configure before the read loop starts.
func Spawn(cmd *exec.Cmd, configure func(*Client)) (*Proc, error) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	// The client grows its pipes as the bridge grows its own
	// (internal/pipesize), in both modes, so direct and bridged are
	// compared with the same buffers: a direct pair with 64 KiB pipes
	// streams 64 KiB diffs at about 70% of its speed with 1 MiB ones.
	for _, end := range []any{stdin, stdout} {
		if c, ok := end.(syscall.Conn); ok {
			if _, err := pipesize.Grow(c, pipesize.Default); err != nil {
				return nil, fmt.Errorf("grow the client's pipes: %w", err)
			}
		}
	}
	tb := &tailBuffer{max: 64 << 10}
	cmd.Stderr = tb
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", cmd.Path, err)
	}
	p := &Proc{Cmd: cmd, Client: NewClient(stdin), stdin: stdin, stderr: tb, waited: make(chan struct{}), runErr: make(chan error, 1)}
	if configure != nil {
		configure(p.Client)
	}
	go func() { p.runErr <- p.Client.Run(stdout) }()
	go func() {
		_ = cmd.Wait()
		close(p.waited)
	}()
	return p, nil
}

// Close closes stdin and waits (bounded) for the process to exit; it kills
// the process group if it does not.
func (p *Proc) Close() error {
	_ = p.stdin.Close()
	select {
	case <-p.waited:
		return nil
	case <-time.After(20 * time.Second):
		_ = syscall.Kill(-p.Cmd.Process.Pid, syscall.SIGKILL)
		<-p.waited
		return fmt.Errorf("%s did not exit within 20s of stdin closing; killed", filepath.Base(p.Cmd.Path))
	}
}

// Memory is a process's resident memory from /proc/<pid>/status.
type Memory struct {
	RSS, HWM int64 // bytes: VmRSS, VmHWM
	// Anon is RssAnon: the process's own pages (heap, stacks), without the
	// pages of its executable and libraries the kernel maps from the file
	// (RssFile), which grow with the binary, are shared and reclaimable.
	Anon int64
}

// ReadMemory reads VmRSS and VmHWM of pid.
func ReadMemory(pid int) (Memory, error) {
	path := fmt.Sprintf("/proc/%d/status", pid)
	data, err := os.ReadFile(path)
	if err != nil {
		return Memory{}, err
	}
	rss, ok := procField(string(data), "VmRSS")
	if !ok {
		return Memory{}, fmt.Errorf("no VmRSS in %s", path)
	}
	hwm, _ := procField(string(data), "VmHWM")
	anon, _ := procField(string(data), "RssAnon")
	return Memory{RSS: rss << 10, HWM: hwm << 10, Anon: anon << 10}, nil // kB
}

// procField is the number that starts the value of "name:" in text, a
// /proc file of "name: value" lines.
func procField(text, name string) (int64, bool) {
	for line := range strings.Lines(text) {
		k, v, ok := strings.Cut(line, ":")
		if !ok || k != name {
			continue
		}
		f := strings.Fields(v)
		if len(f) == 0 {
			return 0, false
		}
		n, err := strconv.ParseInt(f[0], 10, 64)
		return n, err == nil
	}
	return 0, false
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append([]byte(nil), t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}

// Env is a scratch home for one bridged run.
type Env struct {
	Dir    string // HOME, XDG_CONFIG_HOME and the workspace live here
	Config string // the --config file
	Audit  string // audit.path
}

// NewEnv writes a config with agents (all running bin.Agent) under dir.
func NewEnv(dir string, bin Binaries, agents []string) (Env, error) {
	e := Env{Dir: dir, Config: filepath.Join(dir, "config.yaml"), Audit: filepath.Join(dir, "audit.jsonl")}
	var b strings.Builder
	fmt.Fprintf(&b, "defaultAgent: %s\napprovals: {timeoutSeconds: 3600}\naudit: {path: %q}\nlog: {level: warn}\n", agents[0], e.Audit)
	if bin.NoSandbox {
		b.WriteString("sandbox: {enabled: false}\n")
	}
	b.WriteString("agents:\n")
	for _, a := range agents {
		fmt.Fprintf(&b, "  %s: {command: %q}\n", a, bin.Agent)
	}
	if err := os.MkdirAll(filepath.Join(dir, "ws"), 0o700); err != nil {
		return e, err
	}
	return e, os.WriteFile(e.Config, []byte(b.String()), 0o600)
}

// Workspace is the bridged run's project root (also the sessions' cwd).
func (e Env) Workspace() string { return filepath.Join(e.Dir, "ws") }

// BridgeCmd is the command line of the bridge for this env.
func (e Env) BridgeCmd(bin Binaries) *exec.Cmd {
	cmd := exec.Command(bin.Bridge, "--config", e.Config, "--workspace", e.Workspace(), "--log-level", "warn")
	cmd.Env = append(os.Environ(), "HOME="+e.Dir, "XDG_CONFIG_HOME="+filepath.Join(e.Dir, "xdg"))
	cmd.Env = append(cmd.Env, bin.BridgeEnv...)
	cmd.Dir = e.Workspace()
	return cmd
}

// clockTicks is USER_HZ, the unit of utime and stime in /proc/<pid>/stat
// (100 on every Linux this runs on).
const clockTicks = 100

// CPUTime is a process's CPU time, every thread, living or exited, and
// the minor page faults it took (a fresh page touched: heap grown or
// returned to the kernel and touched again).
type CPUTime struct {
	User, System time.Duration
	MinorFaults  int64
}

// Total is user plus system time.
func (c CPUTime) Total() time.Duration { return c.User + c.System }

// Sub is the CPU time used between o and c.
func (c CPUTime) Sub(o CPUTime) CPUTime {
	return CPUTime{c.User - o.User, c.System - o.System, c.MinorFaults - o.MinorFaults}
}

// ReadCPU returns the CPU time pid has used, from /proc/<pid>/stat, at
// 10 ms resolution.
func ReadCPU(pid int) (CPUTime, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return CPUTime{}, err
	}
	// The command name (field 2) may hold spaces; fields resume after ')'.
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return CPUTime{}, fmt.Errorf("/proc/%d/stat: no ')'", pid)
	}
	f := strings.Fields(string(data[i+1:]))
	if len(f) < 13 {
		return CPUTime{}, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f))
	}
	// After ')': state is f[0], so minflt (field 10) is f[7], utime (field
	// 14) f[11], stime f[12].
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return CPUTime{}, fmt.Errorf("/proc/%d/stat: utime %q stime %q", pid, f[11], f[12])
	}
	flt, err3 := strconv.ParseInt(f[7], 10, 64)
	if err3 != nil {
		return CPUTime{}, fmt.Errorf("/proc/%d/stat: minflt %q", pid, f[7])
	}
	return CPUTime{User: time.Duration(ut) * time.Second / clockTicks, System: time.Duration(st) * time.Second / clockTicks, MinorFaults: flt}, nil
}

// Syscalls counts a process's read-like and write-like system calls
// (syscr and syscw in /proc/<pid>/io, every thread, living or exited).
type Syscalls struct {
	Reads, Writes int64
}

// Sub is the calls made between o and c.
func (c Syscalls) Sub(o Syscalls) Syscalls { return Syscalls{c.Reads - o.Reads, c.Writes - o.Writes} }

// ReadSyscalls returns pid's read and write system call counts from
// /proc/<pid>/io.
func ReadSyscalls(pid int) (Syscalls, error) {
	path := fmt.Sprintf("/proc/%d/io", pid)
	data, err := os.ReadFile(path)
	if err != nil {
		return Syscalls{}, err
	}
	r, okR := procField(string(data), "syscr")
	w, okW := procField(string(data), "syscw")
	if !okR || !okW {
		return Syscalls{}, fmt.Errorf("%s: no syscr and syscw", path)
	}
	return Syscalls{Reads: r, Writes: w}, nil
}

// Switches counts a process's context switches, summed over its living
// threads (/proc/<pid>/task/*/status): voluntary ones (it waited: for a
// pipe, a lock, work) and involuntary ones (the scheduler took the core
// away).
type Switches struct {
	Voluntary, Involuntary int64
}

// Sub is the switches between o and c.
func (c Switches) Sub(o Switches) Switches {
	return Switches{c.Voluntary - o.Voluntary, c.Involuntary - o.Involuntary}
}

// ReadSwitches sums pid's threads' context switches.
func ReadSwitches(pid int) (Switches, error) {
	files, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/status", pid))
	if err != nil || len(files) == 0 {
		return Switches{}, fmt.Errorf("/proc/%d/task: no threads", pid)
	}
	var s Switches
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue // the thread is gone
		}
		v, _ := procField(string(data), "voluntary_ctxt_switches")
		i, _ := procField(string(data), "nonvoluntary_ctxt_switches")
		s.Voluntary, s.Involuntary = s.Voluntary+v, s.Involuntary+i
	}
	return s, nil
}

// procStats is what a streaming run reads of the agent or the bridge
// before and after.
type procStats struct {
	CPU      CPUTime
	Calls    Syscalls
	Switches Switches
}

// readStats reads the procStats of pids, summed (an agent in the OS
// sandbox is a chain of processes: AgentChain); pid 0 (no such process in
// this mode) and anything unreadable read as zero.
func readStats(pids ...int) procStats {
	var s procStats
	for _, pid := range pids {
		if pid == 0 {
			continue
		}
		cpu, _ := ReadCPU(pid)
		calls, _ := ReadSyscalls(pid)
		sw, _ := ReadSwitches(pid)
		s.CPU = CPUTime{s.CPU.User + cpu.User, s.CPU.System + cpu.System, s.CPU.MinorFaults + cpu.MinorFaults}
		s.Calls = Syscalls{s.Calls.Reads + calls.Reads, s.Calls.Writes + calls.Writes}
		s.Switches = Switches{s.Switches.Voluntary + sw.Voluntary, s.Switches.Involuntary + sw.Involuntary}
	}
	return s
}

func (s procStats) sub(o procStats) procStats {
	return procStats{s.CPU.Sub(o.CPU), s.Calls.Sub(o.Calls), s.Switches.Sub(o.Switches)}
}

// SelfCPU is the CPU time this process has used (getrusage).
func SelfCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// AgentChain is the chain of processes below a bridge that runs one agent,
// the agent last: the agent alone when the bridge started it directly;
// with the OS sandbox, bubblewrap, its init in the PID namespace and the
// sandbox's init before it (each with exactly one child). nil when pid does
// not have exactly one child. Pinning and CPU accounting must cover the
// whole chain: the processes in front of the agent were forked before any
// pinning, and the agent is none of them.
func AgentChain(pid int) []int {
	var chain []int
	for {
		kids := ChildPIDs(pid)
		if len(kids) != 1 {
			return chain
		}
		pid = kids[0]
		chain = append(chain, pid)
	}
}

// ChildPIDs lists the direct children of pid (of any of its threads).
func ChildPIDs(pid int) []int {
	files, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	var out []int
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, x := range strings.Fields(string(data)) {
			if child, err := strconv.Atoi(x); err == nil {
				out = append(out, child)
			}
		}
	}
	return out
}
