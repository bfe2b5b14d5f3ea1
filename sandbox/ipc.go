package sandbox

import (
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
)

// Host IPC (docs/sandbox.md "Host IPC"): no pathname Unix socket outside
// the writable trees is reachable from inside. connect(2) needs no write
// access to a read-only mount, so the sockets are hidden: an empty tmpfs
// over the directories that hold the session's sockets, an unreadable file
// over every other socket a bounded scan finds. Abstract sockets and
// signals are closed by Landlock scoping in the in-sandbox init (init.go).

// hostIPCRule starts the Rule of every host socket mask.
const hostIPCRule = "host IPC"

// ipcDirs are directories of host sockets covered by an empty tmpfs when
// they exist.
var ipcDirs = []string{"/tmp/.X11-unix", "/tmp/.ICE-unix", "/run/dbus", "/var/run/dbus", "/tmp/.font-unix"}

// ipcScan are the trees scanned for sockets, to a depth of ipcDepth, in
// this order: the entry budget is shared, and /tmp, often the largest by
// far, comes last so that it cannot spend the budget of the small ones
// (red team 11: a /tmp of 57,000 entries left /var/tmp unscanned).
var ipcScan = []string{"/run", "/var/run", "/dev/shm", "/var/tmp", "/tmp"}

const ipcDepth = 6

// hostIPC returns the socket directories to empty, the socket files to
// mask, and a note when the scan bound was reached.
func hostIPC(getenv func(string) string, writable []string, max int) (emptied, sockets []string, note string) {
	under := func(p string) bool { return underAny(p, writable) }
	seenDir := map[string]bool{}
	addDir := func(d string) {
		if d == "" || !filepath.IsAbs(d) {
			return
		}
		d = filepath.Clean(d)
		if r, err := filepath.EvalSymlinks(d); err == nil {
			d = r
		}
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() || under(d) || seenDir[d] || d == "/" || d == "/tmp" || d == "/run" {
			return
		}
		seenDir[d] = true
		emptied = append(emptied, d)
	}
	addDir(getenv("XDG_RUNTIME_DIR"))
	for _, d := range ipcDirs {
		addDir(d)
	}
	if home := getenv("HOME"); home != "" {
		for _, d := range []string{".gnupg", ".docker/run", ".lima", ".colima"} {
			addDir(filepath.Join(home, d))
		}
	}
	seen := map[string]bool{}
	// found: a socket the scan read in a resolved root through directories
	// (never links), so p is resolved and a socket already.
	addFound := func(p string) {
		if seen[p] || under(p) || underAny(p, emptied) {
			return
		}
		seen[p] = true
		sockets = append(sockets, p)
	}
	addSock := func(p string) {
		if p == "" || !filepath.IsAbs(p) {
			return
		}
		if r, err := filepath.EvalSymlinks(p); err == nil {
			p = r
		}
		p = filepath.Clean(p)
		if fi, err := os.Lstat(p); err != nil || fi.Mode()&fs.ModeSocket == 0 {
			return
		}
		addFound(p)
	}
	addSock(getenv("SSH_AUTH_SOCK"))
	sc := ipcScanner{max: max, depth: ipcDepth, onSocket: addFound,
		skipDir: func(p, name []byte) bool {
			// Another agent's private temp directory: its sockets come and
			// go with that agent (Codex's cc-socks), and a mask whose
			// target vanished before bubblewrap started would keep this
			// agent from starting. Not a host socket; docs/sandbox.md,
			// "Host IPC", says so.
			return underAnyBytes(p, writable) || underAnyBytes(p, emptied) || hasPrefixBytes(name, privatePrefix)
		}}
	for _, root := range ipcScan {
		r, err := filepath.EvalSymlinks(root)
		if err != nil || seenDir[r+"#scan"] {
			continue
		}
		seenDir[r+"#scan"] = true
		if !sc.scan(r) {
			break
		}
	}
	if sc.stopped {
		note = "stopped looking for host sockets after " + strconv.Itoa(max) + " entries: sockets past that are reachable from the sandbox"
	}
	return emptied, sockets, note
}

// privatePrefix names each sandbox's private directory (its TMPDIR, its
// mask file, its placeholders) under the system's temp directory.
const privatePrefix = "acp-bridge-sandbox-"

func hasPrefixBytes(b []byte, prefix string) bool {
	return len(b) >= len(prefix) && string(b[:len(prefix)]) == prefix
}
