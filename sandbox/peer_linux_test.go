//go:build linux

package sandbox

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

const hostSecret = "HOST-LOOPBACK-SECRET"

// viaSocketScript: Python connects to the proxy socket sock, asks for url
// and prints the answer; VISIBLE/INVISIBLE says whether sock was there.
func viaSocketScript(sock, url string) string {
	return fmt.Sprintf(`import os, socket
s = %q
print("VISIBLE" if os.path.exists(s) else "INVISIBLE")
try:
    c = socket.socket(socket.AF_UNIX); c.settimeout(10); c.connect(s)
    c.sendall(b"GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    data = b""
    while True:
        d = c.recv(4096)
        if not d: break
        data += d
    print("GOT:" + data.decode(errors="replace"))
except Exception as e:
    print("failed:", e)
`, sock, url)
}

// viaRelayScript: Python asks the sandbox's own relay (HTTP_PROXY) for url.
func viaRelayScript(url string) string {
	return fmt.Sprintf(`import urllib.request
print("GOT:" + urllib.request.urlopen(%q, timeout=10).read().decode())
`, url)
}

// runNet runs argv in a fresh sandbox of network n (proxied networks get a
// proxy that allows everything, the loopback included) and returns its
// output, its Prepared (cleaned up with the test) and its Spec.
func runNet(t *testing.T, n Network, argv ...string) (string, Prepared, Spec) {
	t.Helper()
	tr := newTree(t)
	s, err := Compute(Options{Workspace: []string{tr.ws}, Home: tr.home, Network: n, Getenv: func(string) string { return "" }, Policy: mustCompile(t)})
	if err != nil {
		t.Fatal(err)
	}
	var opts *NetOptions
	if n.Proxied() {
		opts = &NetOptions{Allow: func(string, int) bool { return true }}
	}
	p, err := Prepare(s, tr.ws, argv, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Cleanup)
	cmd := exec.Command(p.Path, p.Args...)
	cmd.Env = append(os.Environ(), "HOME="+tr.home)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the sandbox did not run: %v\n%s", err, out)
	}
	return string(out), p, s
}

// Red team 10: a sandbox with no network connects to another sandbox's
// proxy socket (in that sandbox's private directory, readable from every
// sandbox) and reaches the host's loopback under the other's policy. The
// proxy serves only processes of its own sandbox.
func TestProxyPeerOtherSandbox(t *testing.T) {
	requireMechanism(t)
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, hostSecret)
	}))
	defer srv.Close()
	url := srv.URL + "/secret"

	// the owner (network loopback) through its own relay and socket: served
	out, owner, spec := runNet(t, NetworkLoopback, "python3", "-c", viaRelayScript(url))
	if !strings.Contains(out, "GOT:"+hostSecret) {
		t.Fatalf("the owner's own agent did not get through its proxy:\n%s", out)
	}
	// a terminal of the same agent (its own bubblewrap with the same files,
	// started by the editor): served too
	argv := owner.Command(spec, "/", []string{"python3", "-c", viaRelayScript(url)})
	if b, err := exec.Command(argv[0], argv[1:]...).CombinedOutput(); err != nil || !strings.Contains(string(b), "GOT:"+hostSecret) {
		t.Fatalf("a terminal of the owner did not get through its proxy: %v\n%s", err, b)
	}
	sock := filepath.Join(filepath.Dir(owner.TmpDir), "proxy.sock")
	if _, err := os.Stat(sock); err != nil {
		t.Fatalf("the owner's proxy socket: %v", err)
	}

	// the attacker (network none) has no loopback of the host's
	out, _, _ = runNet(t, NetworkNone, "python3", "-c", fmt.Sprintf(`import socket
try:
    socket.create_connection(("127.0.0.1", %s), timeout=3); print("DIRECT-CONNECTED")
except Exception as e: print("direct refused:", e)`, srv.URL[strings.LastIndex(srv.URL, ":")+1:]))
	if strings.Contains(out, "DIRECT-CONNECTED") || !strings.Contains(out, "direct refused") {
		t.Fatalf("network none reached the host's loopback directly (the test's premise):\n%s", out)
	}

	// control: with the check off, the attack lands (when the socket is
	// visible from the other sandbox at all)
	peerCheckOff = true
	_, owner2, _ := runNet(t, NetworkLoopback, "true")
	peerCheckOff = false
	sock2 := filepath.Join(filepath.Dir(owner2.TmpDir), "proxy.sock")
	out, _, _ = runNet(t, NetworkNone, "python3", "-c", viaSocketScript(sock2, url))
	switch {
	case strings.Contains(out, "INVISIBLE"):
		t.Logf("the other sandbox's socket is not visible from inside (hidden): only the peer check is tested\n%s", out)
	case !strings.Contains(out, "GOT:") || !strings.Contains(out, hostSecret):
		t.Fatalf("without the peer check the attack should land (the test's premise):\n%s", out)
	}

	// the attack with the check: nothing from the host
	out, _, _ = runNet(t, NetworkNone, "python3", "-c", viaSocketScript(sock, url))
	if strings.Contains(out, hostSecret) {
		t.Fatalf("another sandbox got the host's loopback through the owner's proxy socket:\n%s", out)
	}
	if !strings.Contains(out, "VISIBLE") {
		t.Fatalf("the attack did not run:\n%s", out)
	}

	// a process outside every sandbox (this test) is refused too: the check
	// does not rest on the socket being hidden
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatalf("dial the owner's socket from the host: %v", err)
	}
	defer c.Close()
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", url)
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	b, err := io.ReadAll(c)
	if strings.Contains(string(b), hostSecret) || len(b) != 0 {
		t.Fatalf("a host process outside the sandbox was served by its proxy: %v\n%s", err, b)
	}
}

// SO_PEERPIDFD (77) gives a pidfd of the peer on this kernel: the descriptor
// the check holds against pid reuse is the peer's (fdinfo's Pid line).
func TestPeerPidfdIsThePeer(t *testing.T) {
	if !peerPidfd {
		t.Skip("SO_PEERPIDFD is not used on " + runtime.GOARCH)
	}
	sock := filepath.Join(t.TempDir(), "s")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	cl, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	c, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	raw, err := c.(*net.UnixConn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	fd, gerr := -1, error(nil)
	raw.Control(func(s uintptr) { fd, gerr = unix.GetsockoptInt(int(s), unix.SOL_SOCKET, soPeerPidfd) })
	if gerr != nil {
		var u unix.Utsname
		unix.Uname(&u)
		t.Skipf("SO_PEERPIDFD unsupported by kernel %s: %v (the check goes on by pid)", unix.ByteSliceToString(u.Release[:]), gerr)
	}
	defer unix.Close(fd)
	info, err := os.ReadFile("/proc/self/fdinfo/" + strconv.Itoa(fd))
	if err != nil {
		t.Fatal(err)
	}
	if want := "Pid:\t" + strconv.Itoa(os.Getpid()) + "\n"; !strings.Contains(string(info), want) {
		t.Fatalf("SO_PEERPIDFD's descriptor is not a pidfd of the peer (%d):\n%s", os.Getpid(), info)
	}
	if err := checkPeer(c, sock, "/usr/bin/bwrap", "/nonexistent/init"); err == nil {
		t.Fatal("the test process, outside every sandbox, passed the peer check")
	}
}

// Only the sandbox-init options the bridge wrote count: an agent's command
// (after "--", a terminal's say) naming another sandbox's socket does not.
func TestNamesSocket(t *testing.T) {
	const sock, init = "/tmp/acp-bridge-sandbox-B/proxy.sock", "/tmp/acp-bridge-sandbox-A/init"
	other := "/tmp/acp-bridge-sandbox-A/proxy.sock"
	bw := []string{"/usr/bin/bwrap", "--unshare-net", "--chdir", "/ws"}
	for _, tc := range []struct {
		name string
		args []string
		want bool
	}{
		{"own", append(bw, init, InitArg, "--scope", "optional", "--proxy-socket", sock, "--", "agent"), true},
		{"own, env-keep first", append(bw, init, InitArg, "--env-keep", "X", "--proxy-socket", sock, "--", "agent"), true},
		{"another socket", append(bw, init, InitArg, "--proxy-socket", other, "--", "agent"), false},
		{"in the agent's command", append(bw, init, InitArg, "--proxy-socket", other, "--", "sh", "--proxy-socket", sock), false},
		{"a second init in the command", append(bw, init, InitArg, "--scope", "optional", "--", init, InitArg, "--proxy-socket", sock, "--", "x"), false},
		{"another init program", append(bw, "/tmp/x/init", InitArg, "--proxy-socket", sock, "--", "agent"), false},
		{"no init", append(bw, "--proxy-socket", sock), false},
		{"the socket as the last word", append(bw, init, InitArg, "--proxy-socket"), false},
		{"the option's name as a value of another", append(bw, init, InitArg, "--env-keep", "--proxy-socket", sock, "--", "a"), false},
	} {
		if got := namesSocket(tc.args, sock, init); got != tc.want {
			t.Errorf("%s: namesSocket = %v, want %v", tc.name, got, tc.want)
		}
	}
}
