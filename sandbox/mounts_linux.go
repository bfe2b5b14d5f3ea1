//go:build linux

package sandbox

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Before a placeholder is removed the kernel is asked whether a mount
// namespace other than the bridge's own still has a mount on it: removing
// the directory or file would lazily detach that mount, opening the place
// that sandbox holds. The manifests (liveUses) are only a first filter:
// they are files an agent that may write the temp directory can rewrite,
// and they are read only beside the ending sandbox's own private
// directory, so a bridge with another TMPDIR is not seen there. The
// kernel's mount tables are neither.

// procRoot is where the kernel's process table is read (a variable for
// the tests of the parser).
var procRoot = "/proc"

// foreignMounts is the set of mount points of every mount namespace other
// than this process's own, read from /proc/<pid>/mountinfo of one process
// per namespace (all of them when a namespace cannot be told). ok is false
// when in doubt (the process table cannot be read, or the mount table of
// a live process of this user cannot): the caller then removes nothing.
// A process of another user whose tables cannot be read is skipped: it is
// not one of this user's sandboxes.
func foreignMounts() (map[string]bool, bool) {
	own, err := os.Readlink(filepath.Join(procRoot, "self", "ns", "mnt"))
	if err != nil {
		return nil, false
	}
	entries, err := os.ReadDir(procRoot)
	if err != nil {
		return nil, false
	}
	uid := os.Geteuid()
	seen := map[string]bool{own: true}
	points := map[string]bool{}
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		dir := filepath.Join(procRoot, e.Name())
		var st unix.Stat_t
		if err := unix.Stat(dir, &st); err != nil {
			continue // gone
		}
		ours := int(st.Uid) == uid
		ns, err := os.Readlink(filepath.Join(dir, "ns", "mnt"))
		if err == nil {
			if seen[ns] {
				continue
			}
		} else if gone(err) {
			continue
		}
		// A namespace that cannot be named is read anyway: its table
		// may list the place.
		if err := readMountPoints(filepath.Join(dir, "mountinfo"), points); err != nil {
			if gone(err) || !ours || finished(dir) {
				continue
			}
			return nil, false
		}
		if ns != "" {
			seen[ns] = true
		}
	}
	return points, true
}

// gone: err says the process no longer exists.
func gone(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, unix.ESRCH)
}

// finished: the process at dir is a zombie with no thread left (its
// mount table is gone with its namespaces), or gone.
func finished(dir string) bool {
	data, err := os.ReadFile(filepath.Join(dir, "status"))
	if err != nil {
		return gone(err)
	}
	var state, threads string
	for _, line := range strings.Split(string(data), "\n") {
		k, v, _ := strings.Cut(line, ":")
		switch k {
		case "State":
			state = strings.TrimSpace(v)
		case "Threads":
			threads = strings.TrimSpace(v)
		}
	}
	return strings.HasPrefix(state, "Z") && threads == "1"
}

// readMountPoints adds the mount points of the mountinfo file at p to
// points.
func readMountPoints(p string, points map[string]bool) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	return parseMountPoints(f, points)
}

// parseMountPoints adds the mount point (the fifth field, its octal
// escapes decoded) of each line of a mountinfo table to points.
func parseMountPoints(r io.Reader, points map[string]bool) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		fields := bytes.Fields(sc.Bytes())
		if len(fields) < 5 {
			return fmt.Errorf("sandbox: mountinfo line %q: fewer than 5 fields", sc.Text())
		}
		mp, err := unescapeMount(string(fields[4]))
		if err != nil {
			return err
		}
		points[mp] = true
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("sandbox: mountinfo: %w", err)
	}
	return nil
}

// unescapeMount decodes the kernel's \ooo escapes of a mountinfo path
// (space, tab, newline and backslash are written so).
func unescapeMount(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		if i+4 > len(s) {
			return "", fmt.Errorf("sandbox: mountinfo path %q: short escape", s)
		}
		n, err := strconv.ParseUint(s[i+1:i+4], 8, 8)
		if err != nil {
			return "", fmt.Errorf("sandbox: mountinfo path %q: bad escape: %w", s, err)
		}
		b.WriteByte(byte(n))
		i += 3
	}
	return b.String(), nil
}
