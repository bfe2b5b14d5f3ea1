package sandbox

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
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
	// init is the relay command put before argv for a proxied network
	// (nil otherwise), socket included.
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
	return append([]string{p.Path}, BwrapArgs(s, p.MaskFile, p.TmpDir, dir, argv)...)
}

// NetOptions is what a proxied network (NetworkLoopback, NetworkDomains)
// needs from the caller.
type NetOptions struct {
	// Init is the command that runs inside the sandbox in front of the
	// agent and calls RunInit (the bridge: [its executable, "sandbox-init"]);
	// "--proxy-socket", the socket, "--" and the agent's argv follow.
	Init []string
	// Allow and Denied: see Proxy.
	Allow  func(host string, port int) bool
	Denied func(host string, port int)
}

// Prepare makes what a sandboxed start of argv in dir needs (the mask
// file, missing writable directories, for a proxied network the proxy and
// its socket) and returns the command to run.
func Prepare(s Spec, dir string, argv []string, netOpts *NetOptions) (Prepared, error) {
	if len(argv) == 0 {
		return Prepared{}, errors.New("sandbox: no command")
	}
	m := Probe()
	if !m.Available {
		return Prepared{}, fmt.Errorf("%w: %s", ErrUnsupported, m.Problem)
	}
	if s.Network.Proxied() && (netOpts == nil || len(netOpts.Init) == 0 || netOpts.Allow == nil) {
		return Prepared{}, fmt.Errorf("sandbox: network %q needs the proxy's settings", s.Network)
	}
	for _, w := range s.Writable {
		if isFileName(w) {
			continue // a state file (~/.claude.json) is bound only if it exists
		}
		if err := os.MkdirAll(w, 0o700); err != nil {
			return Prepared{}, fmt.Errorf("sandbox: make writable directory: %w", err)
		}
	}
	tmp, err := os.MkdirTemp("", "acp-bridge-sandbox-")
	if err != nil {
		return Prepared{}, fmt.Errorf("sandbox: %w", err)
	}
	fail := func(err error) (Prepared, error) {
		os.RemoveAll(tmp)
		return Prepared{}, err
	}
	mask := filepath.Join(tmp, "masked")
	if err := os.WriteFile(mask, nil, 0o000); err != nil {
		return fail(fmt.Errorf("sandbox: mask file: %w", err))
	}
	priv := filepath.Join(tmp, "tmp")
	if err := os.Mkdir(priv, 0o700); err != nil {
		return fail(fmt.Errorf("sandbox: temp directory: %w", err))
	}
	p := Prepared{Path: m.Path, MaskFile: mask, TmpDir: priv, Cleanup: func() { os.RemoveAll(tmp) }}
	if s.Network.Proxied() {
		sock := filepath.Join(tmp, "proxy.sock")
		ln, err := net.Listen("unix", sock)
		if err != nil {
			return fail(fmt.Errorf("sandbox: proxy socket: %w", err))
		}
		px := &Proxy{Allow: netOpts.Allow, Denied: netOpts.Denied}
		go func() { _ = px.Serve(ln) }()
		p.init = append(append([]string(nil), netOpts.Init...), "--proxy-socket", sock)
		p.Cleanup = func() { px.Close(); os.RemoveAll(tmp) }
	}
	full := p.Command(s, dir, argv)
	p.Args = full[1:]
	return p, nil
}

// isFileName: a writable entry that names a file, not a directory, going by
// its name (the state files of the profiles end in .json or .backup).
func isFileName(p string) bool {
	b := filepath.Base(p)
	return strings.HasSuffix(b, ".json") || strings.HasSuffix(b, ".backup")
}
