package bridge

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/internal/testkit"
	"github.com/acp-bridge/acp-bridge/sandbox"
)

// createdNotices are the protectedCreated notices of a session so far.
func createdNotices(ms []testkit.Message, sid string) []string {
	var out []string
	for _, m := range ms {
		if m.Method == acp.MethodSessionUpdate && strings.Contains(string(m.Params), `"notice":"protectedCreated"`) && strings.Contains(string(m.Params), sid) {
			out = append(out, string(m.Params))
		}
	}
	return out
}

// A turn in which the agent creates protected files that did not exist
// (git init with a hook, VS Code tasks): before the turn's answer the chat
// gets a notice naming each; a later turn does not repeat it; a file that
// existed at the start is never named.
func TestCreatedProtectedFilesAreNamed(t *testing.T) {
	h := start(t, "defaultAgent: plain\nagents:\n"+testkit.FakeAgentYAML("plain", "--modes=none"))
	h.init(false)
	if err := os.WriteFile(filepath.Join(h.ws, ".mcp.json"), []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	sid := h.session("")
	ctx := tctx(t)
	if _, err := h.editor.Prompt(ctx, sid, "run mkdir -p .git/hooks .vscode && echo x > .git/config && echo '{}' > .vscode/tasks.json && echo '{}' > .mcp.json"); err != nil {
		t.Fatal(err)
	}
	got := createdNotices(h.editor.Messages(), sid)
	if len(got) != 1 {
		t.Fatalf("want one protectedCreated notice before the answer, got %d: %v", len(got), got)
	}
	for _, want := range []string{".git/config", ".git/hooks", "outside the sandbox"} {
		if !strings.Contains(got[0], want) {
			t.Errorf("notice lacks %q: %s", want, got[0])
		}
	}
	if sandbox.Probe().Available {
		// a missing place that runs code cannot be created in the sandbox
		// (docs/sandbox.md "Places, not files"); a repository can.
		if _, err := os.Stat(filepath.Join(h.ws, ".vscode", "tasks.json")); err == nil {
			t.Errorf(".vscode/tasks.json was created through the sandbox")
		}
	} else if !strings.Contains(got[0], ".vscode/tasks.json") {
		t.Errorf("notice lacks .vscode/tasks.json: %s", got[0])
	}
	if strings.Contains(got[0], ".mcp.json") {
		t.Errorf("a file that existed at the start is named: %s", got[0])
	}
	if _, err := h.editor.Prompt(ctx, sid, "run true"); err != nil {
		t.Fatal(err)
	}
	if n := len(createdNotices(h.editor.Messages(), sid)); n != 1 {
		t.Errorf("the notice was repeated: %d", n)
	}
	if !slices.Contains(newCreatedWatch(h.ws).missing, filepath.Join(h.ws, ".vscode", "settings.json")) {
		t.Error("a new watch still lists what is missing")
	}
}

// "Always allow -> Workspace settings" makes the editor create
// .vscode/settings.json for the person's grant, while the agent's turn runs
// (here the editor's write is still in flight when the turn ends): that file
// is never reported as the agent's, in this turn or a later one. A protected
// file the agent itself creates in the same turn still is.
func TestGrantWrittenForThePersonIsNotReportedAsCreated(t *testing.T) {
	// Unconfined: in the OS sandbox a missing .vscode is blocked and the
	// agent could not create its tasks.json (sandbox/places.go); the
	// notice is what an agent without the sandbox leaves to the person.
	h := start(t, "defaultAgent: plain\nsandbox: {enabled: false}\nagents:\n"+testkit.FakeAgentYAML("plain", "--modes=none"))
	settingsJSON := filepath.Join(h.ws, ".vscode", "settings.json")
	turnDone := make(chan struct{})
	persisted := make(chan struct{})
	h.editor.OnRequest = func(method string, params json.RawMessage) (any, error) {
		if method != acp.MethodSettingsPersist {
			return nil, acp.MethodNotFound(method)
		}
		if err := os.MkdirAll(filepath.Dir(settingsJSON), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(settingsJSON, []byte(`{"acpBridge.permissions":{"allow":["Bash(touch *)"]}}`), 0o600); err != nil {
			return nil, err
		}
		<-turnDone // the turn ends while the editor's write is in flight
		close(persisted)
		return map[string]bool{"persisted": true}, nil
	}
	h.init(false)
	sid := h.session("")
	res := h.promptAsync(sid, "perm keep")
	p, err := h.editor.NextPermission(tctx(t))
	if err != nil {
		t.Fatal(err)
	}
	p.Answer(acp.RequestPermissionResponse{Outcome: acp.PermissionOutcome{Outcome: acp.OutcomeSelected, OptionID: optAllowAlways},
		Meta: json.RawMessage(`{"acp-bridge":{"rule":"Bash(touch *)","scope":"workspace"}}`)})
	wait(t, res, "prompt")
	close(turnDone)
	select {
	case <-persisted:
	case <-tctx(t).Done():
		t.Fatal("settings/persist never answered")
	}
	if got := createdNotices(h.editor.Messages(), sid); len(got) != 0 {
		t.Fatalf("the editor's write for the person's grant was reported as the agent's: %v", got)
	}
	// Once the persist is done the file is forgotten: a later turn (in which
	// the agent creates another protected file) names only the agent's file.
	ctx := tctx(t)
	for h.bridgeWatching(sid, settingsJSON) {
		select {
		case <-ctx.Done():
			t.Fatal("settings.json is still watched after the persist succeeded")
		case <-time.After(10 * time.Millisecond):
		}
	}
	if _, err := h.editor.Prompt(ctx, sid, "run mkdir -p .vscode && echo '{}' > .vscode/tasks.json"); err != nil {
		t.Fatal(err)
	}
	got := createdNotices(h.editor.Messages(), sid)
	if len(got) != 1 || !strings.Contains(got[0], "tasks.json") || strings.Contains(got[0], "settings.json") {
		t.Fatalf("want one notice naming tasks.json only, got %v", got)
	}
}

// bridgeWatching: whether the session still watches p.
func (h *harness) bridgeWatching(sid, p string) bool {
	s, err := h.bridge.session(sid)
	if err != nil {
		h.t.Fatal(err)
	}
	return s.created.watching(p)
}

// existing answers what os.Lstat answers for every path, whatever the
// directory holding it is: present, missing, a file, a link to a
// directory, a dangling link, holding a case variant or a non-ASCII name;
// the watch's own paths in a workspace, before and after some appear.
func TestExistingAgreesWithLstat(t *testing.T) {
	root := t.TempDir()
	mk := func(rel string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	mk("d/a")
	mk("d/.ENVRC")
	mk("u/K\u212a") // Kelvin sign: a case-insensitive lookup may alias "kk"
	mk("file")
	mk("real/x")
	if err := os.Symlink(filepath.Join(root, "real"), filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "nowhere"), filepath.Join(root, "dangling")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a", filepath.Join(root, "d", "b")); err != nil { // a link exists (lstat)
		t.Fatal(err)
	}
	if err := os.Symlink("gone", filepath.Join(root, "d", "c")); err != nil { // a dangling link exists too
		t.Fatal(err)
	}
	var paths []string
	for _, rel := range []string{
		"d/a", "d/b", "d/c", "d/.envrc", "d/.ENVRC", "d/missing", "d/sub/x",
		"u/kk", "u/KK", "u/z",
		"file/a", "file/b",
		"link/x", "link/y",
		"dangling/a", "dangling/b",
		"none/a", "none/b",
		"sub/a", "sub/b",
		"single", "file", "LINK", // the root is read too: its listing decides for d, u, link, none, ...
		"none/deeper/a", "none/deeper/b",
	} {
		paths = append(paths, filepath.Join(root, filepath.FromSlash(rel)))
	}
	ws := t.TempDir()
	watched := sandbox.MissingProtected(ws)
	check := func(paths []string) {
		t.Helper()
		got := existing(paths)
		for i, p := range paths {
			_, err := os.Lstat(p)
			if want := err == nil; got[i] != want {
				t.Errorf("existing(%s) = %v, os.Lstat says %v (%v)", p, got[i], want, err)
			}
		}
	}
	check(paths)
	check(watched)
	if len(watched) < 10 {
		t.Fatalf("only %d watched places in an empty workspace", len(watched))
	}
	// Some of them appear: a directory of several, a file in the root.
	for _, p := range watched {
		if strings.HasSuffix(p, filepath.Join(".vscode", "tasks.json")) || strings.HasSuffix(p, ".envrc") || strings.HasSuffix(p, filepath.Join(".git", "hooks")) {
			if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	check(watched)
	n := 0
	for _, e := range existing(watched) {
		if e {
			n++
		}
	}
	if n != 3 {
		t.Fatalf("%d of the watched places exist, want the 3 written", n)
	}
}

// fill makes n empty files named f0..f<n-1> in dir.
func fill(t testing.TB, dir string, n int) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		fh, err := os.Create(filepath.Join(dir, "f"+strconv.Itoa(i)))
		if err != nil {
			t.Fatal(err)
		}
		fh.Close()
	}
}

// Red team 10: an agent that fills the workspace root with names made every
// turn's end list them all. Past listingBound names a directory is not
// listed (one lstat per path in it), and the answer is still os.Lstat's.
func TestExistingHugeDirectoryAgreesWithLstat(t *testing.T) {
	root := t.TempDir()
	fill(t, root, listingBound+500)
	for _, d := range []string{".git", "sub"} {
		if err := os.Mkdir(filepath.Join(root, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "sub", "x"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := readListing(root); !errors.Is(err, errListingTooLarge) {
		t.Fatalf("readListing of %d names: %v, want errListingTooLarge", listingBound+500, err)
	}
	var paths []string
	for _, rel := range []string{"f0", "f4100", "f4595", "f4596", "F0", ".git", ".GIT", ".envrc", "missing",
		"sub/x", "sub/y", ".git/config", "nothere/a", "nothere/b"} {
		paths = append(paths, filepath.Join(root, rel))
	}
	got := existing(paths)
	for i, p := range paths {
		_, err := os.Lstat(p)
		if got[i] != (err == nil) {
			t.Errorf("existing(%s) = %v, os.Lstat: %v", p, got[i], err)
		}
	}
}

// The cost of existing does not grow with the number of names the agent
// put in a directory: allocations with 4× as many names stay the same.
func TestExistingCostBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("makes 25,000 files")
	}
	allocs := func(n int) float64 {
		root := t.TempDir()
		fill(t, root, n)
		paths := []string{filepath.Join(root, ".git"), filepath.Join(root, ".envrc"), filepath.Join(root, "f1"), filepath.Join(root, ".vscode")}
		return testing.AllocsPerRun(3, func() { existing(paths) })
	}
	small, big := allocs(listingBound+1000), allocs(4*(listingBound+1000))
	if big > small*1.1+16 {
		t.Errorf("existing's allocations grow with the directory: %.0f with %d names, %.0f with %d", small, listingBound+1000, big, 4*(listingBound+1000))
	}
	// and they are bounded by the listing's bound, not the directory
	if big > 3*listingBound {
		t.Errorf("existing allocates %.0f times for one directory, past the bound of %d names", big, listingBound)
	}
	t.Logf("allocations: %.0f (%d names), %.0f (%d names)", small, listingBound+1000, big, 4*(listingBound+1000))
}
