package audit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"
)

var update = flag.Bool("update", false, "rewrite golden files")

var t0 = time.Date(2026, 3, 1, 9, 30, 0, 0, time.UTC)

func openLog(t *testing.T, path string, max int64) *Log {
	t.Helper()
	l, err := Open(path, max, zaptest.NewLogger(t))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func readAll(t *testing.T, path string, f Filter) ([]Record, error) {
	t.Helper()
	var out []Record
	err := Read(path, f, func(r Record) error {
		out = append(out, r)
		return nil
	})
	return out, err
}

func sampleRecords() []Record {
	return []Record{
		{Time: t0, Agent: "claude", SessionID: "s1", ToolCallID: "toolu_1", Call: json.RawMessage(`{"tool":"Bash","command":"npm test"}`),
			Specifier: "Bash(npm test)", Decision: "allow", Source: "rule", Rule: "Bash(npm test *)", LatencyMS: 0.42},
		{Time: t0.Add(time.Minute), Agent: "gemini", SessionID: "s2", ToolCallID: "run_shell_command-1", ApprovalID: "0b6e3c1a-7f0e-4c59-9b8f-2f4b1de1e001",
			Call: json.RawMessage(`{"tool":"Bash","command":"rm -rf build"}`), Specifier: "Bash(rm -rf build)", Decision: "allow", Source: "user",
			OptionID: "proceed_once", LatencyMS: 8312.5},
		{Time: t0.Add(2 * time.Minute), Agent: "claude", SessionID: "s1", ToolCallID: "toolu_2", Call: json.RawMessage(`{"tool":"Read","paths":["/w/.env"]}`),
			Specifier: "Read(/w/.env)", Decision: "deny", Source: "rule", Rule: "Read(.env*)", LatencyMS: 0.3},
		{Time: t0.Add(3 * time.Minute), Agent: "codex", SessionID: "s3", ToolCallID: "call_9", Call: json.RawMessage(`{"tool":""}`),
			Decision: "ask", Source: "unknown-call", Reason: "permissions request\nnot understood", LatencyMS: 12},
	}
}

func TestAppendReadRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nested", "dir", "audit.jsonl")
	l := openLog(t, path, 0)
	want := sampleRecords()
	for _, r := range want {
		if err := l.Append(r); err != nil {
			t.Fatalf("Append: %v", err)
		}
	}
	got, err := readAll(t, path, Filter{})
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if len(got) != len(want) {
		t.Fatalf("read %d records, want %d", len(got), len(want))
	}
	for i := range want {
		a, _ := json.Marshal(got[i])
		b, _ := json.Marshal(want[i])
		if !bytes.Equal(a, b) {
			t.Errorf("record %d:\n got %s\nwant %s", i, a, b)
		}
	}
	// The wire names are the lowerCamel ones the CLI and other tools read.
	data, _ := os.ReadFile(path)
	first := strings.SplitN(string(data), "\n", 2)[0]
	for _, key := range []string{`"time"`, `"agent"`, `"sessionId"`, `"toolCallId"`, `"call"`, `"specifier"`, `"decision"`, `"source"`, `"rule"`, `"latencyMs"`} {
		if !strings.Contains(first, key) {
			t.Errorf("first line lacks %s: %s", key, first)
		}
	}
}

func TestOpenPermissions(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "acp-bridge")
	path := filepath.Join(dir, "audit.jsonl")
	openLog(t, path, 0)
	for p, want := range map[string]fs.FileMode{dir: 0o700, path: 0o600} {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != want {
			t.Errorf("%s mode = %v, want %v", p, st.Mode().Perm(), want)
		}
	}
	// An existing, too open log is restricted.
	loose := filepath.Join(t.TempDir(), "loose.jsonl")
	if err := os.WriteFile(loose, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(loose, 0o644); err != nil {
		t.Fatal(err)
	}
	openLog(t, loose, 0)
	if st, _ := os.Stat(loose); st.Mode().Perm() != 0o600 {
		t.Errorf("existing log mode = %v, want 0600", st.Mode().Perm())
	}
	if _, err := Open("", 0, nil); err == nil {
		t.Error("Open(\"\") succeeded")
	}
}

func TestAppendSetsTime(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l := openLog(t, path, 0)
	before := time.Now()
	if err := l.Append(Record{Agent: "a", Decision: "allow", Source: "rule"}); err != nil {
		t.Fatal(err)
	}
	got, err := readAll(t, path, Filter{})
	if err != nil || len(got) != 1 {
		t.Fatalf("Read = %v, %v", got, err)
	}
	if got[0].Time.Before(before.Add(-time.Second)) || got[0].Time.After(time.Now().Add(time.Second)) {
		t.Errorf("Time = %v, want about now", got[0].Time)
	}
	if err := l.Append(Record{Call: json.RawMessage(`{broken`)}); err == nil {
		t.Error("Append with an invalid call succeeded")
	}
}

func TestReadFilters(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l := openLog(t, path, 0)
	for _, r := range sampleRecords() {
		if err := l.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name string
		f    Filter
		want []string // tool call ids
	}{
		{"all", Filter{}, []string{"toolu_1", "run_shell_command-1", "toolu_2", "call_9"}},
		{"agent", Filter{Agent: "claude"}, []string{"toolu_1", "toolu_2"}},
		{"decision", Filter{Decision: "deny"}, []string{"toolu_2"}},
		{"decision any case", Filter{Decision: "ALLOW"}, []string{"toolu_1", "run_shell_command-1"}},
		{"since is inclusive", Filter{Since: t0.Add(2 * time.Minute)}, []string{"toolu_2", "call_9"}},
		{"combined", Filter{Agent: "claude", Decision: "allow", Since: t0}, []string{"toolu_1"}},
		{"nothing", Filter{Agent: "goose"}, nil},
	}
	for _, c := range cases {
		got, err := readAll(t, path, c.f)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var ids []string
		for _, r := range got {
			ids = append(ids, r.ToolCallID)
		}
		if strings.Join(ids, ",") != strings.Join(c.want, ",") {
			t.Errorf("%s: got %q, want %q", c.name, ids, c.want)
		}
	}
	stop := errors.New("stop")
	n := 0
	if err := Read(path, Filter{}, func(Record) error { n++; return stop }); !errors.Is(err, stop) || n != 1 {
		t.Errorf("Read with a failing fn = %v after %d records, want stop after 1", err, n)
	}
	if _, err := readAll(t, filepath.Join(t.TempDir(), "none.jsonl"), Filter{}); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Read of a missing log = %v, want fs.ErrNotExist", err)
	}
}

func TestRotation(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	const max = 600
	l := openLog(t, path, max)
	var lineLen int
	const total = 40
	for i := range total {
		r := Record{Time: t0.Add(time.Duration(i) * time.Second), Agent: "claude", SessionID: "s", Decision: "allow", Source: "rule", Reason: fmt.Sprintf("seq %03d", i)}
		if err := l.Append(r); err != nil {
			t.Fatalf("Append %d: %v", i, err)
		}
		b, _ := json.Marshal(r)
		lineLen = len(b) + 1
	}
	perFile := max / lineLen
	if perFile < 2 || perFile*(Generations+1) >= total {
		t.Fatalf("test sizes do not force rotation: %d lines of %d bytes per file", perFile, lineLen)
	}
	for i := 1; i <= Generations; i++ {
		st, err := os.Stat(generation(path, i))
		if err != nil {
			t.Fatalf("generation %d: %v", i, err)
		}
		if st.Size() > max {
			t.Errorf("generation %d is %d bytes, above the %d bound", i, st.Size(), max)
		}
		if st.Mode().Perm() != 0o600 {
			t.Errorf("generation %d mode %v", i, st.Mode().Perm())
		}
	}
	if _, err := os.Stat(generation(path, Generations+1)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a generation beyond %d exists: %v", Generations, err)
	}
	got, err := readAll(t, path, Filter{})
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	// What is left is the newest records, oldest first, without a gap.
	if len(got) < perFile*Generations || got[len(got)-1].Reason != fmt.Sprintf("seq %03d", total-1) {
		t.Fatalf("read %d records ending with %q", len(got), got[len(got)-1].Reason)
	}
	first := total - len(got)
	for i, r := range got {
		if want := fmt.Sprintf("seq %03d", first+i); r.Reason != want {
			t.Fatalf("record %d = %q, want %q (records out of order or lost)", i, r.Reason, want)
		}
	}
}

func TestConcurrentAppends(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l := openLog(t, path, 0)
	const goroutines, each = 100, 20
	var wg sync.WaitGroup
	errs := make(chan error, goroutines*each)
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				errs <- l.Append(Record{Agent: "a" + strconv.Itoa(g), SessionID: "s", Decision: "allow", Source: "rule",
					Reason: strings.Repeat("x", 100*(i%5)), ToolCallID: fmt.Sprintf("%d/%d", g, i)})
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("Append: %v", err)
		}
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	seen := make(map[string]bool)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("invalid line %q: %v", sc.Text(), err)
		}
		if seen[r.ToolCallID] {
			t.Fatalf("record %s written twice", r.ToolCallID)
		}
		seen[r.ToolCallID] = true
	}
	if len(seen) != goroutines*each {
		t.Fatalf("%d records in the file, want %d", len(seen), goroutines*each)
	}
}

// A failed write returns the error, and the Log works again once the cause
// is gone. The log's path is made a directory (root can still not write a
// directory as a file), then restored.
func TestAppendRecoversAfterFailure(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l := openLog(t, path, 0)
	if err := l.Append(Record{Agent: "a", Decision: "allow", Source: "rule", Reason: "before"}); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(path, path+".saved"); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(path, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := l.Append(Record{Agent: "a", Decision: "allow", Source: "rule", Reason: "lost"}); err == nil {
		t.Fatal("Append succeeded while the log path is a directory")
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(path+".saved", path); err != nil {
		t.Fatal(err)
	}
	if err := l.Append(Record{Agent: "a", Decision: "allow", Source: "rule", Reason: "after"}); err != nil {
		t.Fatalf("Append after the fix: %v", err)
	}
	got, err := readAll(t, path, Filter{})
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if len(got) != 2 || got[0].Reason != "before" || got[1].Reason != "after" {
		t.Errorf("records = %+v, want before and after", got)
	}
}

// A full disk: writes go to /dev/full, where every write fails with ENOSPC.
// Once the disk has room again, Append goes on in the same file.
func TestAppendDiskFull(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip("no /dev/full here")
	}
	defer full.Close()
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l := openLog(t, path, 0)
	writeLine = func(_ *os.File, b []byte) (int, error) { return writeOnce(full, b) }
	t.Cleanup(func() { writeLine = writeOnce })
	err = l.Append(Record{Agent: "a", Decision: "allow", Source: "rule"})
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Append to /dev/full = %v, want ENOSPC", err)
	}
	writeLine = writeOnce
	if err := l.Append(Record{Agent: "a", Decision: "allow", Source: "rule", Reason: "after"}); err != nil {
		t.Fatalf("Append after the disk was freed: %v", err)
	}
	if got, err := readAll(t, path, Filter{}); err != nil || len(got) != 1 || got[0].Reason != "after" {
		t.Errorf("Read = %+v, %v; want the one record written after", got, err)
	}
}

// A torn last line (a crash in the middle of a write, simulated by writing
// half a line) is skipped and reported; the next Append starts a fresh line.
func TestTornLastLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l := openLog(t, path, 0)
	recs := sampleRecords()
	for _, r := range recs[:2] {
		if err := l.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if err := l.Append(recs[2]); !errors.Is(err, ErrClosed) {
		t.Errorf("Append after Close = %v, want ErrClosed", err)
	}
	full, _ := json.Marshal(recs[2])
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(full[:len(full)/2]); err != nil {
		t.Fatal(err)
	}
	f.Close()

	got, err := readAll(t, path, Filter{})
	var ce *CorruptError
	if !errors.As(err, &ce) || !errors.Is(err, ErrCorrupt) || ce.Lines != 1 || ce.Where[0] != path+":3" {
		t.Fatalf("Read error = %v, want one corrupt line at %s:3", err, path)
	}
	if len(got) != 2 {
		t.Fatalf("read %d records before the torn line, want 2", len(got))
	}

	l2 := openLog(t, path, 0)
	if err := l2.Append(recs[3]); err != nil {
		t.Fatal(err)
	}
	got, err = readAll(t, path, Filter{})
	if !errors.As(err, &ce) || ce.Lines != 1 {
		t.Fatalf("after a new Append: error = %v, want still exactly one corrupt line", err)
	}
	if len(got) != 3 || got[2].ToolCallID != recs[3].ToolCallID {
		t.Errorf("records = %d, last %q; want 3 ending with %q", len(got), got[len(got)-1].ToolCallID, recs[3].ToolCallID)
	}
}

func TestCorruptLinesSkipped(t *testing.T) {
	old := maxLineBytes
	maxLineBytes = 512
	t.Cleanup(func() { maxLineBytes = old })
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	good, _ := json.Marshal(sampleRecords()[0])
	content := strings.Join([]string{
		string(good),
		"not json",
		"",
		`{"agent":"no time"}`,
		strings.Repeat("y", 2000),
		string(good),
	}, "\n") + "\n"
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := readAll(t, path, Filter{})
	var ce *CorruptError
	if !errors.As(err, &ce) || ce.Lines != 3 {
		t.Fatalf("error = %v, want 3 corrupt lines (blank lines are not corrupt)", err)
	}
	if len(got) != 2 {
		t.Errorf("read %d good records, want 2", len(got))
	}
}

func TestPrintTable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l := openLog(t, path, 0)
	for _, r := range sampleRecords() {
		if err := l.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	var buf bytes.Buffer
	if err := printTo(&buf, path, Filter{}, false, time.UTC); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "print.golden")
	if *update {
		if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("table differs from %s:\n--- got\n%s--- want\n%s", golden, buf.Bytes(), want)
	}

	buf.Reset()
	if err := printTo(&buf, path, Filter{Decision: "deny"}, false, time.UTC); err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimSpace(buf.String()), "\n"); len(lines) != 3 || !strings.Contains(lines[1], "Read(/w/.env)") {
		t.Errorf("filtered table:\n%s", buf.String())
	}
}

func TestPrintJSON(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l := openLog(t, path, 0)
	recs := sampleRecords()
	for _, r := range recs {
		if err := l.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	var buf bytes.Buffer
	if err := Print(&buf, path, Filter{Agent: "claude"}, true); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("got %d JSON lines, want 2:\n%s", len(lines), buf.String())
	}
	for i, line := range lines {
		var r Record
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("line %d: %v", i, err)
		}
		if r.Agent != "claude" || !r.Time.Equal(recs[2*i].Time) {
			t.Errorf("line %d = %+v", i, r)
		}
	}
}
