package agents

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"strings"
	"sync"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

const (
	// maxStderrLine bounds one logged stderr line; longer lines are split.
	maxStderrLine = 64 << 10
	// stderrTailLines is how many stderr lines ExitError keeps.
	stderrTailLines = 20
	// tailLineBytes bounds each line kept in the tail.
	tailLineBytes = 1 << 10
	// stderrReadBuf is the stderr reader's buffer; longer lines are
	// gathered up to maxStderrLine.
	stderrReadBuf = 4 << 10
)

// readStderr is the stderr goroutine: every line goes to the logger and the
// tail ring. It returns at EOF or when the waiter closes the pipe.
func (p *Process) readStderr() {
	defer close(p.stderrDone)
	err := readLines(p.stderr, maxStderrLine, func(line []byte) {
		s := string(line)
		p.tail.add(s)
		if ce := p.log.Check(lineLevel(line), s); ce != nil {
			ce.Write()
		}
	})
	if !errors.Is(err, io.EOF) && !isClosed(err) { // readLines always ends with an error
		p.log.Debug("read agent stderr", zap.Error(err))
	}
}

// readLines calls emit for each non-empty line of r, without its line ending
// and with ANSI escape sequences removed. A line longer than max bytes is
// emitted in pieces of max bytes. emit must not keep line. It returns the
// error that ended reading (io.EOF at the end of input).
//
// It reads through a small buffer (stderrReadBuf) and gathers a longer line
// as it comes: an agent that logs short lines costs a few KiB, not max
// (20 agents with a 64 KiB reader each held 1.3 MiB of heap doing nothing).
func readLines(r io.Reader, max int, emit func(line []byte)) error {
	br := bufio.NewReaderSize(r, min(max, stderrReadBuf))
	var line, buf []byte
	out := func(b []byte) {
		buf = stripANSI(buf[:0], bytes.TrimRight(b, "\r\n"))
		if len(bytes.TrimSpace(buf)) > 0 {
			emit(buf)
		}
	}
	for {
		chunk, err := br.ReadSlice('\n')
		line = append(line, chunk...)
		// Pieces of max bytes, not counting the line's own ending.
		for len(line) > max || len(line) == max && line[max-1] != '\n' {
			out(line[:max])
			line = append(line[:0], line[max:]...)
		}
		ended := len(line) > 0 && line[len(line)-1] == '\n'
		if ended || err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			if len(line) > 0 {
				out(line)
			}
			line = line[:0]
			if cap(line) > 2*stderrReadBuf {
				line, buf = nil, nil // a long line's room is not kept
			}
		}
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return err
		}
	}
}

// stripANSI appends src to dst without terminal escape sequences: CSI
// (colours, cursor moves), OSC (titles, hyperlinks) and nF/Fp sequences
// such as charset selection.
func stripANSI(dst, src []byte) []byte {
	for i := 0; i < len(src); i++ {
		if src[i] != 0x1b {
			dst = append(dst, src[i])
			continue
		}
		i++
		if i >= len(src) {
			break
		}
		switch src[i] {
		case '[': // CSI: parameter and intermediate bytes, then a final byte in 0x40..0x7e
			i++
			for i < len(src) && (src[i] < 0x40 || src[i] > 0x7e) {
				i++
			}
		case ']': // OSC: up to BEL or ST (ESC \)
			i++
			for i < len(src) && src[i] != 0x07 && !(src[i] == 0x1b && i+1 < len(src) && src[i+1] == '\\') {
				i++
			}
			if i < len(src) && src[i] == 0x1b {
				i++
			}
		default: // intermediate bytes 0x20..0x2f, then one final byte
			for i < len(src) && src[i] >= 0x20 && src[i] <= 0x2f {
				i++
			}
		}
	}
	return dst
}

// errorWords mark a stderr line as looking like an error or a warning.
var errorWords = [][]byte{
	[]byte("error"), []byte("panic"), []byte("fatal"), []byte("exception"),
	[]byte("traceback"), []byte("uncaught"), []byte("failed"), []byte("warn"),
}

// lineLevel is Warn for lines that look like errors, else Info. Only the
// first 256 bytes are looked at.
func lineLevel(line []byte) zapcore.Level {
	head := line[:min(len(line), 256)]
	lower := bytes.ToLower(head)
	for _, w := range errorWords {
		if bytes.Contains(lower, w) {
			return zapcore.WarnLevel
		}
	}
	return zapcore.InfoLevel
}

func isClosed(err error) bool {
	return errors.Is(err, os.ErrClosed)
}

// lineRing keeps the last n lines added, each cut to tailLineBytes.
type lineRing struct {
	mu   sync.Mutex
	buf  []string // guarded by mu
	next int      // guarded by mu: where the next line goes once buf is full
}

func newLineRing(n int) *lineRing { return &lineRing{buf: make([]string, 0, n)} }

func (r *lineRing) add(s string) {
	if len(s) > tailLineBytes {
		s = strings.ToValidUTF8(s[:tailLineBytes], "") + "…"
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.buf) < cap(r.buf) {
		r.buf = append(r.buf, s)
		return
	}
	r.buf[r.next] = s
	r.next = (r.next + 1) % len(r.buf)
}

// lines returns the kept lines, oldest first.
func (r *lineRing) lines() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, 0, len(r.buf))
	out = append(out, r.buf[r.next:]...)
	return append(out, r.buf[:r.next]...)
}
