package sandbox

// ipcScanner walks the trees of ipcScan for Unix sockets, once per agent
// start. It is on every start's path and /tmp is often crowded (tens of
// thousands of entries), so it keeps no per-entry allocation: the current
// path is one reused byte slice and each directory is read into a buffer
// kept per depth (readDir, getdents(2) on Linux). Only sockets and the
// directories it descends into become strings.
type ipcScanner struct {
	path     []byte
	bufs     [][]byte
	n, max   int
	stopped  bool
	depth    int // how deep below a root it descends (ipcDepth)
	skipDir  func(p []byte, name []byte) bool
	onSocket func(p string)
}

// entryKind is what a directory entry is, as far as the scan cares.
type entryKind uint8

const (
	kindOther entryKind = iota
	kindDir
	kindSocket
	kindLink
)

// eachPrefixed calls visit with every entry of dir whose name starts with
// prefix, and its kind. Only those names become strings: /tmp, where the
// bridge's private directories and state live, may hold thousands of
// entries, and it is read at every agent start. The error is that of
// opening dir.
func eachPrefixed(dir, prefix string, visit func(name string, k entryKind)) error {
	var buf [8 << 10]byte
	p := []byte(dir)
	_, err := readDir(&p, buf[:], func(name []byte, k entryKind) bool {
		if hasPrefixBytes(name, prefix) {
			visit(string(name), k)
		}
		return true
	})
	return err
}

// scan walks root (an absolute, resolved directory). It returns false once
// the entry budget is spent.
func (s *ipcScanner) scan(root string) bool {
	s.path = append(s.path[:0], root...)
	s.n++
	if s.n > s.max {
		s.stopped = true
		return false
	}
	return s.dir(0)
}

// dir reads the directory at s.path (depth levels below its root); called
// by readDir for each entry with the entry's name and kind.
func (s *ipcScanner) dir(level int) bool {
	for len(s.bufs) <= level {
		s.bufs = append(s.bufs, make([]byte, 16<<10))
	}
	ok, _ := readDir(&s.path, s.bufs[level], func(name []byte, k entryKind) bool {
		s.n++
		if s.n > s.max {
			s.stopped = true
			return false
		}
		if k != kindDir && k != kindSocket {
			return true
		}
		mark := len(s.path)
		if mark > 0 && s.path[mark-1] != '/' {
			s.path = append(s.path, '/')
		}
		s.path = append(s.path, name...)
		ok := true
		switch k {
		case kindSocket:
			s.onSocket(string(s.path))
		case kindDir:
			if level+1 < s.depth && !s.skipDir(s.path, name) {
				ok = s.dir(level + 1)
			}
		}
		s.path = s.path[:mark]
		return ok
	})
	return ok // a directory that cannot be read has nothing to find
}

// underAnyBytes is underAny for a path held in a byte slice.
func underAnyBytes(p []byte, roots []string) bool {
	for _, r := range roots {
		if r == "/" || (len(p) >= len(r) && string(p[:len(r)]) == r && (len(p) == len(r) || p[len(r)] == '/')) {
			return true
		}
	}
	return false
}
