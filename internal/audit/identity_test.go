package audit

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestMovedFileNoticedAtOnce: whatever another program does to an open
// log file (rotates it away, unlinks it, replaces it with a new file, links
// it elsewhere and unlinks it, changes its mode), the next Append, made
// right after, writes to the file now at the path, for every stream; no
// record goes to a file that is no longer there. The control keeps the
// streams believing their files are watched but never reads what the
// kernel queued: the record then goes to the old file, which is what the
// per-record read of the queue prevents.
func TestMovedFileNoticedAtOnce(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("inotify: Linux only (elsewhere each record stats the path)")
	}
	ops := map[string]func(t *testing.T, p string){
		"renamed away": func(t *testing.T, p string) { must(t, os.Rename(p, p+".1")) },
		"unlinked":     func(t *testing.T, p string) { must(t, os.Remove(p)) },
		"replaced": func(t *testing.T, p string) {
			must(t, os.WriteFile(p+".new", nil, 0o600))
			must(t, os.Rename(p+".new", p))
		},
		"linked elsewhere, unlinked": func(t *testing.T, p string) {
			must(t, os.Link(p, p+".kept"))
			must(t, os.Remove(p))
		},
		"mode changed": func(t *testing.T, p string) { must(t, os.Chmod(p, 0o600)) },
	}
	records := map[streamKind]Record{
		streamDecisions: {Agent: "a", Decision: "allow", Source: "rule"},
		streamDenies:    {Agent: "a", Decision: "deny", Source: "rule"},
		streamPerson:    {Agent: "a", Decision: "allow", Source: "user"},
		streamUnasked:   {Agent: "a", Decision: "unasked", Would: "allow", Source: "agent"},
	}
	for name, op := range ops {
		for kind, rec := range records {
			for _, control := range []bool{false, true} {
				t.Run(name+"/"+streamPath("log", kind)+map[bool]string{false: "", true: "/control"}[control], func(t *testing.T) {
					path := filepath.Join(t.TempDir(), "audit.jsonl")
					l := openLog(t, path, 0)
					first := rec
					first.Reason = "first"
					must(t, l.Append(first))
					s := l.streams[kindOf(first)]
					if s.wd < 0 {
						t.Fatalf("stream %s is not watched", s.path)
					}
					if control {
						l.mu.Lock()
						l.watch = nil // the queue is never read
						l.mu.Unlock()
					}
					op(t, s.path)
					second := rec
					second.Reason = "second"
					must(t, l.Append(second))
					b, _ := os.ReadFile(s.path)
					got := countReason(b, "second")
					if control {
						if name != "mode changed" && got != 0 {
							t.Fatalf("control: the record reached %s without the event being read; the test proves nothing", s.path)
						}
						return
					}
					if got != 1 {
						t.Fatalf("after the file was %s, %s holds %d copies of the next record, want 1:\n%s", name, s.path, got, b)
					}
				})
			}
		}
	}
}

// TestWatchedStreamRotatesAtItsBound: a watched stream counts what it
// writes (and reads its size again every statEvery records), so rotation
// still happens at the bound, also when another writer grows the file.
func TestWatchedStreamRotatesAtItsBound(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l := openLog(t, path, 4096)
	other := openLog(t, path, 1<<30) // a second process writing the same file, never rotating
	for i := range 200 {
		w := l
		if i%2 == 1 {
			w = other
		}
		must(t, w.Append(Record{Agent: "a", Decision: "allow", Source: "rule", Reason: "r"}))
	}
	st, err := os.Stat(path)
	must(t, err)
	if _, err := os.Stat(path + ".1"); err != nil {
		t.Fatalf("no rotation after 200 records against a 4 KiB bound: %v", err)
	}
	// Between two reads of the size the other writer adds at most
	// statEvery records; one record is about 120 bytes.
	if limit := int64(4096 + 2*statEvery*200); st.Size() > limit {
		t.Errorf("current file is %d bytes, over %d", st.Size(), limit)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func countReason(b []byte, reason string) int {
	return bytes.Count(b, []byte(`"reason":"`+reason+`"`))
}

// TestDirectoryAboveTheLogMoved (red team 15): a directory above the log
// renamed and a new one made in its place, or a symlinked directory on the
// path retargeted, moves every stream's path without an event on the
// files' inodes; the next record goes to the file now at the path. The
// control skips the check of the files' directory (noDirCheck): the record
// then goes to the old file.
func TestDirectoryAboveTheLogMoved(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("inotify: Linux only (elsewhere each record stats the path)")
	}
	ops := map[string]func(t *testing.T, base string){
		"parent renamed, a new one made": func(t *testing.T, base string) {
			must(t, os.Rename(filepath.Join(base, "cfg", "logs"), filepath.Join(base, "cfg", "logs.old")))
			must(t, os.Mkdir(filepath.Join(base, "cfg", "logs"), 0o700))
		},
		"grandparent renamed, a new one made": func(t *testing.T, base string) {
			must(t, os.Rename(filepath.Join(base, "cfg"), filepath.Join(base, "cfg.old")))
			must(t, os.MkdirAll(filepath.Join(base, "cfg", "logs"), 0o700))
		},
		"symlinked directory retargeted": func(t *testing.T, base string) {
			must(t, os.MkdirAll(filepath.Join(base, "other", "logs"), 0o700))
			must(t, os.Remove(filepath.Join(base, "cfg")))
			must(t, os.Symlink(filepath.Join(base, "other"), filepath.Join(base, "cfg")))
		},
	}
	for name, op := range ops {
		for _, control := range []bool{false, true} {
			t.Run(name+map[bool]string{false: "", true: "/control"}[control], func(t *testing.T) {
				base := t.TempDir()
				if name == "symlinked directory retargeted" {
					must(t, os.MkdirAll(filepath.Join(base, "real", "logs"), 0o700))
					must(t, os.Symlink(filepath.Join(base, "real"), filepath.Join(base, "cfg")))
				} else {
					must(t, os.MkdirAll(filepath.Join(base, "cfg", "logs"), 0o700))
				}
				path := filepath.Join(base, "cfg", "logs", "audit.jsonl")
				l := openLog(t, path, 0)
				for _, r := range []Record{{Agent: "a", Decision: "deny", Source: "rule", Reason: "first"}, {Agent: "a", Decision: "allow", Source: "user", Reason: "first"}} {
					must(t, l.Append(r))
				}
				if control {
					l.mu.Lock()
					l.noDirCheck = true
					l.mu.Unlock()
				}
				op(t, base)
				for _, r := range []Record{{Agent: "a", Decision: "deny", Source: "rule", Reason: "second"}, {Agent: "a", Decision: "allow", Source: "user", Reason: "second"}} {
					must(t, l.Append(r))
				}
				for _, k := range []streamKind{streamDecisions, streamDenies, streamPerson} {
					b, _ := os.ReadFile(streamPath(path, k))
					got := countReason(b, "second")
					if control {
						if got != 0 {
							t.Fatalf("control: %s got the record without the directory check; the test proves nothing", streamPath(path, k))
						}
						continue
					}
					if got == 0 {
						t.Errorf("after the %s, %s (the file now at the path) did not get the next record", name, streamPath(path, k))
					}
				}
			})
		}
	}
}
