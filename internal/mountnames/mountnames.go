package mountnames

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Mount is one line of /proc/self/mountinfo.
type Mount struct {
	ID    int
	Dev   string // major:minor
	Root  string // the mount's root inside its file system
	Point string // where it is mounted
}

// Table is the mounts of a namespace.
type Table []Mount

// Read parses /proc/self/mountinfo.
func Read() (Table, error) {
	if !supported {
		return nil, nil // no mountinfo here: Others answers that it cannot tell of other names
	}
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil, fmt.Errorf("mountnames: %w", err)
	}
	return Parse(b)
}

// Parse parses mountinfo text (proc(5)).
func Parse(b []byte) (Table, error) {
	var out Table
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 5 {
			return nil, fmt.Errorf("mountnames: mountinfo line %q has fewer than 5 fields", sc.Text())
		}
		id, err := strconv.Atoi(f[0])
		if err != nil {
			return nil, fmt.Errorf("mountnames: mountinfo line %q: mount id: %w", sc.Text(), err)
		}
		out = append(out, Mount{ID: id, Dev: f[2], Root: unescape(f[3]), Point: unescape(f[4])})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("mountnames: %w", err)
	}
	return out, nil
}

// unescape undoes mountinfo's octal escapes (\040 for a space).
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func within(p, root string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// holder is the mount holding the real path real: the one with statx's
// mount id, else the one with the longest mount point above it (the last
// listed wins a tie: it is mounted over the others).
func (t Table) holder(real string) (Mount, bool) {
	if id, ok := mountID(real); ok {
		for _, m := range t {
			if uint64(m.ID) == id {
				return m, true
			}
		}
	}
	best, found := Mount{}, false
	for _, m := range t {
		if within(real, m.Point) && (!found || len(m.Point) >= len(best.Point)) {
			best, found = m, true
		}
	}
	return best, found
}

// Others are the other paths of the file (or directory) at real, which
// must be an absolute path with no symbolic link in it: one per mount of
// its file system whose root holds it, real itself left out. ok is false
// when no mount holds real (the table is not this namespace's).
func (t Table) Others(real string) (names []string, ok bool) {
	if !supported {
		return nil, true // no mount table to read here (docs: Linux only)
	}
	real = filepath.Clean(real)
	h, ok := t.holder(real)
	if !ok {
		return nil, false
	}
	rel, err := filepath.Rel(h.Point, real)
	if err != nil {
		return nil, false
	}
	fsPath := filepath.Join(h.Root, rel)
	for _, m := range t {
		if m.Dev != h.Dev || !within(fsPath, m.Root) {
			continue
		}
		r, err := filepath.Rel(m.Root, fsPath)
		if err != nil {
			continue
		}
		if n := filepath.Join(m.Point, r); n != real && !contains(names, n) {
			names = append(names, n)
		}
	}
	return names, true
}

func contains(s []string, x string) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}
