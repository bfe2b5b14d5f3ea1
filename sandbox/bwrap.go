package sandbox

import (
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// BwrapArgs returns the bubblewrap arguments that run argv inside s, in
// directory dir, to be passed to the bwrap binary (argv[0] is the command).
// maskFile is an empty file the caller created with mode 0000: it is bound
// over each masked file so that reading it fails (EACCES) rather than
// returning nothing; masked directories become empty, unreadable tmpfs.
// tmpDir is the agent's private temp directory: writable, and TMPDIR.
//
// Order matters to bwrap (later mounts cover earlier ones):
//  1. / read-only (so /tmp too: readable, not writable), a minimal /dev,
//     a new /proc (new PID namespace);
//  2. the writable trees, parents before children;
//  3. read-only re-binds of protected paths inside them;
//  4. the masks.
//
// Every capability is dropped, so a process inside cannot remount or
// unmount what hides a path (it runs as the caller's user; as root it is
// root without capabilities).
func BwrapArgs(s Spec, maskFile, tmpDir, dir string, argv []string) []string {
	a := []string{
		"--die-with-parent", "--new-session", "--unshare-pid", "--unshare-ipc", "--cap-drop", "ALL",
		"--ro-bind", "/", "/",
		"--dev", "/dev",
		"--proc", "/proc",
	}
	if s.Network == NetworkNone || s.Network.Proxied() {
		a = append(a, "--unshare-net")
	}
	if s.Network.Proxied() {
		// The relay inside (RunInit) listens here; programs that honour
		// the proxy variables go through it, the rest reach nothing.
		proxy := "http://127.0.0.1:" + strconv.Itoa(ProxyPort)
		for _, k := range []string{"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"} {
			a = append(a, "--setenv", k, proxy)
		}
		a = append(a, "--unsetenv", "NO_PROXY", "--unsetenv", "no_proxy")
	}
	w := append([]string(nil), s.Writable...)
	if tmpDir != "" {
		w = append(w, tmpDir)
	}
	sort.Slice(w, func(i, j int) bool { return depth(w[i]) < depth(w[j]) || (depth(w[i]) == depth(w[j]) && w[i] < w[j]) })
	for _, p := range w {
		a = append(a, "--bind-try", p, p)
	}
	for _, p := range s.ReadOnly {
		a = append(a, "--ro-bind-try", p, p)
	}
	for _, m := range s.Masked {
		if m.Dir {
			a = append(a, "--perms", "0000", "--tmpfs", m.Path, "--remount-ro", m.Path)
		} else {
			a = append(a, "--ro-bind-try", maskFile, m.Path)
		}
	}
	if tmpDir != "" {
		a = append(a, "--setenv", "TMPDIR", tmpDir)
	}
	if dir != "" {
		a = append(a, "--chdir", dir)
	}
	a = append(a, "--")
	return append(a, argv...)
}

func depth(p string) int { return strings.Count(filepath.Clean(p), string(filepath.Separator)) }
