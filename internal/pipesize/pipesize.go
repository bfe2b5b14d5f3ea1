package pipesize

import (
	"errors"
	"syscall"
)

// Default is the size the bridge asks for: Linux's default ceiling for an
// unprivileged process (/proc/sys/fs/pipe-max-size).
const Default = 1 << 20

// ErrUnsupported is returned where pipe sizes cannot be changed.
var ErrUnsupported = errors.New("pipe size cannot be changed on this system")

// Grow asks the kernel for a pipe buffer of at least n bytes for f and
// returns the size it now has. f is usually an *os.File. The kernel may refuse n (above
// pipe-max-size, or past the user's pipe-buffer quota); Grow then tries a
// quarter of n, down to the default 64 KiB, and returns the error of the
// first refusal if none was granted. f must be a pipe end.
func Grow(f syscall.Conn, n int) (int, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return 0, err
	}
	size, first := 0, error(nil)
	ctlErr := rc.Control(func(fd uintptr) {
		for want := n; want > 64<<10; want /= 4 {
			got, err := setPipeSize(fd, want)
			if err == nil {
				size = got
				return
			}
			if first == nil {
				first = err
			}
			if !errors.Is(err, syscall.EPERM) && !errors.Is(err, syscall.ENOMEM) {
				return // not a pipe, or not supported: smaller will not help
			}
		}
	})
	if ctlErr != nil {
		return 0, ctlErr
	}
	if size == 0 {
		if first == nil {
			first = errors.New("requested size is not above the default")
		}
		return 0, first
	}
	return size, nil
}

// Size reports f's pipe buffer size.
func Size(f syscall.Conn) (int, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return 0, err
	}
	size, serr := 0, error(nil)
	if err := rc.Control(func(fd uintptr) { size, serr = pipeSize(fd) }); err != nil {
		return 0, err
	}
	return size, serr
}
