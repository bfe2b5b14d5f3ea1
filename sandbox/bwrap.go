package sandbox

import (
	"os"
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
// Blocked places get an empty read-only file or directory next to maskFile
// ("empty", "emptydir": Prepare makes them); Copies get nothing here (see
// Prepared.Command).
func BwrapArgs(s Spec, maskFile, tmpDir, dir string, argv []string) []string {
	base := filepath.Dir(maskFile)
	return bwrapArgs(s, bwrapFiles{mask: maskFile, empty: filepath.Join(base, "empty"), emptyDir: filepath.Join(base, "emptydir"), tmp: tmpDir}, dir, argv)
}

// bwrapFiles are the files a sandbox's mounts use.
type bwrapFiles struct {
	mask, empty, emptyDir, tmp string
	// exe is bound read-only at init (the in-sandbox init's program).
	exe, init string
	// copies: original -> private copy (Spec.Copies).
	copies map[string]string
	// content: a blocked file's content -> a read-only file holding it.
	content map[string]string
	// homes is the private homes' root (HomesRoot), hidden by an empty
	// tmpfs: the agent's own home (Spec.Homes) is bound again inside it.
	homes string
	// state are the entries of the bridge's state the writable trees
	// cover (stateEntries): bound read-only over themselves.
	state []string
}

// mount is one bind of the file system part, ordered by depth.
type mount struct {
	depth int
	order int // at the same depth: writable, pinned, read-only, blocked, copy
	args  []string
}

// Order matters to bwrap (later mounts cover earlier ones):
//  1. / read-only (so /tmp too: readable, not writable), a minimal /dev,
//     a new /proc (new PID namespace);
//  2. by depth, parents before children: the writable trees, the pinned
//     ancestors of protected places (bound onto themselves: mount points),
//     the read-only protected places, the blocked missing places, the
//     private copies of agents' permission state;
//     a private home's read-only copies and config places; the private
//     homes' root is an empty tmpfs before the agent's own home is bound
//     inside it;
//  3. the masks (Read deny rules, host IPC sockets) and the emptied socket
//     directories; the homes' root made read-only.
//
// Every capability is dropped, so a process inside cannot remount or
// unmount what hides a path (it runs as the caller's user; as root it is
// root without capabilities). A mount point cannot be renamed, replaced or
// removed (EBUSY), which is what holds a protected place in its place.
func bwrapArgs(s Spec, f bwrapFiles, dir string, argv []string) []string {
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
	var ms []mount
	add := func(p string, order int, args ...string) {
		ms = append(ms, mount{depth: depth(p), order: order, args: args})
	}
	for _, p := range s.Writable {
		add(p, 0, "--bind-try", p, p)
	}
	if f.tmp != "" {
		add(f.tmp, 0, "--bind-try", f.tmp, f.tmp)
	}
	for _, p := range s.Pinned {
		add(p, 1, "--bind-try", p, p)
	}
	for _, p := range f.state {
		// after the writable tree holding it; the sandbox's own TMPDIR
		// (f.tmp, deeper) is bound writable again inside its own
		add(p, 2, "--ro-bind-try", p, p)
	}
	for _, p := range s.ReadOnly {
		add(p, 2, "--ro-bind-try", p, p)
	}
	for _, b := range s.Blocked {
		src := f.empty
		if c, ok := f.content[b.Content]; ok {
			src = c
		}
		if b.Dir {
			src = f.emptyDir
		}
		add(b.Path, 3, "--ro-bind", src, b.Path)
	}
	for _, p := range s.Copies {
		if c, ok := f.copies[p]; ok {
			add(p, 4, "--bind", c, p)
		}
	}
	if f.homes != "" {
		// Before anything inside it (depth, then order -1): every other
		// agent's private home is out of sight, whenever it was made.
		add(f.homes, -1, "--perms", "0700", "--tmpfs", f.homes)
	}
	for _, h := range s.Homes {
		for _, c := range h.Copies {
			if c.ReadOnly {
				add(c.To, 2, "--ro-bind", c.To, c.To)
			}
		}
		for _, b := range h.Places {
			src := b.From
			if src == "" {
				src = f.empty
				if b.Dir {
					src = f.emptyDir
				}
			}
			add(b.To, 3, "--ro-bind", src, b.To)
		}
	}
	sort.SliceStable(ms, func(i, j int) bool {
		if ms[i].depth != ms[j].depth {
			return ms[i].depth < ms[j].depth
		}
		return ms[i].order < ms[j].order
	})
	for _, m := range ms {
		a = append(a, m.args...)
	}
	if f.exe != "" {
		a = append(a, "--ro-bind", f.exe, f.init)
	}
	for _, m := range s.Masked {
		if strings.HasPrefix(m.Rule, hostIPCRule) {
			// Other programs' sockets come and go: one gone since Compute
			// needs no mask, and bwrap could not create its mount point.
			if _, err := os.Lstat(m.Path); err != nil {
				continue
			}
		}
		if m.Dir {
			a = append(a, "--perms", "0000", "--tmpfs", m.Path, "--remount-ro", m.Path)
		} else {
			a = append(a, "--ro-bind-try", f.mask, m.Path)
		}
	}
	for _, d := range s.Emptied {
		if _, err := os.Lstat(d); err != nil {
			continue
		}
		a = append(a, "--tmpfs", d)
	}
	if f.homes != "" {
		a = append(a, "--remount-ro", f.homes)
	}
	if f.tmp != "" {
		a = append(a, "--setenv", "TMPDIR", f.tmp)
	}
	if dir != "" {
		a = append(a, "--chdir", dir)
	}
	a = append(a, "--")
	return append(a, argv...)
}

func depth(p string) int { return strings.Count(filepath.Clean(p), string(filepath.Separator)) }
