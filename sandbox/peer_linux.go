//go:build linux

package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// The proxy's peer check (docs/sandbox.md "Network"). The proxy socket lies
// in the sandbox's private directory, which every other sandbox can read;
// connect(2) needs no write access. So the proxy asks the kernel who is on
// the other end (SO_PEERCRED: the peer's pid, in the bridge's pid
// namespace) and accepts the connection only if that process belongs to a
// sandbox the bridge built for THIS socket:
//
//   - walking up from the peer by parent pid, the first process in the
//     bridge's own pid namespace (every sandbox has a pid namespace of its
//     own, so nothing inside any sandbox is in it, and an orphan inside is
//     reparented to its sandbox's pid 1, never out of it) is bubblewrap,
//     started outside every sandbox;
//   - its arguments, in the part the bridge wrote (the sandbox-init's
//     options, before the agent's command), name this socket with
//     --proxy-socket.
//
// The agent's own process, its relay and the editor's terminals of the same
// agent (each its own bubblewrap with the same files) pass; a process of
// another sandbox, or of the host, does not. Any error reading the kernel's
// answers refuses. With SO_PEERPIDFD the peer is held by a pidfd, so that a
// pid reused while the check reads /proc cannot pass for it.

// soPeerPidfd is SO_PEERPIDFD (Linux 6.5) where the socket options are the
// generic ones; elsewhere (mips, sparc, parisc, powerpc) the check goes on
// by pid alone rather than risk reading another option as a descriptor.
const soPeerPidfd = 77

var peerPidfd = map[string]bool{"amd64": true, "arm64": true, "386": true, "arm": true, "riscv64": true, "loong64": true}[runtime.GOARCH]

// peerCheck returns the check of the proxy serving sock, for the sandboxes
// built with the bubblewrap program bwrap and the sandbox-init program init.
func peerCheck(sock, bwrap, init string) func(net.Conn) error {
	return func(c net.Conn) error { return checkPeer(c, sock, bwrap, init) }
}

func checkPeer(c net.Conn, sock, bwrap, init string) error {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return fmt.Errorf("peer check: %T is not a Unix socket", c)
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return fmt.Errorf("peer check: %w", err)
	}
	var cred *unix.Ucred
	pidfd := -1
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
		if cerr == nil && peerPidfd {
			if v, err := unix.GetsockoptInt(int(fd), unix.SOL_SOCKET, soPeerPidfd); err == nil {
				pidfd = v
			}
		}
	}); err != nil {
		return fmt.Errorf("peer check: %w", err)
	}
	if cerr != nil {
		return fmt.Errorf("peer check: SO_PEERCRED: %w", cerr)
	}
	if pidfd >= 0 {
		defer unix.Close(pidfd)
	}
	if cred.Pid <= 0 {
		return fmt.Errorf("peer check: the peer's pid is not visible here (%d)", cred.Pid)
	}
	if err := ownSandbox(int(cred.Pid), sock, bwrap, init); err != nil {
		return err
	}
	if pidfd >= 0 {
		// Still the same process: its pid was not reused while /proc was read.
		if err := unix.PidfdSendSignal(pidfd, 0, nil, 0); err != nil {
			return fmt.Errorf("peer check: peer %d gone during the check: %w", cred.Pid, err)
		}
	}
	return nil
}

// ownSandbox: pid's first ancestor (pid itself included) in the bridge's pid
// namespace is bwrap started with init's --proxy-socket sock.
func ownSandbox(pid int, sock, bwrap, init string) error {
	self, err := os.Readlink("/proc/self/ns/pid")
	if err != nil {
		return fmt.Errorf("peer check: %w", err)
	}
	p := pid
	for range 256 {
		ns, err := os.Readlink("/proc/" + strconv.Itoa(p) + "/ns/pid")
		if err != nil {
			return fmt.Errorf("peer check: process %d: %w", p, err)
		}
		if ns == self {
			return builtFor(p, sock, bwrap, init)
		}
		pp, err := parentPid(p)
		if err != nil {
			return err
		}
		if pp <= 1 {
			return fmt.Errorf("peer check: process %d has no bubblewrap ancestor in the bridge's pid namespace", pid)
		}
		p = pp
	}
	return fmt.Errorf("peer check: process %d: too many ancestors", pid)
}

// parentPid reads the parent pid from /proc/<pid>/stat (after the command
// name, which may hold anything, up to its last ')').
func parentPid(pid int) (int, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, fmt.Errorf("peer check: %w", err)
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("peer check: /proc/%d/stat: no command name", pid)
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 2 {
		return 0, fmt.Errorf("peer check: /proc/%d/stat: too short", pid)
	}
	pp, err := strconv.Atoi(f[1])
	if err != nil {
		return 0, fmt.Errorf("peer check: /proc/%d/stat: parent: %w", pid, err)
	}
	return pp, nil
}

// builtFor: process p is bwrap, and the sandbox-init options the bridge
// put in its arguments (from the first "init InitArg" up to "--", before
// the agent's command) say --proxy-socket sock.
func builtFor(p int, sock, bwrap, init string) error {
	exe, err := os.Readlink("/proc/" + strconv.Itoa(p) + "/exe")
	if err != nil {
		return fmt.Errorf("peer check: process %d: %w", p, err)
	}
	if want, err := resolved(bwrap); err != nil || exe != want {
		return fmt.Errorf("peer check: process %d is %s, not the sandbox's bubblewrap", p, exe)
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(p) + "/cmdline")
	if err != nil {
		return fmt.Errorf("peer check: process %d: %w", p, err)
	}
	if !namesSocket(strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00"), sock, init) {
		return errors.New("peer check: the peer belongs to another sandbox")
	}
	return nil
}

// namesSocket: in bubblewrap's arguments args (program first), the first
// "init InitArg" starts the sandbox-init, whose options, up to "--", hold
// "--proxy-socket sock". Only the first: what follows "--" is the agent's
// command, which may hold anything.
func namesSocket(args []string, sock, init string) bool {
	for i := 1; i+1 < len(args); i++ {
		if args[i] != init || args[i+1] != InitArg {
			continue
		}
		// each option the bridge writes is a name and a value (check.go)
		for j := i + 2; j+1 < len(args) && args[j] != "--"; j += 2 {
			if args[j] == "--proxy-socket" && args[j+1] == sock {
				return true
			}
		}
		return false
	}
	return false
}

func resolved(p string) (string, error) {
	if !strings.HasPrefix(p, "/") {
		return "", fmt.Errorf("%s: not absolute", p)
	}
	return filepath.EvalSymlinks(p)
}
