package pipesize

import (
	"fmt"
	"syscall"
)

// fcntl commands from <linux/fcntl.h> (F_LINUX_SPECIFIC_BASE + 7 and + 8);
// the syscall package does not name them.
const (
	fSetPipeSize = 1031
	fGetPipeSize = 1032
)

func setPipeSize(fd uintptr, n int) (int, error) {
	r, _, errno := syscall.Syscall(syscall.SYS_FCNTL, fd, fSetPipeSize, uintptr(n))
	if errno != 0 {
		return 0, fmt.Errorf("F_SETPIPE_SZ %d: %w", n, errno)
	}
	return int(r), nil
}

func pipeSize(fd uintptr) (int, error) {
	r, _, errno := syscall.Syscall(syscall.SYS_FCNTL, fd, fGetPipeSize, 0)
	if errno != 0 {
		return 0, fmt.Errorf("F_GETPIPE_SZ: %w", errno)
	}
	return int(r), nil
}
