package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"

	"golang.org/x/sys/unix"
)

// Pinning places the processes of a streaming run on fixed CPUs: the agent
// alone on one, everything else (the bridge and this harness, which is the
// client) on another. Direct runs get the same placement (the agent on
// one CPU, the client on the other), so the ratio compares like with like.
type Pinning struct {
	AgentCPU, RestCPU int
}

// PinningFor picks the first two CPUs this process may run on; ok is false
// with fewer than two.
func PinningFor() (Pinning, bool) {
	var set unix.CPUSet
	if unix.SchedGetaffinity(0, &set) != nil {
		return Pinning{}, false
	}
	var cpus []int
	for c := 0; c < len(set)*64 && len(cpus) < 2; c++ {
		if set.IsSet(c) {
			cpus = append(cpus, c)
		}
	}
	if len(cpus) < 2 {
		return Pinning{}, false
	}
	return Pinning{AgentCPU: cpus[0], RestCPU: cpus[1]}, true
}

// pinTasks sets the CPU affinity of every thread of pid (threads it starts
// later inherit it).
func pinTasks(pid int, set *unix.CPUSet) error {
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*", pid))
	if err != nil || len(tasks) == 0 {
		return fmt.Errorf("pin %d: no threads", pid)
	}
	for _, t := range tasks {
		tid, err := strconv.Atoi(filepath.Base(t))
		if err != nil {
			continue
		}
		if err := unix.SchedSetaffinity(tid, set); err != nil && err != unix.ESRCH {
			return fmt.Errorf("pin thread %d of %d: %w", tid, pid, err)
		}
	}
	return nil
}

// start runs start (which starts a process) on a thread pinned to cpu, so
// the process inherits that one CPU from its first instruction: a Go
// program then sizes GOMAXPROCS to it, as it would under taskset.
func (p Pinning) start(cpu int, start func() error) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var old, one unix.CPUSet
	if err := unix.SchedGetaffinity(0, &old); err != nil {
		return fmt.Errorf("affinity: %w", err)
	}
	one.Set(cpu)
	if err := unix.SchedSetaffinity(0, &one); err != nil {
		return fmt.Errorf("affinity: %w", err)
	}
	defer func() { _ = unix.SchedSetaffinity(0, &old) }()
	return start()
}

// apply pins the running agent (a bridged agent inherited the bridge's
// CPU; in the OS sandbox it is the last of a chain of processes, all of
// them pinned: AgentChain) and this process, the client, which also runs
// with GOMAXPROCS 1 meanwhile, as a client started on one CPU would.
// restore undoes both.
func (p Pinning) apply(agentPIDs ...int) (restore func(), err error) {
	var old, agent, rest unix.CPUSet
	if err := unix.SchedGetaffinity(0, &old); err != nil {
		return nil, fmt.Errorf("affinity: %w", err)
	}
	agent.Set(p.AgentCPU)
	rest.Set(p.RestCPU)
	procs := runtime.GOMAXPROCS(1)
	restore = func() {
		_ = pinTasks(os.Getpid(), &old)
		runtime.GOMAXPROCS(procs)
	}
	for _, pid := range agentPIDs {
		if err := pinTasks(pid, &agent); err != nil {
			return restore, err
		}
	}
	return restore, pinTasks(os.Getpid(), &rest)
}
