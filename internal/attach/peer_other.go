//go:build !linux

package attach

import "net"

// checkPeer: on systems without SO_PEERCRED the 0700 directory, the 0600
// socket and the token are the checks.
func checkPeer(*net.UnixConn) error { return nil }
