//go:build unix && !linux

package safefs

import (
	"strings"

	"golang.org/x/sys/unix"
)

// openPath opens the absolute path p one component at a time, each with
// openat(2) and O_NOFOLLOW relative to its parent's descriptor: a link on
// the way fails (ELOOP, or ENOTDIR for a link where a directory is
// expected, reported as ELOOP).
func openPath(p string, flags int, mode uint32) (int, error) {
	fd, err := unix.Open("/", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	parts := strings.Split(strings.Trim(p, "/"), "/")
	if len(parts) == 1 && parts[0] == "" {
		return fd, nil
	}
	for i, c := range parts {
		fl, m := unix.O_RDONLY|unix.O_DIRECTORY, uint32(0)
		if i == len(parts)-1 {
			fl, m = flags, mode
		}
		next, err := openAt(fd, c, fl, m)
		unix.Close(fd)
		if err != nil {
			return -1, err
		}
		fd = next
	}
	return fd, nil
}

// openAt opens the single component name relative to dirfd, refusing a
// link (O_NOFOLLOW).
func openAt(dirfd int, name string, flags int, mode uint32) (int, error) {
	fd, err := unix.Openat(dirfd, name, flags|unix.O_CLOEXEC|unix.O_NOFOLLOW, mode)
	if err == unix.ENOTDIR && flags&unix.O_DIRECTORY != 0 {
		var st unix.Stat_t
		if unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
			err = unix.ELOOP
		}
	}
	return fd, err
}
