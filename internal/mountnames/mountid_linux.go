package mountnames

import "golang.org/x/sys/unix"

// supported: this system has a mount table to read (/proc/self/mountinfo).
const supported = true

// mountID is the id of the mount holding real (statx, Linux 5.8 and later).
func mountID(real string) (uint64, bool) {
	var sx unix.Statx_t
	if err := unix.Statx(unix.AT_FDCWD, real, unix.AT_SYMLINK_NOFOLLOW, unix.STATX_MNT_ID, &sx); err != nil || sx.Mask&unix.STATX_MNT_ID == 0 {
		return 0, false
	}
	return sx.Mnt_id, true
}
