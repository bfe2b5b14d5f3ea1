package bridge

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"strings"
	"sync"
	"syscall"
	"unicode/utf8"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/acp-bridge/acp-bridge/policy"
)

// placeWatch keeps where each protected place leads (policy's
// realProbeList: is it, or does it lie under, a symlink?) from one decision
// to the next, for as long as the kernel reports no change to any directory
// entry that resolution read. Resolving about 150 places was about 150
// lstat(2) calls per decision, even with callFS remembering shared prefixes
// (docs/benchmarks.md, "Where the time goes"); with the watch a decision
// makes one poll(2) when nothing changed.
//
// Why it is sound. A place's resolution is a function of the directory
// entries the kernel's path walk reads: for each component, the entry
// (dir, name) is a directory, a link (and the link's text), something else,
// or absent. The walk is redone here (walkPlace) and every (dir, name) it
// read is watched with inotify on dir (dir is a real path: every link
// before it is resolved). An entry changes only by an operation on that
// name in that directory (create, mkdir, symlink, unlink, rmdir, rename to
// or from it: a link's text changes only by replacing the link) or by a
// change to dir itself (removed, moved, its mode changed), and the kernel
// queues the inotify event before the system call that made the change
// returns. A change the agent makes before it sends its next call is
// therefore in the queue when the bridge decides that call, and every
// decision reads the queue first (check), without waiting: a link made
// between two calls is seen by the second, as when each place was stat'ed.
// A mount or unmount in the bridge's mount namespace (which changes walks
// without touching a directory entry) is seen through
// /proc/self/mountinfo's POLLPRI in the same poll(2). An agent's own
// mounts are in its sandbox's namespace and change nothing the bridge
// resolves.
//
// What is not cached (resolved at every decision, as before): a place whose
// walk crosses a directory on a file system whose changes need not all
// pass through this kernel (only ext2/3/4, xfs, btrfs, tmpfs, ramfs, f2fs,
// bcachefs and zfs are trusted: not NFS, CIFS, FUSE, 9p, overlayfs, whose
// lower layers can change underneath); a directory inotify refuses to
// watch; a walk with a loop, a long chain, an error other than "does not
// exist" or "not a directory"; a place the walk resolves differently from
// the engine (policy.ResolveReal), so that the engine's rules and the
// watch's never diverge. Any event the watch cannot attribute (queue
// overflow, a watched directory gone or moved, a change to the mount table)
// drops everything kept.
//
// Once built, an entry's slice is only read; everything else is under mu.
type placeWatch struct {
	mu  sync.Mutex
	ifd int // inotify instance, -1 when none
	// mounts is /proc/self/mountinfo, polled for POLLPRI; -1 when it cannot
	// be opened. It is opened with open(2), not os.Open: in Go's poller the
	// runtime's own epoll would take the one POLLPRI a change gives.
	mounts  int
	wds     map[string]int32
	names   map[int32]map[string]bool // per watch: the entry names that matter
	entries map[string][]string       // list key -> real path per place, "" = resolve at each decision
	built   map[string]uint64         // list key -> when its entry was built (seq)
	seq     uint64                    // counts builds; never reset
	buf     []byte
	// changed is called after an invalidation (tests).
	changed func()
}

// maxPlaceLists bounds the lists kept (one per root, cwd, home and
// protected files); when full, the watch starts again empty.
const maxPlaceLists = 64

const watchMask = unix.IN_CREATE | unix.IN_DELETE | unix.IN_MOVED_FROM | unix.IN_MOVED_TO | unix.IN_ATTRIB |
	unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_ONLYDIR | unix.IN_DONT_FOLLOW

var (
	placesOnce sync.Once
	places     *placeWatch
)

// sharedPlaceWatch is the process's one watch (the file system is the
// process's, whichever bridge decides).
func sharedPlaceWatch() *placeWatch {
	placesOnce.Do(func() { places = newPlaceWatch() })
	return places
}

func newPlaceWatch() *placeWatch {
	w := &placeWatch{ifd: -1, mounts: -1, buf: make([]byte, 64<<10)}
	w.reset()
	if fd, err := unix.Open("/proc/self/mountinfo", unix.O_RDONLY|unix.O_CLOEXEC, 0); err == nil {
		w.mounts = fd
	}
	return w
}

// reset drops every watch and every entry.
func (w *placeWatch) reset() {
	if w.ifd >= 0 {
		_ = unix.Close(w.ifd)
		w.ifd = -1
	}
	w.wds = map[string]int32{}
	w.names = map[int32]map[string]bool{}
	w.entries = map[string][]string{}
	w.built = map[string]uint64{}
}

// realPlaces answers policy.PlaceResolver for places (listed under key):
// the real path of each, "" where the decision must resolve it itself; nil
// when nothing can be kept (no inotify, no mount table to poll).
func (w *placeWatch) realPlaces(key string, places []string) []string {
	if w == nil || w.mounts < 0 {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.check()
	if out, ok := w.entries[key]; ok {
		return out
	}
	if len(w.entries) >= maxPlaceLists {
		w.reset()
	}
	if w.ifd < 0 {
		fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
		if err != nil {
			return nil
		}
		w.ifd = fd
	}
	return w.build(key, places)
}

// keepAll watches every entry the walks of places read and keeps their
// resolutions under key (as realPlaces does). It returns when that entry
// was built (a build sequence number, never 0) when every walk is kept, so
// that keptSince(key) answers for all of them; 0 when not.
func (w *placeWatch) keepAll(key string, places []string) uint64 {
	out := w.realPlaces(key, places)
	if len(out) != len(places) {
		return 0
	}
	for _, r := range out {
		if r == "" {
			return 0
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.built[key]
}

// keptSince is when the entry kept under key was built, after reading what
// the kernel queued; 0 when none is. While it returns the number keepAll
// returned, no entry any of those walks read has changed since that
// build: an entry dropped and built again has a new number, so a caller
// that read the disk before the new build still reads it again.
func (w *placeWatch) keptSince(key string) uint64 {
	if w == nil || w.mounts < 0 {
		return 0
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.check()
	if _, ok := w.entries[key]; !ok {
		return 0
	}
	return w.built[key]
}

// check reads, without waiting, what the kernel queued since the last
// decision, and drops everything kept if any of it concerns an entry a
// resolution read, or the mount table changed.
func (w *placeWatch) check() {
	if w.ifd < 0 {
		return
	}
	fds := []unix.PollFd{{Fd: int32(w.ifd), Events: unix.POLLIN}, {Fd: int32(w.mounts), Events: unix.POLLPRI}}
	for {
		_, err := unix.Poll(fds, 0)
		if err != unix.EINTR {
			if err != nil {
				w.invalidate()
				return
			}
			break
		}
	}
	if fds[1].Revents != 0 {
		w.invalidate()
		return
	}
	if fds[0].Revents == 0 {
		return
	}
	if fds[0].Revents&unix.POLLIN == 0 {
		w.invalidate()
		return
	}
	drop := false
	for {
		n, err := unix.Read(w.ifd, w.buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil || n <= 0 {
			if err != unix.EAGAIN {
				drop = true
			}
			break
		}
		if w.relevant(w.buf[:n]) {
			drop = true
		}
	}
	if drop {
		w.invalidate()
	}
}

// relevant: one of the events in b concerns a watched entry, a watched
// directory itself, or says events were lost.
func (w *placeWatch) relevant(b []byte) bool {
	for len(b) >= unix.SizeofInotifyEvent {
		ev := (*unix.InotifyEvent)(unsafe.Pointer(&b[0]))
		end := unix.SizeofInotifyEvent + int(ev.Len)
		if end > len(b) {
			return true
		}
		name := strings.TrimRight(string(b[unix.SizeofInotifyEvent:end]), "\x00")
		b = b[end:]
		if ev.Mask&(unix.IN_Q_OVERFLOW|unix.IN_IGNORED|unix.IN_UNMOUNT|unix.IN_DELETE_SELF|unix.IN_MOVE_SELF) != 0 {
			return true
		}
		if name == "" || mayAlias(w.names[ev.Wd], name) {
			return true
		}
	}
	return len(b) != 0
}

// mayAlias: a lookup of one of the watched names could find the entry
// name. In a case-folding directory (ext4, f2fs, tmpfs with casefold)
// ".GIT" is the entry a walk of ".git" reads, and a normalising one may
// take a non-ASCII name for an ASCII one; so a name equal to a watched one
// under Unicode simple case folding, or not ASCII at all, counts as a
// change to the watched entry.
func mayAlias(watched map[string]bool, name string) bool {
	if watched[name] {
		return true
	}
	for i := 0; i < len(name); i++ {
		if name[i] >= utf8.RuneSelf {
			return true
		}
	}
	for n := range watched {
		if strings.EqualFold(n, name) {
			return true
		}
	}
	return false
}

func (w *placeWatch) invalidate() {
	w.reset()
	if w.changed != nil {
		w.changed()
	}
}

// build resolves places, watching every entry their walks read before the
// resolution that is kept (a change after the watch is in place is queued;
// one before it is in what is read).
func (w *placeWatch) build(key string, places []string) []string {
	out := make([]string, len(places))
	cacheable := make([]bool, len(places))
	for i, p := range places {
		entries, _, ok := walkPlace(p)
		if !ok {
			continue
		}
		cacheable[i] = w.watchAll(entries)
	}
	// Watches are in place: what is read from here on is either what the
	// entry holds or queued as a change.
	fs := newPlainCallFS()
	for i, p := range places {
		if !cacheable[i] {
			continue
		}
		entries, end, ok := walkPlace(p)
		if !ok || !w.watched(entries) {
			continue
		}
		if real := policy.ResolveReal(fs, p); real == end {
			out[i] = real
		}
	}
	fs.seal()
	w.entries[key] = out
	w.seq++
	w.built[key] = w.seq
	return out
}

type dirEntry struct{ dir, name string }

// watchAll watches the directory of each entry; false when one cannot be
// watched or lies on a file system not trusted to report every change.
func (w *placeWatch) watchAll(entries []dirEntry) bool {
	for _, e := range entries {
		wd, ok := w.wds[e.dir]
		if !ok {
			var st unix.Statfs_t
			if err := unix.Statfs(e.dir, &st); err != nil || !localFS(int64(st.Type)) {
				return false
			}
			n, err := unix.InotifyAddWatch(w.ifd, e.dir, watchMask)
			if err != nil {
				return false
			}
			wd = int32(n)
			w.wds[e.dir] = wd
			if w.names[wd] == nil {
				w.names[wd] = map[string]bool{}
			}
		}
		w.names[wd][e.name] = true
	}
	return true
}

func (w *placeWatch) watched(entries []dirEntry) bool {
	for _, e := range entries {
		wd, ok := w.wds[e.dir]
		if !ok || !w.names[wd][e.name] {
			return false
		}
	}
	return true
}

// localFS: file systems whose every change passes through this kernel's
// VFS (so inotify sees it).
func localFS(t int64) bool {
	switch t {
	case unix.EXT4_SUPER_MAGIC, unix.XFS_SUPER_MAGIC, unix.BTRFS_SUPER_MAGIC, unix.TMPFS_MAGIC, unix.RAMFS_MAGIC,
		unix.F2FS_SUPER_MAGIC, unix.BCACHEFS_SUPER_MAGIC, 0x2fc12fc1 /* zfs */ :
		return true
	}
	return false
}

// walkPlace walks abs (clean, absolute) as the kernel does, following
// every link (the last one too), and returns each directory entry it read
// and where the walk ends: the resolved path, or, from the first component
// that does not exist (or lies under a file), that component and the rest
// appended. ok is false for what the watch does not follow: a loop or a
// chain of more than 40 links, a link that cannot be read, another error,
// a dangling end reached through a link whose text holds "..".
func walkPlace(abs string) (entries []dirEntry, end string, ok bool) {
	cur := "/"
	todo := strings.Split(abs, "/")
	hops, dotdot := 0, false
	for len(todo) > 0 {
		c := todo[0]
		todo = todo[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			cur = path.Dir(cur)
			continue
		}
		entries = append(entries, dirEntry{cur, c})
		next := path.Join(cur, c)
		fi, err := os.Lstat(next)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) || dotdot {
				return entries, "", false
			}
			return entries, path.Join(append([]string{next}, todo...)...), true
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			cur = next
			continue
		}
		if hops++; hops > 40 {
			return entries, "", false
		}
		t, err := os.Readlink(next)
		if err != nil || t == "" {
			return entries, "", false
		}
		if strings.Contains("/"+t+"/", "/../") {
			dotdot = true
		}
		if path.IsAbs(t) {
			cur = "/"
		}
		todo = append(strings.Split(t, "/"), todo...)
	}
	return entries, cur, true
}
