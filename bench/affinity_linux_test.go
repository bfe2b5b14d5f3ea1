package bench

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
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
