//go:build linux

package sandbox

import (
	"fmt"
	"io/fs"
	"math/rand"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/acp-bridge/acp-bridge/policy"
)

// refScan is the scan as filepath.WalkDir does it (the scanner's
// definition): every socket at most depth levels below root, not under a
// skipped directory, within max entries.
func refScan(root string, depth, max int, skip func(p, name string) bool) (socks []string, stopped bool) {
	n := 0
	base := strings.Count(root, "/")
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		n++
		if n > max {
			stopped = true
			return filepath.SkipAll
		}
		if d.IsDir() {
			if p != root && (skip(p, d.Name()) || strings.Count(p, "/")-base >= depth) {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type()&fs.ModeSocket != 0 {
			socks = append(socks, p)
		}
		return nil
	})
	return socks, stopped
}

func mkSock(t *testing.T, p string) {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	if err := syscall.Bind(fd, &syscall.SockaddrUnix{Name: p}); err != nil {
		t.Fatalf("bind %s: %v", p, err)
	}
}

// The scanner finds exactly the sockets filepath.WalkDir finds, on random
// trees with sockets at every depth, symlinks to directories and sockets
// (never followed), skipped directories and a spent budget.
func TestIPCScannerAgreesWithWalkDir(t *testing.T) {
	for seed := int64(1); seed <= 30; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewSource(seed))
			root := t.TempDir()
			dirs := []string{root}
			for i := 0; i < 40; i++ {
				parent := dirs[rng.Intn(len(dirs))]
				name := fmt.Sprintf("e%d", i)
				if rng.Intn(6) == 0 {
					name = privatePrefix + name
				}
				p := filepath.Join(parent, name)
				switch rng.Intn(5) {
				case 0, 1:
					if err := os.Mkdir(p, 0o755); err != nil {
						t.Fatal(err)
					}
					dirs = append(dirs, p)
				case 2:
					if len(p) < 100 {
						mkSock(t, p)
					}
				case 3:
					if err := os.Symlink(dirs[rng.Intn(len(dirs))], p); err != nil {
						t.Fatal(err)
					}
				default:
					if err := os.WriteFile(p, nil, 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			skipped := dirs[rng.Intn(len(dirs))]
			skip := func(p, name string) bool {
				return p == skipped || strings.HasPrefix(p, skipped+"/") || strings.HasPrefix(name, privatePrefix)
			}
			for _, tc := range []struct{ depth, max int }{{6, 50000}, {2, 50000}, {6, 1 + rng.Intn(30)}} {
				want, wantStopped := refScan(root, tc.depth, tc.max, skip)
				var got []string
				sc := ipcScanner{max: tc.max, depth: tc.depth, onSocket: func(p string) { got = append(got, p) },
					skipDir: func(p, name []byte) bool { return skip(string(p), string(name)) }}
				sc.scan(root)
				slices.Sort(got)
				slices.Sort(want)
				if tc.max == 50000 && !slices.Equal(got, want) {
					t.Fatalf("depth %d: scanner found %v, WalkDir %v", tc.depth, got, want)
				}
				if sc.stopped != wantStopped {
					t.Fatalf("depth %d max %d: stopped %v, WalkDir %v", tc.depth, tc.max, sc.stopped, wantStopped)
				}
				full, _ := refScan(root, tc.depth, 50000, skip)
				for _, g := range got { // a spent budget may see other entries first (no order), never others
					if !slices.Contains(full, g) {
						t.Fatalf("scanner found %s, which is not a socket within the scan", g)
					}
				}
			}
		})
	}
}

// crowdedTree is 200 directories of 20 files each: a crowded /tmp.
func crowdedTree(b *testing.B) string {
	root := b.TempDir()
	for i := 0; i < 200; i++ {
		d := filepath.Join(root, fmt.Sprintf("d%03d", i))
		if err := os.Mkdir(d, 0o755); err != nil {
			b.Fatal(err)
		}
		for j := 0; j < 20; j++ {
			if err := os.WriteFile(filepath.Join(d, fmt.Sprintf("f%02d", j)), nil, 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	return root
}

// A crowded /tmp costs the scan no allocation per entry.
func BenchmarkIPCScan(b *testing.B) {
	root := crowdedTree(b)
	if l, err := net.Listen("unix", filepath.Join(root, "d000", "s")); err == nil {
		defer l.Close()
	}
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		sc := ipcScanner{max: 50000, depth: ipcDepth, onSocket: func(string) { n++ },
			skipDir: func(p, name []byte) bool { return false }}
		sc.scan(root)
		if n != 1 {
			b.Fatalf("found %d sockets, want 1", n)
		}
	}
}

// The same tree through filepath.WalkDir, the scan before ipcScanner, for
// comparison in one run.
func BenchmarkIPCScanWalkDir(b *testing.B) {
	root := crowdedTree(b)
	b.ReportAllocs()
	for b.Loop() {
		refScan(root, ipcDepth, 50000, func(p, name string) bool { return false })
	}
}

// A Spec that only bounds the file service (an unconfined agent) does not
// look for host sockets; a sandbox's Spec masks them.
func TestFileBoundOnlySkipsHostIPC(t *testing.T) {
	ws, outside := t.TempDir(), t.TempDir()
	sock := filepath.Join(outside, "agent.sock")
	mkSock(t, sock)
	getenv := func(k string) string {
		if k == "SSH_AUTH_SOCK" {
			return sock
		}
		return ""
	}
	masks := func(boundOnly bool) bool {
		s, err := Compute(Options{Workspace: []string{ws}, Policy: compile(t, "Read(.env)"), Env: policy.Env{Cwd: ws, ProjectRoot: ws},
			Getenv: getenv, FileBoundOnly: boundOnly})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range s.Masked {
			if m.Path == sock {
				return true
			}
		}
		return false
	}
	if !masks(false) {
		t.Fatalf("a sandbox's Spec does not mask the host socket %s named by SSH_AUTH_SOCK", sock)
	}
	if masks(true) {
		t.Fatalf("a file-bound-only Spec looked for host sockets")
	}
}
