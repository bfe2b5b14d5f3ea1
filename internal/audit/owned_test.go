package audit

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const bashrc = "# ~/.bashrc\nexport PATH=$HOME/bin:$PATH\nalias ll='ls -la'\n"

// TestOpenRefusesForeignFiles: the audit writer never appends to a file
// that is not its own; the file is left byte-identical and the error names
// the path and why.
func TestOpenRefusesForeignFiles(t *testing.T) {
	good := `{"time":"2026-11-21T10:00:00Z","agent":"claude","sessionId":"s","decision":"allow","source":"rule","latencyMs":1}` + "\n"
	cases := []struct {
		name  string
		setup func(t *testing.T, dir string) (path, victim string)
		why   string
	}{
		{"shell rc file", func(t *testing.T, dir string) (string, string) {
			p := filepath.Join(dir, ".bashrc")
			write(t, p, bashrc)
			return p, p
		}, "not the bridge's audit log"},
		{"symlink to a shell rc file", func(t *testing.T, dir string) (string, string) {
			victim := filepath.Join(dir, ".bashrc")
			write(t, victim, bashrc)
			p := filepath.Join(dir, "audit.jsonl")
			symlink(t, victim, p)
			return p, victim
		}, "symlink"},
		{"symlink to a new file", func(t *testing.T, dir string) (string, string) {
			p := filepath.Join(dir, "audit.jsonl")
			symlink(t, filepath.Join(dir, "authorized_keys"), p)
			return p, ""
		}, "symlink"},
		{"JSON that is not records", func(t *testing.T, dir string) (string, string) {
			p := filepath.Join(dir, "package.json")
			write(t, p, "{\"name\":\"x\",\"scripts\":{\"test\":\"go test\"}}\n")
			return p, p
		}, "not the bridge's audit log"},
		{"a record glued before foreign lines", func(t *testing.T, dir string) (string, string) {
			p := filepath.Join(dir, "rc")
			write(t, p, good+bashrc)
			return p, p
		}, "not the bridge's audit log"},
		{"a directory", func(t *testing.T, dir string) (string, string) {
			p := filepath.Join(dir, "d")
			if err := os.Mkdir(p, 0o700); err != nil {
				t.Fatal(err)
			}
			return p, ""
		}, "not a regular file"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path, victim := tc.setup(t, dir)
			var before []byte
			if victim != "" {
				before = read(t, victim)
			}
			l, err := Open(path, 0, nil)
			if err == nil {
				l.Close()
				t.Fatalf("Open(%s) succeeded", path)
			}
			if !errors.Is(err, ErrNotOwned) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tc.why) {
				t.Errorf("Open error %q: want ErrNotOwned naming %s and %q", err, path, tc.why)
			}
			if victim != "" && !bytes.Equal(read(t, victim), before) {
				t.Errorf("%s changed", victim)
			}
			if _, err := os.Stat(filepath.Join(dir, "authorized_keys")); err == nil {
				t.Error("a symlink's target was created")
			}
		})
	}
}

// TestOpenAcceptsItsOwnLog: a new path, an empty file and an existing audit
// log (even with a torn line in it) are opened and appended to.
func TestOpenAcceptsItsOwnLog(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "old.jsonl")
	l := openLog(t, existing, 0)
	for _, r := range sampleRecords() {
		if err := l.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	l.Close()
	f, err := os.OpenFile(existing, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"time":"2026-11-21T10:00:00Z","ag`) // torn by a crash
	f.Close()
	empty := filepath.Join(dir, "empty.jsonl")
	write(t, empty, "")
	for _, p := range []string{filepath.Join(dir, "sub", "new.jsonl"), empty, existing} {
		l := openLog(t, p, 0)
		if err := l.Append(Record{Agent: "a", Decision: "allow", Source: "rule", Reason: "appended"}); err != nil {
			t.Errorf("Append to %s: %v", p, err)
		}
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v, mode %v; want 0600", p, err, fi.Mode())
		}
	}
	got, _ := readAll(t, existing, Filter{})
	if len(got) != len(sampleRecords())+1 || got[len(got)-1].Reason != "appended" {
		t.Errorf("existing log holds %d records, want %d ending with the appended one", len(got), len(sampleRecords())+1)
	}
}

// TestReopenRefusesSwappedFile: a Log whose file is replaced behind its back
// by a symlink to a victim does not follow it.
func TestReopenRefusesSwappedFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.jsonl")
	victim := filepath.Join(dir, ".bashrc")
	write(t, victim, bashrc)
	l := openLog(t, path, 0)
	if err := l.Append(Record{Agent: "a", Decision: "allow", Source: "rule"}); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	symlink(t, victim, path)
	if err := l.Append(Record{Agent: "a", Decision: "allow", Source: "rule", Reason: "echo pwned"}); !errors.Is(err, ErrNotOwned) {
		t.Errorf("Append through a swapped symlink = %v, want ErrNotOwned", err)
	}
	if got := string(read(t, victim)); got != bashrc {
		t.Errorf("victim changed: %q", got)
	}
}

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skip("cannot symlink:", err)
	}
}
