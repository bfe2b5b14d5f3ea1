//go:build linux

package bridge

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// After a turn's check has kept the walks of the missing places, every way
// of making one of them exist before the next turn's check is reported by
// it, as lstat would find: the place itself made (file, directory,
// dangling link), an ancestor made by rename of a prepared tree, by a link
// to a tree that holds it, an existing ancestor replaced by rename. A turn
// in which nothing was made reports nothing.
func TestCreatedWatchSeesEveryWayAPlaceAppears(t *testing.T) {
	type op struct {
		name string
		do   func(t *testing.T, ws, other string)
	}
	write := func(t *testing.T, p string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	must := func(t *testing.T, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	ops := []op{
		{"nothing", func(t *testing.T, ws, other string) {}},
		{"file at a place", func(t *testing.T, ws, other string) { write(t, filepath.Join(ws, ".envrc")) }},
		{"directory at a place", func(t *testing.T, ws, other string) { must(t, os.Mkdir(filepath.Join(ws, ".git"), 0o700)) }},
		{"dangling link at a place", func(t *testing.T, ws, other string) {
			must(t, os.Symlink(filepath.Join(other, "nowhere"), filepath.Join(ws, ".envrc")))
		}},
		{"missing parent made by rename", func(t *testing.T, ws, other string) {
			write(t, filepath.Join(other, "stage", "tasks.json"))
			must(t, os.Rename(filepath.Join(other, "stage"), filepath.Join(ws, ".vscode")))
		}},
		{"missing parent made as a link", func(t *testing.T, ws, other string) {
			write(t, filepath.Join(other, "v", "tasks.json"))
			must(t, os.Symlink(filepath.Join(other, "v"), filepath.Join(ws, ".vscode")))
		}},
		{"existing ancestor replaced by rename", func(t *testing.T, ws, other string) {
			write(t, filepath.Join(other, "sub2", ".envrc"))
			must(t, os.Rename(filepath.Join(ws, "sub"), filepath.Join(other, "old-sub")))
			must(t, os.Rename(filepath.Join(other, "sub2"), filepath.Join(ws, "sub")))
		}},
		{"file in an existing subdirectory", func(t *testing.T, ws, other string) { write(t, filepath.Join(ws, "sub", ".envrc")) }},
		{"link target made (the walk follows the link)", func(t *testing.T, ws, other string) {
			write(t, filepath.Join(other, "target", ".envrc"))
		}},
	}
	for _, o := range ops {
		t.Run(o.name, func(t *testing.T) {
			ws, other := t.TempDir(), t.TempDir()
			must(t, os.Mkdir(filepath.Join(ws, "sub"), 0o700))
			must(t, os.Mkdir(filepath.Join(ws, "linked"), 0o700))
			must(t, os.Symlink(filepath.Join(other, "target"), filepath.Join(ws, "lnk"))) // dangling until made
			w := &createdWatch{}
			for _, rel := range []string{".envrc", ".git", ".git/config", ".vscode/tasks.json", "sub/.envrc", "lnk/.envrc"} {
				w.missing = append(w.missing, filepath.Join(ws, filepath.FromSlash(rel)))
			}
			all := slices.Clone(w.missing)
			if got := w.appeared(nil); len(got) != 0 {
				t.Fatalf("first check: nothing exists yet, got %v", got)
			}
			if got := w.appeared(nil); len(got) != 0 {
				t.Fatalf("second check, nothing made: got %v", got)
			}
			o.do(t, ws, other)
			var want []string
			for _, p := range all {
				if _, err := os.Lstat(p); err == nil {
					want = append(want, p)
				}
			}
			got := w.appeared(nil)
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Fatalf("after %q the check reported %v; lstat finds %v", o.name, got, want)
			}
			if o.name != "nothing" && len(want) == 0 {
				t.Fatalf("the operation %q made no place (the test's premise)", o.name)
			}
			if again := w.appeared(nil); len(again) != 0 {
				t.Fatalf("reported twice: %v", again)
			}
		})
	}
}

// Two sessions watching the same places share the watch's entry: a place
// made between their checks is reported to each, though the first one's
// check built the entry again after the change (it must not pass for "no
// change since" to the second).
func TestCreatedWatchSharedListReportsToEach(t *testing.T) {
	ws := t.TempDir()
	list := []string{filepath.Join(ws, ".envrc"), filepath.Join(ws, ".git")}
	a, b := &createdWatch{missing: slices.Clone(list)}, &createdWatch{missing: slices.Clone(list)}
	for _, w := range []*createdWatch{a, b, a, b} {
		if got := w.appeared(nil); len(got) != 0 {
			t.Fatalf("nothing made yet: %v", got)
		}
	}
	if err := os.WriteFile(list[0], nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for name, w := range map[string]*createdWatch{"first": a, "second": b} {
		if got := w.appeared(nil); !slices.Equal(got, list[:1]) {
			t.Fatalf("%s session: reported %v, want %v", name, got, list[:1])
		}
	}
}
