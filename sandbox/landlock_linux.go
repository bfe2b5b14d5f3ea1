//go:build linux

package sandbox

import (
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// landlockABI is the kernel's Landlock ABI version (0: none).
func landlockABI() int {
	v, _, e := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if e != 0 {
		return 0
	}
	return int(v)
}

// scopeSelf locks the calling goroutine to its thread, sets no_new_privs
// and restricts the thread with Landlock scoping (ABI 6): no connection to
// an abstract Unix socket and no signal to a process outside the domain
// (created outside this sandbox). Children forked from this thread inherit
// the domain. An error when the kernel lacks it.
func scopeSelf() error {
	if abi := landlockABI(); abi < 6 {
		return fmt.Errorf("Landlock scoping needs ABI 6 (Linux 6.12), this kernel has ABI %d", abi)
	}
	runtime.LockOSThread() // never unlocked: the agent is forked from this thread
	attr := unix.LandlockRulesetAttr{Scoped: unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | unix.LANDLOCK_SCOPE_SIGNAL}
	fd, _, e := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0)
	if e != 0 {
		return fmt.Errorf("landlock_create_ruleset: %w", e)
	}
	defer unix.Close(int(fd))
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	if _, _, e := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, fd, 0, 0); e != 0 {
		return fmt.Errorf("landlock_restrict_self: %w", e)
	}
	return nil
}

// landlockNote says what is lost when the kernel lacks Landlock scoping.
func landlockNote() string {
	if abi := landlockABI(); abi < 6 {
		return fmt.Sprintf("this kernel has Landlock ABI %d, scoping needs 6: the sandbox refuses to start with the network \"all\" (abstract Unix sockets would be reachable); with a network namespace (none, loopback, domains) abstract sockets are closed by it and signals by the PID namespace", abi)
	}
	return ""
}
