package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/acp-bridge/acp-bridge/policy"
)

// Network is what an agent process may reach.
type Network string

const (
	// NetworkAll leaves the network as it is (the agent needs its model API).
	NetworkAll Network = "all"
	// NetworkNone gives the agent a network namespace of its own with only
	// its own loopback: nothing outside the sandbox is reachable.
	NetworkNone Network = "none"
	// NetworkLoopback: a network namespace of its own, and the filtering
	// proxy (proxy.go) reaches only the machine's loopback addresses.
	NetworkLoopback Network = "loopback"
	// NetworkDomains: a network namespace of its own, and the filtering
	// proxy reaches only the hosts the policy allows WebFetch to without
	// asking (WebFetch allow rules, minus deny rules) and
	// sandbox.allowDomains.
	NetworkDomains Network = "domains"
)

// Networks are the valid network settings.
var Networks = []Network{NetworkAll, NetworkNone, NetworkLoopback, NetworkDomains}

// ParseNetwork reads a network setting; "" is NetworkAll.
func ParseNetwork(s string) (Network, error) {
	if s == "" {
		return NetworkAll, nil
	}
	for _, n := range Networks {
		if Network(s) == n {
			return n, nil
		}
	}
	return "", fmt.Errorf("sandbox network %q: want all, none, loopback or domains", s)
}

// Proxied: the network goes through the filtering proxy.
func (n Network) Proxied() bool { return n == NetworkLoopback || n == NetworkDomains }

// Options are the inputs of Compute.
type Options struct {
	// Workspace are the writable roots: the workspace, additionalDirectories,
	// the agent's working directory. Absolute.
	Workspace []string
	// Home is the user's home directory.
	Home string
	// StateDirs are the agent's own state directories and files (its profile's
	// defaults, see StateDirs): writable. Missing directories are created.
	StateDirs []string
	// AllowWrite are more writable paths (sandbox.allowWrite).
	AllowWrite []string
	// Protected are policy files the bridge knows by absolute path (its user
	// config file and directory): read-only even where writes are allowed.
	Protected []string
	// Places are more protected places beside the table (policy.Places):
	// InHome relative to Home, InSystem absolute. The bridge gives every
	// agent profile's config places (profiles.AllConfigPlaces); a private
	// home's are its own (Homes). Floor and Git are ignored (read-only).
	Places []policy.Place
	// Network is what the agent may reach.
	Network Network
	// Policy and Env give the Read and Edit deny rules: paths they deny are
	// masked (Read) or kept read-only (Edit). Env.FS is ignored (the real
	// file system is used).
	Policy *policy.Policy
	Env    policy.Env
	// MaxEntries bounds each directory walk (0 = 50,000 entries). Past it the
	// walk stops and Spec.Notes says where.
	MaxEntries int
	// Hidden are directories masked whatever the policy says: the bridge's
	// attach socket directory (internal/attach), whose socket would let an
	// agent try to attach as the editor and answer its own requests.
	Hidden []string
	// EnvKeep: see Spec.EnvKeep (the agent family's model keys, the names
	// the person's agent config sets).
	EnvKeep []string
	// Getenv reads the bridge's environment for the host IPC sockets it
	// names (SSH_AUTH_SOCK, XDG_RUNTIME_DIR); nil is os.Getenv.
	Getenv func(string) string
	// Homes are the process's private state homes (MakeHome): writable,
	// their copies and config places as Spec.Homes says.
	Homes []*Home
	// Programs are files that run outside every sandbox with the bridge's
	// rights (the bridge's own executable, its companion acp-bridge-org, a
	// decision hook's program and scripts): places that run code, so inside
	// a writable tree each is read-only with its directories pinned, and a
	// missing one is blocked (no agent plants one for the bridge to run).
	Programs []string
	// FileBoundOnly: the Spec only bounds the editor's file service for an
	// agent that runs unconfined (bridge.SandboxPlan.Bound). Host sockets
	// are then not looked for: they are reached by connect(2), which the
	// file service never does, and the scan is the costliest part of a
	// start.
	FileBoundOnly bool
}

// Spec is the sandbox of one agent process.
type Spec struct {
	// Masked are existing paths a Read deny rule names: unreadable inside.
	Masked []Path
	// Writable are the trees the agent may write (created if missing).
	Writable []string
	// ReadOnly are existing paths inside Writable kept read-only (and mount
	// points): protected places (policy.Places) and Edit-denied paths.
	ReadOnly []string
	// Pinned are existing directories inside Writable, each an ancestor of
	// a protected place up to its writable root: bound onto themselves so
	// that they are mount points, which cannot be renamed, replaced or
	// removed. They stay writable.
	Pinned []string `json:",omitempty"`
	// Blocked are missing protected places that run code later (Dir: a
	// directory): an empty read-only file or directory is bound there so
	// that the agent cannot create one. Prepare creates the mount points on
	// the host and its Cleanup removes them again while still empty.
	Blocked []Path `json:",omitempty"`
	// Copies are agents' own permission state files (policy.FloorCopy,
	// ~/.claude.json): a private writable copy is bound over each, so the
	// agent's writes never reach the real file.
	Copies []string `json:",omitempty"`
	// Homes are the process's private state homes (home.go): each
	// writable, its copies made by Prepare, its read-only copies and config
	// places bound read-only.
	Homes []HomeSpec `json:",omitempty"`
	// HomesRoot is the private homes' root (HomesRoot): hidden inside but
	// for Homes.
	HomesRoot string `json:",omitempty"`
	// Emptied are directories of host IPC sockets ($XDG_RUNTIME_DIR,
	// /tmp/.X11-unix, /run/dbus): an empty private tmpfs covers each.
	Emptied []string `json:",omitempty"`
	// EnvKeep are environment variable names (NAME or PREFIX*) the agent
	// keeps beyond the base allow list (EnvAllowed).
	EnvKeep []string `json:",omitempty"`
	Network Network
	// Notes say what the computation could not do (a walk bound reached).
	Notes []string
}

// Path is one masked path.
type Path struct {
	Path string `json:"path"`
	Dir  bool   `json:"dir"`
	// Rule is the deny rule that named it.
	Rule string `json:"rule,omitempty"`
	// Content of a blocked file place: what it reads as inside, and what
	// its mount point on the host holds while the sandbox runs ("{}" for
	// JSON, "." for a git commondir, which git reads as the git directory
	// itself; else empty), so that the person's own tools keep working.
	Content string `json:"content,omitempty"`
}

// ErrNoWorkspace is returned when Options name no writable root.
var ErrNoWorkspace = errors.New("sandbox: no workspace directory to make writable")

// Compute builds the Spec of one agent process.
func Compute(o Options) (Spec, error) {
	if len(o.Workspace) == 0 {
		return Spec{}, ErrNoWorkspace
	}
	max := o.MaxEntries
	if max <= 0 {
		max = 50000
	}
	s := Spec{Network: o.Network, HomesRoot: HomesRoot()}
	if s.Network == "" {
		s.Network = NetworkAll
	}
	var homeDirs []string
	for _, h := range o.Homes {
		if h != nil {
			homeDirs = append(homeDirs, h.Dir)
		}
	}
	for _, p := range o.AllowWrite {
		if err := checkAllowWrite(p); err != nil {
			return Spec{}, err
		}
	}
	for _, set := range [][]string{o.Workspace, o.StateDirs, o.AllowWrite, homeDirs} {
		for _, p := range set {
			if !filepath.IsAbs(p) {
				return Spec{}, fmt.Errorf("sandbox: writable path %q is not absolute", p)
			}
			s.Writable = append(s.Writable, filepath.Clean(p))
		}
	}
	s.Writable = dedupe(s.Writable)

	wsRoots := map[string]bool{}
	for _, w := range o.Workspace {
		wsRoots[filepath.Clean(w)] = true
	}
	ps := &placeSet{writable: s.Writable, workspace: wsRoots, ro: map[string]bool{}, pinned: map[string]bool{}, blocked: map[string]bool{}, copies: map[string]bool{}}
	computePlaces(ps, o.Home, o.Protected, o.Places, max)
	for _, p := range o.Programs {
		if filepath.IsAbs(p) {
			ps.protect(filepath.Clean(p), policy.Place{Path: p, What: "a program acp-bridge runs outside every sandbox", RunsCode: true})
		}
	}
	s.Notes = append(s.Notes, ps.notes...)
	ro := ps.ro
	addRO := func(p string) {
		if _, err := os.Lstat(p); err == nil && underAny(p, s.Writable) {
			ro[p] = true
		}
	}
	env := o.Env
	env.FS = policy.OSFS{}
	denied := func(tool, p string) bool {
		v := policy.Evaluate(policy.Input{Call: policy.Call{Tool: tool, Paths: []string{p}}, Mode: policy.ModeDefault, Env: env, Policy: o.Policy})
		return v.Decision == policy.Deny && v.Source == policy.SourceRule
	}
	walkRoots := func(dr policy.DenyRoot) []string {
		if dr.AnyDepth {
			// A bare name matches anywhere: masked inside the trees the
			// agent works in; elsewhere the policy still decides what it asks.
			return append(append([]string(nil), s.Writable...), o.Env.AdditionalDirectories...)
		}
		return []string{dr.Dir}
	}
	masked := map[string]Path{}
	for _, h := range o.Hidden {
		if !filepath.IsAbs(h) {
			return Spec{}, fmt.Errorf("sandbox: hidden path %q is not absolute", h)
		}
		h = filepath.Clean(h)
		if fi, err := os.Lstat(h); err == nil && fi.IsDir() {
			masked[h] = Path{Path: h, Dir: true, Rule: "acp-bridge: the editor's attach socket directory"}
		}
	}
	for _, dr := range o.Policy.DenyRoots("Read", env) {
		for _, root := range walkRoots(dr) {
			note := walk(root, max, func(p string, dir bool) bool {
				if dr.Name != "" {
					// A name at any depth: only entries of that name
					// can match, and nothing below one that does not.
					if nameMay(dr.Name, p) && denied("Read", p) {
						masked[p] = Path{Path: p, Dir: dir, Rule: dr.Rule}
						return false
					}
					return true
				}
				// A directory whose every entry is denied (dir/**) is
				// masked whole, so not even its names show.
				if denied("Read", p) || (dir && denied("Read", filepath.Join(p, probeName))) {
					masked[p] = Path{Path: p, Dir: dir, Rule: dr.Rule}
					return false // everything below is covered
				}
				return true
			})
			if note != "" {
				s.Notes = append(s.Notes, note)
			}
		}
	}
	for _, dr := range o.Policy.DenyRoots("Edit", env) {
		for _, root := range walkRoots(dr) {
			note := walk(root, max, func(p string, dir bool) bool {
				if dr.Name != "" {
					if nameMay(dr.Name, p) && denied("Edit", p) {
						addRO(p)
						return false
					}
					return true
				}
				if denied("Edit", p) || (dir && denied("Edit", filepath.Join(p, probeName))) {
					addRO(p)
					return false
				}
				return true
			})
			if note != "" {
				s.Notes = append(s.Notes, note)
			}
		}
	}
	for p := range ro {
		if _, isMasked := masked[p]; !isMasked {
			s.ReadOnly = append(s.ReadOnly, p)
		}
	}
	sort.Strings(s.ReadOnly)
	for _, p := range sortedKeys(ps.pinned) {
		if !ro[p] {
			s.Pinned = append(s.Pinned, p)
		}
	}
	for _, p := range sortedKeys(ps.blocked) {
		b := Path{Path: p, Dir: ps.blocked[p], Rule: "a protected place that runs code later"}
		if !b.Dir {
			b.Content = blockedContent(p)
		}
		s.Blocked = append(s.Blocked, b)
	}
	// A copy is the bridge reading a file outside the sandbox and putting
	// it where the agent reads and writes: never one a Read deny rule makes
	// unreadable (red team 8: the copy was readable where the original was
	// not). Such a file stays masked, so the agent's state there is lost
	// for the run, as a Read deny on it asks.
	for _, c := range sortedKeys(ps.copies) {
		if readMasked(c, masked) {
			s.Notes = append(s.Notes, "not copied for the agent, a Read deny rule names it: "+c)
			continue
		}
		s.Copies = append(s.Copies, c)
	}
	keep := append([]string(nil), o.EnvKeep...)
	for _, h := range o.Homes {
		if h != nil {
			s.Homes = append(s.Homes, homeSpec(h, masked))
			keep = append(keep, h.Env) // the variable naming it reaches the agent
		}
	}
	s.EnvKeep = dedupe(keep)
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	var emptied, sockets []string
	var note string
	if !o.FileBoundOnly {
		emptied, sockets, note = hostIPC(getenv, s.Writable, max)
	}
	s.Emptied = emptied
	if note != "" {
		s.Notes = append(s.Notes, note)
	}
	for _, p := range sockets {
		if _, ok := masked[p]; !ok {
			masked[p] = Path{Path: p, Rule: hostIPCRule + ": a Unix socket outside the writable trees"}
		}
	}
	if n := landlockNote(); n != "" {
		s.Notes = append(s.Notes, n)
	}
	for _, m := range masked {
		if maskedAbove(m.Path, masked) {
			continue // inside a masked directory: already unreachable
		}
		s.Masked = append(s.Masked, m)
	}
	sort.Slice(s.Masked, func(i, j int) bool { return s.Masked[i].Path < s.Masked[j].Path })
	s.Notes = dedupe(s.Notes)
	return s, nil
}

// walk visits root and, while visit returns true for a directory, what is
// below it, depth first, in lexical order, without following symlinks. It
// stops after max entries and returns a note saying so ("" when whole).
// A root that does not exist is no error: there is nothing to mask.
func walk(root string, max int, visit func(p string, dir bool) bool) string {
	n := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return filepath.SkipAll
			}
			return nil // unreadable below: the agent cannot read it either
		}
		n++
		if n > max {
			return errBound
		}
		dir := d.IsDir()
		if !visit(p, dir) && dir {
			return filepath.SkipDir
		}
		return nil
	})
	if errors.Is(err, errBound) {
		return fmt.Sprintf("stopped looking for denied paths under %s after %d entries: paths past that are not masked", root, max)
	}
	return ""
}

var errBound = errors.New("walk bound reached")

// probeName is a file name no rule is expected to name: a directory whose
// probeName child is denied has every child denied.
const probeName = ".acp-bridge-sandbox-probe"

func underAny(p string, roots []string) bool {
	for _, r := range roots {
		if r == "/" || (len(p) >= len(r) && p[:len(r)] == r && (len(p) == len(r) || p[len(r)] == filepath.Separator)) {
			return true
		}
	}
	return false
}

func dedupe(ss []string) []string {
	sort.Strings(ss)
	out := ss[:0]
	for i, s := range ss {
		if i == 0 || s != ss[i-1] {
			out = append(out, s)
		}
	}
	return out
}

// nameMay: the base name of p may match the rule's name glob. A glob that
// filepath.Match cannot read (gitignore's [!x], say) or a name that differs
// only in case may still match for the policy, so Evaluate is asked then.
func nameMay(glob, p string) bool {
	base := filepath.Base(p)
	ok, err := filepath.Match(glob, base)
	if err != nil || ok {
		return true
	}
	ok, _ = filepath.Match(strings.ToLower(glob), strings.ToLower(base))
	return ok
}

// maskedAbove: a directory above p is masked.
func maskedAbove(p string, masked map[string]Path) bool {
	for d := filepath.Dir(p); d != "/" && d != "."; d = filepath.Dir(d) {
		if m, ok := masked[d]; ok && m.Dir {
			return true
		}
	}
	return false
}

// blockedContent is what a blocked file place holds (Path.Content).
func blockedContent(p string) string {
	switch b := filepath.Base(p); {
	case b == "commondir":
		return ".\n"
	case strings.HasSuffix(b, ".json"), strings.HasSuffix(b, ".jsonc"):
		return "{}\n"
	}
	return ""
}
