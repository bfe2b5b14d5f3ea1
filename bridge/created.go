package bridge

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"unicode/utf8"

	"go.uber.org/zap"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/sandbox"
	"github.com/acp-bridge/acp-bridge/settings"
	"github.com/acp-bridge/acp-bridge/wire"
)

// createdWatch holds the protected places (sandbox.MissingProtected, from
// policy.Places) that did not exist in a session's directories when it
// started. The OS sandbox keeps a missing place that runs code from being
// created, except a repository where there was none (git init is ordinary
// work, docs/sandbox.md "Places, not files"): a new .git/config and hooks;
// an agent without the sandbox is not held at all. After each turn the bridge
// checks them and tells the person, in the chat and the log, which appeared.
// Safe for concurrent turns.
type createdWatch struct {
	mu      sync.Mutex
	missing []string
	// kept: the shared placeWatch's build (placeWatch.keepAll) that
	// watched every walk of missing, under createdKey(missing), before
	// missing was last found missing; 0 when none did. While the watch
	// still keeps that same build, nothing any of those walks read has
	// changed and none has appeared: a turn's end costs one poll(2), not a
	// listing of the home directory and the workspace (docs/benchmarks.md,
	// "Where the time goes").
	kept uint64
	key  string // createdKey(missing), "" until asked
}

func newCreatedWatch(roots ...string) *createdWatch {
	// Shared between sessions (sandbox.MissingProtected): a session that
	// changes its list makes its own (appeared builds a new one, forget
	// clones first).
	return &createdWatch{missing: sandbox.MissingProtected(roots...)}
}

// appeared returns the watched paths that exist now and stops watching them.
// A path for which skip is true (the bridge's own write for a person's grant
// is in flight) stays watched and is not returned.
func (w *createdWatch) appeared(skip func(string) bool) []string {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.missing) == 0 {
		return nil
	}
	pw := sharedPlaceWatch()
	if w.key == "" {
		w.key = createdKey(w.missing)
	}
	if w.kept != 0 && pw.keptSince(w.key) == w.kept {
		return nil
	}
	// Watched first, then read: a place made after the watch is in place
	// is queued for the next turn's check; one made before it is found now.
	w.kept = pw.keepAll(w.key, w.missing)
	var now, still []string
	skipped := false
	exist := existing(w.missing)
	for i, p := range w.missing {
		switch {
		case !exist[i]:
			still = append(still, p)
		case skip != nil && skip(p):
			// It exists: the next turn must look again, whatever the watch keeps.
			still, skipped = append(still, p), true
		default:
			now = append(now, p)
		}
	}
	if len(now) > 0 || skipped {
		w.kept = 0 // the list changed, or holds a place that exists
	}
	if len(now) > 0 {
		w.missing, w.key = still, "" // a new list: the old one may be shared (sandbox.MissingProtected)
	}
	return now
}

// createdKey names a list of missing places in the shared placeWatch.
func createdKey(missing []string) string {
	return "created\x00" + strings.Join(missing, "\x00")
}

// existing reports, for each path, what os.Lstat would: whether it
// exists. It runs after every turn, on the way to the prompt's answer, over
// about 40 paths in a handful of directories, where a system call costs
// several µs, so it reads each directory holding several of them once
// instead of walking every path, shallowest first: a directory its parent's
// listing does not name, or that cannot be reached (ENOENT, ENOTDIR), holds
// none of them, as lstat would find; a name a listing holds is confirmed
// with lstat (that path appeared: rare); a name it does not hold is missing
// unless the listing has a name a case-insensitive or normalising file
// system could take for it (equal under ASCII case folding, or not ASCII),
// when lstat decides. Any other failure to read a directory, and a directory
// holding more than listingBound names (an agent may fill one it can
// write), falls back to lstat for each path in it: the cost stays bounded
// whatever the agent puts there.
func existing(paths []string) []bool {
	out := make([]bool, len(paths))
	lstat := func(p string) bool {
		_, err := os.Lstat(p)
		return err == nil
	}
	byDir := map[string][]int{}
	var dirs []string
	for i, p := range paths {
		d := filepath.Dir(p)
		if _, ok := byDir[d]; !ok {
			dirs = append(dirs, d)
		}
		byDir[d] = append(byDir[d], i)
	}
	// shallowest first, so that a directory's parent is read before it
	slices.SortStableFunc(dirs, func(a, b string) int { return len(a) - len(b) })
	listed := map[string]*dirListing{} // nil: unreachable
	for _, d := range dirs {
		idx := byDir[d]
		if pl, ok := listed[filepath.Dir(d)]; ok && filepath.Dir(d) != d {
			if pl == nil || !pl.mayHold(filepath.Base(d)) {
				listed[d] = nil // its parent is unreachable or does not name it
				continue
			}
		}
		if len(idx) == 1 {
			out[idx[0]] = lstat(paths[idx[0]])
			continue
		}
		l, err := readListing(d)
		switch {
		case err == nil:
			listed[d] = &l
		case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
			listed[d] = nil
			continue
		default:
			for _, i := range idx {
				out[i] = lstat(paths[i])
			}
			continue
		}
		for _, i := range idx {
			if l.mayHold(filepath.Base(paths[i])) {
				out[i] = lstat(paths[i])
			}
		}
	}
	return out
}

// dirListing is what existing needs of a directory's names.
type dirListing struct {
	folded map[string]bool // the names, ASCII lower-cased
	odd    bool            // some name is not ASCII: any lookup may alias it
}

// mayHold says whether a lookup of name in the directory could find an
// entry: the name is listed, in some case, or a non-ASCII name might alias
// it.
func (l *dirListing) mayHold(name string) bool {
	return l.odd || l.folded[strings.ToLower(name)]
}

// listingBound is the most names existing reads of one directory: an agent
// can fill a directory it may write with any number of names, and reading
// them all at every turn's end would cost what the agent chose (300,000
// names: over a second and about 95 MiB). Past it the directory is not
// listed and each path in it gets its lstat, as if it could not be read.
const listingBound = 4096

// errListingTooLarge: the directory holds more than listingBound names.
var errListingTooLarge = errors.New("directory too large to list")

func readListing(dir string) (dirListing, error) {
	f, err := os.Open(dir)
	if err != nil {
		return dirListing{}, err
	}
	defer f.Close()
	l := dirListing{folded: map[string]bool{}}
	for n := 0; ; {
		names, err := f.Readdirnames(256)
		n += len(names)
		if n > listingBound {
			return dirListing{}, fmt.Errorf("%s: %w", dir, errListingTooLarge)
		}
		for _, name := range names {
			for j := 0; j < len(name); j++ {
				if name[j] >= utf8.RuneSelf {
					l.odd = true
					break
				}
			}
			l.folded[strings.ToLower(name)] = true
		}
		if errors.Is(err, io.EOF) {
			return l, nil
		}
		if err != nil {
			return dirListing{}, err
		}
	}
}

// watching reports whether p is watched (it was missing at the start and has
// not been reported or forgotten).
func (w *createdWatch) watching(p string) bool {
	if w == nil {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Contains(w.missing, p)
}

// forget stops watching p: it was created by the bridge (or the editor at its
// request) for a person's grant, not by the agent.
func (w *createdWatch) forget(p string) {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.kept, w.key = 0, ""
	if slices.Contains(w.missing, p) {
		w.missing = slices.DeleteFunc(slices.Clone(w.missing), func(m string) bool { return m == p }) // shared: sandbox.MissingProtected
	}
}

// ownWrite is a protected file a grant may create: the workspace's
// .vscode/settings.json (the editor's workspace settings) or the bridge's own
// workspace file.
//
// A person's "Always allow -> Workspace settings" (or a bypass stored there)
// makes the editor write .vscode/settings.json, through
// _acp-bridge/settings/persist, often during the agent's turn; if the editor
// cannot, the bridge writes .acp-bridge.yaml. Neither is the agent's doing,
// so neither may be reported as "appeared during the agent's turn". While a
// workspace-scope persist is in flight the files it may create are not
// reported (beginOwnWrites); when it succeeded, those that were missing when
// it began and exist now are forgotten by every session (endOwnWrites). A file
// the agent created before the persist began is still reported.
func (b *Bridge) ownWriteTargets() []string {
	var roots []string
	if b.opts.WorkspaceDir != "" {
		roots = append(roots, b.opts.WorkspaceDir)
	}
	b.mu.Lock()
	for _, s := range b.sessions {
		if s.cwd != "" && !slices.Contains(roots, s.cwd) {
			roots = append(roots, s.cwd)
		}
	}
	b.mu.Unlock()
	var out []string
	for _, r := range roots {
		out = append(out, filepath.Join(r, ".vscode", "settings.json"), filepath.Join(r, settings.WorkspaceFileName))
	}
	return out
}

// beginOwnWrites marks the targets of a workspace-scope persist as the
// bridge's own write and returns those that do not exist yet.
func (b *Bridge) beginOwnWrites() (targets, missing []string) {
	targets = b.ownWriteTargets()
	b.mu.Lock()
	if b.ownWrites == nil {
		b.ownWrites = map[string]int{}
	}
	for _, p := range targets {
		b.ownWrites[p]++
	}
	b.mu.Unlock()
	for _, p := range targets {
		if _, err := os.Lstat(p); os.IsNotExist(err) {
			missing = append(missing, p)
		}
	}
	return targets, missing
}

// endOwnWrites ends what beginOwnWrites began; ok: the grant was stored, so
// the files among missing that exist now are the bridge's (or the editor's,
// at its request) and no session reports them.
func (b *Bridge) endOwnWrites(targets, missing []string, ok bool) {
	if ok {
		var created []string
		for _, p := range missing {
			if _, err := os.Lstat(p); err == nil {
				created = append(created, p)
			}
		}
		if len(created) > 0 {
			b.mu.Lock()
			sessions := make([]*session, 0, len(b.sessions))
			for _, s := range b.sessions {
				sessions = append(sessions, s)
			}
			b.mu.Unlock()
			for _, s := range sessions {
				for _, p := range created {
					s.created.forget(p)
				}
			}
			b.log.Info("protected files created for a person's grant (not reported as the agent's)", zap.Strings("paths", created))
		}
	}
	b.mu.Lock()
	for _, p := range targets {
		if b.ownWrites[p]--; b.ownWrites[p] <= 0 {
			delete(b.ownWrites, p)
		}
	}
	b.mu.Unlock()
}

// ownWriteInFlight reports whether p is being written for a person's grant.
func (b *Bridge) ownWriteInFlight(p string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.ownWrites[p] > 0
}

// noticeCreated runs after a turn: protected paths that appeared during it
// are logged and put into the session's chat (before the turn's answer),
// marked _meta["acp-bridge"].notice = "protectedCreated".
func (b *Bridge) noticeCreated(s *session) {
	paths := s.created.appeared(b.ownWriteInFlight)
	if len(paths) == 0 {
		return
	}
	b.log.Warn("protected files appeared during a turn", zap.String("agent", s.agent.name), zap.String("session", s.id), zap.Strings("paths", paths))
	var t strings.Builder
	fmt.Fprintf(&t, "acp-bridge: these files did not exist when this session started and exist after this turn of %s. They can make another program (VS Code, git, an agent) run code outside the sandbox, which lets a new repository be created where there was none and holds nothing for an agent running without it. Review them:\n", s.agent.name)
	for _, p := range paths {
		fmt.Fprintf(&t, "- %s\n", p)
	}
	b.notifyEditor(acp.MethodSessionUpdate, map[string]any{
		"sessionId": s.id,
		"update": map[string]any{
			"sessionUpdate": "agent_message_chunk",
			"content":       map[string]any{"type": "text", "text": t.String()},
			"_meta":         map[string]any{acp.MetaKey: wire.NoticeMeta{Notice: wire.NoticeProtectedCreated, Paths: paths}},
		},
	})
}
