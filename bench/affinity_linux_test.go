package bench

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

func allowedCPUs(t *testing.T, pid int) string {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "Cpus_allowed_list:"); ok {
			return strings.TrimSpace(v)
		}
	}
	t.Fatalf("no Cpus_allowed_list for %d", pid)
	return ""
}

// start runs a process on one CPU from its start; apply moves the agent to
// its CPU and this process to the other, and restore gives this process
// its CPUs back.
func TestPinningPlacesProcesses(t *testing.T) {
	p, ok := PinningFor()
	if !ok {
		t.Skip("fewer than two CPUs to pin to")
	}
	before := allowedCPUs(t, os.Getpid())
	var kids []*exec.Cmd
	defer func() {
		for _, c := range kids {
			_ = c.Process.Kill()
			_ = c.Wait()
		}
	}()
	for range 2 {
		c := exec.Command("sleep", "30")
		if err := p.start(p.RestCPU, c.Start); err != nil {
			t.Fatal(err)
		}
		kids = append(kids, c)
	}
	if got := allowedCPUs(t, os.Getpid()); got != before {
		t.Fatalf("start left the harness on %s, want %s", got, before)
	}
	agent, bridge := kids[0].Process.Pid, kids[1].Process.Pid
	restore, err := p.apply(agent)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		what string
		pid  int
		cpu  int
	}{{"agent", agent, p.AgentCPU}, {"bridge", bridge, p.RestCPU}, {"harness", os.Getpid(), p.RestCPU}} {
		if got, want := allowedCPUs(t, c.pid), fmt.Sprint(c.cpu); got != want {
			t.Errorf("%s on CPUs %s, want %s", c.what, got, want)
		}
	}
	if n := runtime.GOMAXPROCS(0); n != 1 {
		t.Errorf("GOMAXPROCS %d while pinned, want 1", n)
	}
	restore()
	if got := allowedCPUs(t, os.Getpid()); got != before {
		t.Errorf("after restore the harness runs on %s, want %s", got, before)
	}
}

// A bridged agent in the OS sandbox is not the bridge's child: bubblewrap
// and the sandbox's init stand between them. Pinning the bridge's one child
// (what the harness did before AgentChain) leaves the agent on the
// bridge's CPU; pinning the chain moves it.
func TestPinningReachesAnAgentBehindTheSandbox(t *testing.T) {
	p, ok := PinningFor()
	if !ok {
		t.Skip("fewer than two CPUs to pin to")
	}
	// bridge stand-in -> wrapper (bwrap) -> wrapper (init) -> agent; each
	// shell waits, so none of them execs its last command away.
	var chain *exec.Cmd
	start := func() error {
		chain = exec.Command("sh", "-c", `sh -c 'sh -c "sleep 30 & wait" & wait' & wait`)
		chain.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		return chain.Start()
	}
	if err := p.start(p.RestCPU, start); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = syscall.Kill(-chain.Process.Pid, syscall.SIGKILL) // its own process group
		_ = chain.Wait()
	}()
	var pids []int
	// The shells fork in turn and nothing tells when the last has exec'd
	// sleep: /proc is polled (bounded).
	for range 500 {
		if pids = AgentChain(chain.Process.Pid); len(pids) == 3 && procComm(t, pids[2]) == "sleep" {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if len(pids) != 3 {
		t.Fatalf("chain %v, want 3 processes below the stand-in", pids)
	}
	leaf := pids[len(pids)-1]
	if comm := procComm(t, leaf); comm != "sleep" {
		t.Fatalf("the chain ends at %q, want the agent (sleep)", comm)
	}

	// Control: the one child alone, as before.
	restore, err := p.apply(ChildPIDs(chain.Process.Pid)...)
	if err != nil {
		t.Fatal(err)
	}
	restore()
	if got, want := allowedCPUs(t, leaf), fmt.Sprint(p.RestCPU); got != want {
		t.Fatalf("control: pinning the bridge's child alone put the agent on CPUs %s; expected it left on %s", got, want)
	}

	restore, err = p.apply(pids...)
	if err != nil {
		t.Fatal(err)
	}
	defer restore()
	for _, pid := range pids {
		if got, want := allowedCPUs(t, pid), fmt.Sprint(p.AgentCPU); got != want {
			t.Errorf("process %d (%s) on CPUs %s, want %s", pid, procComm(t, pid), got, want)
		}
	}
	if s := readStats(pids...); s.Switches.Voluntary == 0 {
		t.Errorf("the chain's stats read no context switch at all: %+v", s)
	}
}

func procComm(t *testing.T, pid int) string {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}
