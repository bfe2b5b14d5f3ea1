package bridge

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"go.uber.org/zap"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/agents"
	"github.com/acp-bridge/acp-bridge/policy"
	"github.com/acp-bridge/acp-bridge/profiles"
	"github.com/acp-bridge/acp-bridge/sandbox"
	"github.com/acp-bridge/acp-bridge/settings"
	"github.com/acp-bridge/acp-bridge/wire"
)

// SandboxPlan is how one agent process is confined (docs/sandbox.md).
type SandboxPlan struct {
	// Enabled: the settings ask for a sandbox.
	Enabled bool `json:"enabled"`
	// Confined: the process runs inside one.
	Confined bool `json:"confined"`
	// Mechanism is "bubblewrap" (Linux), "seatbelt" (macOS) or "".
	Mechanism string `json:"mechanism,omitempty"`
	// Reason says why an enabled sandbox is not in force.
	Reason string        `json:"reason,omitempty"`
	Spec   *sandbox.Spec `json:"spec,omitempty"`
	// Stale: the settings changed since the process started, and its
	// sandbox would now be different; it applies at the agent's next start.
	Stale bool `json:"stale,omitempty"`
	// Hosts decides where a proxied network (loopback, domains) connects.
	Hosts *sandbox.HostPolicy `json:"-"`
	// AllowDomains are sandbox.allowDomains, for a domains network.
	AllowDomains []string `json:"allowDomains,omitempty"`
	// Bound is the Spec the bridge's file service (fs/*) is bounded by
	// (permission.SandboxBoundStage, through agentRT.SandboxPermits): Spec when confined; otherwise the Spec
	// the agent would run in, computed the same way, so that turning the
	// sandbox off (or lacking bubblewrap) does not widen what the bridge
	// itself does for the agent. nil only when it cannot be computed.
	Bound *sandbox.Spec `json:"-"`
}

// SandboxInputs is what PlanSandbox needs to know of the agent and machine.
type SandboxInputs struct {
	Snapshot  *settings.Snapshot
	Policy    *policy.Policy // the agent's compiled rules (AgentPolicy)
	Agent     string
	Family    string // the agent's profile name (FamilyOf): its state directories
	Command   string // the agent's command: a package runner (npx) also writes its cache
	Workspace string // the bridge's workspace root
	Dir       string // the process's working directory
	Home      string
	// PolicyFiles are the settings files and directories the bridge reads
	// (settings.Store.PolicyFiles): read-only inside.
	PolicyFiles []string
	// Programs run outside every sandbox with the bridge's rights
	// (Options.Programs, decision hooks' programs): read-only inside, and
	// blocked where missing.
	Programs []string
	// Hidden are directories the agent must not see at all (the attach
	// socket directory, Options.HiddenDirs).
	Hidden []string
	// Homes are the private state homes made for this process alone
	// (privatehome.go, sandbox.MakeHome): writable inside.
	Homes []*sandbox.Home
}

// ErrSandboxRefused is wrapped by PlanSandbox's error when the sandbox is
// enabled, cannot be set up, and sandbox.onUnavailable is refuse.
var ErrSandboxRefused = fmt.Errorf("the OS sandbox cannot be set up and sandbox.onUnavailable is %q", settings.SandboxRefuse)

// AgentPolicy compiles an agent's rules from a snapshot (the global rules
// and the agent's own), as the bridge does for its decisions.
func AgentPolicy(snap *settings.Snapshot, agent string) (*policy.Policy, []policy.RuleError) {
	var rules []policy.RuleText
	for _, r := range snap.AgentRules(agent) {
		rules = append(rules, ruleText(r))
	}
	return policy.Compile(rules)
}

// PlanSandbox computes the sandbox an agent process gets. An error means
// the agent must not start (refused, or the spec could not be computed).
func PlanSandbox(in SandboxInputs) (SandboxPlan, error) {
	sb := in.Snapshot.SandboxFor(in.Agent)
	plan := SandboxPlan{Enabled: sb.Enabled}
	unconfined := func() {
		// the file service's bound, as if confined (best effort: no
		// bound if it cannot be computed; docs/sandbox.md).
		network, err := sandbox.ParseNetwork(sb.Network)
		if err != nil {
			network = sandbox.NetworkAll // the bound is about files, not the network
		}
		if spec, err := computeSpec(in, sb.AllowWrite, network, true); err == nil {
			plan.Bound = &spec
		}
	}
	if !sb.Enabled {
		plan.Reason = "sandbox.enabled is false"
		unconfined()
		return plan, nil
	}
	m := sandbox.Probe()
	plan.Mechanism = m.Name
	if !m.Available {
		plan.Reason = m.Problem
		if sb.OnUnavailable == settings.SandboxRefuse {
			return plan, fmt.Errorf("%w: %s (install it, or set sandbox.onUnavailable: warn to run unconfined with a warning)", ErrSandboxRefused, m.Problem)
		}
		unconfined()
		return plan, nil
	}
	network, err := sandbox.ParseNetwork(sb.Network)
	if err != nil {
		return plan, err
	}
	spec, err := computeSpec(in, sb.AllowWrite, network, false)
	if err != nil {
		return plan, fmt.Errorf("sandbox for agent %s: %w", in.Agent, err)
	}
	plan.Confined, plan.Spec, plan.Bound = true, &spec, &spec
	if network.Proxied() {
		plan.AllowDomains = sb.AllowDomains
		plan.Hosts = &sandbox.HostPolicy{Network: network, Policy: in.Policy, AllowDomains: sb.AllowDomains,
			Env: policy.Env{Cwd: in.Dir, ProjectRoot: in.Workspace, Home: in.Home}}
	}
	return plan, nil
}

// computeSpec is sandbox.Compute for the agent in describes.
func computeSpec(in SandboxInputs, allowWrite []string, network sandbox.Network, boundOnly bool) (sandbox.Spec, error) {
	workspace := []string{}
	for _, d := range []string{in.Workspace, in.Dir} {
		if d != "" {
			workspace = append(workspace, d)
		}
	}
	workspace = append(workspace, in.Snapshot.Config.Permissions.AdditionalDirectories...)
	// Every agent's config places, in every agent's sandbox (agent A must
	// not write what agent B reads at its next start), and Codex's private
	// home's, which sandbox.Compute adds (docs/sandbox.md, "Agents' config
	// places").
	places := profiles.AllConfigPlaces()
	return sandbox.Compute(sandbox.Options{
		Places:        places,
		Workspace:     workspace,
		Home:          in.Home,
		StateDirs:     append(sandbox.StateDirs(in.Family, in.Home), sandbox.RunnerDirs(in.Command, in.Home)...),
		Homes:         in.Homes,
		AllowWrite:    allowWrite,
		Protected:     in.PolicyFiles,
		Network:       network,
		Hidden:        in.Hidden,
		EnvKeep:       agentEnvKeep(in),
		Policy:        in.Policy,
		FileBoundOnly: boundOnly,
		Env: policy.Env{Cwd: in.Dir, ProjectRoot: in.Workspace, Home: in.Home,
			AdditionalDirectories: in.Snapshot.Config.Permissions.AdditionalDirectories},
	})
}

// agentEnvKeep are the environment names an agent keeps in its sandbox
// beside sandbox.EnvAllowed: its family's model keys, the names its config
// sets (env:), and its profile's launch environment. The rest of the
// bridge's environment (SSH_AUTH_SOCK, DBUS_SESSION_BUS_ADDRESS, cloud
// credentials, tokens) does not reach it.
func agentEnvKeep(in SandboxInputs) []string {
	keep := sandbox.FamilyEnv(in.Family)
	if in.Snapshot == nil {
		return keep
	}
	cfg := in.Snapshot.Config.Agents[in.Agent]
	for k := range cfg.Env {
		keep = append(keep, k)
	}
	if prof, _ := profiles.DetectProfile(in.Agent, cfg.Family, cfg.Command, cfg.Args); prof != nil {
		for k := range prof.LaunchEnv {
			keep = append(keep, k)
		}
	}
	slices.Sort(keep)
	return slices.Compact(keep)
}

// NetOptions is what the plan's proxied network needs (nil when the network
// is not proxied): the bridge's own executable runs inside as the relay
// (`acp-bridge sandbox-init`), and refused destinations are reported.
func (plan SandboxPlan) NetOptions(exe string, denied func(host string, port int)) *sandbox.NetOptions {
	if plan.Hosts == nil {
		return nil
	}
	return &sandbox.NetOptions{Init: []string{exe, "sandbox-init"}, Allow: plan.Hosts.Allow, Denied: denied}
}

// wrapSpec turns an agent's process spec into the same process started
// inside the plan's sandbox. The returned Prepared (nil when unconfined)
// holds the sandbox's files: its Cleanup is to run once the process has
// exited. An unconfined plan leaves spec as is.
func wrapSpec(plan SandboxPlan, spec agents.Spec, log *zap.Logger) (agents.Spec, *sandbox.Prepared, error) {
	if !plan.Confined {
		return spec, nil, nil
	}
	if !strings.Contains(spec.Command, "/") {
		// Resolve here so a missing agent gets the same clear error it
		// gets unconfined, not bwrap's.
		if _, err := exec.LookPath(spec.Command); err != nil {
			return spec, nil, fmt.Errorf("start agent %s: %w", spec.Name, err)
		}
	}
	dir := spec.Dir
	if dir == "" {
		dir, _ = os.Getwd()
	}
	exe, err := os.Executable()
	if err != nil {
		exe = "acp-bridge"
	}
	denied := func(host string, port int) {
		log.Warn("the OS sandbox refused a connection", zap.String("agent", spec.Name), zap.String("host", host), zap.Int("port", port))
	}
	netOpts := plan.NetOptions(exe, denied)
	if netOpts != nil {
		netOpts.PeerRefused = func(err error) {
			log.Warn("the OS sandbox's proxy refused a process of another sandbox", zap.String("agent", spec.Name), zap.Error(err))
		}
	}
	p, err := sandbox.Prepare(*plan.Spec, dir, append([]string{spec.Command}, spec.Args...), netOpts)
	if err != nil {
		return spec, nil, err
	}
	spec.Display = spec.Command + " (in the OS sandbox)"
	spec.Command, spec.Args = p.Path, p.Args
	spec.SignalCodes = true // bwrap exits 128+N when the agent dies of signal N
	return spec, &p, nil
}

// confineTerminal rewrites a terminal/create the editor is to run so that
// the command runs in the agent's sandbox: a terminal is started on the
// agent's behalf, so the kernel floor holds there too. Unconfined agents'
// terminals are left as they are.
func (a *agentRT) confineTerminal(o acp.Object, sessionCwd string) error {
	a.mu.Lock()
	plan, prep := a.sandbox, a.prepared
	a.mu.Unlock()
	if !plan.Confined || prep == nil {
		return nil
	}
	var p struct {
		Command string   `json:"command"`
		Args    []string `json:"args"`
		Cwd     string   `json:"cwd"`
	}
	if err := json.Unmarshal(o.Marshal(), &p); err != nil {
		return err
	}
	dir := p.Cwd
	if dir == "" {
		dir = sessionCwd
	}
	inner := append([]string{p.Command}, p.Args...)
	// The environment the agent asked for is set inside the sandbox, by
	// env(1) in front of the command: bubblewrap itself runs outside the
	// sandbox (it builds it) and must never start with an agent's
	// LD_PRELOAD, say. The editor gets no env member.
	var env []envVar
	if raw, ok := o["env"]; ok {
		if err := json.Unmarshal(raw, &env); err != nil {
			return fmt.Errorf("env: %w", err)
		}
		delete(o, "env")
	}
	if len(env) > 0 {
		if strings.Contains(p.Command, "=") {
			return fmt.Errorf("command %q holds '=': with env it would read as an assignment", p.Command)
		}
		pre := []string{"env", "--"}
		for _, e := range env {
			pre = append(pre, e.Name+"="+e.Value)
		}
		inner = append(pre, inner...)
	}
	argv := prep.Command(*plan.Spec, dir, inner)
	o.Set("command", argv[0])
	o.Set("args", argv[1:])
	return nil
}

// sandboxPlan computes the plan of a's next process.
func (a *agentRT) sandboxPlan(snap *settings.Snapshot, family, dir string) (SandboxPlan, error) {
	var pol *policy.Policy
	if pd, ok := a.b.decider.(*policyDecider); ok {
		pol, _ = pd.policy(a.name)
	} else {
		pol, _ = AgentPolicy(snap, a.name)
	}
	var files []string
	var homes []*sandbox.Home
	a.mu.Lock()
	if a.privHome != nil {
		homes = []*sandbox.Home{a.privHome}
	}
	a.mu.Unlock()
	if a.b.store != nil {
		files = append(a.b.store.PolicyFiles(), snapshotPolicyFiles(snap)...)
	}
	return PlanSandbox(SandboxInputs{
		Snapshot: snap, Policy: pol, Agent: a.name, Family: family, Command: snap.Config.Agents[a.name].Command,
		Workspace: a.b.opts.WorkspaceDir, Dir: dir, Home: agentHome(snap.Config.Agents[a.name], a.b.home), PolicyFiles: files,
		Hidden: a.b.opts.HiddenDirs, Homes: homes, Programs: a.b.programs(),
	})
}

// sandboxSummary is what a session's _meta["acp-bridge"].sandbox says: every
// session of an agent that runs unconfined though a sandbox was asked for
// carries the warning.
func (a *agentRT) sandboxSummary() wire.SessionSandbox {
	a.mu.Lock()
	plan := a.sandbox
	a.mu.Unlock()
	out := wire.SessionSandbox{Enabled: plan.Enabled, Confined: plan.Confined, Mechanism: plan.Mechanism}
	if plan.Enabled && !plan.Confined {
		out.Warning = "this agent runs WITHOUT the OS sandbox: " + plan.Reason
	}
	return out
}

// FamilyOf is the profile the bridge uses for a configured agent (claude,
// gemini, qwen, codex, ...): it names the agent's state directories.
func FamilyOf(name string, cfg settings.Agent) string {
	prof, _ := profiles.DetectProfile(name, cfg.Family, cfg.Command, cfg.Args)
	return prof.Name
}

// sandboxNote says what a's sandbox still blocks of call (sandbox.Note).
func (a *agentRT) sandboxNote(call policy.Call, cwd string, viaEditor bool) string {
	a.mu.Lock()
	plan := a.sandbox
	a.mu.Unlock()
	if !plan.Enabled && plan.Reason == "" {
		return "" // not started yet: nothing known
	}
	if call.Cwd != "" && !strings.ContainsAny(call.Cwd, "$`~") {
		// the call's relative paths are where it runs (policy.Call.Cwd).
		if filepath.IsAbs(call.Cwd) {
			cwd = call.Cwd
		} else if cwd != "" {
			cwd = filepath.Join(cwd, call.Cwd)
		}
	}
	if viaEditor && plan.Bound != nil {
		return sandbox.Note(plan.Bound, call.Tool, call.Paths, cwd, true)
	}
	return sandbox.Note(plan.Spec, call.Tool, call.Paths, cwd, viaEditor)
}

// agentHome is the home directory an agent process sees: its env's HOME
// when the settings give one (its state directories are there), else the
// bridge's.
func agentHome(cfg settings.Agent, home string) string {
	if h := cfg.Env["HOME"]; filepath.IsAbs(h) {
		return filepath.Clean(h)
	}
	return home
}

// recheckSandboxes recomputes, after a settings change, the sandbox of every
// running agent and marks the ones whose sandbox would now differ: a
// process's mounts are fixed when it starts, so the new sandbox applies at
// its next start, and until then agents/list and the log say so. It walks
// the file system, so it runs on its own goroutine.
func (b *Bridge) recheckSandboxes() {
	b.mu.Lock()
	var running []*agentRT
	for _, a := range b.agents {
		running = append(running, a)
	}
	b.mu.Unlock()
	snap := b.snapshot()
	for _, a := range running {
		a.mu.Lock()
		cur, alive, dir := a.sandbox, a.proc != nil, a.sandboxDir
		a.mu.Unlock()
		if !alive || (!cur.Enabled && cur.Reason == "") {
			continue
		}
		cfg := snap.Config.Agents[a.name]
		next, err := a.sandboxPlan(snap, FamilyOf(a.name, cfg), dir)
		changed := err != nil || next.Enabled != cur.Enabled || next.Confined != cur.Confined ||
			(next.Spec != nil && cur.Spec != nil && !sameSpec(*next.Spec, *cur.Spec))
		if !changed {
			continue
		}
		a.mu.Lock()
		a.sandbox.Stale = true
		a.mu.Unlock()
		a.log.Warn("the settings changed the agent's OS sandbox; it applies when the agent restarts (Restart Bridge, or the agent's next start)")
		a.notifyStatus()
	}
}

func sameSpec(x, y sandbox.Spec) bool {
	return slices.Equal(x.Writable, y.Writable) && slices.Equal(x.ReadOnly, y.ReadOnly) &&
		slices.Equal(policyMasks(x.Masked), policyMasks(y.Masked)) && x.Network == y.Network
}

// policyMasks leaves out the host IPC sockets (sandbox.Compute finds them
// by scanning /run and /tmp, where other sandboxes' sockets come and go):
// they are no change of the settings.
func policyMasks(ms []sandbox.Path) []sandbox.Path {
	var out []sandbox.Path
	for _, m := range ms {
		if !strings.HasPrefix(m.Rule, "host IPC") {
			out = append(out, m)
		}
	}
	return out
}
