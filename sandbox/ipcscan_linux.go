//go:build linux

package sandbox

import (
	"encoding/binary"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// readDir calls visit for every entry of the directory *dir but "." and
// "..", reading it with getdents(2) into buf (the caller's, reused). dir's
// spare capacity holds the NUL open(2) needs, so no string is made. The
// directory is opened without following a final symlink; an entry whose
// type the file system does not report is asked with fstatat. A directory
// that cannot be read has no entries: the agent cannot read it either.
// It returns false when visit did, and the error when the directory could
// not be opened.
func readDir(dir *[]byte, buf []byte, visit func(name []byte, k entryKind) bool) (bool, error) {
	p := append(*dir, 0)
	*dir = p[:len(p)-1]
	cwd := unix.AT_FDCWD
	r, _, errno := syscall.Syscall6(syscall.SYS_OPENAT, uintptr(cwd), uintptr(unsafe.Pointer(&p[0])),
		uintptr(syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC), 0, 0, 0)
	if errno != 0 {
		return true, errno
	}
	fd := int(r)
	defer syscall.Close(fd)
	for {
		n, err := syscall.Getdents(fd, buf)
		if err == syscall.EINTR {
			continue
		}
		if err != nil || n <= 0 {
			return true, nil
		}
		for off := 0; off < n; {
			// struct linux_dirent64: ino u64, off s64, reclen u16, type u8, name.
			if off+19 > n {
				return true, nil
			}
			reclen := int(binary.NativeEndian.Uint16(buf[off+16:]))
			if reclen < 19 || off+reclen > n {
				return true, nil
			}
			typ := buf[off+18]
			name := buf[off+19 : off+reclen]
			for i, c := range name {
				if c == 0 {
					name = name[:i]
					break
				}
			}
			off += reclen
			if len(name) == 0 || (len(name) == 1 && name[0] == '.') || (len(name) == 2 && name[0] == '.' && name[1] == '.') {
				continue
			}
			k := kindOther
			switch typ {
			case syscall.DT_DIR:
				k = kindDir
			case syscall.DT_SOCK:
				k = kindSocket
			case syscall.DT_LNK:
				k = kindLink
			case syscall.DT_UNKNOWN:
				var st syscall.Stat_t
				if fstatat(fd, name, &st) == nil {
					switch st.Mode & syscall.S_IFMT {
					case syscall.S_IFDIR:
						k = kindDir
					case syscall.S_IFSOCK:
						k = kindSocket
					case syscall.S_IFLNK:
						k = kindLink
					}
				}
			}
			if !visit(name, k) {
				return false, nil
			}
		}
	}
}

func fstatat(dirfd int, name []byte, st *syscall.Stat_t) error {
	var ust unix.Stat_t
	if err := unix.Fstatat(dirfd, string(name), &ust, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return err
	}
	st.Mode = ust.Mode
	return nil
}
