package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/acp-bridge/acp-bridge/bridge"
	"github.com/acp-bridge/acp-bridge/sandbox"
)

const sandboxUsage = `Usage:
  acp-bridge sandbox run [--config FILE] [--agent NAME] [--cwd DIR] [--unsandboxed] -- CMD [ARGS...]
      run CMD inside exactly the sandbox that agent (default: defaultAgent) gets, with
      the environment filtered as the agent's is (docs/sandbox.md "Host IPC"); exits with CMD's status. Refuses to run
      unsandboxed, naming what is missing, unless --unsandboxed is given.
  acp-bridge sandbox check [--config FILE] [--agent NAME] [--json]
      which mechanism this machine offers, and what the agent's sandbox allows and denies.
`

func sandboxCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, sandboxUsage)
		return 2
	}
	switch args[0] {
	case "run":
		return sandboxRun(args[1:], stdin, stdout, stderr)
	case "check":
		return sandboxCheck(args[1:], stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, sandboxUsage)
		return 0
	}
	fmt.Fprintf(stderr, "acp-bridge sandbox: unknown subcommand %q\n\n%s", args[0], sandboxUsage)
	return 2
}

// sandboxPlanFor loads the settings and computes the plan of agent (""
// = the default agent) with its working directory at cwd ("" = the
// workspace).
func sandboxPlanFor(c *common, agent, cwd string, stderr io.Writer) (bridge.SandboxPlan, string, string, error) {
	log, closeLog, err := newLogger(orDefault(c.logLevel, "warn"), c.logFile, stderr)
	if err != nil {
		return bridge.SandboxPlan{}, "", "", err
	}
	defer closeLog()
	store, ws, err := loadSettings(c, log)
	if err != nil {
		return bridge.SandboxPlan{}, "", "", fmt.Errorf("broken settings:\n%w", err)
	}
	defer store.Close()
	snap := store.Snapshot()
	if agent == "" {
		agent = snap.Config.DefaultAgent
	}
	cfg, ok := snap.Config.Agents[agent]
	if !ok {
		return bridge.SandboxPlan{}, "", "", fmt.Errorf("unknown agent %q (configured: %s)", agent, strings.Join(snap.AgentNames(), ", "))
	}
	if err := snap.Managed.AgentAllowed(cfg); err != nil {
		// The managed tier's floor is what this sandbox would be computed
		// from: an invalid tier, or an agent it refuses, computes none.
		return bridge.SandboxPlan{}, "", "", err
	}
	if cwd == "" {
		cwd = cfg.Cwd
	}
	if cwd == "" {
		cwd = ws
	}
	if cwd, err = filepath.Abs(cwd); err != nil {
		return bridge.SandboxPlan{}, "", "", fmt.Errorf("--cwd: %w", err)
	}
	home, _ := os.UserHomeDir()
	if h := cfg.Env["HOME"]; filepath.IsAbs(h) {
		home = h // the agent's own home: its state directories are there
	}
	pol, _ := bridge.AgentPolicy(snap, agent)
	plan, err := bridge.PlanSandbox(bridge.SandboxInputs{
		Snapshot: snap, Policy: pol, Agent: agent, Family: bridge.FamilyOf(agent, cfg), Command: cfg.Command,
		Workspace: ws, Dir: cwd, Home: home, PolicyFiles: store.PolicyFiles(),
	})
	return plan, agent, cwd, err
}

func sandboxRun(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var c common
	var agent, cwd string
	var unsandboxed bool
	fs := newFlags("sandbox run", stderr, sandboxUsage)
	c.register(fs)
	fs.StringVar(&agent, "agent", "", "the agent whose sandbox to use (default: defaultAgent)")
	fs.StringVar(&cwd, "cwd", "", "working directory of CMD (default: the agent's, else the workspace)")
	fs.BoolVar(&unsandboxed, "unsandboxed", false, "run CMD without a sandbox when none can be set up")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	argv := fs.Args() // what follows "--" (or the first non-flag)
	if len(argv) == 0 {
		fmt.Fprintf(stderr, "acp-bridge sandbox run: no command (put it after --)\n\n%s", sandboxUsage)
		return 2
	}
	plan, agent, cwd, err := sandboxPlanFor(&c, agent, cwd, stderr)
	if err != nil && !(unsandboxed && errors.Is(err, bridge.ErrSandboxRefused)) {
		fmt.Fprintf(stderr, "acp-bridge sandbox run: %v\n", err)
		return 2
	}
	var cmd *exec.Cmd
	if plan.Confined {
		exe, err := os.Executable()
		if err != nil {
			exe = "acp-bridge"
		}
		denied := func(host string, port int) {
			fmt.Fprintf(stderr, "acp-bridge sandbox: refused a connection to %s\n", net.JoinHostPort(host, strconv.Itoa(port)))
		}
		p, err := sandbox.Prepare(*plan.Spec, cwd, argv, plan.NetOptions(exe, denied))
		if err != nil {
			fmt.Fprintf(stderr, "acp-bridge sandbox run: %v\n", err)
			return 2
		}
		defer p.Cleanup()
		cmd = exec.Command(p.Path, p.Args...)
	} else {
		if !unsandboxed {
			fmt.Fprintf(stderr, "acp-bridge sandbox run: agent %s would run without a sandbox: %s\n(refusing; pass --unsandboxed to run anyway)\n", agent, plan.Reason)
			return 2
		}
		fmt.Fprintf(stderr, "acp-bridge sandbox run: WARNING: running without a sandbox: %s\n", plan.Reason)
		cmd = exec.Command(argv[0], argv[1:]...)
		cmd.Dir = cwd
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			if code := ee.ExitCode(); code >= 0 {
				return code
			}
			return 128 + 9 // killed by a signal
		}
		fmt.Fprintf(stderr, "acp-bridge sandbox run: %v\n", err)
		return 127
	}
	return 0
}

func sandboxCheck(args []string, stdout, stderr io.Writer) int {
	var c common
	var agent string
	var asJSON bool
	fs := newFlags("sandbox check", stderr, sandboxUsage)
	c.register(fs)
	fs.StringVar(&agent, "agent", "", "the agent whose sandbox to show (default: defaultAgent)")
	fs.BoolVar(&asJSON, "json", false, "print JSON")
	if code := parse(fs, args); code >= 0 {
		return code
	}
	mech := sandbox.Probe()
	plan, agent, cwd, err := sandboxPlanFor(&c, agent, "", stderr)
	refused := errors.Is(err, bridge.ErrSandboxRefused)
	if err != nil && !refused {
		fmt.Fprintf(stderr, "acp-bridge sandbox check: %v\n", err)
		return 2
	}
	if asJSON {
		out := map[string]any{"mechanism": mech, "agent": agent, "cwd": cwd, "plan": plan}
		if plan.Spec != nil {
			out["seatbeltProfile"] = sandbox.SeatbeltProfile(*plan.Spec)
		}
		if refused {
			out["error"] = err.Error()
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(out)
	} else {
		printCheck(stdout, mech, agent, plan, err)
	}
	if !plan.Confined {
		return 1
	}
	return 0
}

func printCheck(w io.Writer, m sandbox.Mechanism, agent string, plan bridge.SandboxPlan, err error) {
	fmt.Fprintf(w, "OS: %s\nmechanism: %s", m.OS, orDefault(m.Name, "none"))
	if m.Available {
		fmt.Fprintf(w, " (%s): available\n", m.Path)
	} else {
		fmt.Fprintf(w, ": NOT available: %s\n", m.Problem)
	}
	fmt.Fprintf(w, "\nagent %s: ", agent)
	switch {
	case plan.Confined:
		fmt.Fprintln(w, "confined")
	case err != nil:
		fmt.Fprintf(w, "refused to start: %v\n", err)
	default:
		fmt.Fprintf(w, "runs WITHOUT a sandbox: %s\n", plan.Reason)
	}
	if plan.Spec == nil {
		return
	}
	s := plan.Spec
	fmt.Fprintln(w, "  reads: everywhere, except (unreadable):")
	for _, p := range s.Masked {
		fmt.Fprintf(w, "    %s  (%s)\n", p.Path, p.Rule)
	}
	fmt.Fprintln(w, "  writes: only")
	for _, p := range s.Writable {
		fmt.Fprintf(w, "    %s\n", p)
	}
	fmt.Fprintln(w, "    a private temp directory ($TMPDIR)")
	fmt.Fprintln(w, "  read-only even there:")
	for _, p := range s.ReadOnly {
		fmt.Fprintf(w, "    %s\n", p)
	}
	if len(s.Blocked) > 0 {
		fmt.Fprintln(w, "  missing places that run code, kept from being created:")
		for _, b := range s.Blocked {
			fmt.Fprintf(w, "    %s\n", b.Path)
		}
	}
	if len(s.Pinned) > 0 {
		fmt.Fprintf(w, "  %d directories above protected places cannot be renamed or removed\n", len(s.Pinned))
	}
	for _, c := range s.Copies {
		fmt.Fprintf(w, "  private copy (writes never reach the file): %s\n", c)
	}
	for _, d := range s.Emptied {
		fmt.Fprintf(w, "  host sockets hidden (empty): %s\n", d)
	}
	fmt.Fprintf(w, "  network: %s\n", s.Network)
	for _, n := range s.Notes {
		fmt.Fprintf(w, "  note: %s\n", n)
	}
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// sandboxInit is `acp-bridge sandbox-init [--proxy-socket SOCK]
// [--env-keep NAME]... [--scope required|optional] -- CMD...`: the
// in-sandbox init (sandbox.InitMain; Prepare starts it as the executable
// with sandbox.InitArg). Not for people: the bridge puts it there.
func sandboxInit(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return sandbox.InitMain(args, stdin, stdout, stderr)
}
