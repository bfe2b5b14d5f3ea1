package bridge

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/acp-bridge/acp-bridge/policy"
)

// placeTree is a workspace, a home and a place elsewhere in a temp dir on
// a file system the watch trusts.
func placeTree(t *testing.T) (root string, places []string) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var st unix.Statfs_t
	if err := unix.Statfs(root, &st); err != nil || !localFS(int64(st.Type)) {
		t.Skipf("temp dir %s is on a file system the watch does not trust (type %#x)", root, st.Type)
	}
	for _, d := range []string{"ws/.git/hooks", "home/.config/git", "home/.ssh", "elsewhere/v", "elsewhere/w",
		"elsewhere/cfg/git", "elsewhere/g1", "elsewhere/g2", "elsewhere/ws2", "elsewhere/m", "mid"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{"ws/.vscode", "ws/.vscode/settings.json", "ws/.git", "ws/.git/hooks",
		"home/.config/git/config", "home/.bashrc", "home/.ssh/authorized_keys", "home/.config/opencode"} {
		places = append(places, filepath.Join(root, p))
	}
	return root, places
}

// The watch answers, after every change made between two decisions, what
// resolving each place afresh answers: links made where nothing was,
// retargeted, an ancestor replaced by a link, a rename over a place, a
// dangling link, a link in the middle of a chain, a bind mount. The
// control reads what the watch kept without reading the kernel's queue:
// it is stale after each of these changes, so the check is what keeps the
// answer true. A change to an entry no resolution read keeps what is kept.
func TestPlaceWatchSeesEveryChangeBetweenDecisions(t *testing.T) {
	root, places := placeTree(t)
	j := func(p string) string { return filepath.Join(root, p) }
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	w := newPlaceWatch()
	defer w.reset()
	invalidations := 0
	w.changed = func() { invalidations++ }
	const key = "test"

	fresh := func() []string {
		out := make([]string, len(places))
		for i, p := range places {
			out[i] = policy.ResolveReal(policy.OSFS{}, p)
		}
		return out
	}
	answer := func() (got []string, kept int) {
		got = slices.Clone(w.realPlaces(key, places))
		if got == nil {
			t.Fatal("the watch keeps nothing (inotify or /proc/self/mountinfo unavailable)")
		}
		for i, r := range got {
			if r == "" {
				got[i] = policy.ResolveReal(policy.OSFS{}, places[i])
			} else {
				kept++
			}
		}
		return got, kept
	}
	if got, kept := answer(); !slices.Equal(got, fresh()) || kept < len(places)-1 {
		t.Fatalf("first answer %v (%d kept), want %v with every place kept", got, kept, fresh())
	}

	steps := []struct {
		name   string
		change func()
	}{
		{"a link made where nothing was", func() { must(os.Symlink(j("elsewhere/v"), j("ws/.vscode"))) }},
		{"a link retargeted", func() {
			must(os.Remove(j("ws/.vscode")))
			must(os.Symlink(j("elsewhere/w"), j("ws/.vscode")))
		}},
		{"an ancestor directory replaced by a link", func() {
			must(os.Rename(j("home/.config"), j("home/.config.old")))
			must(os.Symlink(j("elsewhere/cfg"), j("home/.config")))
		}},
		{"the workspace root replaced by a link", func() {
			must(os.Rename(j("ws"), j("ws.old")))
			must(os.Symlink(j("elsewhere/ws2"), j("ws")))
		}},
		{"a link renamed over a place", func() {
			must(os.Symlink(j("elsewhere/v/rc"), j("home/tmp-link")))
			must(os.Rename(j("home/tmp-link"), j("home/.bashrc")))
		}},
		{"a dangling link as a directory", func() {
			must(os.RemoveAll(j("home/.ssh")))
			must(os.Symlink(j("elsewhere/missing/ssh"), j("home/.ssh")))
		}},
		{"a link in the middle of a chain retargeted", func() {
			must(os.Symlink(j("elsewhere/g1"), j("mid/link")))
			must(os.Symlink(j("mid/link"), j("elsewhere/ws2/.git")))
			if _, kept := answer(); kept == 0 {
				t.Fatal("nothing kept after the chain was made")
			}
			must(os.Remove(j("mid/link")))
			must(os.Symlink(j("elsewhere/g2"), j("mid/link")))
		}},
		{"a bind mount over a place's directory", func() {
			if os.Geteuid() != 0 {
				t.Skip("bind mount needs root")
			}
			must(os.Symlink(j("elsewhere/v/config"), j("elsewhere/m/config")))
			must(unix.Mount(j("elsewhere/m"), j("elsewhere/cfg/git"), "", unix.MS_BIND, ""))
			t.Cleanup(func() { _ = unix.Unmount(j("elsewhere/cfg/git"), unix.MNT_DETACH) })
		}},
	}
	for _, s := range steps {
		before := fresh()
		s.change()
		want := fresh()
		if slices.Equal(before, want) {
			t.Fatalf("%s: the change changed no place's resolution (the step tests nothing)", s.name)
		}
		stale := slices.Clone(w.entries[key]) // control: what is kept, the queue unread
		for i, r := range stale {
			if r == "" {
				stale[i] = want[i]
			}
		}
		if slices.Equal(stale, want) {
			t.Errorf("%s: control: what the watch kept still matches without reading the queue", s.name)
		}
		n := invalidations
		got, kept := answer()
		if !slices.Equal(got, want) {
			t.Errorf("%s: the watch answered\n  %v\nresolving afresh gives\n  %v", s.name, got, want)
		}
		if invalidations == n {
			t.Errorf("%s: nothing was dropped", s.name)
		}
		if kept == 0 {
			t.Errorf("%s: nothing is kept after the rebuild", s.name)
		}
	}

	// A change to an entry no resolution read (a file beside the places)
	// keeps what is kept: the next answer is the same slice, no rebuild.
	first := w.realPlaces(key, places)
	n := invalidations
	must(os.WriteFile(j("elsewhere/ws2/unrelated.txt"), []byte("x"), 0o600))
	must(os.Mkdir(j("elsewhere/ws2/build"), 0o755))
	again := w.realPlaces(key, places)
	if invalidations != n || len(again) == 0 || &again[0] != &first[0] {
		t.Errorf("an unrelated write dropped what was kept (%d drops)", invalidations-n)
	}
}

// The engine, deciding with the bridge's file system, sees a protected
// place made a link between two decisions: a write where the workspace's
// .vscode now leads is no longer allowed in bypassPermissions. The first
// decision (before the link) allows the same write: the control.
func TestPlaceWatchEngineSeesLinkMadeBetweenCalls(t *testing.T) {
	root, _ := placeTree(t)
	in := func() policy.Input {
		return policy.Input{
			Call: policy.Call{Tool: "Bash", Command: "touch " + root + "/elsewhere/v/settings.json"},
			Mode: policy.ModeBypass,
			Env:  policy.Env{Cwd: root + "/ws", ProjectRoot: root + "/ws", Home: root + "/home", FS: newCallFS()},
		}
	}
	for round := range 3 { // the watch is warm from the second round on
		if v := policy.Evaluate(in()); v.Decision != policy.Allow {
			t.Fatalf("round %d: control: the write was not allowed before any link: %+v", round, v)
		}
	}
	if err := os.Symlink(root+"/elsewhere/v", root+"/ws/.vscode"); err != nil {
		t.Fatal(err)
	}
	if v := policy.Evaluate(in()); v.Decision == policy.Allow {
		t.Fatalf("a write where .vscode leads, made a link after the last decision, was allowed: %+v", v)
	}
}

// With the watch warm, a decision reads no protected place from the disk:
// the callFS of the decision lstats only the call's own path. Without the
// watch (the control) it lstats every place.
func TestPlaceWatchSavesTheLstats(t *testing.T) {
	root, _ := placeTree(t)
	decide := func(fs *callFS) int {
		policy.Evaluate(policy.Input{
			Call: policy.Call{Tool: "Edit", Paths: []string{root + "/ws/src/main.go"}},
			Mode: policy.ModeAcceptEdits,
			Env:  policy.Env{Cwd: root + "/ws", ProjectRoot: root + "/ws", Home: root + "/home", FS: fs},
		})
		n := len(fs.lstat) // before seal, which lets go of what was kept
		fs.seal()
		return n
	}
	decide(newCallFS()) // warm
	with := decide(newCallFS())
	without := decide(newPlainCallFS())
	if without < 20 {
		t.Fatalf("control: a decision without the watch lstat'ed only %d paths", without)
	}
	if with > 8 {
		t.Errorf("a decision with the watch warm lstat'ed %d paths (without: %d)", with, without)
	}
}

// inotifyEvents packs events (watch descriptor, mask, name) as the kernel
// does, names NUL-padded.
func inotifyEvents(evs ...struct {
	wd   int32
	mask uint32
	name string
}) []byte {
	var b []byte
	for _, e := range evs {
		n := 0
		if e.name != "" {
			n = (len(e.name) + 1 + 15) / 16 * 16
		}
		hdr := make([]byte, unix.SizeofInotifyEvent)
		ev := (*unix.InotifyEvent)(unsafe.Pointer(&hdr[0]))
		ev.Wd, ev.Mask, ev.Len = e.wd, e.mask, uint32(n)
		name := make([]byte, n)
		copy(name, e.name)
		b = append(append(b, hdr...), name...)
	}
	return b
}

// Red team 10: in a case-folding directory `ln -s X .GIT` raises ".GIT"
// while the watch waits for ".git"; a name a lookup of a watched one could
// find (same under case folding, or not ASCII) drops what is kept. This
// kernel has no casefold, so the unit: relevant() on the events.
func TestPlaceWatchRelevantCaseFolding(t *testing.T) {
	w := &placeWatch{names: map[int32]map[string]bool{
		1: {".git": true, "settings.json": true},
		2: {".vscode": true},
	}}
	for _, tc := range []struct {
		wd   int32
		name string
		want bool
	}{
		{1, ".git", true},
		{1, ".GIT", true},
		{1, ".Git", true},
		{1, "SETTINGS.JSON", true},
		{1, "Settings.Json", true},
		{2, ".VSCODE", true},
		{2, ".vſcode", true}, // long s: folds to s (Unicode simple folding), not ASCII
		{1, ".gıt", true},    // dotless i: not ASCII
		{1, ".git\u200d", true},
		{1, "other", false},
		{1, ".gitx", false},
		{2, ".git", false}, // watched in another directory only
		{3, ".git", false}, // an unknown watch, a name no lookup reads
	} {
		b := inotifyEvents(struct {
			wd   int32
			mask uint32
			name string
		}{tc.wd, unix.IN_CREATE, tc.name})
		if got := w.relevant(b); got != tc.want {
			t.Errorf("relevant(wd %d, %q) = %v, want %v", tc.wd, tc.name, got, tc.want)
		}
	}
	// an irrelevant event before a relevant one: the batch is relevant
	b := inotifyEvents(struct {
		wd   int32
		mask uint32
		name string
	}{1, unix.IN_CREATE, "other"}, struct {
		wd   int32
		mask uint32
		name string
	}{1, unix.IN_CREATE, ".GIT"})
	if !w.relevant(b) {
		t.Error("a folded name after an unrelated one was not seen")
	}
}
