package sandbox

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
)

// InitArg, as the first argument of any program that imports this package,
// makes it the in-sandbox init (InitMain) instead of itself: Prepare starts
// every sandboxed command through its own executable so, bound read-only
// inside the sandbox, whatever the program is (the bridge, a test binary).
const InitArg = "--acp-bridge-sandbox-init"

func init() {
	if len(os.Args) > 1 && os.Args[1] == InitArg {
		os.Exit(InitMain(os.Args[2:], os.Stdin, os.Stdout, os.Stderr))
	}
}

// InitMain parses the init's arguments and runs RunInit:
//
//	[--proxy-socket SOCK] [--env-keep NAME]... [--scope required|optional] -- CMD [ARGS...]
func InitMain(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("sandbox-init", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c InitConfig
	fs.StringVar(&c.ProxySocket, "proxy-socket", "", "the bridge's proxy socket (proxied networks)")
	fs.Func("env-keep", "an environment variable name (NAME or PREFIX*) the command keeps", func(s string) error {
		c.EnvKeep = append(c.EnvKeep, s)
		return nil
	})
	scope := fs.String("scope", "required", "Landlock scoping: required (refuse without it) or optional")
	if err := fs.Parse(args); err != nil || fs.NArg() == 0 || (*scope != "required" && *scope != "optional") {
		fmt.Fprintln(stderr, "usage: sandbox-init [--proxy-socket SOCK] [--env-keep NAME]... [--scope required|optional] -- CMD [ARGS...]")
		return 2
	}
	c.ScopeRequired = *scope == "required"
	code, err := RunInit(c, fs.Args(), stdin, stdout, stderr)
	if err != nil {
		fmt.Fprintln(stderr, err)
	}
	return code
}

// InitConfig is what the in-sandbox init does besides starting the command.
type InitConfig struct {
	// ProxySocket: relay 127.0.0.1:ProxyPort to it ("" = no relay).
	ProxySocket string
	// EnvKeep: names kept in the command's environment beyond EnvAllowed.
	EnvKeep []string
	// ScopeRequired: refuse to start the command when Landlock scoping
	// cannot be applied (else go on without it: the sandbox has a network
	// namespace, which closes abstract sockets, and a PID namespace).
	ScopeRequired bool
}

// RunInit runs inside every sandbox, in front of the agent: for a proxied
// network it listens on 127.0.0.1:ProxyPort of the sandbox's network
// namespace and relays every connection to the bridge's proxy through the
// Unix socket c.ProxySocket; it restricts itself with Landlock scoping (no
// abstract Unix socket, no signal outside the sandbox) and no_new_privs;
// it starts argv with the standard streams and the environment filtered by
// the allow list (EnvAllowed, c.EnvKeep), passes SIGINT, SIGTERM and SIGHUP
// on to it, and returns its exit status (128+signal when a signal ended
// it). The relay is listening before argv starts.
func RunInit(c InitConfig, argv []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	if len(argv) == 0 {
		return 2, errors.New("sandbox-init: no command")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if c.ProxySocket != "" {
		ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(ProxyPort)))
		if err != nil {
			return 2, fmt.Errorf("sandbox-init: the relay cannot listen: %w", err)
		}
		go func() { _ = serveRelay(ctx, ln, c.ProxySocket) }()
	}
	// From here on this goroutine stays on the thread that scopeSelf
	// restricts, and the command is forked from it.
	if err := scopeSelf(); err != nil {
		if c.ScopeRequired {
			return 2, fmt.Errorf("sandbox-init: refusing to start: %w (abstract Unix sockets and signals to the host would be reachable; docs/sandbox.md \"Host IPC\")", err)
		}
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	cmd.Env = FilterEnv(os.Environ(), c.EnvKeep)
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	if err := cmd.Start(); err != nil {
		return 127, fmt.Errorf("sandbox-init: %w", err)
	}
	go func() {
		for s := range sigs {
			_ = cmd.Process.Signal(s)
		}
	}()
	err := cmd.Wait()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, nil
	case errors.As(err, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal()), nil
		}
		return ee.ExitCode(), nil
	}
	return 1, fmt.Errorf("sandbox-init: %w", err)
}

// EnvAllowed is the base allow list of a sandboxed agent's environment
// (NAME, or PREFIX* for every name with that prefix): what programs need to
// run (paths, locale, terminal, the sandbox's own proxy and temp directory,
// toolchains' homes, CA bundles). Everything else, SSH_AUTH_SOCK,
// DBUS_SESSION_BUS_ADDRESS, DISPLAY, cloud credentials (AWS_*,
// GOOGLE_APPLICATION_CREDENTIALS, AZURE_*), tokens (GITHUB_TOKEN, ...), is
// dropped unless Spec.EnvKeep names it: the agent family's model keys
// (FamilyEnv) and the names the person's agent config sets.
var EnvAllowed = []string{
	"PATH", "HOME", "USER", "LOGNAME", "SHELL", "PWD", "TERM", "COLORTERM", "TERM_PROGRAM", "TERM_PROGRAM_VERSION",
	"LANG", "LANGUAGE", "LC_*", "TZ", "TMPDIR", "EDITOR", "VISUAL", "PAGER", "NO_COLOR", "FORCE_COLOR",
	"XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME", "XDG_CONFIG_DIRS", "XDG_DATA_DIRS",
	"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "all_proxy", "no_proxy",
	"SSL_CERT_FILE", "SSL_CERT_DIR", "NODE_EXTRA_CA_CERTS", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE",
	"NODE_PATH", "NVM_DIR", "NVM_BIN", "NVM_INC", "GOPATH", "GOROOT", "GOCACHE", "GOMODCACHE", "GOFLAGS", "GOTOOLCHAIN",
	"CARGO_HOME", "RUSTUP_HOME", "JAVA_HOME", "VIRTUAL_ENV", "PYENV_ROOT", "BUN_INSTALL", "DENO_DIR", "PNPM_HOME",
	"ACP_BRIDGE_*",
}

// FilterEnv keeps the entries of environ whose name EnvAllowed or keep
// names.
func FilterEnv(environ []string, keep []string) []string {
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		k, _, _ := strings.Cut(kv, "=")
		if envNamed(k, EnvAllowed) || envNamed(k, keep) {
			out = append(out, kv)
		}
	}
	return out
}

func envNamed(k string, names []string) bool {
	for _, n := range names {
		if p, ok := strings.CutSuffix(n, "*"); ok {
			if strings.HasPrefix(k, p) {
				return true
			}
		} else if k == n {
			return true
		}
	}
	return false
}
