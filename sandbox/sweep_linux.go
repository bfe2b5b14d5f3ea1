//go:build linux

package sandbox

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// lockPrivate makes dir's lock file and holds an exclusive flock on it
// until the returned file is closed or the process dies. The file appears
// under its name already locked (made under another name, locked, then
// renamed), so a Sweep never finds it free while its bridge lives.
func lockPrivate(dir string) (*os.File, error) {
	tmp := filepath.Join(dir, lockName+".new")
	f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL|unix.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, fmt.Errorf("sandbox: lock file: %w", err)
	}
	if err := flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		return nil, fmt.Errorf("sandbox: lock file: %w", err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, lockName)); err != nil {
		f.Close()
		return nil, fmt.Errorf("sandbox: lock file: %w", err)
	}
	return f, nil
}

func flock(fd, how int) error {
	for {
		err := unix.Flock(fd, how)
		if err != unix.EINTR {
			return err
		}
	}
}

// resolvedPlace is p with its parent directory resolved (no link on the
// way), as the manifest records it.
func resolvedPlace(p string) (string, error) {
	parent, err := filepath.EvalSymlinks(filepath.Dir(p))
	if err != nil {
		return "", fmt.Errorf("sandbox: mount point of the protected place %s: %w", p, err)
	}
	return filepath.Join(parent, filepath.Base(p)), nil
}

// removeUnused removes, last first, each placeholder of ps the sandbox of
// the private directory self made (not borrowed), that no other live
// sandbox records (liveUses) and on which no other mount namespace has a
// mount (foreignMounts: the kernel's word, whatever the manifests say),
// if still as made.
func removeUnused(ps []placeholder, self string) {
	uses := liveUses(self)
	if uses == nil {
		return
	}
	var held map[string]bool // foreignMounts, read at the first candidate
	for i := len(ps) - 1; i >= 0; i-- {
		if _, used := uses[ps[i].Path]; used || ps[i].Borrowed {
			continue
		}
		if held == nil && askKernel {
			var ok bool
			if held, ok = foreignMounts(); !ok {
				return // in doubt: keep everything
			}
		}
		if !held[ps[i].Path] {
			removePlaceholder(ps[i])
		}
	}
}

// askKernel: removeUnused asks foreignMounts (false only in the tests'
// controls, which show the damage without it).
var askKernel = true

// removePlaceholder removes p if it is still exactly as Prepare made it:
// an empty directory, or a regular file holding exactly its content. Its
// parent is opened with no symbolic link allowed anywhere on the way
// (openat2 RESOLVE_NO_SYMLINKS: the manifest records it resolved, so a
// link there now was swapped in since), and the last component is looked
// at and removed relative to that directory without following a link.
// It reports whether p was removed.
func removePlaceholder(p placeholder) bool {
	dfd, err := openNoLinks(filepath.Dir(p.Path), unix.O_RDONLY|unix.O_DIRECTORY)
	if err != nil {
		return false
	}
	defer unix.Close(dfd)
	name := filepath.Base(p.Path)
	var st unix.Stat_t
	if err := unix.Fstatat(dfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return false
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		// A directory that is not empty stays (ENOTEMPTY).
		return p.Dir && unix.Unlinkat(dfd, name, unix.AT_REMOVEDIR) == nil
	case unix.S_IFREG:
		if p.Dir || st.Size != int64(len(p.Content)) {
			return false
		}
		fd, err := unix.Openat(dfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
		if err != nil {
			return false
		}
		f := os.NewFile(uintptr(fd), p.Path)
		defer f.Close()
		var fst unix.Stat_t
		if unix.Fstat(fd, &fst) != nil || fst.Ino != st.Ino || fst.Dev != st.Dev {
			return false
		}
		data, err := io.ReadAll(io.LimitReader(f, int64(len(p.Content))+1))
		if err != nil || string(data) != p.Content {
			return false
		}
		return unix.Unlinkat(dfd, name, 0) == nil
	}
	return false // a link, a socket, a fifo: not what Prepare made
}

// openNoLinks opens the absolute path p refusing every symbolic link on
// the way, the last component included.
func openNoLinks(p string, flags int) (int, error) {
	how := unix.OpenHow{Flags: uint64(flags | unix.O_CLOEXEC), Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS}
	for {
		fd, err := unix.Openat2(unix.AT_FDCWD, p, &how)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// Sweep removes what bridges that died without cleaning up left in the
// system's temp directory (os.TempDir): every private directory of this
// user whose lock is free, after removing each placeholder its manifest
// records that is still exactly as made. A directory whose lock is held
// (a live bridge's) and one without a lock file (made by a bridge of a
// version before the lock) are left alone. It returns how many directories
// it removed. Call it before computing any sandbox (bridge start): a
// placeholder removed between Compute and Prepare would leave a place the
// Spec counted as existing unheld.
// The private homes (home.go) are swept the same way, in their root.
func Sweep() int {
	return sweepIn(os.TempDir()) + sweepIn(HomesRoot())
}

// ownPrivateDir: p is a directory (not a link) of this user with no
// access for others.
func ownPrivateDir(p string) error {
	var st unix.Stat_t
	if err := unix.Lstat(p, &st); err != nil {
		return err
	}
	switch {
	case st.Mode&unix.S_IFMT != unix.S_IFDIR:
		return fmt.Errorf("not a directory")
	case int(st.Uid) != os.Geteuid():
		return fmt.Errorf("owned by uid %d, not this user", st.Uid)
	case st.Mode&0o077 != 0:
		return fmt.Errorf("mode %#o: open to others", st.Mode&0o777)
	}
	return nil
}

func sweepIn(parent string) int {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), privatePrefix) || !e.IsDir() {
			continue // e.IsDir is false for a link
		}
		if sweepOne(filepath.Join(parent, e.Name())) {
			n++
		}
	}
	return n
}

// sweepOne removes the private directory dir if its owner is gone.
func sweepOne(dir string) bool {
	dfd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer unix.Close(dfd)
	var st unix.Stat_t
	// Only this user's own private directories, as MkdirTemp makes them
	// (no access for others): another user's is not ours to judge.
	if unix.Fstat(dfd, &st) != nil || int(st.Uid) != os.Geteuid() || st.Mode&0o077 != 0 {
		return false
	}
	lfd, err := unix.Openat(dfd, lockName, unix.O_RDWR|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return false // no lock file: the old format, or not ours
	}
	defer unix.Close(lfd) // releases the lock taken below
	var lst unix.Stat_t
	if unix.Fstat(lfd, &lst) != nil || lst.Mode&unix.S_IFMT != unix.S_IFREG || int(lst.Uid) != os.Geteuid() {
		return false
	}
	if err := flock(lfd, unix.LOCK_EX|unix.LOCK_NB); err != nil {
		return false // a live bridge's (or another sweep's, now)
	}
	if ps, err := readManifest(dfd); err == nil {
		removeUnused(ps, dir)
	}
	return os.RemoveAll(dir) == nil
}

// liveUses are the places live sandboxes other than the one whose private
// directory is self record in their manifests: path -> whether one of
// them made (or adopted) it, false when they only borrow it. A live
// sandbox's mount is on each place it records: removing one on the host
// would make the kernel detach that mount in the other sandbox's mount
// namespace (mounts on a removed directory or file are lazily unmounted),
// leaving open the place it holds. Directories whose lock is free, and
// ones of the old format, do not count. nil when the temp directory
// cannot be read (the callers then keep everything).
func liveUses(self string) map[string]bool {
	parent := filepath.Dir(self)
	uses := map[string]bool{}
	err := eachPrefixed(parent, privatePrefix, func(name string, k entryKind) {
		dir := filepath.Join(parent, name)
		if k != kindDir || dir == self {
			return
		}
		for _, q := range liveManifest(dir) {
			uses[q.Path] = uses[q.Path] || !q.Borrowed
		}
	})
	if err != nil {
		return nil // unreadable: in doubt, the callers keep everything
	}
	return uses
}

// liveManifest is the manifest (as written: used only to keep things) of
// the private directory dir of this user if its lock is held; nil if not.
func liveManifest(dir string) []placeholder {
	dfd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	defer unix.Close(dfd)
	var st unix.Stat_t
	if unix.Fstat(dfd, &st) != nil || int(st.Uid) != os.Geteuid() {
		return nil
	}
	lfd, err := unix.Openat(dfd, lockName, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	defer unix.Close(lfd) // releases the shared lock if it was free
	if flock(lfd, unix.LOCK_SH|unix.LOCK_NB) != unix.EWOULDBLOCK {
		return nil // free: its owner is gone
	}
	data, err := readManifestData(dfd)
	if err != nil {
		return nil
	}
	var m manifest
	if json.Unmarshal(data, &m) != nil {
		return nil
	}
	return m.Placeholders
}

// readManifest reads the manifest of the private directory open at dfd.
func readManifest(dfd int) ([]placeholder, error) {
	data, err := readManifestData(dfd)
	if err != nil {
		return nil, err
	}
	return parseManifest(data)
}

// readManifestData reads the manifest file of the private directory open
// at dfd (no link followed, a regular file, bounded).
func readManifestData(dfd int) ([]byte, error) {
	fd, err := unix.Openat(dfd, manifestName, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), manifestName)
	defer f.Close()
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil, fmt.Errorf("sandbox: %s is not a regular file", manifestName)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxManifest+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxManifest {
		return nil, fmt.Errorf("sandbox: %s is larger than %d bytes", manifestName, maxManifest)
	}
	return data, nil
}

// usableDir: p is a directory (a link to one counts, as /tmp may be) this
// user may create entries in.
func usableDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir() && unix.Access(p, unix.W_OK|unix.X_OK) == nil
}
