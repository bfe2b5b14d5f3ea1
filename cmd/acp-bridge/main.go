package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/acp-bridge/acp-bridge/bridge"
	"github.com/acp-bridge/acp-bridge/internal/attach"
	"github.com/acp-bridge/acp-bridge/internal/audit"
	"github.com/acp-bridge/acp-bridge/internal/chat"
	"github.com/acp-bridge/acp-bridge/internal/demoagent"
	"github.com/acp-bridge/acp-bridge/internal/pipesize"
	"github.com/acp-bridge/acp-bridge/internal/policycli"
	"github.com/acp-bridge/acp-bridge/policy"
	"github.com/acp-bridge/acp-bridge/sandbox"
	"github.com/acp-bridge/acp-bridge/settings"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

const usage = `acp-bridge: one place that decides what every ACP coding agent may do.

Usage:
  acp-bridge [flags]                 serve ACP on stdio (what an editor launches)
  acp-bridge chat [--agent NAME]     chat in the terminal through a bridge process
  acp-bridge demo-agent              the built-in scripted demo agent (ACP on stdio)
  acp-bridge agents                  list configured agents; check each starts and answers initialize
  acp-bridge policy eval             decide JSON-lines calls read on stdin (see docs/policy.md)
  acp-bridge policy explain --tool Bash --command 'CMD'   explain one decision under the current settings
  acp-bridge audit [--since D] [--agent A] [--decision D] [--json]   print the audit log
  acp-bridge sandbox run [--agent A] -- CMD   run CMD in the OS sandbox that agent gets
  acp-bridge sandbox check [--json]  which sandbox this machine offers; what the agent's allows
  acp-bridge workspace status|approve   whether this version of .acp-bridge.yaml is approved; approve it
  acp-bridge version                 print the version

Common flags (before or after the subcommand):
  --config PATH        config file (default: $XDG_CONFIG_HOME/acp-bridge/config.yaml, optional)
  --workspace DIR      project root (default: the current directory); reads DIR/.acp-bridge.yaml
  --log-level LEVEL    debug, info, warn, error (default: settings log.level, else info)
  --log-file PATH      log to a file instead of stderr (never a file that is not the bridge's log)
  --attach-dir DIR     (serve) outlive the editor for --attach-grace (default 2m); editors re-attach
                       on a Unix socket in DIR with the token of the first initialize answer
  --trust-workspace    trust the workspace: its .acp-bridge.yaml may loosen the policy and define agents
                       (default: untrusted, it may only narrow; see docs/settings.md "Workspace trust")
Run "acp-bridge SUBCOMMAND --help" for the flags of one subcommand.
`

// common holds the flags every subcommand accepts.
type common struct {
	config, workspace, logLevel, logFile string
	trace, trustWorkspace                bool
}

func (c *common) register(fs *flag.FlagSet) {
	fs.StringVar(&c.config, "config", "", "config file")
	fs.StringVar(&c.workspace, "workspace", "", "project root (default: current directory)")
	fs.StringVar(&c.logLevel, "log-level", "", "log level: debug, info, warn, error")
	fs.StringVar(&c.logFile, "log-file", "", "log file (default: stderr)")
	fs.BoolVar(&c.trace, "trace", false, "log every ACP message (debug level)")
	fs.BoolVar(&c.trustWorkspace, "trust-workspace", false, "trust the workspace's .acp-bridge.yaml (agents, allow rules, bypass...); default: it may only narrow")
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cmd := ""
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "":
		return serve(args, stdin, stdout, stderr)
	case "demo-agent":
		return demoAgent(args, stdin, stdout, stderr)
	case "chat":
		return chatCmd(args, stdin, stdout, stderr)
	case "agents":
		return agentsCmd(args, stdout, stderr)
	case "policy":
		return policyCmd(args, stdin, stdout, stderr)
	case "audit":
		return auditCmd(args, stdout, stderr)
	case "sandbox":
		return sandboxCmd(args, stdin, stdout, stderr)
	case "sandbox-init":
		return sandboxInit(args, stdin, stdout, stderr)
	case "workspace":
		return workspaceCmd(args, stdout, stderr)
	case "version":
		fmt.Fprintf(stdout, "acp-bridge %s\n", version)
		return 0
	case "help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "acp-bridge: unknown command %q\n\n%s", cmd, usage)
		return 2
	}
}

func newFlags(name string, stderr io.Writer, help string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, help)
		fs.PrintDefaults()
	}
	return fs
}

// parse returns -1 to continue, else an exit code.
func parse(fs *flag.FlagSet, args []string) int {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(fs.Output(), "acp-bridge %s: unexpected argument %q\n", fs.Name(), fs.Arg(0))
		return 2
	}
	return -1
}

func newLogger(level, file string, stderr io.Writer) (*zap.Logger, func(), error) {
	lvl := zapcore.InfoLevel
	if level != "" {
		if err := lvl.UnmarshalText([]byte(level)); err != nil {
			return nil, nil, fmt.Errorf("log level %q: want debug, info, warn or error", level)
		}
	}
	var ws zapcore.WriteSyncer = zapcore.AddSync(stderr)
	closeFn := func() {}
	if file != "" {
		f, err := audit.OpenOwned(file, looksLikeBridgeLog)
		if err != nil {
			return nil, nil, fmt.Errorf("log file: %w", err)
		}
		ws = zapcore.AddSync(f)
		closeFn = func() { _ = f.Close() }
	}
	enc := zap.NewProductionEncoderConfig()
	enc.EncodeTime = zapcore.ISO8601TimeEncoder
	core := zapcore.NewCore(zapcore.NewConsoleEncoder(enc), zapcore.Lock(ws), lvl)
	return zap.New(core), closeFn, nil
}

// looksLikeBridgeLog tells whether head, the first lines of an existing
// file, is the bridge's own log: each record starts with an ISO 8601 time
// and a tab (zap's console encoder, newLogger).
func looksLikeBridgeLog(head []byte) (bool, string) {
	line, _, _ := strings.Cut(string(head), "\n")
	ts, _, ok := strings.Cut(line, "\t")
	if ok {
		if _, err := time.Parse("2006-01-02T15:04:05.000Z0700", ts); err == nil {
			return true, ""
		}
	}
	return false, "its content is not the bridge's log (lines starting with a time and a tab); the log file must be a file of its own"
}

// toolSettings opens the logger (warn unless --log-level) and the settings
// of a one-shot subcommand named name. code >= 0 means exit with it (the
// error was printed); otherwise done closes both.
func toolSettings(c *common, name string, stderr io.Writer) (log *zap.Logger, store *settings.Store, ws string, done func(), code int) {
	if c.logLevel == "" {
		c.logLevel = "warn"
	}
	log, closeLog, err := newLogger(c.logLevel, c.logFile, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "acp-bridge %s: %v\n", name, err)
		return nil, nil, "", nil, 2
	}
	store, ws, err = loadSettings(c, log)
	if err != nil {
		closeLog()
		fmt.Fprintf(stderr, "acp-bridge %s: broken settings:\n%v\n", name, err)
		return nil, nil, "", nil, 2
	}
	return log, store, ws, func() { _ = store.Close(); closeLog() }, -1
}

// loadSettings loads the layered settings; errors name file and key.
func loadSettings(c *common, log *zap.Logger) (*settings.Store, string, error) {
	ws := c.workspace
	if ws == "" {
		var err error
		if ws, err = os.Getwd(); err != nil {
			return nil, "", fmt.Errorf("working directory: %w", err)
		}
	}
	ws, _ = filepath.Abs(ws)
	exe, err := os.Executable()
	if err != nil {
		exe = "acp-bridge"
	}
	store, err := settings.Load(settings.Options{ConfigFile: c.config, WorkspaceDir: ws, Executable: exe, Logger: log, WorkspaceTrusted: c.trustWorkspace})
	return store, ws, err
}

func serve(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var c common
	var showVersion bool
	var attachDir string
	var attachGrace time.Duration
	var attachBuffer int
	fs := newFlags("serve", stderr, usage)
	c.register(fs)
	fs.BoolVar(&showVersion, "version", false, "print the version and exit")
	fs.StringVar(&attachDir, "attach-dir", "", "outlive the editor: serve re-attaching editors on a Unix socket in this directory (0700); see docs/architecture.md")
	fs.DurationVar(&attachGrace, "attach-grace", attach.DefaultGrace, "with --attach-dir: how long the bridge runs with no editor attached")
	fs.IntVar(&attachBuffer, "attach-buffer", attach.DefaultBufferBytes, "with --attach-dir: bytes of updates kept while no editor is attached")
	if code := parse(fs, args); code >= 0 {
		return code
	}
	if showVersion {
		fmt.Fprintf(stdout, "acp-bridge %s\n", version)
		return 0
	}
	// Settings are loaded logging to stderr: --log-file is opened only once
	// it is known to be outside every tree an agent may write.
	boot, closeBoot, err := newLogger(c.logLevel, "", stderr)
	if err != nil {
		fmt.Fprintf(stderr, "acp-bridge: %v\n", err)
		return 2
	}
	defer closeBoot()
	store, ws, err := loadSettings(&c, boot)
	if err != nil {
		fmt.Fprintf(stderr, "acp-bridge: refusing to start with broken settings:\n%v\n", err)
		return 2
	}
	defer store.Close()
	snap := store.Snapshot()
	if c.logFile != "" {
		// log.file and audit.path from the settings are checked at load
		// (settings.RecordPathProblem); the flag is checked here.
		home, _ := os.UserHomeDir()
		if err := settings.RecordPathProblem(c.logFile, settings.WritableTrees(snap.Config, ws, home), store.PolicyFiles()); err != nil {
			fmt.Fprintf(stderr, "acp-bridge: --log-file: %v\n", err)
			return 2
		}
	}
	log := boot
	if c.logFile != "" || c.logLevel == "" && snap.Config.Log.Level != "" || snap.Config.Log.File != "" {
		level, file := c.logLevel, c.logFile
		if level == "" {
			level = snap.Config.Log.Level
		}
		if file == "" {
			file = snap.Config.Log.File
		}
		l, closeL, err := newLogger(level, file, stderr)
		if err != nil && file != c.logFile {
			// log.file from the settings is refused: log to stderr instead,
			// and say so there.
			fmt.Fprintf(stderr, "acp-bridge: log settings: %v; logging to stderr\n", err)
			l, closeL, err = newLogger(level, c.logFile, stderr)
		}
		if err != nil {
			fmt.Fprintf(stderr, "acp-bridge: log settings: %v\n", err)
			return 2
		}
		defer closeL()
		log = l
	}
	defer func() { _ = log.Sync() }()

	var auditor bridge.Auditor
	var auditErr string
	if al, err := audit.Open(snap.Config.Audit.Path, snap.Config.Audit.MaxSizeBytes, log); err != nil {
		// Never written elsewhere instead: the audit log is off, and
		// initialize says so.
		auditErr = err.Error()
		log.Error("audit log unavailable; decisions still apply and are logged here; the audit log is OFF", zap.String("path", snap.Config.Audit.Path), zap.Error(err))
	} else {
		defer al.Close()
		auditor = al
	}
	auditor, telemetryStatus, stopTelemetry, telemetryDown := withTelemetry(snap.Config.Telemetry, auditor, version, log)
	defer stopTelemetry()

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	var hidden []string
	if attachDir != "" {
		if !filepath.IsAbs(attachDir) {
			fmt.Fprintf(stderr, "acp-bridge: --attach-dir must be an absolute path, got %q\n", attachDir)
			return 2
		}
		hidden = []string{filepath.Clean(attachDir)}
	}
	stages, stopStages := orgStages(ctx, snap, ws, log)
	defer stopStages()
	authzen, stopAuthZEN := authzenHooks(snap, log)
	defer stopAuthZEN()
	b := bridge.New(bridge.Options{
		Settings: store, Logger: log, Version: version, WorkspaceDir: ws, Audit: auditor, TraceWire: c.trace,
		AuditPath: snap.Config.Audit.Path, AuditError: auditErr, HiddenDirs: hidden, Stages: stages, Telemetry: telemetryStatus,
		Programs: ownPrograms(), TelemetryDown: telemetryDown, AuthZEN: authzen,
	})
	if attachDir != "" {
		return serveAttachable(ctx, b, log, attach.Options{Dir: filepath.Clean(attachDir), Grace: attachGrace, BufferBytes: attachBuffer, MaxLineBytes: snap.Config.MaxLineBytes, Logger: log}, stdin, stdout, stderr)
	}
	log.Info("acp-bridge serving on stdio", zap.String("version", version), zap.String("workspace", ws), zap.Strings("config", snap.Sources))
	in, out, closeStdio, err := editorStdio(log, stdin, stdout)
	if err != nil {
		log.Debug("stdio stays in blocking mode", zap.Error(err))
	}
	defer closeStdio()
	if err := b.Serve(ctx, in, out); err != nil {
		log.Error("serve", zap.Error(err))
		return 1
	}
	return 0
}

// serveAttachable serves the bridge behind an attach.Front: the editor on
// stdio first, then editors that re-attach over the socket, for as long as
// one comes back within the grace period.
func serveAttachable(ctx context.Context, b *bridge.Bridge, log *zap.Logger, opts attach.Options, stdin io.Reader, stdout, stderr io.Writer) int {
	// The editor that started us may die with its pipes (a window reload):
	// a write to a broken stdout or stderr must fail, not kill the process.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	front, err := attach.New(opts, inW, outR)
	if err != nil {
		fmt.Fprintf(stderr, "acp-bridge: %v\n", err)
		return 2
	}
	log.Info("acp-bridge serving on stdio; editors may re-attach", zap.String("version", version), zap.String("socket", front.SocketPath()), zap.Duration("grace", opts.Grace))
	done := make(chan error, 1)
	go func() {
		err := b.Serve(ctx, inR, outW)
		_ = outW.Close()
		done <- err
	}()
	front.Serve(ctx, stdin, stdout)
	if err := <-done; err != nil {
		log.Error("serve", zap.Error(err))
		return 1
	}
	return 0
}

// editorStdio prepares the editor's stdin and stdout for serving:
//   - pipes are grown (internal/pipesize), so a burst of updates reaches
//     the editor in few large writes;
//   - pipes and sockets are served from Go's poller, through non-blocking
//     duplicates (pollable): a child's read loop can then write a batch of
//     updates to the editor itself, as much as the pipe takes at once and
//     never waiting (acp.QueueWriter.Flush), and the editor's read loop
//     and the writer goroutine wait in the poller rather than in a read(2)
//     or write(2) that holds an OS thread.
//
// Anything else (a terminal, a file) is returned as it is, and so is a
// stdout that is the same file as stderr (`2>&1` into a pipe: stderr's
// writers expect a blocking descriptor); the error says why, for the log.
// done closes the duplicates (stdin and stdout themselves stay open).
func editorStdio(log *zap.Logger, stdin io.Reader, stdout io.Writer) (in io.Reader, out io.Writer, done func(), err error) {
	in, out = stdin, stdout
	var errs []error
	var opened []*os.File
	for _, end := range []struct {
		name  string
		v     any
		avoid *os.File // must not be the same file
		set   func(*os.File)
	}{
		{"stdin", stdin, nil, func(f *os.File) { in = f }},
		{"stdout", stdout, os.Stderr, func(f *os.File) { out = f }},
	} {
		f, ok := end.v.(*os.File)
		if !ok {
			continue
		}
		if size, err := pipesize.Grow(f, pipesize.Default); err != nil { // EBADF: not a pipe
			log.Debug("editor pipe keeps its size", zap.String("pipe", end.name), zap.Error(err))
		} else {
			log.Debug("editor pipe grown", zap.String("pipe", end.name), zap.Int("bytes", size))
		}
		p, err := pollable(f, end.avoid)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", end.name, err))
			continue
		}
		end.set(p)
		opened = append(opened, p)
	}
	done = func() {
		for _, f := range opened {
			_ = f.Close()
		}
	}
	return in, out, done, errors.Join(errs...)
}

func demoAgent(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var logLevel string
	var delay time.Duration
	fs := newFlags("demo-agent", stderr, "Usage: acp-bridge demo-agent [flags]\n\nThe built-in scripted ACP agent (no network, no API key), on stdio.\n\n")
	fs.StringVar(&logLevel, "log-level", "warn", "log level")
	fs.DurationVar(&delay, "delay", demoagent.DefaultDelay, "pause between streamed steps")
	if code := parse(fs, args); code >= 0 {
		return code
	}
	log, closeLog, err := newLogger(logLevel, "", stderr)
	if err != nil {
		fmt.Fprintf(stderr, "acp-bridge demo-agent: %v\n", err)
		return 2
	}
	defer closeLog()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if err := demoagent.Serve(ctx, stdin, stdout, demoagent.Options{Delay: delay, Logger: log, Version: version}); err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintf(stderr, "acp-bridge demo-agent: %v\n", err)
		return 1
	}
	return 0
}

func chatCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var c common
	var agent string
	var auto string
	fs := newFlags("chat", stderr, "Usage: acp-bridge chat [--agent NAME] [flags]\n\nA terminal ACP client: starts a bridge process and chats through it.\nAnswer approval cards with the number of an option.\n\n")
	c.register(fs)
	fs.StringVar(&agent, "agent", "", "agent to chat with (default: defaultAgent)")
	fs.StringVar(&auto, "auto-answer", "", "answer every approval card without asking: allow, deny or first (for scripts)")
	if code := parse(fs, args); code >= 0 {
		return code
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "acp-bridge chat: %v\n", err)
		return 1
	}
	var bridgeArgs []string
	for _, kv := range [][2]string{{"--config", c.config}, {"--workspace", c.workspace}, {"--log-level", c.logLevel}, {"--log-file", c.logFile}} {
		if kv[1] != "" {
			bridgeArgs = append(bridgeArgs, kv[0], kv[1])
		}
	}
	if c.trustWorkspace {
		bridgeArgs = append(bridgeArgs, "--trust-workspace")
	}
	if c.logLevel == "" {
		bridgeArgs = append(bridgeArgs, "--log-level", "warn")
	}
	cwd := c.workspace
	if cwd == "" {
		cwd, _ = os.Getwd()
	}
	cwd, _ = filepath.Abs(cwd)
	log, closeLog, err := newLogger("warn", "", stderr)
	if err != nil {
		fmt.Fprintf(stderr, "acp-bridge chat: %v\n", err)
		return 2
	}
	defer closeLog()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	err = chat.Run(ctx, chat.Options{Command: exe, Args: bridgeArgs, Agent: agent, Cwd: cwd, In: stdin, Out: stdout, Logger: log, AutoAnswer: auto})
	if err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintf(stderr, "acp-bridge chat: %v\n", err)
		return 1
	}
	return 0
}

func agentsCmd(args []string, stdout, stderr io.Writer) int {
	var c common
	var timeout time.Duration
	var asJSON bool
	fs := newFlags("agents", stderr, "Usage: acp-bridge agents [flags]\n\nLists the configured agents and checks that each starts and answers initialize.\n\n")
	c.register(fs)
	fs.DurationVar(&timeout, "timeout", 20*time.Second, "how long each agent may take to answer initialize")
	fs.BoolVar(&asJSON, "json", false, "print JSON")
	if code := parse(fs, args); code >= 0 {
		return code
	}
	log, store, ws, done, code := toolSettings(&c, "agents", stderr)
	if code >= 0 {
		return code
	}
	defer done()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	snap := store.Snapshot()
	results := bridge.ProbeAgents(ctx, snap, ws, version, store.PolicyFiles(), timeout, log)
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(results)
		bridge.PrintWorkspaceTrust(stderr, snap) // stdout stays one JSON list
	} else {
		bridge.PrintWorkspaceTrust(stdout, snap)
		bridge.PrintProbe(stdout, results)
	}
	for _, r := range results {
		if r.Error != "" {
			return 1
		}
	}
	return 0
}

func policyCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	const help = "Usage:\n  acp-bridge policy eval      < calls.jsonl\n  acp-bridge policy explain --tool Bash --command 'CMD' [--agent NAME] [--mode MODE]\n  acp-bridge policy explain --tool Read|Edit --path PATH\n\n"
	if len(args) == 0 {
		fmt.Fprint(stderr, help)
		return 2
	}
	switch args[0] {
	case "eval":
		fs := newFlags("policy eval", stderr, help+"eval reads one JSON object per line and writes one decision per line (docs/policy.md).\n")
		if code := parse(fs, args[1:]); code >= 0 {
			return code
		}
		if err := policycli.Eval(stdin, stdout); err != nil {
			fmt.Fprintf(stderr, "acp-bridge policy eval: %v\n", err)
			return 1
		}
		return 0
	case "explain":
		var c common
		var tool, command, path, url, agent, mode, cwd string
		fs := newFlags("policy explain", stderr, help)
		c.register(fs)
		fs.StringVar(&tool, "tool", "Bash", "tool: Bash, Read, Edit, WebFetch, WebSearch, mcp__server__tool or an agent's tool")
		fs.StringVar(&command, "command", "", "the shell command (Bash)")
		fs.StringVar(&path, "path", "", "the file (Read, Edit)")
		fs.StringVar(&url, "url", "", "the URL (WebFetch)")
		fs.StringVar(&agent, "agent", "", "agent whose rules apply (default: defaultAgent)")
		fs.StringVar(&mode, "mode", "", "mode (default: the agent's, else permissions.defaultMode)")
		fs.StringVar(&cwd, "cwd", "", "the session's cwd (default: the workspace)")
		if code := parse(fs, args[1:]); code >= 0 {
			return code
		}
		log, closeLog, err := newLogger("error", "", stderr)
		if err != nil {
			fmt.Fprintf(stderr, "acp-bridge policy explain: %v\n", err)
			return 2
		}
		defer closeLog()
		store, ws, err := loadSettings(&c, log)
		if err != nil {
			fmt.Fprintf(stderr, "acp-bridge policy explain: broken settings:\n%v\n", err)
			return 2
		}
		defer store.Close()
		call := policy.Call{Tool: tool, Command: command, URL: url}
		if path != "" {
			call.Paths = []string{path}
		}
		if cwd == "" {
			cwd = ws
		}
		call, v, errs, err := bridge.Explain(store.Snapshot(), ws, agent, mode, cwd, call)
		if err != nil {
			fmt.Fprintf(stderr, "acp-bridge policy explain: %v\n", err)
			return 2
		}
		for _, e := range errs {
			fmt.Fprintf(stderr, "warning: %v\n", e)
		}
		policycli.Explain(stdout, call, v)
		if v.Decision != policy.Deny {
			home, _ := os.UserHomeDir()
			name := agent
			if name == "" {
				name = store.Snapshot().Config.DefaultAgent
			}
			cfg := store.Snapshot().Config.Agents[name]
			pol, _ := bridge.AgentPolicy(store.Snapshot(), name)
			plan, perr := bridge.PlanSandbox(bridge.SandboxInputs{Snapshot: store.Snapshot(), Policy: pol, Agent: name, Command: cfg.Command,
				Family: bridge.FamilyOf(name, cfg), Workspace: ws, Dir: cwd, Home: home, PolicyFiles: store.PolicyFiles()})
			if perr != nil {
				fmt.Fprintf(stdout, "Sandbox:   the agent would not start: %v\n", perr)
			} else {
				fmt.Fprintf(stdout, "Sandbox:   %s\n", sandbox.Note(plan.Spec, call.Tool, call.Paths, cwd, false))
			}
		}
		return 0
	default:
		fmt.Fprintf(stderr, "acp-bridge policy: unknown subcommand %q\n\n%s", args[0], help)
		return 2
	}
}

func auditCmd(args []string, stdout, stderr io.Writer) int {
	var c common
	var since, agent, decision, path string
	var asJSON bool
	fs := newFlags("audit", stderr, "Usage: acp-bridge audit [--since 2h|2026-11-21T10:00:00Z] [--agent NAME] [--decision allow|ask|deny|cancelled] [--json]\n\n")
	c.register(fs)
	fs.StringVar(&since, "since", "", "only records newer than a duration ago (e.g. 2h) or an RFC 3339 time")
	fs.StringVar(&agent, "agent", "", "only this agent")
	fs.StringVar(&decision, "decision", "", "only this decision")
	fs.StringVar(&path, "path", "", "audit log file (default: settings audit.path)")
	fs.BoolVar(&asJSON, "json", false, "print the JSON lines")
	if code := parse(fs, args); code >= 0 {
		return code
	}
	f := audit.Filter{Agent: agent, Decision: decision}
	if since != "" {
		if d, err := time.ParseDuration(since); err == nil {
			f.Since = time.Now().Add(-d)
		} else if t, err := time.Parse(time.RFC3339, since); err == nil {
			f.Since = t
		} else {
			fmt.Fprintf(stderr, "acp-bridge audit: --since %q: want a duration (2h) or an RFC 3339 time\n", since)
			return 2
		}
	}
	if path == "" {
		log, closeLog, err := newLogger("error", "", stderr)
		if err != nil {
			return 2
		}
		defer closeLog()
		store, _, err := loadSettings(&c, log)
		if err != nil {
			fmt.Fprintf(stderr, "acp-bridge audit: broken settings:\n%v\n", err)
			return 2
		}
		path = store.Snapshot().Config.Audit.Path
		store.Close()
	}
	if err := audit.Print(stdout, path, f, asJSON); err != nil {
		if errors.Is(err, audit.ErrCorrupt) { // everything readable was printed
			fmt.Fprintf(stderr, "acp-bridge audit: warning: %v\n", err)
			return 0
		}
		if errors.Is(err, os.ErrNotExist) {
			fmt.Fprintf(stderr, "acp-bridge audit: no audit log at %s yet (no decision recorded)\n", path)
			return 0
		}
		fmt.Fprintf(stderr, "acp-bridge audit: %v\n", err)
		return 1
	}
	return 0
}
