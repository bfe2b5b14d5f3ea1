//go:build unix

package acp

import (
	"errors"
	"io"
	"syscall"
)

// tryWriter returns a function that writes to w's descriptor what it takes
// at once, without waiting, when w is a descriptor in non-blocking mode
// (a pipe from os.Pipe, or the editor's stdout once cmd has made it
// non-blocking); nil otherwise. A full descriptor is n < len(p) with a nil
// error.
func tryWriter(w io.Writer) func([]byte) (int, error) {
	sc, ok := w.(syscall.Conn)
	if !ok {
		return nil
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	nonblocking := false
	if rc.Control(func(fd uintptr) {
		flags, _, errno := syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_GETFL, 0)
		nonblocking = errno == 0 && flags&syscall.O_NONBLOCK != 0
	}) != nil || !nonblocking {
		return nil
	}
	return func(p []byte) (int, error) {
		var n int
		var werr error
		// Returning true from the callback: one attempt, never parked in
		// the poller.
		if err := rc.Write(func(fd uintptr) bool {
			n, werr = syscall.Write(int(fd), p)
			return true
		}); err != nil {
			return 0, err
		}
		if n < 0 {
			n = 0
		}
		if errors.Is(werr, syscall.EAGAIN) || errors.Is(werr, syscall.EINTR) {
			werr = nil // full for now
		}
		return n, werr
	}
}
