package safefs

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// ErrChanged is wrapped by the error of an act whose path no longer is what
// the decision resolved: a symbolic link appeared on the way.
var ErrChanged = errors.New("the path changed between the decision and the act")

// ErrSpecial is wrapped by the error for a path under /proc, /dev or /sys.
var ErrSpecial = errors.New("the file service does not serve /proc, /dev or /sys")

// ErrTooLarge is wrapped by the error of a read that would need more than
// MaxRead bytes.
var ErrTooLarge = errors.New("the file is too large for the file service")

// MaxRead bounds what one read reads from disk: 16 MiB.
const MaxRead = 16 << 20

// maxHops bounds the links Resolve follows, as the kernel's ELOOP does.
const maxHops = 40

var specialRoots = []string{"/proc", "/dev", "/sys"}

// Special reports whether the absolute path p is under /proc, /dev or /sys.
func Special(p string) bool {
	p = filepath.Clean(p)
	for _, r := range specialRoots {
		if p == r || strings.HasPrefix(p, r+"/") {
			return true
		}
	}
	return false
}

// Resolve returns the path the absolute path p leads to now, with every
// symbolic link on the way followed (relative targets against the link's
// directory, ".." after a link against where the link led, as the kernel
// opens it). A part that does not exist yet (a file about to be written, or
// the target of a dangling link) is appended as named. The result is clean
// and holds no link at the time of the call. A path under /proc, /dev or
// /sys, as named or as resolved, is refused (ErrSpecial).
func Resolve(p string) (string, error) {
	if !filepath.IsAbs(p) {
		return "", fmt.Errorf("%s: an absolute path is required", p)
	}
	if strings.IndexByte(p, 0) >= 0 {
		return "", fmt.Errorf("%q: the path holds a NUL byte", p)
	}
	if Special(p) {
		return "", fmt.Errorf("%s: %w", p, ErrSpecial)
	}
	todo := strings.Split(p, "/")
	cur := "/"
	hops := 0
	missing := false // a component did not exist: the rest is appended as named
	for len(todo) > 0 {
		c := todo[0]
		todo = todo[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, c)
		if Special(next) {
			// a link on the way into /proc (/proc/self/root): resolved in
			// the bridge's process, not the agent's.
			return "", fmt.Errorf("%s passes through %s: %w", p, next, ErrSpecial)
		}
		if missing {
			cur = next
			continue
		}
		fi, err := os.Lstat(next)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				missing = true
				cur = next
				continue
			}
			return "", fmt.Errorf("resolve %s: %w", p, err)
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		if hops++; hops > maxHops {
			return "", fmt.Errorf("resolve %s: too many symbolic links: %w", p, syscall.ELOOP)
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", fmt.Errorf("resolve %s: %w", p, err)
		}
		if filepath.IsAbs(target) {
			cur = "/"
		}
		todo = append(strings.Split(target, "/"), todo...)
	}
	if Special(cur) {
		return "", fmt.Errorf("%s leads to %s: %w", p, cur, ErrSpecial)
	}
	return cur, nil
}

// check refuses what no act may take: a relative, unclean or special path.
func check(p string) error {
	switch {
	case !filepath.IsAbs(p) || filepath.Clean(p) != p:
		return fmt.Errorf("%s: a resolved (absolute, clean) path is required", p)
	case strings.IndexByte(p, 0) >= 0:
		return fmt.Errorf("%q: the path holds a NUL byte", p)
	case Special(p):
		return fmt.Errorf("%s: %w", p, ErrSpecial)
	}
	return nil
}

// changed makes the error of an open that met a link.
func changed(p, act string, err error) error {
	if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.EXDEV) {
		return fmt.Errorf("%s changed between the decision and the %s: refused (a symbolic link is now on the way): %w", p, act, ErrChanged)
	}
	return fmt.Errorf("%s %s: %w", act, p, err)
}

// ReadFile reads the resolved path p (from Resolve) without following any
// link: a link on the way is ErrChanged. line (1-based) and limit select
// lines as ACP's fs/read_text_file defines them (0 for absent): the text is
// split at "\n" and the selected lines joined with "\n". More than MaxRead
// bytes to read is ErrTooLarge. Only regular files are read.
func ReadFile(p string, line, limit int) (string, error) {
	if err := check(p); err != nil {
		return "", err
	}
	if line < 0 || limit < 0 {
		return "", fmt.Errorf("read %s: line and limit must not be negative (got %d, %d)", p, line, limit)
	}
	fd, err := openPath(p, unix.O_RDONLY|unix.O_NOCTTY|unix.O_NONBLOCK, 0)
	if err != nil {
		return "", changed(p, "read", err)
	}
	f := os.NewFile(uintptr(fd), p)
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("read %s: %w", p, err)
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("read %s: not a regular file (%s): refused", p, fi.Mode().Type())
	}
	return readLines(f, p, line, limit, MaxRead)
}

// readLines reads r as ReadFile describes, reading at most max bytes.
func readLines(r io.Reader, p string, line, limit int, max int64) (string, error) {
	tooLarge := func() error {
		return fmt.Errorf("read %s: more than %d bytes would have to be read (read it in parts with line and limit): %w", p, max, ErrTooLarge)
	}
	lr := io.LimitReader(r, max+1)
	if line == 0 && limit == 0 {
		data, err := io.ReadAll(lr)
		if err != nil {
			return "", fmt.Errorf("read %s: %w", p, err)
		}
		if int64(len(data)) > max {
			return "", tooLarge()
		}
		return string(data), nil
	}
	start := max0(line - 1)
	br := bufio.NewReader(lr)
	var out strings.Builder
	var read int64
	for idx := 0; ; idx++ {
		s, err := br.ReadString('\n')
		read += int64(len(s))
		if read > max {
			return "", tooLarge()
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return "", fmt.Errorf("read %s: %w", p, err)
		}
		if idx >= start {
			if idx > start {
				out.WriteByte('\n')
			}
			out.WriteString(strings.TrimSuffix(s, "\n"))
		}
		if err != nil || (limit > 0 && idx+1 >= start+limit) {
			return out.String(), nil
		}
	}
}

func max0(n int) int {
	if n < 0 {
		return 0
	}
	return n
}

// WriteFile replaces the resolved path p (from Resolve) with content. The
// parent directory is opened without following any link (ErrChanged if one
// is on the way; missing directories are created, each opened the same
// way); the content goes to a new file in that directory, relative to its
// descriptor, which then replaces p by rename: p itself, if it is a link by
// now, is refused (ErrChanged), and a hard link elsewhere keeps its content.
// An existing file keeps its permission bits; a new one gets 0666 less the
// umask.
func WriteFile(p string, content []byte) error {
	if err := check(p); err != nil {
		return err
	}
	if p == "/" {
		return errors.New("write /: not a file")
	}
	dir, base := filepath.Split(p)
	dir = filepath.Clean(dir)
	dfd, err := openDirCreating(dir, p)
	if err != nil {
		return err
	}
	defer unix.Close(dfd)
	var perm uint32
	keep := false
	var st unix.Stat_t
	switch err := unix.Fstatat(dfd, base, &st, unix.AT_SYMLINK_NOFOLLOW); {
	case err == nil:
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFREG:
			perm, keep = uint32(st.Mode)&0o777, true
		case unix.S_IFLNK:
			return fmt.Errorf("%s changed between the decision and the write: refused (it is now a symbolic link): %w", p, ErrChanged)
		case unix.S_IFDIR:
			return fmt.Errorf("write %s: it is a directory", p)
		default:
			return fmt.Errorf("write %s: not a regular file: refused", p)
		}
	case errors.Is(err, unix.ENOENT):
	default:
		return fmt.Errorf("write %s: %w", p, err)
	}
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	tmp := "." + base + ".acp-bridge-" + hex.EncodeToString(rnd[:]) + ".tmp"
	if len(tmp) > 255 {
		tmp = ".acp-bridge-" + hex.EncodeToString(rnd[:]) + ".tmp"
	}
	tfd, err := openAt(dfd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL, 0o666)
	if err != nil {
		return changed(p, "write", err)
	}
	f := os.NewFile(uintptr(tfd), filepath.Join(dir, tmp))
	fail := func(err error) error {
		f.Close()
		_ = unix.Unlinkat(dfd, tmp, 0)
		return fmt.Errorf("write %s: %w", p, err)
	}
	if keep {
		if err := unix.Fchmod(tfd, perm); err != nil {
			return fail(err)
		}
		_ = unix.Fchown(tfd, int(st.Uid), int(st.Gid)) // only root can give it away; best effort
	}
	if _, err := f.Write(content); err != nil {
		return fail(err)
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		_ = unix.Unlinkat(dfd, tmp, 0)
		return fmt.Errorf("write %s: %w", p, err)
	}
	// renameat replaces the name, never what a link there would lead to.
	if err := unix.Renameat(dfd, tmp, dfd, base); err != nil {
		_ = unix.Unlinkat(dfd, tmp, 0)
		return fmt.Errorf("write %s: %w", p, err)
	}
	return nil
}

// openDirCreating opens dir without following links, creating the missing
// directories at its end (each created relative to its parent's descriptor
// and opened the same way).
func openDirCreating(dir, p string) (int, error) {
	const dflags = unix.O_RDONLY | unix.O_DIRECTORY
	fd, err := openPath(dir, dflags, 0)
	if err == nil {
		return fd, nil
	}
	if !errors.Is(err, unix.ENOENT) {
		return -1, changed(p, "write", err)
	}
	// climb to the deepest directory that exists, then create down.
	var missing []string
	top := dir
	for {
		parent, name := filepath.Split(top)
		parent = filepath.Clean(parent)
		missing = append([]string{name}, missing...)
		fd, err = openPath(parent, dflags, 0)
		if err == nil {
			break
		}
		if !errors.Is(err, unix.ENOENT) || parent == "/" {
			return -1, changed(p, "write", err)
		}
		top = parent
	}
	for _, name := range missing {
		if err := unix.Mkdirat(fd, name, 0o777); err != nil && !errors.Is(err, unix.EEXIST) {
			unix.Close(fd)
			return -1, fmt.Errorf("write %s: create directory %s: %w", p, name, err)
		}
		next, err := openAt(fd, name, dflags, 0)
		unix.Close(fd)
		if err != nil {
			return -1, changed(p, "write", err)
		}
		fd = next
	}
	return fd, nil
}
