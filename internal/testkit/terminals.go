package testkit

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/acp-bridge/acp-bridge/acp"
)

// Terminals is a fake editor's terminal host that runs terminal/create's
// command for real, as VS Code does: each in its own process group, its
// output kept; terminal/kill kills the group, terminal/release kills it and
// forgets the terminal, as an editor's release does. Serve answers the
// terminal/* requests (handled false for anything else).
type Terminals struct {
	mu    sync.Mutex
	n     int
	terms map[string]*fakeTerminal
	// Released lists the ids released, in order.
	Released []string
}

type fakeTerminal struct {
	cmd  *exec.Cmd
	out  SyncBuffer
	done chan struct{} // closed when the process was reaped
	err  error         // its exit, valid once done is closed
}

// Serve answers one terminal/* request.
func (t *Terminals) Serve(method string, params json.RawMessage) (res any, handled bool, err error) {
	var p struct {
		TerminalID string   `json:"terminalId"`
		Command    string   `json:"command"`
		Args       []string `json:"args"`
		Cwd        string   `json:"cwd"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, true, acp.InvalidParams(method, err)
	}
	switch method {
	case acp.MethodTerminalCreate:
		id, err := t.start(p.Command, p.Args, p.Cwd)
		if err != nil {
			return nil, true, acp.Errorf(acp.CodeInternalError, "terminal/create: %v", err)
		}
		return map[string]string{"terminalId": id}, true, nil
	case acp.MethodTerminalOutput, acp.MethodTerminalKill, acp.MethodTerminalRelease, acp.MethodTerminalWaitForExit:
	default:
		return nil, false, nil
	}
	t.mu.Lock()
	term := t.terms[p.TerminalID]
	if term != nil && method == acp.MethodTerminalRelease {
		delete(t.terms, p.TerminalID)
		t.Released = append(t.Released, p.TerminalID)
	}
	t.mu.Unlock()
	if term == nil {
		return nil, true, acp.Errorf(acp.CodeInvalidParams, "%s: unknown terminal %q", method, p.TerminalID)
	}
	switch method {
	case acp.MethodTerminalOutput:
		return map[string]any{"output": term.out.String(), "truncated": false}, true, nil
	case acp.MethodTerminalWaitForExit:
		<-term.done
		return map[string]any{"exitCode": exitCode(term.err)}, true, nil
	}
	// kill and release: the whole process group, then wait for the reap.
	_ = syscall.Kill(-term.cmd.Process.Pid, syscall.SIGKILL)
	<-term.done
	return map[string]any{}, true, nil
}

func (t *Terminals) start(command string, args []string, cwd string) (string, error) {
	c := exec.Command(command, args...)
	c.Dir = cwd
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	term := &fakeTerminal{cmd: c, done: make(chan struct{})}
	c.Stdout, c.Stderr = &term.out, &term.out
	if err := c.Start(); err != nil {
		return "", err
	}
	go func() {
		term.err = c.Wait()
		close(term.done)
	}()
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.terms == nil {
		t.terms = map[string]*fakeTerminal{}
	}
	t.n++
	id := fmt.Sprintf("term-%d", t.n)
	t.terms[id] = term
	return id, nil
}

// Close kills every terminal still open (a test's cleanup).
func (t *Terminals) Close() {
	t.mu.Lock()
	terms := t.terms
	t.terms = nil
	t.mu.Unlock()
	for _, term := range terms {
		_ = syscall.Kill(-term.cmd.Process.Pid, syscall.SIGKILL)
		<-term.done
	}
}

func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

// ProcessesWith lists the pids of the processes whose command line holds
// every one of parts as an argument, read from /proc (any pid namespace
// below this one: a sandboxed process shows here under this namespace's
// pid). It checks the processes themselves, not what anyone says of them.
func ProcessesWith(parts ...string) ([]int, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, fmt.Errorf("reading /proc: %w", err)
	}
	var pids []int
	for _, e := range entries {
		var pid int
		if _, err := fmt.Sscan(e.Name(), &pid); err != nil || pid <= 0 {
			continue
		}
		raw, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || len(raw) == 0 {
			continue // gone, or a zombie (an empty cmdline: it runs nothing)
		}
		args := strings.Split(strings.TrimRight(string(raw), "\x00"), "\x00")
		all := true
		for _, p := range parts {
			found := false
			for _, a := range args {
				if a == p {
					found = true
					break
				}
			}
			if !found {
				all = false
				break
			}
		}
		if all {
			pids = append(pids, pid)
		}
	}
	return pids, nil
}
