//go:build linux

package safefs

import "golang.org/x/sys/unix"

// noLinks: no symbolic link, and no /proc magic link, anywhere on the way.
const noLinks = unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS

// openPath opens the absolute path p with openat2(2), refusing every link
// on the way (ELOOP).
func openPath(p string, flags int, mode uint32) (int, error) {
	return openAt(unix.AT_FDCWD, p, flags, mode)
}

// openAt opens name relative to dirfd with openat2(2), refusing every link
// on the way, the last component included (ELOOP). O_NOFOLLOW is not added:
// with O_DIRECTORY it would turn a link into ENOTDIR.
func openAt(dirfd int, name string, flags int, mode uint32) (int, error) {
	how := unix.OpenHow{Flags: uint64(flags | unix.O_CLOEXEC), Mode: uint64(mode), Resolve: noLinks}
	for {
		fd, err := unix.Openat2(dirfd, name, &how)
		if err == unix.EINTR {
			continue
		}
		return fd, err
	}
}
