package bridge

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/acp-bridge/acp-bridge/policy"
)

// Red team 10: more kinds of change between two decisions, some made from
// inside a real bubblewrap sandbox or another mount namespace. Each step
// compares the watch's answer with a fresh resolution; the control is the
// kept answer read without the queue.
func TestPlaceWatchExoticChanges(t *testing.T) {
	root, places := placeTree(t)
	j := func(p string) string { return filepath.Join(root, p) }
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	sh := func(args ...string) func() {
		return func() {
			out, err := exec.Command(args[0], args[1:]...).CombinedOutput()
			if err != nil {
				t.Fatalf("%v: %v\n%s", args, err, out)
			}
		}
	}
	w := newPlaceWatch()
	defer w.reset()
	const key = "exotic"
	fresh := func() []string {
		out := make([]string, len(places))
		for i, p := range places {
			out[i] = policy.ResolveReal(policy.OSFS{}, p)
		}
		return out
	}
	answer := func() []string {
		got := slices.Clone(w.realPlaces(key, places))
		for i, r := range got {
			if r == "" {
				got[i] = policy.ResolveReal(policy.OSFS{}, places[i])
			}
		}
		return got
	}
	must(os.Mkdir(j("ws/.vscode"), 0o755))
	_ = answer()
	bw := func(script string) func() {
		return sh("bwrap", "--bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-all", "--die-with-parent", "sh", "-c", script)
	}
	steps := []struct {
		name   string
		change func()
	}{
		{"RENAME_EXCHANGE of .vscode with a link", func() {
			must(os.Symlink(j("elsewhere/v"), j("ws/xlink")))
			must(unix.Renameat2(unix.AT_FDCWD, j("ws/.vscode"), unix.AT_FDCWD, j("ws/xlink"), unix.RENAME_EXCHANGE))
		}},
		{"hard link of a symlink onto a place (linkat, no follow)", func() {
			must(os.Symlink(j("elsewhere/w"), j("mid/l2")))
			must(os.Remove(j("ws/.vscode")))
			must(unix.Linkat(unix.AT_FDCWD, j("mid/l2"), unix.AT_FDCWD, j("ws/.vscode"), 0))
		}},
		{"link made inside a bwrap sandbox (another mount ns)", bw(fmt.Sprintf("rm %s && ln -s %s %s", j("ws/.vscode"), j("elsewhere/g1"), j("ws/.vscode")))},
		{"ancestor renamed inside a bwrap sandbox", bw(fmt.Sprintf("mv %s %s && ln -s %s %s", j("home/.config"), j("home/.config.x"), j("elsewhere/cfg"), j("home/.config")))},
		{"queue overflow then a link", func() {
			for i := 0; i < 20000; i++ {
				f := j(fmt.Sprintf("ws/junk%d", i%50))
				_ = os.WriteFile(f, nil, 0o600)
				_ = os.Remove(f)
			}
			must(os.Remove(j("ws/.vscode")))
			must(os.Symlink(j("elsewhere/g2"), j("ws/.vscode")))
		}},
		{"bind mount in a child mount ns propagating back (shared)", func() {
			if os.Geteuid() != 0 {
				t.Skip("root")
			}
			// make the tree a shared mount in our namespace, then mount from a child ns
			must(unix.Mount(j("elsewhere"), j("elsewhere"), "", unix.MS_BIND, ""))
			t.Cleanup(func() { _ = unix.Unmount(j("elsewhere"), unix.MNT_DETACH) })
			must(unix.Mount("", j("elsewhere"), "", unix.MS_SHARED, ""))
			must(os.Symlink(j("elsewhere/v/config"), j("elsewhere/m/config")))
			sh("unshare", "-m", "--propagation", "unchanged", "mount", "--bind", j("elsewhere/m"), j("elsewhere/cfg/git"))()
			t.Cleanup(func() { _ = unix.Unmount(j("elsewhere/cfg/git"), unix.MNT_DETACH) })
		}},
	}
	for _, s := range steps {
		t.Logf("step: %s", s.name)
		_ = answer() // kept again
		before := fresh()
		s.change()
		want := fresh()
		if slices.Equal(before, want) {
			t.Errorf("%s: the change changed no resolution (tests nothing)", s.name)
			continue
		}
		stale := slices.Clone(w.entries[key])
		for i, r := range stale {
			if r == "" {
				stale[i] = want[i]
			}
		}
		if slices.Equal(stale, want) {
			t.Logf("%s: control: kept answer already matches", s.name)
		}
		if got := answer(); !slices.Equal(got, want) {
			t.Errorf("%s: the watch answered\n  %v\nresolving afresh gives\n  %v", s.name, got, want)
		}
	}
}
