package agents

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

func TestReadLines(t *testing.T) {
	tests := []struct {
		name string
		in   string
		max  int
		want []string
	}{
		{"plain", "a\nb\n", 16, []string{"a", "b"}},
		{"crlf and no final newline", "a\r\nb", 16, []string{"a", "b"}},
		{"blank lines skipped", "\n  \n\t\nx\n", 16, []string{"x"}},
		{"long line split", "0123456789abcdefXYZ\nz\n", 16, []string{"0123456789abcdef", "XYZ", "z"}},
		{"exactly max then newline", "0123456789abcdef\nz\n", 16, []string{"0123456789abcdef", "z"}},
		{"ansi removed", "\x1b[1;31mred\x1b[0m \x1b(Bok\n", 32, []string{"red ok"}},
		{"only escapes", "\x1b[2K\x1b[1G\n", 32, nil},
		{"invalid utf8 kept", "a\xffb\n", 16, []string{"a\xffb"}},
		// max past the 4 KiB read buffer: a long line is gathered, then cut at max
		{"long line gathered", strings.Repeat("x", 10000) + "\nz\n", 6000, []string{strings.Repeat("x", 6000), strings.Repeat("x", 4000), "z"}},
		{"exactly max past the buffer", strings.Repeat("y", 6000) + "\r\nz", 6000, []string{strings.Repeat("y", 6000), "z"}},
		{"two pieces and a rest", strings.Repeat("q", 12001) + "\n", 6000, []string{strings.Repeat("q", 6000), strings.Repeat("q", 6000), "q"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, r := range []io.Reader{strings.NewReader(tt.in), iotest.OneByteReader(strings.NewReader(tt.in))} {
				var got []string
				err := readLines(r, tt.max, func(b []byte) { got = append(got, string(b)) })
				if err != io.EOF {
					t.Errorf("err = %v, want io.EOF", err)
				}
				if !slices.Equal(got, tt.want) {
					t.Errorf("lines = %q, want %q", got, tt.want)
				}
			}
		})
	}
}

// readLinesRef is readLines as it was, reading through a buffer of max
// bytes: the reference the small-buffer reader must agree with.
func readLinesRef(r io.Reader, max int, emit func(line []byte)) error {
	br := bufio.NewReaderSize(r, max)
	for {
		chunk, err := br.ReadSlice('\n')
		if len(chunk) > 0 {
			if line := stripANSI(nil, bytes.TrimRight(chunk, "\r\n")); len(bytes.TrimSpace(line)) > 0 {
				emit(line)
			}
		}
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return err
		}
	}
}

// Property: on random input (lines short and long, CR, blank lines,
// escapes, no final newline) and random bounds on both sides of the read
// buffer, readLines emits what the whole-buffer reader emits.
func TestReadLinesAgreesWithWholeBuffer(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	pieces := []string{"a", "é", " ", "\r", "\n", "\n", "\x1b[31m", "\x1b]0;t\x07", "\t"}
	for i := range 400 {
		var in strings.Builder
		for range rng.IntN(40) {
			switch rng.IntN(5) {
			case 0:
				in.WriteString(strings.Repeat("x", rng.IntN(3*stderrReadBuf)))
			default:
				in.WriteString(pieces[rng.IntN(len(pieces))])
			}
		}
		max := 16 + rng.IntN(2*stderrReadBuf)
		var got, want []string
		if err := readLines(strings.NewReader(in.String()), max, func(b []byte) { got = append(got, string(b)) }); err != io.EOF {
			t.Fatalf("case %d: err %v", i, err)
		}
		_ = readLinesRef(strings.NewReader(in.String()), max, func(b []byte) { want = append(want, string(b)) })
		if !slices.Equal(got, want) {
			t.Fatalf("case %d (max %d, %d bytes): %d lines, the whole-buffer reader %d", i, max, in.Len(), len(got), len(want))
		}
	}
}

func TestStripANSI(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", "plain"},
		{"\x1b[31mred\x1b[39m", "red"},
		{"\x1b[38;5;196mx", "x"},
		{"a\x1b[?25lb", "ab"},
		{"trailing esc\x1b", "trailing esc"},
		{"unterminated \x1b[12", "unterminated "},
		{"\x1b7saved\x1b8", "saved"},
		{"\x1b(Bcharset", "charset"},
		{"\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", "link"},
		{"\x1b]0;title\x07after", "after"},
		{"unterminated osc \x1b]0;tit", "unterminated osc "},
	}
	for _, tt := range tests {
		if got := string(stripANSI(nil, []byte(tt.in))); got != tt.want {
			t.Errorf("stripANSI(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestLineLevel(t *testing.T) {
	tests := []struct {
		line string
		want zapcore.Level
	}{
		{"listening on stdio", zapcore.InfoLevel},
		{"Error: ENOENT", zapcore.WarnLevel},
		{"[ERROR] auth failed", zapcore.WarnLevel},
		{"panic: runtime error", zapcore.WarnLevel},
		{"Traceback (most recent call last):", zapcore.WarnLevel},
		{"UnhandledPromiseRejection: Uncaught exception", zapcore.WarnLevel},
		{"npm WARN deprecated", zapcore.WarnLevel},
		{"request failed with 500", zapcore.WarnLevel},
		{strings.Repeat("a", 300) + " error", zapcore.InfoLevel}, // beyond the inspected head
	}
	for _, tt := range tests {
		if got := lineLevel([]byte(tt.line)); got != tt.want {
			t.Errorf("lineLevel(%.40q) = %v, want %v", tt.line, got, tt.want)
		}
	}
}

func TestLineRing(t *testing.T) {
	tests := []struct {
		add  int
		want []string
	}{
		{0, []string{}},
		{2, []string{"l1", "l2"}},
		{3, []string{"l1", "l2", "l3"}},
		{4, []string{"l2", "l3", "l4"}},
		{8, []string{"l6", "l7", "l8"}},
	}
	for _, tt := range tests {
		r := newLineRing(3)
		for i := 1; i <= tt.add; i++ {
			r.add(fmt.Sprintf("l%d", i))
		}
		if got := r.lines(); !slices.Equal(got, tt.want) {
			t.Errorf("after %d adds: %q, want %q", tt.add, got, tt.want)
		}
	}
	r := newLineRing(1)
	r.add(strings.Repeat("é", tailLineBytes)) // 2 bytes a rune: cut mid-rune
	got := r.lines()[0]
	if !strings.HasSuffix(got, "…") || len(got) > tailLineBytes+len("…") || !strings.HasPrefix(got, "éé") {
		t.Errorf("long line kept as %d bytes %.20q...", len(got), got)
	}
	if strings.ToValidUTF8(got, "?") != got {
		t.Errorf("truncated tail line is not valid UTF-8")
	}
}

func TestMergeEnv(t *testing.T) {
	tests := []struct {
		name  string
		base  []string
		extra map[string]string
		want  []string
	}{
		{"none", []string{"A=1", "B=2"}, nil, []string{"A=1", "B=2"}},
		{"override and add sorted", []string{"A=1", "B=2"}, map[string]string{"B": "x", "D": "4", "C": "3"}, []string{"A=1", "B=x", "C=3", "D=4"}},
		{"duplicates in base all replaced", []string{"A=1", "A=2"}, map[string]string{"A": "3"}, []string{"A=3"}},
		{"value with equals", []string{"A=b=c"}, map[string]string{"E": "x=y"}, []string{"A=b=c", "E=x=y"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := mergeEnv(tt.base, tt.extra)
			slices.Sort(got)
			if !slices.Equal(got, tt.want) {
				t.Errorf("mergeEnv = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestSpecDefaults(t *testing.T) {
	tests := []struct {
		in, wantStop, wantKill time.Duration
	}{
		{0, DefaultStopGrace, DefaultKillGrace},
		{-1, 0, 0},
		{time.Second, time.Second, time.Second},
	}
	for _, tt := range tests {
		s := Spec{StopGrace: tt.in, KillGrace: tt.in}.withDefaults()
		if s.StopGrace != tt.wantStop || s.KillGrace != tt.wantKill {
			t.Errorf("graces %v -> %v/%v, want %v/%v", tt.in, s.StopGrace, s.KillGrace, tt.wantStop, tt.wantKill)
		}
	}
}

func TestBackoff(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name     string
		b        Backoff
		want     []time.Duration
		afterRst time.Duration
	}{
		{"doubles up to max", Backoff{Min: 100 * ms, Max: time.Second},
			[]time.Duration{100 * ms, 200 * ms, 400 * ms, 800 * ms, time.Second, time.Second}, 100 * ms},
		{"zero value uses defaults", Backoff{},
			[]time.Duration{DefaultBackoffMin, 2 * DefaultBackoffMin, 4 * DefaultBackoffMin}, DefaultBackoffMin},
		{"max below min", Backoff{Min: 2 * time.Second, Max: time.Second},
			[]time.Duration{2 * time.Second, 2 * time.Second}, 2 * time.Second},
		{"only max", Backoff{Max: 700 * ms},
			[]time.Duration{DefaultBackoffMin, 700 * ms, 700 * ms}, DefaultBackoffMin},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := tt.b
			var got []time.Duration
			for range tt.want {
				got = append(got, b.Next())
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Next sequence = %v, want %v", got, tt.want)
			}
			if b.Attempts() != len(tt.want) {
				t.Errorf("Attempts = %d, want %d", b.Attempts(), len(tt.want))
			}
			b.Reset()
			if b.Attempts() != 0 {
				t.Errorf("Attempts after Reset = %d", b.Attempts())
			}
			if d := b.Next(); d != tt.afterRst {
				t.Errorf("Next after Reset = %v, want %v", d, tt.afterRst)
			}
		})
	}
	t.Run("bounded near overflow", func(t *testing.T) {
		b := Backoff{Min: time.Nanosecond, Max: math.MaxInt64}
		prev := time.Duration(0)
		for i := range 200 {
			d := b.Next()
			if d < prev || d <= 0 {
				t.Fatalf("step %d: %v after %v", i, d, prev)
			}
			prev = d
		}
		if prev < math.MaxInt64/2 {
			t.Errorf("never approached Max: last %v", prev)
		}
	})
}

// A wrapper that reports its child's death by signal N as status 128+N
// (bubblewrap) is read as "killed by signal N", and errors name the agent's
// own command.
func TestExitErrorThroughAWrapper(t *testing.T) {
	cases := []struct {
		spec Spec
		want string
	}{
		{Spec{Name: "a", Command: "sh", Display: "claude (in the OS sandbox)", SignalCodes: true}, "agent a (claude (in the OS sandbox)) killed by SIGKILL"},
		{Spec{Name: "a", Command: "sh"}, "agent a (sh) exited with code 137"},
	}
	for _, c := range cases {
		p, err := Start(context.Background(), Spec{Name: c.spec.Name, Command: "sh", Args: []string{"-c", "exit 137"},
			Display: c.spec.Display, SignalCodes: c.spec.SignalCodes}, zap.NewNop())
		if err != nil {
			t.Fatal(err)
		}
		<-p.Done()
		if got := p.ExitErr(); got == nil || !strings.HasPrefix(got.Error(), c.want) {
			t.Errorf("ExitErr() = %v, want %q", got, c.want)
		}
	}
}
