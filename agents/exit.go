package agents

import (
	"fmt"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// ExitError is what Process.ExitErr returns for a child that did not exit
// with status 0. Use errors.As to read its fields, e.g. to tell a crash
// (Stopped false) from a requested stop.
type ExitError struct {
	Agent   string
	Command string
	// Code is the exit status, or -1 when a signal ended the process.
	Code int
	// Signal is the signal that ended the process, 0 if it exited.
	Signal syscall.Signal
	// Stopped is true when Stop (or the end of the lifetime ctx) had begun
	// before the process exited.
	Stopped bool
	// StderrTail holds the last stderr lines (at most 20, oldest first, each
	// cut to 1 KiB), for crash reports.
	StderrTail []string
	// Err is the underlying error from os/exec.
	Err error
}

func (e *ExitError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "agent %s (%s) ", e.Agent, e.Command)
	switch {
	case e.Signal != 0:
		fmt.Fprintf(&b, "killed by %s", unix.SignalName(e.Signal))
	case e.Code >= 0:
		fmt.Fprintf(&b, "exited with code %d", e.Code)
	default:
		fmt.Fprintf(&b, "failed: %v", e.Err)
	}
	if e.Stopped {
		b.WriteString(" while stopping")
	}
	if len(e.StderrTail) > 0 {
		fmt.Fprintf(&b, "; last %d stderr lines:", len(e.StderrTail))
		for _, l := range e.StderrTail {
			b.WriteString("\n  ")
			b.WriteString(l)
		}
	}
	return b.String()
}

func (e *ExitError) Unwrap() error { return e.Err }
