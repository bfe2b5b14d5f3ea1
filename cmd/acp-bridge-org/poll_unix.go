//go:build unix

package main

import (
	"os"
	"syscall"
)

// pollable returns f in non-blocking mode, served by Go's poller, when it
// is a pipe (the bridge's); else f. A blocking read holds its thread and
// its P while the goroutine that answers the request just read waits
// for them: on a busy machine that wait was most of a round trip. The
// bridge's ends are other open files, so nothing changes for them.
func pollable(f *os.File) *os.File {
	var st syscall.Stat_t
	if syscall.Fstat(int(f.Fd()), &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFIFO {
		return f
	}
	if syscall.SetNonblock(int(f.Fd()), true) != nil {
		return f
	}
	// os.NewFile sees O_NONBLOCK and registers the descriptor with the poller.
	return os.NewFile(f.Fd(), f.Name())
}
