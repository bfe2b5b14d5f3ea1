//go:build unix

package chat

import (
	"errors"
	"os"
	"os/signal"
	"syscall"
)

var sigUser1 os.Signal = syscall.SIGUSR1

func ignoreTerm() { signal.Ignore(syscall.SIGTERM) }

// processGone reports whether pid no longer exists (neither running nor a zombie).
func processGone(pid int) bool {
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

func signalProcess(pid int, sig os.Signal) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Signal(sig)
}
