//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package agents

import (
	"errors"
	"syscall"

	"golang.org/x/sys/unix"
)

// waitExited blocks until pid has exited, leaving it unreaped: kqueue's
// EVFILT_PROC NOTE_EXIT (these systems' waitid is not in x/sys/unix). A
// process that has already exited cannot be registered (ESRCH): it is a
// zombie, which is what waiting here is for. Not run on this project's
// machines (Linux): it is compiled by CI (GOOS=darwin go vet).
func waitExited(pid int) error {
	kq, err := unix.Kqueue()
	if err != nil {
		return err
	}
	defer unix.Close(kq)
	var ev unix.Kevent_t
	unix.SetKevent(&ev, pid, unix.EVFILT_PROC, unix.EV_ADD|unix.EV_ONESHOT)
	ev.Fflags = unix.NOTE_EXIT
	out := make([]unix.Kevent_t, 1)
	for {
		_, err := unix.Kevent(kq, []unix.Kevent_t{ev}, out, nil)
		switch {
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.ESRCH):
			return nil
		}
		return err
	}
}
