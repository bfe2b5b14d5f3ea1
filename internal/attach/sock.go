package attach

import (
	"fmt"
	"net"
	"os"
	"syscall"
)

// listenUnix listens on path with mode 0600 (umask 0177 while binding, so
// the socket is never reachable by others even for an instant).
func listenUnix(path string) (*net.UnixListener, error) {
	old := syscall.Umask(0o177)
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	syscall.Umask(old)
	if err != nil {
		return nil, fmt.Errorf("attach socket: %w", err)
	}
	ln.SetUnlinkOnClose(true)
	if err := os.Chmod(path, 0o600); err != nil {
		_ = ln.Close()
		return nil, fmt.Errorf("attach socket: %w", err)
	}
	return ln, nil
}

// checkDir: dir is a real directory (not a link), ours, 0700 at most.
func checkDir(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("attach directory: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("attach directory %s is not a directory (a link or a file)", dir)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return fmt.Errorf("attach directory %s belongs to uid %d, not to this user", dir, st.Uid)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("attach directory %s is open to group or others (%v); it must be 0700", dir, fi.Mode().Perm())
	}
	return nil
}
