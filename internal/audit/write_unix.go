//go:build unix

package audit

import (
	"os"
	"syscall"
)

// writeOnce writes b with exactly one write(2) (retried only on EINTR,
// when nothing was written). os.File.Write would loop over a short write
// and could leave the two halves of a line apart; one call either writes
// the whole line or reports how much went out.
func writeOnce(f *os.File, b []byte) (int, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return 0, err
	}
	var n int
	var werr error
	err = rc.Write(func(fd uintptr) bool {
		for {
			n, werr = syscall.Write(int(fd), b)
			if werr != syscall.EINTR {
				return true
			}
		}
	})
	if err != nil {
		return 0, err
	}
	if n < 0 {
		n = 0
	}
	return n, werr
}

// oNoFollow makes an open fail on a symlink put in place after OpenOwned's check.
const oNoFollow = syscall.O_NOFOLLOW
