//go:build linux

package safefs

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// tree makes a temp tree: ws/ (a real dir with a.txt), secret/ (key),
// and links in ws to both.
func tree(t *testing.T) (root string) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(root, "ws", "sub"), 0o755))
	must(os.MkdirAll(filepath.Join(root, "secret"), 0o700))
	must(os.WriteFile(filepath.Join(root, "ws", "a.txt"), []byte("one\ntwo\nthree\n"), 0o640))
	must(os.WriteFile(filepath.Join(root, "secret", "key"), []byte("SECRET"), 0o600))
	must(os.Symlink(filepath.Join(root, "secret"), filepath.Join(root, "ws", "abs")))
	must(os.Symlink("../secret", filepath.Join(root, "ws", "rel")))
	must(os.Symlink("sub/../../secret/key", filepath.Join(root, "ws", "dotdot")))
	must(os.Symlink("nowhere/new.txt", filepath.Join(root, "ws", "dangling")))
	must(os.Symlink("loop2", filepath.Join(root, "ws", "loop1")))
	must(os.Symlink("loop1", filepath.Join(root, "ws", "loop2")))
	must(os.Symlink("/proc/self/root", filepath.Join(root, "ws", "procroot")))
	return root
}

func TestResolve(t *testing.T) {
	root := tree(t)
	cases := []struct {
		in, want string
		err      error // wrapped by the error, or nil; errAny: any error
	}{
		{"ws/a.txt", "ws/a.txt", nil},
		{"ws/./sub//x", "ws/sub/x", nil},
		{"ws/abs/key", "secret/key", nil},
		{"ws/rel/key", "secret/key", nil},
		{"ws/dotdot", "secret/key", nil},
		{"ws/rel/../ws/a.txt", "ws/a.txt", nil}, // .. after a link: against where it led
		{"ws/dangling", "ws/nowhere/new.txt", nil},
		{"ws/missing/deeper/f", "ws/missing/deeper/f", nil},
		{"ws/loop1/x", "", syscall.ELOOP},
		{"ws/procroot/etc/passwd", "", ErrSpecial},
	}
	for _, c := range cases {
		got, err := Resolve(root + "/" + c.in) // not cleaned: .. after a link is the resolver's
		if c.err != nil {
			if !errors.Is(err, c.err) {
				t.Errorf("Resolve(%s) = %q, %v; want an error wrapping %v", c.in, got, err, c.err)
			}
			continue
		}
		if err != nil || got != filepath.Join(root, c.want) {
			t.Errorf("Resolve(%s) = %q, %v; want %q", c.in, got, err, filepath.Join(root, c.want))
		}
	}
	for _, p := range []string{"/proc/self/cwd/x", "/dev/tcp/1.2.3.4/80", "/sys/kernel", "/proc"} {
		if _, err := Resolve(p); !errors.Is(err, ErrSpecial) {
			t.Errorf("Resolve(%s) = %v, want ErrSpecial", p, err)
		}
	}
	if _, err := Resolve("relative/x"); err == nil {
		t.Error("Resolve of a relative path: no error")
	}
}

func TestReadFile(t *testing.T) {
	root := tree(t)
	fifo := filepath.Join(root, "ws", "fifo")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		path        string
		line, limit int
		want        string
		err         error // nil: success; errAny: some error
	}{
		{"ws/a.txt", 0, 0, "one\ntwo\nthree\n", nil},
		{"ws/a.txt", 2, 0, "two\nthree\n", nil},
		{"ws/a.txt", 2, 1, "two", nil},
		{"ws/a.txt", 1, 2, "one\ntwo", nil},
		{"ws/a.txt", 0, 1, "one", nil},
		{"ws/a.txt", 9, 1, "", nil},
		{"ws/abs/key", 0, 0, "", ErrChanged}, // a link on the way: never followed
		{"ws/dotdot", 0, 0, "", ErrChanged},  // the last component a link
		{"ws/nope", 0, 0, "", fs.ErrNotExist},
		{"ws/fifo", 0, 0, "", errAny}, // not a regular file; must not block
		{"ws/sub", 0, 0, "", errAny},
		{"ws/a.txt", -1, 0, "", errAny},
	}
	for _, c := range cases {
		got, err := ReadFile(filepath.Join(root, c.path), c.line, c.limit)
		switch {
		case c.err == nil && (err != nil || got != c.want):
			t.Errorf("ReadFile(%s, %d, %d) = %q, %v; want %q", c.path, c.line, c.limit, got, err, c.want)
		case c.err == errAny && err == nil:
			t.Errorf("ReadFile(%s) = %q, want an error", c.path, got)
		case c.err != nil && c.err != errAny && !errors.Is(err, c.err):
			t.Errorf("ReadFile(%s) = %q, %v; want an error wrapping %v", c.path, got, err, c.err)
		}
		if strings.Contains(got, "SECRET") {
			t.Errorf("ReadFile(%s) returned the secret", c.path)
		}
	}
	for _, p := range []string{"/proc/self/environ", "/dev/zero", root + "/ws/../secret/key", "rel"} {
		if got, err := ReadFile(p, 0, 0); err == nil {
			t.Errorf("ReadFile(%s) = %q, want a refusal", p, got)
		}
	}
}

var errAny = errors.New("any error")

func TestReadLinesBound(t *testing.T) {
	text := "aaaa\nbbbb\ncccc\n"
	cases := []struct {
		line, limit int
		max         int64
		want        string
		tooLarge    bool
	}{
		{0, 0, 15, text, false},
		{0, 0, 14, "", true},
		{1, 1, 5, "aaaa", false}, // stops after the lines asked for
		{2, 1, 9, "", true},
		{2, 1, 10, "bbbb", false},
	}
	for _, c := range cases {
		got, err := readLines(strings.NewReader(text), "t", c.line, c.limit, c.max)
		if c.tooLarge {
			if !errors.Is(err, ErrTooLarge) {
				t.Errorf("readLines(%d,%d,max %d) = %q, %v; want ErrTooLarge", c.line, c.limit, c.max, got, err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("readLines(%d,%d,max %d) = %q, %v; want %q", c.line, c.limit, c.max, got, err, c.want)
		}
	}
}

func TestWriteFile(t *testing.T) {
	root := tree(t)
	j := func(p string) string { return filepath.Join(root, p) }
	if err := os.Link(j("secret/key"), j("ws/hard")); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		path string
		err  error
		mode fs.FileMode // expected permission bits after the write (0: not checked)
	}{
		{"ws/a.txt", nil, 0o640}, // the mode is kept
		{"ws/new.txt", nil, 0o666 &^ umask()},
		{"ws/made/deep/f.txt", nil, 0o666 &^ umask()},
		{"ws/hard", nil, 0o600}, // replaced, not written through the hard link
		{"ws/abs/key", ErrChanged, 0},
		{"ws/abs/planted", ErrChanged, 0},
		{"ws/dotdot", ErrChanged, 0}, // the file itself a link
		{"ws/abs/newdir/x", ErrChanged, 0},
		{"ws/sub", errAny, 0},
	}
	for _, c := range cases {
		err := WriteFile(j(c.path), []byte("written"))
		switch {
		case c.err == nil && err != nil:
			t.Errorf("WriteFile(%s) = %v", c.path, err)
		case c.err == errAny && err == nil, c.err != nil && c.err != errAny && !errors.Is(err, c.err):
			t.Errorf("WriteFile(%s) = %v, want %v", c.path, err, c.err)
		}
		if c.err == nil {
			fi, serr := os.Lstat(j(c.path))
			got, _ := os.ReadFile(j(c.path))
			if serr != nil || string(got) != "written" || !fi.Mode().IsRegular() || fi.Mode().Perm() != c.mode {
				t.Errorf("after WriteFile(%s): %v %q %v, want a regular file with mode %v", c.path, serr, got, fi, c.mode)
			}
		}
	}
	checkSecret(t, root)
	// no temp file left behind anywhere in ws
	_ = filepath.WalkDir(j("ws"), func(p string, d fs.DirEntry, err error) error {
		if strings.Contains(d.Name(), ".acp-bridge-") {
			t.Errorf("temp file left: %s", p)
		}
		return nil
	})
	for _, p := range []string{"/proc/self/attr/current", "/dev/shm/x", "/sys/x", "rel"} {
		if err := WriteFile(p, []byte("x")); err == nil {
			t.Errorf("WriteFile(%s) succeeded, want a refusal", p)
		}
	}
}

func umask() fs.FileMode {
	m := unix.Umask(0)
	unix.Umask(m)
	return fs.FileMode(m)
}

// checkSecret: secret/ holds exactly key, with its content.
func checkSecret(t *testing.T, root string) {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join(root, "secret"))
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 1 || ents[0].Name() != "key" {
		names := []string{}
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("secret/ now holds %v, want only key", names)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "secret", "key")); string(b) != "SECRET" {
		t.Errorf("secret/key now holds %q", b)
	}
}

// flipper swaps ws/d (a real directory) with ws/alt (a link to secret/)
// atomically, again and again, until stop is closed.
func flipper(t *testing.T, root string, stop <-chan struct{}, wg *sync.WaitGroup) {
	d, alt := filepath.Join(root, "ws", "d"), filepath.Join(root, "ws", "alt")
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if err := unix.Renameat2(unix.AT_FDCWD, d, unix.AT_FDCWD, alt, unix.RENAME_EXCHANGE); err != nil {
				t.Errorf("exchange: %v", err)
				return
			}
		}
	}()
}

func raceTree(t *testing.T) (root, resolvedRead, resolvedWrite string) {
	root = tree(t)
	d := filepath.Join(root, "ws", "d")
	if err := os.Mkdir(d, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d, "key"), []byte("harmless"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "secret"), filepath.Join(root, "ws", "alt")); err != nil {
		t.Fatal(err)
	}
	// The decision: resolved while d is the harmless directory.
	var err error
	if resolvedRead, err = Resolve(filepath.Join(d, "key")); err != nil || resolvedRead != filepath.Join(d, "key") {
		t.Fatalf("Resolve = %q, %v", resolvedRead, err)
	}
	if resolvedWrite, err = Resolve(filepath.Join(d, "planted")); err != nil {
		t.Fatal(err)
	}
	return root, resolvedRead, resolvedWrite
}

const raceRounds = 20000

// TestReadRace: reads of the resolved path while d flips between a real
// directory and a link to the secret never return the secret; the same
// loop with os.ReadFile does (the control).
func TestReadRace(t *testing.T) {
	root, resolved, _ := raceTree(t)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	flipper(t, root, stop, &wg)
	var served, refused atomic.Int64
	leaked := false
	for i := 0; i < raceRounds; i++ {
		got, err := ReadFile(resolved, 0, 0)
		if strings.Contains(got, "SECRET") {
			t.Errorf("round %d: ReadFile returned the secret", i)
			break
		}
		switch {
		case err == nil:
			served.Add(1)
		case errors.Is(err, ErrChanged):
			refused.Add(1)
		}
	}
	// control: the naive read, same loop, same flipping.
	for i := 0; i < 10*raceRounds && !leaked; i++ {
		b, _ := os.ReadFile(resolved)
		leaked = bytes.Contains(b, []byte("SECRET"))
	}
	close(stop)
	wg.Wait()
	if !leaked {
		t.Fatal("control: os.ReadFile never leaked the secret; the race did not happen, so the test shows nothing")
	}
	if served.Load() == 0 || refused.Load() == 0 {
		t.Errorf("served %d, refused %d: want both (the race reached both states)", served.Load(), refused.Load())
	}
	checkSecret(t, root)
}

// TestWriteRace: writes to the resolved path while d flips never create or
// change a file in the secret directory (checked on disk); os.WriteFile in
// the same loop does.
func TestWriteRace(t *testing.T) {
	root, _, resolved := raceTree(t)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	flipper(t, root, stop, &wg)
	served, refused := 0, 0
	for i := 0; i < raceRounds/4; i++ {
		err := WriteFile(resolved, []byte("planted"))
		switch {
		case err == nil:
			served++
		case errors.Is(err, ErrChanged):
			refused++
		}
	}
	close(stop)
	wg.Wait()
	checkSecret(t, root)
	if served == 0 || refused == 0 {
		t.Errorf("served %d, refused %d: want both (the race reached both states)", served, refused)
	}
	// control
	stop = make(chan struct{})
	flipper(t, root, stop, &wg)
	planted := filepath.Join(root, "secret", "planted")
	leaked := false
	for i := 0; i < 10*raceRounds && !leaked; i++ {
		_ = os.WriteFile(resolved, []byte("planted"), 0o644)
		_, err := os.Stat(planted)
		leaked = err == nil
	}
	close(stop)
	wg.Wait()
	if !leaked {
		t.Fatal("control: os.WriteFile never wrote into the secret directory; the race did not happen")
	}
}
