package audit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// ErrNotOwned is wrapped by the error returned when a path names an existing
// file the bridge's writer does not own: a symlink, something that is not a
// regular file, or a regular file whose content is not what the writer
// writes. The bridge never appends to such a file (a shell rc file, a key
// file): the audit log, or the log, is then off.
var ErrNotOwned = errors.New("not a file this writer owns")

// NotOwnedError says which path was refused and why.
type NotOwnedError struct {
	Path   string
	Reason string
}

func (e *NotOwnedError) Error() string {
	return fmt.Sprintf("refusing to write %s: %s", e.Path, e.Reason)
}

func (e *NotOwnedError) Unwrap() error { return ErrNotOwned }

// sniffBytes is how much of an existing file is read to judge its content.
const sniffBytes = 64 << 10

// OpenOwned opens path for appending, creating it (0600, directories 0700)
// when it does not exist. An existing path is opened only if it is a
// regular file, not a symlink, and owned says its content is ours: owned
// gets the first complete lines (up to 64 KiB; a file that is not empty but
// holds no complete line gets its bytes). An empty file is accepted. The
// open does not follow a symlink put in place between the check and the
// open (O_NOFOLLOW), and the opened file is checked to be the one looked at.
func OpenOwned(path string, owned func(head []byte) (bool, string)) (*os.File, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create directory for %s: %w", path, err)
	}
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|os.O_EXCL|oNoFollow, 0o600)
		if errors.Is(err, fs.ErrExist) { // created meanwhile: judge it like any existing file
			return OpenOwned(path, owned)
		}
		if err != nil {
			return nil, fmt.Errorf("open %s: %w", path, err)
		}
		return f, nil
	case err != nil:
		return nil, fmt.Errorf("stat %s: %w", path, err)
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		target, _ := os.Readlink(path)
		return nil, &NotOwnedError{Path: path, Reason: fmt.Sprintf("it is a symlink (to %s); the bridge writes only a regular file it created", target)}
	}
	if !fi.Mode().IsRegular() {
		return nil, &NotOwnedError{Path: path, Reason: fmt.Sprintf("it is not a regular file (%s)", fi.Mode().Type())}
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|oNoFollow, 0)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	st, err := f.Stat()
	if err != nil || !os.SameFile(fi, st) || !st.Mode().IsRegular() {
		f.Close()
		return nil, &NotOwnedError{Path: path, Reason: "it changed while it was being opened"}
	}
	if st.Size() > 0 {
		head := make([]byte, min(st.Size(), sniffBytes))
		n, err := f.ReadAt(head, 0)
		if err != nil && !errors.Is(err, io.EOF) {
			f.Close()
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
		head = head[:n]
		if i := bytes.LastIndexByte(head, '\n'); i >= 0 {
			head = head[:i+1]
		}
		if ok, why := owned(head); !ok {
			f.Close()
			return nil, &NotOwnedError{Path: path, Reason: why}
		}
	}
	return f, nil
}

// looksLikeAuditLog tells whether head (the first lines of a file) is the
// audit writer's: its first line a complete Record with a time and a
// decision, and most of its lines records too (a crash may have torn one).
func looksLikeAuditLog(head []byte) (bool, string) {
	const why = "its content is not the bridge's audit log (JSON lines of decisions); the audit log must be a file of its own"
	lines := bytes.Split(head, []byte("\n"))
	good, bad, first := 0, 0, true
	for _, line := range lines {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		ok := isRecord(line)
		if first && !ok {
			return false, why
		}
		first = false
		if ok {
			good++
		} else {
			bad++
		}
	}
	if good == 0 || bad > good {
		return false, why
	}
	return true, ""
}

func isRecord(line []byte) bool {
	var r struct {
		Time     *time.Time `json:"time"`
		Decision *string    `json:"decision"`
		Agent    *string    `json:"agent"`
	}
	if line[0] != '{' || json.Unmarshal(line, &r) != nil {
		return false
	}
	return r.Time != nil && !r.Time.IsZero() && r.Decision != nil && r.Agent != nil
}
