package sandbox

import (
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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

// ipcScan are the trees scanned for sockets, to a depth of ipcDepth.
var ipcScan = []string{"/run", "/var/run", "/tmp", "/var/tmp", "/dev/shm"}

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
	inEmptied := func(p string) bool {
		for _, d := range emptied {
			if p == d || strings.HasPrefix(p, d+"/") {
				return true
			}
		}
		return false
	}
	seen := map[string]bool{}
	addSock := func(p string) {
		if p == "" || !filepath.IsAbs(p) {
			return
		}
		if r, err := filepath.EvalSymlinks(p); err == nil {
			p = r
		}
		p = filepath.Clean(p)
		if seen[p] || under(p) || inEmptied(p) {
			return
		}
		if fi, err := os.Lstat(p); err != nil || fi.Mode()&fs.ModeSocket == 0 {
			return
		}
		seen[p] = true
		sockets = append(sockets, p)
	}
	addSock(getenv("SSH_AUTH_SOCK"))
	n := 0
	for _, root := range ipcScan {
		r, err := filepath.EvalSymlinks(root)
		if err != nil || seenDir[r+"#scan"] {
			continue
		}
		seenDir[r+"#scan"] = true
		base := strings.Count(r, "/")
		_ = filepath.WalkDir(r, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			n++
			if n > max {
				note = "stopped looking for host sockets after " + strconv.Itoa(max) + " entries: sockets past that are reachable from the sandbox"
				return filepath.SkipAll
			}
			if d.IsDir() {
				if p != r && (under(p) || inEmptied(p) || strings.Count(p, "/")-base >= ipcDepth) {
					return filepath.SkipDir
				}
				if strings.HasPrefix(d.Name(), privatePrefix) {
					// Another agent's private temp directory: its sockets
					// come and go with that agent (Codex's cc-socks), and a
					// mask whose target vanished before bubblewrap started
					// would keep this agent from starting. Not a host
					// socket; docs/sandbox.md, "Host IPC", says so.
					return filepath.SkipDir
				}
				return nil
			}
			if d.Type()&fs.ModeSocket != 0 {
				addSock(p)
			}
			return nil
		})
	}
	return emptied, sockets, note
}

// privatePrefix names each sandbox's private directory (its TMPDIR, its
// mask file, its placeholders) under the system's temp directory.
const privatePrefix = "acp-bridge-sandbox-"
