package audit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"time"
)

// ErrCorrupt is wrapped by the error Read returns after skipping lines that
// are not complete records. Every good record was delivered before it.
var ErrCorrupt = errors.New("audit: corrupt lines skipped")

// CorruptError says how many lines Read skipped, and where the first were.
type CorruptError struct {
	Lines int      // lines skipped
	Where []string // "file:line" of the first few
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("audit: skipped %d corrupt line(s): %s", e.Lines, strings.Join(e.Where, ", "))
}

func (e *CorruptError) Unwrap() error { return ErrCorrupt }

// maxWhere bounds CorruptError.Where.
const maxWhere = 5

// maxLineBytes bounds one line; a longer one is skipped as corrupt. A
// variable so tests can lower it.
var maxLineBytes = 64 << 20

// Filter selects records; a zero field matches everything.
type Filter struct {
	Since    time.Time // records at or after this instant
	Agent    string    // exact agent id
	Decision string    // allow, ask, deny... (case-insensitive)
}

func (f Filter) match(r Record) bool {
	if !f.Since.IsZero() && r.Time.Before(f.Since) {
		return false
	}
	if f.Agent != "" && r.Agent != f.Agent {
		return false
	}
	if f.Decision != "" && !strings.EqualFold(r.Decision, f.Decision) {
		return false
	}
	return true
}

// Read calls fn for every record at path that f selects: the rotated
// generations oldest first (path.3, path.2, path.1), then path itself. It
// stops at fn's first error and returns it. A torn or corrupt line is
// skipped; when any was, Read returns a *CorruptError (wrapping ErrCorrupt)
// after the last record. When no generation exists at all, the error wraps
// fs.ErrNotExist.
func Read(path string, f Filter, fn func(Record) error) error {
	names := make([]string, 0, Generations+1)
	for i := Generations; i >= 1; i-- {
		names = append(names, generation(path, i))
	}
	names = append(names, path)

	corrupt := &CorruptError{}
	found := false
	for _, name := range names {
		file, err := os.Open(name)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("audit: open %s: %w", name, err)
		}
		found = true
		err = readFile(file, name, f, fn, corrupt)
		file.Close()
		if err != nil {
			return err
		}
	}
	if !found {
		return fmt.Errorf("audit: no log at %s: %w", path, fs.ErrNotExist)
	}
	if corrupt.Lines > 0 {
		return corrupt
	}
	return nil
}

func readFile(r io.Reader, name string, f Filter, fn func(Record) error, corrupt *CorruptError) error {
	br := bufio.NewReaderSize(r, 64<<10)
	for lineNo := 1; ; lineNo++ {
		line, complete, tooLong, err := readLine(br)
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("audit: read %s: %w", name, err)
		}
		if len(line) == 0 && !tooLong && errors.Is(err, io.EOF) {
			return nil
		}
		switch rec, ok := decode(line); {
		case tooLong || !complete || (!ok && len(bytes.TrimSpace(line)) > 0):
			corrupt.Lines++
			if len(corrupt.Where) < maxWhere {
				corrupt.Where = append(corrupt.Where, fmt.Sprintf("%s:%d", name, lineNo))
			}
		case ok && f.match(rec):
			if err := fn(rec); err != nil {
				return err
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
	}
}

// readLine reads one line without its newline. complete is false when the
// input ended before a newline (a torn last line); tooLong when the line
// passed maxLineBytes (it is consumed, not returned).
func readLine(br *bufio.Reader) (line []byte, complete, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > maxLineBytes+1 {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		switch {
		case err == nil:
			return bytes.TrimSuffix(line, []byte{'\n'}), true, tooLong, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			return line, false, tooLong, err
		}
	}
}

// decode reads one record; a line is a record only if it is a JSON object
// with a time.
func decode(line []byte) (Record, bool) {
	var r Record
	if len(bytes.TrimSpace(line)) == 0 || json.Unmarshal(line, &r) != nil || r.Time.IsZero() {
		return Record{}, false
	}
	return r, true
}
