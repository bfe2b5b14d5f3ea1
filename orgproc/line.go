package orgproc

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// LongLineError is a line over MaxLine: ReadLine has read past it (the
// stream goes on with the next line). ID and Method are the message's,
// when its beginning says them (both sides write "id" then "method"
// first), so that a request can be answered with an error.
type LongLineError struct {
	Bytes  int
	ID     uint64
	Method string
}

func (e *LongLineError) Error() string {
	s := fmt.Sprintf("a line of %d bytes or more, over the bound of %d", e.Bytes, MaxLine)
	if e.Method != "" {
		s += " (" + e.Method + ")"
	}
	return s + ": not read"
}

// ReadLine reads one line of at most MaxLine bytes. A longer line is
// consumed to its end and reported as a *LongLineError; any other error
// is the stream's.
func ReadLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, isPrefix, err := br.ReadLine()
		if err != nil {
			return nil, err
		}
		line = append(line, chunk...)
		if len(line) > MaxLine {
			return nil, skipLong(br, line, isPrefix)
		}
		if !isPrefix {
			return line, nil
		}
	}
}

// skipLong reads the rest of an over-long line (head is its beginning).
func skipLong(br *bufio.Reader, head []byte, more bool) error {
	e := &LongLineError{Bytes: len(head)}
	e.ID, e.Method = idOf(head)
	for more {
		chunk, isPrefix, err := br.ReadLine()
		if err != nil {
			return fmt.Errorf("%w (then: %w)", e, err)
		}
		e.Bytes += len(chunk)
		more = isPrefix
	}
	return e
}

// idOf reads a message's leading "id" and "method", if it starts with them.
func idOf(head []byte) (id uint64, method string) {
	dec := json.NewDecoder(strings.NewReader(string(head[:min(len(head), 4096)])))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return 0, ""
	}
	for range 2 {
		k, err := dec.Token()
		if err != nil {
			return id, method
		}
		switch k {
		case "id":
			if dec.Decode(&id) != nil {
				return 0, method
			}
		case "method":
			if dec.Decode(&method) != nil {
				return id, ""
			}
		default:
			return id, method
		}
	}
	return id, method
}

// isLong says whether err is an over-long line (the stream goes on).
func isLong(err error) bool {
	var e *LongLineError
	return errors.As(err, &e)
}
