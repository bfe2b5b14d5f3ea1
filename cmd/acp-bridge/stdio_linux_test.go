package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"go.uber.org/zap"
)

func nonblocking(t *testing.T, f *os.File) bool {
	t.Helper()
	rc, err := f.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var flags uintptr
	if err := rc.Control(func(fd uintptr) {
		flags, _, _ = syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_GETFL, 0)
	}); err != nil {
		t.Fatal(err)
	}
	return flags&syscall.O_NONBLOCK != 0
}

// fdOf is f's descriptor, read without File.Fd (which would make it
// blocking again).
func fdOf(t *testing.T, f *os.File) uintptr {
	t.Helper()
	rc, err := f.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var n uintptr
	if err := rc.Control(func(fd uintptr) { n = fd }); err != nil {
		t.Fatal(err)
	}
	return n
}

// blockingPipe is a pipe whose ends are in blocking mode, as a parent
// process hands them to the bridge (os/exec puts them back in blocking
// mode for the child).
func blockingPipe(t *testing.T) (r, w *os.File) {
	t.Helper()
	var p [2]int
	if err := syscall.Pipe2(p[:], syscall.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	r, w = os.NewFile(uintptr(p[0]), "r"), os.NewFile(uintptr(p[1]), "w")
	t.Cleanup(func() { r.Close(); w.Close() })
	return r, w
}

func TestEditorStdio(t *testing.T) {
	t.Run("pipes become non-blocking duplicates", func(t *testing.T) {
		inR, _ := blockingPipe(t)
		_, outW := blockingPipe(t)
		if nonblocking(t, inR) || nonblocking(t, outW) {
			t.Fatal("the test pipes start non-blocking")
		}
		in, out, done, err := editorStdio(zap.NewNop(), inR, outW)
		if err != nil {
			t.Fatal(err)
		}
		inF, outF := in.(*os.File), out.(*os.File)
		if inF == inR || outF == outW || fdOf(t, inF) == fdOf(t, inR) || fdOf(t, outF) == fdOf(t, outW) {
			t.Fatal("editorStdio returned the original descriptors, not duplicates")
		}
		done()
		// The duplicates are closed; the originals still work and are now
		// non-blocking (O_NONBLOCK belongs to the open file).
		if !nonblocking(t, inR) || !nonblocking(t, outW) {
			t.Fatal("the pipes are still blocking")
		}
		if _, err := outW.Write([]byte("still open\n")); err != nil {
			t.Fatalf("the original stdout was closed with its duplicate: %v", err)
		}
	})
	t.Run("a regular file is left alone", func(t *testing.T) {
		f, err := os.Create(filepath.Join(t.TempDir(), "out"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		_, out, done, err := editorStdio(zap.NewNop(), strings.NewReader(""), f)
		defer done()
		if err == nil || !strings.Contains(err.Error(), "stdout: not a pipe or socket") {
			t.Fatalf("err = %v, want stdout: not a pipe or socket", err)
		}
		if out != f || nonblocking(t, f) {
			t.Fatal("a regular file was changed")
		}
	})
	t.Run("a pipe shared with stderr is left alone", func(t *testing.T) {
		_, w := blockingPipe(t)
		if _, err := pollable(w, w); err == nil || !strings.Contains(err.Error(), "the same file as") {
			t.Fatalf("err = %v, want the same file", err)
		}
		if nonblocking(t, w) {
			t.Fatal("a pipe shared with stderr became non-blocking")
		}
	})
}
