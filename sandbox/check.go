package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Mechanism says which sandbox this machine offers.
type Mechanism struct {
	// Name: "bubblewrap" (Linux), "seatbelt" (macOS), or "" when none.
	Name string `json:"name,omitempty"`
	// Path of the program (bwrap, sandbox-exec).
	Path string `json:"path,omitempty"`
	// Available: the mechanism was found and a trial run worked.
	Available bool `json:"available"`
	// Problem says why it is not available, and how to fix that.
	Problem string `json:"problem,omitempty"`
	OS      string `json:"os"`
}

var (
	probeOnce sync.Once
	probed    Mechanism
)

// Probe tells which mechanism this machine offers. The answer is computed
// once per process: on Linux it looks for bwrap on PATH and runs it once
// with the same namespaces and capability drop an agent gets.
func Probe() Mechanism {
	probeOnce.Do(func() { probed = probe(runtime.GOOS, exec.LookPath) })
	return probed
}

// ErrUnsupported is wrapped by Prepare's error when the platform has no
// mechanism the bridge can use.
var ErrUnsupported = errors.New("no OS sandbox")

func probe(goos string, look func(string) (string, error)) Mechanism {
	m := Mechanism{OS: goos}
	switch goos {
	case "linux":
		m.Name = "bubblewrap"
		p, err := look("bwrap")
		if err != nil {
			m.Problem = "bubblewrap (bwrap) is not installed: install it (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap)"
			return m
		}
		m.Path = p
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		out, err := exec.CommandContext(ctx, p, "--die-with-parent", "--unshare-pid", "--cap-drop", "ALL",
			"--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--", "true").CombinedOutput()
		if err != nil {
			m.Problem = fmt.Sprintf("bwrap cannot create a sandbox here (%v: %s): unprivileged user namespaces may be disabled (sysctl kernel.unprivileged_userns_clone=1, or an AppArmor profile for bwrap)", err, strings.TrimSpace(string(out)))
			return m
		}
		m.Available = true
	case "darwin":
		m.Name = "seatbelt"
		p, err := look("sandbox-exec")
		if err != nil {
			m.Problem = "sandbox-exec is missing"
			return m
		}
		m.Path = p
		// The profile generator is unit-tested; running under Seatbelt is
		// not tested by this project yet, so it is not offered.
		m.Problem = "macOS: the Seatbelt profile is generated (acp-bridge sandbox check --json shows it) but running agents under it is not supported yet"
	default:
		m.Problem = goos + " is not supported: the bridge has no OS sandbox for it"
	}
	return m
}

// Prepared is a command ready to start inside the sandbox.
type Prepared struct {
	Path string   // the program to exec (bwrap)
	Args []string // its arguments, argv[0] not included
	// MaskFile and TmpDir are the files Prepare made: more commands of the
	// same agent (terminals) run in the same sandbox with Command.
	MaskFile, TmpDir string
	// Created are the mount points of Spec.Blocked that Prepare created
	// on the host; Cleanup removes each that is still as made and that no
	// other live sandbox binds (sweep.go).
	Created []Path
	files   bwrapFiles
	// init is the in-sandbox init put before argv (RunInit): its program,
	// InitArg and its options.
	init []string
	// Cleanup removes the files Prepare made and stops the proxy; call it
	// after the process ends.
	Cleanup func()
}

// Command is the argv (program first) that runs argv in dir inside the
// same sandbox as the prepared process.
func (p Prepared) Command(s Spec, dir string, argv []string) []string {
	if p.init != nil {
		argv = append(append(append([]string(nil), p.init...), "--"), argv...)
	}
	f := p.files
	if f.mask == "" {
		f = bwrapFiles{mask: p.MaskFile, tmp: p.TmpDir}
	}
	return append([]string{p.Path}, bwrapArgs(s, f, dir, argv)...)
}

// NetOptions is what a proxied network (NetworkLoopback, NetworkDomains)
// needs from the caller.
type NetOptions struct {
	// Init is no longer used: every sandbox starts its command through its
	// own executable's init (InitArg). Kept for callers.
	Init []string
	// Allow and Denied: see Proxy.
	Allow  func(host string, port int) bool
	Denied func(host string, port int)
	// PeerRefused is told of the first connection to the proxy socket from
	// a process outside this sandbox (refused: Proxy.Peer).
	PeerRefused func(err error)
}

// Prepare makes what a sandboxed start of argv in dir needs (the mask
// file, the empty sources of blocked places and their mount points, the
// private copies, missing writable directories, for a proxied network the
// proxy and its socket) and returns the command to run: the in-sandbox init
// (this program's own executable with InitArg, bound read-only inside),
// then argv.
func Prepare(s Spec, dir string, argv []string, netOpts *NetOptions) (Prepared, error) {
	if len(argv) == 0 {
		return Prepared{}, errors.New("sandbox: no command")
	}
	m := Probe()
	if !m.Available {
		return Prepared{}, fmt.Errorf("%w: %s", ErrUnsupported, m.Problem)
	}
	if s.Network.Proxied() && (netOpts == nil || netOpts.Allow == nil) {
		return Prepared{}, fmt.Errorf("sandbox: network %q needs the proxy's settings", s.Network)
	}
	exe, err := os.Executable()
	if err != nil {
		return Prepared{}, fmt.Errorf("sandbox: the init's program: %w", err)
	}
	for _, w := range s.Writable {
		if isFileName(w) {
			continue // a state file (~/.claude.json) is bound only if it exists
		}
		if err := os.MkdirAll(w, 0o700); err != nil {
			return Prepared{}, fmt.Errorf("sandbox: make writable directory: %w", err)
		}
	}
	tmp, err := os.MkdirTemp("", privatePrefix)
	if err != nil {
		return Prepared{}, fmt.Errorf("sandbox: %w", err)
	}
	// The lock says the directory's owner lives (sweep.go): taken first,
	// so that no Sweep ever finds this directory without its owner.
	lock, err := lockPrivate(tmp)
	if err != nil {
		os.RemoveAll(tmp)
		return Prepared{}, err
	}
	var made []placeholder
	removeCreated := func() { removeUnused(made, tmp) }
	fail := func(err error) (Prepared, error) {
		removeCreated()
		os.RemoveAll(tmp)
		lock.Close()
		return Prepared{}, err
	}
	f := bwrapFiles{mask: filepath.Join(tmp, "masked"), empty: filepath.Join(tmp, "empty"), emptyDir: filepath.Join(tmp, "emptydir"),
		tmp: filepath.Join(tmp, "tmp"), exe: exe, init: filepath.Join(tmp, "init"), copies: map[string]string{}, content: map[string]string{}}
	if err := os.WriteFile(f.mask, nil, 0o000); err != nil {
		return fail(fmt.Errorf("sandbox: mask file: %w", err))
	}
	if err := os.WriteFile(f.empty, nil, 0o444); err != nil {
		return fail(fmt.Errorf("sandbox: empty file: %w", err))
	}
	if err := os.WriteFile(f.init, nil, 0o444); err != nil {
		return fail(fmt.Errorf("sandbox: init mount point: %w", err))
	}
	if err := os.Mkdir(f.emptyDir, 0o555); err != nil {
		return fail(fmt.Errorf("sandbox: empty directory: %w", err))
	}
	if err := os.Mkdir(f.tmp, 0o700); err != nil {
		return fail(fmt.Errorf("sandbox: temp directory: %w", err))
	}
	// The mount points of blocked places: made here, so that exactly what
	// the bridge made is removed again (while still as made) by Cleanup,
	// or by the Sweep of a later bridge if this one dies first: each is
	// recorded in the manifest before it is made.
	var created []Path
	var records []placeholder // the manifest: made, adopted and borrowed
	var uses map[string]bool  // liveUses, read at the first place that exists
	blocked := append([]Path(nil), s.Blocked...)
	sort.Slice(blocked, func(i, j int) bool { return depth(blocked[i].Path) < depth(blocked[j].Path) })
	for _, b := range blocked {
		rp, err := resolvedPlace(b.Path)
		if err != nil {
			return fail(err)
		}
		ph := placeholder{Path: rp, Dir: b.Dir}
		if !b.Dir {
			ph.Content = b.Content
		}
		exists := false
		if _, err := os.Lstat(b.Path); err == nil {
			exists = true
		} else {
			if _, ok := f.content[b.Content]; !ok && !b.Dir {
				src := filepath.Join(tmp, "content-"+strconv.Itoa(len(f.content)))
				if err := os.WriteFile(src, []byte(b.Content), 0o444); err != nil {
					return fail(fmt.Errorf("sandbox: content of the protected place %s: %w", b.Path, err))
				}
				f.content[b.Content] = src
			}
			if err := writeManifest(tmp, append(records, ph)); err != nil {
				return fail(err)
			}
			if b.Dir {
				err = os.Mkdir(b.Path, 0o755)
			} else {
				err = createFile(b.Path, b.Content)
			}
			switch {
			case errors.Is(err, fs.ErrExist):
				exists = true // made since the Lstat above
			case err != nil:
				return fail(fmt.Errorf("sandbox: mount point of the protected place %s: %w", b.Path, err))
			default:
				created = append(created, b)
			}
		}
		if exists {
			// Not made here: another live sandbox's placeholder is
			// adopted (the last of its users removes it); anything else
			// is borrowed (never removed by this sandbox). Either way it
			// is recorded, so that no one removes it from under this
			// sandbox's mount while it lives (liveUses).
			if uses == nil {
				uses = liveUses(tmp)
			}
			ph.Borrowed = !uses[rp]
			if err := writeManifest(tmp, append(records, ph)); err != nil {
				return fail(err)
			}
		}
		records = append(records, ph)
		if !ph.Borrowed {
			made = append(made, ph)
		}
	}
	// A read-only place that is another live sandbox's placeholder (an
	// .envrc it made, found existing by Compute) has this sandbox's mount
	// on it too: recorded, adopted or borrowed as above, so that its maker
	// does not remove it from under that mount.
	if len(s.ReadOnly) > 0 {
		if uses == nil {
			uses = liveUses(tmp)
		}
		n := len(records)
		for _, p := range s.ReadOnly {
			byMaker, ok := uses[p]
			if !ok {
				continue
			}
			fi, err := os.Lstat(p)
			if err != nil {
				continue
			}
			ph := placeholder{Path: p, Dir: fi.IsDir(), Borrowed: !byMaker}
			if !ph.Dir {
				ph.Content = blockedContent(p)
			}
			records = append(records, ph)
			if !ph.Borrowed {
				made = append(made, ph)
			}
		}
		if len(records) > n {
			if err := writeManifest(tmp, records); err != nil {
				return fail(err)
			}
		}
	}
	// One copy mechanism (home.go, writeCopy) for the sandbox's own
	// copies and the private homes': Compute already left out, or marked
	// denied, every file a Read deny rule makes unreadable.
	for i, c := range s.Copies {
		cp := filepath.Join(tmp, "copy-"+strconv.Itoa(i)+"-"+filepath.Base(c))
		if err := writeCopy(c, cp, false); err != nil {
			return fail(fmt.Errorf("sandbox: copy of %s: %w", c, err))
		}
		if _, err := os.Lstat(cp); err != nil {
			return fail(fmt.Errorf("sandbox: copy of %s: not a regular file", c))
		}
		f.copies[c] = cp
	}
	if err := homeCopies(s); err != nil {
		return fail(err)
	}
	// Every sandbox hides the private homes' root (made here when
	// missing, so that none made later shows either).
	if f.homes, err = ensureHomesRoot(); err != nil {
		return fail(err)
	}
	if guardState {
		f.state = stateEntries(s.Writable, f.homes)
	}
	p := Prepared{Path: m.Path, MaskFile: f.mask, TmpDir: f.tmp, Created: created, files: f,
		Cleanup: func() { removeCreated(); os.RemoveAll(tmp); lock.Close() }}
	scope := "required"
	if s.Network != NetworkAll {
		scope = "optional" // a network namespace closes abstract sockets
	}
	p.init = []string{f.init, InitArg, "--scope", scope}
	for _, k := range s.EnvKeep {
		p.init = append(p.init, "--env-keep", k)
	}
	if s.Network.Proxied() {
		sock := filepath.Join(tmp, "proxy.sock")
		ln, err := net.Listen("unix", sock)
		if err != nil {
			return fail(fmt.Errorf("sandbox: proxy socket: %w", err))
		}
		px := &Proxy{Allow: netOpts.Allow, Denied: netOpts.Denied, PeerRefused: netOpts.PeerRefused,
			Peer: peerCheck(sock, m.Path, f.init)}
		if peerCheckOff {
			px.Peer = nil // tests only: the control that shows the attack lands without it
		}
		go func() { _ = px.Serve(ln) }()
		p.init = append(p.init, "--proxy-socket", sock)
		p.Cleanup = func() { px.Close(); removeCreated(); os.RemoveAll(tmp); lock.Close() }
	}
	full := p.Command(s, dir, argv)
	p.Args = full[1:]
	return p, nil
}

// peerCheckOff turns the proxy's peer check off; only tests set it (the
// control of TestProxyPeerOtherSandbox).
var peerCheckOff bool

// createFile makes the placeholder file p holding content; it fails if p
// exists (fs.ErrExist) rather than truncating what is there.
func createFile(p, content string) error {
	fh, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = fh.WriteString(content)
	if cerr := fh.Close(); err == nil {
		err = cerr
	}
	return err
}

// isFileName: a writable entry that names a file, not a directory, going by
// its name (the state files of the profiles end in .json or .backup).
func isFileName(p string) bool {
	b := filepath.Base(p)
	return strings.HasSuffix(b, ".json") || strings.HasSuffix(b, ".backup")
}

// homeCopies writes the copies of s's private homes.
func homeCopies(s Spec) error {
	for _, h := range s.Homes {
		for _, c := range h.Copies {
			if err := writeCopy(c.From, c.To, c.Denied); err != nil {
				return fmt.Errorf("sandbox: private home's copy of %s: %w", c.From, err)
			}
		}
	}
	return nil
}
