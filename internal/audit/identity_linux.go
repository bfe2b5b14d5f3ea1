package audit

import (
	"strconv"
	"unsafe"

	"golang.org/x/sys/unix"
)

// idWatch tells a Log, without a stat(2) of each file's path per record,
// that one of its open files is no longer the file at its path: one
// inotify instance watches the inode of every open stream (through
// /proc/self/fd, so the inode watched is the one opened, never a file
// swapped in at the path between the open and the watch) for a rename, an
// unlink or a change of its links or attributes. The kernel queues such an
// event before the rename or unlink returns, so an Append after it reads
// it (one read(2) of the queue for the whole record, both its files). A
// change above the files (a directory renamed, a symlink retargeted) sends
// no event to their inodes: Log.checkMovedLocked stats their directory per
// record for that (red team 15), one stat instead of one per file written.
// Only l.mu's holder touches it.
type idWatch struct {
	fd  int
	buf []byte
}

const idMask = unix.IN_MOVE_SELF | unix.IN_DELETE_SELF | unix.IN_ATTRIB

// newIDWatch returns nil where inotify is not available: the Log then
// stats each file's path per record as before.
func newIDWatch() *idWatch {
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil
	}
	return &idWatch{fd: fd, buf: make([]byte, 4096)}
}

// add watches the inode open at f's descriptor; -1 when it cannot.
func (w *idWatch) add(fd uintptr) int32 {
	if w == nil {
		return -1
	}
	wd, err := unix.InotifyAddWatch(w.fd, "/proc/self/fd/"+strconv.Itoa(int(fd)), idMask)
	if err != nil {
		return -1
	}
	return int32(wd)
}

// remove stops watching wd (a file the Log closed).
func (w *idWatch) remove(wd int32) {
	if w != nil && wd >= 0 {
		_, _ = unix.InotifyRmWatch(w.fd, uint32(wd))
	}
}

// moved reads what the kernel queued and calls stale with the watch
// descriptor of each file that changed, or with -1 when it cannot tell
// which (the queue overflowed, or could not be read): every file is then
// suspect.
func (w *idWatch) moved(stale func(wd int32)) {
	for {
		n, err := unix.Read(w.fd, w.buf)
		if err == unix.EINTR {
			continue
		}
		if err == unix.EAGAIN {
			return
		}
		if err != nil || n <= 0 {
			stale(-1)
			return
		}
		b := w.buf[:n]
		for len(b) >= unix.SizeofInotifyEvent {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&b[0]))
			end := unix.SizeofInotifyEvent + int(ev.Len)
			if end > len(b) {
				stale(-1)
				return
			}
			b = b[end:]
			if ev.Mask&unix.IN_Q_OVERFLOW != 0 {
				stale(-1)
				continue
			}
			stale(ev.Wd)
		}
	}
}

func (w *idWatch) close() {
	if w != nil {
		_ = unix.Close(w.fd)
	}
}
