//go:build unix

package main

import (
	"fmt"
	"os"
	"syscall"
)

// pollable returns a duplicate of f's descriptor in non-blocking mode, as
// a new *os.File that Go's poller serves, if f is a pipe or a socket and
// not the same file as avoid (nil: no such check). O_NONBLOCK belongs to
// the open file, so f's own descriptor is non-blocking from then on too;
// the duplicate is the new file's to close.
func pollable(f, avoid *os.File) (*os.File, error) {
	st, err := fstat(f)
	if err != nil {
		return nil, err
	}
	if kind := st.Mode & syscall.S_IFMT; kind != syscall.S_IFIFO && kind != syscall.S_IFSOCK {
		return nil, fmt.Errorf("not a pipe or socket (mode %#o)", st.Mode)
	}
	if avoid != nil {
		if ast, err := fstat(avoid); err == nil && ast.Dev == st.Dev && ast.Ino == st.Ino {
			return nil, fmt.Errorf("the same file as %s", avoid.Name())
		}
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, err
	}
	var dup int
	var dupErr error
	if err := rc.Control(func(fd uintptr) {
		r, _, errno := syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_DUPFD_CLOEXEC, 0)
		if errno != 0 {
			dupErr = fmt.Errorf("dup: %w", errno)
			return
		}
		dup = int(r)
		if err := syscall.SetNonblock(dup, true); err != nil {
			_ = syscall.Close(dup)
			dupErr = fmt.Errorf("O_NONBLOCK: %w", err)
		}
	}); err != nil {
		return nil, err
	}
	if dupErr != nil {
		return nil, dupErr
	}
	// os.NewFile sees O_NONBLOCK and registers the descriptor with the poller.
	return os.NewFile(uintptr(dup), f.Name()), nil
}

func fstat(f *os.File) (syscall.Stat_t, error) {
	var st syscall.Stat_t
	rc, err := f.SyscallConn()
	if err != nil {
		return st, err
	}
	var statErr error
	if err := rc.Control(func(fd uintptr) { statErr = syscall.Fstat(int(fd), &st) }); err != nil {
		return st, err
	}
	if statErr != nil {
		return st, fmt.Errorf("fstat %s: %w", f.Name(), statErr)
	}
	return st, nil
}
