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

// Read calls fn for every record at path that f selects: the decision,
// unasked, deny and person files (streams.go) merged by time, each read from its
// oldest generation (path.3, path.2, path.1, then path itself). It stops at
// fn's first error and returns it. A torn or corrupt line is skipped; when
// any was, Read returns a *CorruptError (wrapping ErrCorrupt) after the last
// record. When no file exists at all, the error wraps fs.ErrNotExist.
func Read(path string, f Filter, fn func(Record) error) error {
	corrupt := &CorruptError{}
	found := false
	var its []*fileIter
	for k := range nStreams {
		base := streamPath(path, streamKind(k))
		it := &fileIter{f: f, corrupt: corrupt}
		for i := Generations; i >= 1; i-- {
			it.names = append(it.names, generation(base, i))
		}
		it.names = append(it.names, base)
		its = append(its, it)
	}
	defer func() {
		for _, it := range its {
			it.close()
		}
	}()
	heads := make([]*Record, len(its))
	var copies dedup
	advance := func(i int) error {
		r, ok, err := its[i].next()
		if err != nil {
			return err
		}
		found = found || its[i].found
		heads[i] = nil
		if ok {
			heads[i] = &r
		}
		return nil
	}
	for i := range its {
		if err := advance(i); err != nil {
			return err
		}
	}
	for {
		best := -1
		for i, h := range heads {
			if h != nil && (best < 0 || h.Time.Before(heads[best].Time)) {
				best = i
			}
		}
		if best < 0 {
			break
		}
		// The decision file holds a copy of each deny and each person's
		// record (streams.go): the second of two identical lines is not
		// delivered again. Logs written before those files existed have
		// one copy.
		r := *heads[best]
		if k := streamKind(best); (!protected(k) && !protected(kindOf(r))) || !copies.seen(r) {
			if err := fn(r); err != nil {
				return err
			}
		}
		if err := advance(best); err != nil {
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

// dedup remembers the deny and person lines delivered once, to skip their copy.
type dedup struct {
	keys  map[string]bool
	order []string
}

// maxCopies bounds dedup's memory: a copy comes within that many denies
// and person's records of its original.
const maxCopies = 4096

// seen tells whether r's twin was delivered (and forgets it), else
// remembers r.
func (d *dedup) seen(r Record) bool {
	b, _ := json.Marshal(r)
	k := string(b)
	if d.keys[k] {
		delete(d.keys, k)
		return true
	}
	if d.keys == nil {
		d.keys = map[string]bool{}
	}
	d.keys[k] = true
	d.order = append(d.order, k)
	if len(d.order) > maxCopies {
		delete(d.keys, d.order[0])
		d.order = d.order[1:]
	}
	return false
}

// fileIter reads the records of one stream's files in order.
type fileIter struct {
	names   []string
	f       Filter
	corrupt *CorruptError
	found   bool

	file   *os.File
	br     *bufio.Reader
	name   string
	lineNo int
}

func (it *fileIter) close() {
	if it.file != nil {
		it.file.Close()
		it.file = nil
	}
}

// next returns the next record f selects; ok is false at the end.
func (it *fileIter) next() (Record, bool, error) {
	for {
		if it.file == nil {
			if len(it.names) == 0 {
				return Record{}, false, nil
			}
			name := it.names[0]
			it.names = it.names[1:]
			file, err := os.Open(name)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return Record{}, false, fmt.Errorf("audit: open %s: %w", name, err)
			}
			it.found = true
			it.file, it.name, it.lineNo = file, name, 0
			it.br = bufio.NewReaderSize(file, 64<<10)
		}
		it.lineNo++
		line, complete, tooLong, err := readLine(it.br)
		if err != nil && !errors.Is(err, io.EOF) {
			return Record{}, false, fmt.Errorf("audit: read %s: %w", it.name, err)
		}
		eof := errors.Is(err, io.EOF)
		if len(line) == 0 && !tooLong && eof {
			it.close()
			continue
		}
		rec, ok := decode(line)
		if eof {
			it.close()
		}
		switch {
		case tooLong || !complete || (!ok && len(bytes.TrimSpace(line)) > 0):
			it.corrupt.Lines++
			if len(it.corrupt.Where) < maxWhere {
				it.corrupt.Where = append(it.corrupt.Where, fmt.Sprintf("%s:%d", it.name, it.lineNo))
			}
		case ok && it.f.match(rec):
			return rec, true, nil
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
