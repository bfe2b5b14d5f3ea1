package sandbox

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/acp-bridge/acp-bridge/policy"
)

// Places, not files (docs/sandbox.md): every protected place of the one
// table (policy.Places) that lies in a writable tree is read-only and a
// mount point, every directory from it up to the writable root is a mount
// point too (rename(2), rmdir(2) and unlink(2) of a mount point fail with
// EBUSY), and a missing place that runs code later is blocked by an empty
// read-only mount. What the sandbox finds:
//   - the table's InRoot places at each writable root and at each repository
//     root found below one (a directory holding .git);
//   - in every git directory found (the workspace's, nested repositories',
//     the target of a gitfile, of a commondir, a bare repository's, each
//     one already inside modules/ or worktrees/) the table's Git places:
//     config, hooks, info, commondir, the rebase and sequencer state, and
//     modules/ and worktrees/ themselves (read-only, their existing git
//     directories bound writable again inside);
//   - each repository's core.hooksPath target (.husky/ and the like);
//   - the table's InHome and InSystem places that lie in a writable tree.

// placeSet collects what Compute makes of the protected places.
type placeSet struct {
	writable []string
	// workspace are the workspace roots: missing places are blocked there
	// and in repositories, not in agents' state directories.
	workspace map[string]bool
	ro        map[string]bool
	pinned    map[string]bool
	blocked   map[string]bool // path -> dir
	copies    map[string]bool
	// rebound: git directories inside a read-only modules/ or worktrees/,
	// bound writable again (pinned) over it.
	rebound map[string]bool
	notes   []string
}

// rootOf is the outermost writable tree holding p ("" if none).
func (ps *placeSet) rootOf(p string) string {
	best := ""
	for _, w := range ps.writable {
		if (p == w || strings.HasPrefix(p, w+"/") || w == "/") && (best == "" || len(w) < len(best)) {
			best = w
		}
	}
	return best
}

func (ps *placeSet) isWritableRoot(p string) bool {
	for _, w := range ps.writable {
		if w == p {
			return true
		}
	}
	return false
}

// pin makes every directory from dir(p) up to (not including) its
// outermost writable root a mount point.
func (ps *placeSet) pin(p, root string) {
	for d := filepath.Dir(p); d != root && strings.HasPrefix(d, root+"/"); d = filepath.Dir(d) {
		if ps.isWritableRoot(d) {
			continue
		}
		if fi, err := os.Lstat(d); err == nil && fi.IsDir() {
			ps.pinned[d] = true
		}
	}
}

// protect handles one concrete place path.
func (ps *placeSet) protect(p string, pl policy.Place) {
	root := ps.rootOf(p)
	if root == "" {
		return
	}
	if p == root {
		// a writable tree that is itself a place: only an agent's own
		// state file (FloorCopy) is one.
		if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() && pl.Floor == policy.FloorCopy {
			ps.copies[p] = true
		}
		return
	}
	fi, err := os.Lstat(p)
	switch {
	case err == nil:
		if pl.Floor == policy.FloorCopy {
			if fi.Mode().IsRegular() {
				ps.copies[p] = true
				ps.pin(p, root)
			}
			return
		}
		ps.ro[p] = true
		ps.pin(p, root)
	case os.IsNotExist(err) && pl.RunsCode:
		// Block the first missing component: an empty read-only file or
		// directory there keeps the place from being created.
		// An existing empty directory on the way counts as missing: it is
		// blocked whole, nothing is created inside it (another sandbox's
		// mount point, or the person's empty .vscode).
		c := p
		for {
			parent := filepath.Dir(c)
			if parent == root || !strings.HasPrefix(parent, root+"/") {
				break
			}
			if fi, err := os.Lstat(parent); err == nil && !(fi.IsDir() && emptyDir(parent)) {
				break
			}
			c = parent
		}
		if parent := filepath.Dir(c); parent != root {
			if fi, err := os.Lstat(parent); err != nil || !fi.IsDir() {
				return // under a file or a link: nothing can be created there
			}
		}
		ps.blocked[c] = c != p || pl.Dir
		ps.pin(c, root)
	}
}

// expand gives the concrete paths of a place under base (globs expanded
// against what exists; a place with a glob that matches nothing is not
// blocked).
func expand(base, rel string) []string {
	p := filepath.Join(base, filepath.FromSlash(rel))
	if !strings.ContainsAny(rel, "*?[") {
		return []string{p}
	}
	m, _ := filepath.Glob(p)
	return m
}

// computePlaces fills ps from the table for these writable trees.
func computePlaces(ps *placeSet, home string, protected []string, extra []policy.Place, max int) {
	table := policy.Places()
	if ps.rebound == nil {
		ps.rebound = map[string]bool{}
	}
	var rootPlaces, gitPlaces []policy.Place
	for _, pl := range table {
		if pl.Base != policy.InRoot {
			continue
		}
		if pl.Floor == policy.FloorPolicy {
			continue // the policy's only (policy/places.go says why)
		}
		if pl.Git {
			g := pl
			g.Path = strings.TrimPrefix(pl.Path, ".git/")
			gitPlaces = append(gitPlaces, g)
		} else {
			rootPlaces = append(rootPlaces, pl)
		}
	}
	repoRoots := map[string]bool{} // root -> holds a repository
	gitDirs := map[string]string{} // git dir -> worktree root ("" for bare)
	for _, w := range ps.writable {
		if fi, err := os.Stat(w); err != nil || !fi.IsDir() {
			continue
		}
		if _, ok := repoRoots[w]; !ok {
			repoRoots[w] = false
		}
		n := 0
		err := filepath.WalkDir(w, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			n++
			if n > max {
				return errBound
			}
			name := d.Name()
			if name == ".git" {
				repoRoots[filepath.Dir(p)] = true
				if d.IsDir() {
					gitDirs[p] = filepath.Dir(p)
				} else if gd := readGitfile(p); gd != "" {
					gitDirs[gd] = filepath.Dir(p)
					// the gitfile itself names the git directory
					ps.protect(p, policy.Place{Path: p, What: "a gitfile"})
				}
				return filepath.SkipDir
			}
			if d.IsDir() && p != w && isBareRepo(p) {
				gitDirs[p] = ""
				return filepath.SkipDir
			}
			return nil
		})
		if err == errBound {
			ps.notes = append(ps.notes, "stopped looking for git repositories under "+w+" after "+strconv.Itoa(max)+" entries: repositories past that are protected only at their .git/config and hooks if at a writable root")
		}
	}
	for r, repo := range repoRoots {
		for _, pl := range rootPlaces {
			if !repo && !ps.workspace[r] {
				pl.RunsCode = false // a state directory: existing places only
			}
			for _, p := range expand(r, pl.Path) {
				ps.protect(p, pl)
			}
		}
	}
	// The git directories, with the ones their commondir names.
	// and the git directories held inside one (modules/*, worktrees/*: a
	// submodule's, a worktree's), at any depth, each a git directory of its
	// own.
	work := make([]string, 0, len(gitDirs))
	for gd := range gitDirs {
		work = append(work, gd)
	}
	sort.Strings(work)
	for len(work) > 0 {
		gd := work[0]
		work = work[1:]
		wt := gitDirs[gd]
		if cd := readCommondir(gd); cd != "" {
			if _, ok := gitDirs[cd]; !ok {
				gitDirs[cd] = wt
				work = append(work, cd)
			}
		}
		for _, pl := range gitPlaces {
			if !pl.Holds {
				continue
			}
			for _, sub := range expand(gd, pl.Path+"/*") {
				if fi, err := os.Lstat(sub); err != nil || !fi.IsDir() {
					continue
				}
				if _, ok := gitDirs[sub]; !ok && len(gitDirs) < max {
					gitDirs[sub] = ""
					work = append(work, sub)
				}
				ps.rebound[sub] = true
			}
		}
	}
	for gd, wt := range gitDirs {
		if fi, err := os.Lstat(gd); err != nil || !fi.IsDir() {
			continue
		}
		if r := ps.rootOf(gd); r != "" && r != gd {
			ps.pin(filepath.Join(gd, "x"), r) // the git directory and its parents
		}
		for _, pl := range gitPlaces {
			for _, p := range expand(gd, pl.Path) {
				ps.protect(p, pl)
			}
		}
		// core.hooksPath: hooks that run from a directory of the worktree.
		if hp := hooksPath(filepath.Join(gd, "config")); hp != "" {
			if strings.HasPrefix(hp, "~/") && home != "" {
				hp = filepath.Join(home, hp[2:])
			} else if !filepath.IsAbs(hp) {
				base := wt
				if base == "" {
					base = gd
				}
				hp = filepath.Join(base, hp)
			}
			ps.protect(filepath.Clean(hp), policy.Place{Path: hp, What: "git hooks (core.hooksPath)", RunsCode: true, Dir: true})
		}
	}
	if home != "" {
		for _, pl := range table {
			if pl.Base != policy.InHome || pl.Floor == policy.FloorPolicy {
				continue
			}
			for _, p := range expand(home, pl.Path) {
				ps.protect(p, pl)
			}
		}
	}
	for _, pl := range table {
		if pl.Base == policy.InSystem {
			ps.protect(pl.Path, pl)
		}
	}
	for _, pl := range extra {
		pl.Floor, pl.Git, pl.Holds = policy.FloorReadOnly, false, false
		switch {
		case pl.Base == policy.InHome && home != "" && !filepath.IsAbs(pl.Path):
			for _, p := range expand(home, pl.Path) {
				ps.protect(p, pl)
			}
		case pl.Base == policy.InSystem && filepath.IsAbs(pl.Path):
			ps.protect(filepath.Clean(pl.Path), pl)
		}
	}
	for _, p := range protected {
		if filepath.IsAbs(p) {
			ps.protect(filepath.Clean(p), policy.Place{Path: p, What: "a policy file"})
		}
	}
	// A place inside a read-only place or a blocked one needs nothing more.
	// (A directory pinned below a read-only one is bound writable again: a
	// git directory inside .git/modules; what lies below it is not covered.)
	var drop []string
	for p := range ps.ro {
		if ps.coveredRO(p) {
			drop = append(drop, p)
		}
	}
	for p := range ps.blocked {
		if ps.coveredRO(p) {
			drop = append(drop, p)
		}
	}
	for _, p := range drop {
		delete(ps.ro, p)
		delete(ps.blocked, p)
	}
	for p := range ps.pinned {
		// a pinned directory is bound writable: inside a read-only place
		// only a held git directory may be.
		if ps.ro[p] || (!ps.rebound[p] && ps.coveredRO(p)) {
			delete(ps.pinned, p)
		}
		if _, ok := ps.blocked[p]; ok {
			delete(ps.pinned, p)
		}
	}
}

// coveredRO: p lies inside a read-only or blocked place with no writable
// re-bound directory (a held git directory) between them.
func (ps *placeSet) coveredRO(p string) bool {
	for d := filepath.Dir(p); d != "/" && d != "."; d = filepath.Dir(d) {
		if _, ok := ps.blocked[d]; ok || ps.ro[d] {
			return true
		}
		if ps.rebound[d] {
			return false
		}
	}
	return false
}

// readGitfile reads a gitfile ("gitdir: PATH"): the git directory it names.
func readGitfile(p string) string {
	b, err := os.ReadFile(p)
	if err != nil || len(b) > 4096 {
		return ""
	}
	s := strings.TrimSpace(string(b))
	if !strings.HasPrefix(s, "gitdir:") {
		return ""
	}
	gd := strings.TrimSpace(strings.TrimPrefix(s, "gitdir:"))
	if !filepath.IsAbs(gd) {
		gd = filepath.Join(filepath.Dir(p), gd)
	}
	return filepath.Clean(gd)
}

// readCommondir: the directory a git directory's commondir file names.
func readCommondir(gd string) string {
	b, err := os.ReadFile(filepath.Join(gd, "commondir"))
	if err != nil || len(b) > 4096 {
		return ""
	}
	cd := strings.TrimSpace(string(b))
	if cd == "" {
		return ""
	}
	if !filepath.IsAbs(cd) {
		cd = filepath.Join(gd, cd)
	}
	return filepath.Clean(cd)
}

// isBareRepo: p looks like a git directory (HEAD, config, objects/): a
// planted bare repository that git -C reads.
func isBareRepo(p string) bool {
	for _, n := range []string{"HEAD", "config"} {
		if fi, err := os.Lstat(filepath.Join(p, n)); err != nil || !fi.Mode().IsRegular() {
			return false
		}
	}
	fi, err := os.Lstat(filepath.Join(p, "objects"))
	return err == nil && fi.IsDir()
}

// hooksPath reads core.hooksPath from a git config file ("" if unset or
// unreadable). Includes are not followed: an include's target is itself
// config that the table protects only where it lies in a git directory.
func hooksPath(config string) string {
	f, err := os.Open(config)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	section, val := "", ""
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(l, "[") {
			i := strings.IndexByte(l, ']')
			if i < 0 {
				section = ""
				continue
			}
			// [core], [core "sub"]: the section's name
			section = strings.ToLower(strings.Fields(l[1:i] + " x")[0])
			if l = strings.TrimSpace(l[i+1:]); l == "" { // [core] hooksPath = x
				continue
			}
		}
		k, v, ok := strings.Cut(l, "=")
		if ok && section == "core" && strings.EqualFold(strings.TrimSpace(k), "hookspath") {
			val = strings.Trim(strings.TrimSpace(v), "\"")
		}
	}
	return val
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// emptyDir: d is a directory with no entries.
func emptyDir(d string) bool {
	f, err := os.Open(d)
	if err != nil {
		return false
	}
	defer f.Close()
	names, _ := f.Readdirnames(1)
	return len(names) == 0
}
