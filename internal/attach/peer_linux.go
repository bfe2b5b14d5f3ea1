//go:build linux

package attach

import (
	"fmt"
	"net"
	"os"
	"syscall"
)

// checkPeer refuses a peer that runs as another user (SO_PEERCRED).
func checkPeer(conn *net.UnixConn) error {
	rc, err := conn.SyscallConn()
	if err != nil {
		return err
	}
	var cred *syscall.Ucred
	var credErr error
	if err := rc.Control(func(fd uintptr) {
		cred, credErr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	}); err != nil {
		return err
	}
	if credErr != nil {
		return fmt.Errorf("SO_PEERCRED: %w", credErr)
	}
	if int(cred.Uid) != os.Getuid() {
		return fmt.Errorf("peer uid %d is not this user's (%d)", cred.Uid, os.Getuid())
	}
	return nil
}
