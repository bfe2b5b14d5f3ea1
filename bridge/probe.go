package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"go.uber.org/zap"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/agents"
	"github.com/acp-bridge/acp-bridge/policy"
	"github.com/acp-bridge/acp-bridge/settings"
)

// ProbeResult is what `acp-bridge agents` reports for one agent.
type ProbeResult struct {
	ID           string              `json:"id"`
	Command      string              `json:"command"`
	Args         []string            `json:"args"`
	Default      bool                `json:"default"`
	OK           bool                `json:"ok"`
	Error        string              `json:"error,omitempty"`
	AgentInfo    *acp.Implementation `json:"agentInfo,omitempty"`
	Capabilities json.RawMessage     `json:"capabilities,omitempty"`
	StartupMS    int64               `json:"startupMs"`
	Sandbox      *SandboxPlan        `json:"sandbox,omitempty"`
}

// ProbeAgents starts each configured agent, runs initialize (advertising no
// fs/terminal), reports, and stops it.
// Each runs in the sandbox it gets as the bridge's child (policyFiles:
// settings.Store.PolicyFiles).
func ProbeAgents(ctx context.Context, snap *settings.Snapshot, workspace, version string, policyFiles []string, timeout time.Duration, log *zap.Logger) []ProbeResult {
	var out []ProbeResult
	home, _ := userHome()
	for _, name := range snap.AgentNames() {
		cfg := snap.Config.Agents[name]
		r := ProbeResult{ID: name, Command: cfg.Command, Args: cfg.Args, Default: name == snap.Config.DefaultAgent}
		started := time.Now()
		dir := cfg.Cwd
		if dir == "" {
			dir = workspace
		}
		pol, _ := AgentPolicy(snap, name)
		plan, err := PlanSandbox(SandboxInputs{Snapshot: snap, Policy: pol, Agent: name, Command: cfg.Command,
			Family: FamilyOf(name, cfg), Workspace: workspace, Dir: dir, Home: agentHome(cfg, home), PolicyFiles: policyFiles})
		r.Sandbox = &plan
		var res acp.InitializeResponse
		if err == nil {
			err = snap.Managed.AgentAllowed(cfg)
		}
		if err == nil {
			res, err = probeOne(ctx, cfg, plan, dir, version, timeout, log)
		}
		r.StartupMS = time.Since(started).Milliseconds()
		if err != nil {
			r.Error = err.Error()
		} else {
			r.OK = true
			r.AgentInfo = res.AgentInfo
			r.Capabilities = res.AgentCapabilities
		}
		out = append(out, r)
	}
	return out
}

func probeOne(ctx context.Context, cfg settings.Agent, plan SandboxPlan, dir, version string, timeout time.Duration, log *zap.Logger) (acp.InitializeResponse, error) {
	var res acp.InitializeResponse
	pctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	spec, prep, err := wrapSpec(plan, agents.Spec{Name: cfg.Name, Command: cfg.Command, Args: cfg.Args, Env: cfg.Env, Dir: dir}, log)
	if err != nil {
		return res, err
	}
	if prep != nil {
		defer prep.Cleanup()
	}
	proc, err := agents.Start(pctx, spec, log)
	if err != nil {
		return res, err
	}
	defer func() {
		sctx, scancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer scancel()
		_ = proc.Stop(sctx)
	}()
	stdin := acp.NewQueueWriter(proc.Stdin(), proc.Stdin())
	defer stdin.Abort()
	conn := acp.NewConn(pctx, acp.NewStream(proc.Stdout(), stdin, stdin, acp.StreamOptions{}), nopHandler{}, acp.ConnOptions{})
	defer conn.Close()
	err = conn.Call(pctx, acp.MethodInitialize, acp.InitializeRequest{
		ProtocolVersion: acp.ProtocolVersion, ClientInfo: &acp.Implementation{Name: "acp-bridge", Version: version},
	}, &res)
	if err != nil {
		select {
		case <-proc.Done():
			return res, fmt.Errorf("exited before answering initialize: %v", proc.ExitErr())
		default:
		}
		if pctx.Err() != nil {
			return res, fmt.Errorf("no answer to initialize within %s", timeout)
		}
		return res, fmt.Errorf("initialize: %w", err)
	}
	if res.ProtocolVersion != acp.ProtocolVersion {
		return res, fmt.Errorf("answered protocolVersion %d; acp-bridge speaks %d", res.ProtocolVersion, acp.ProtocolVersion)
	}
	return res, nil
}

type nopHandler struct{}

func (nopHandler) HandleNotification(context.Context, string, json.RawMessage) {}
func (nopHandler) HandleRequest(_ context.Context, method string, _ json.RawMessage) (any, error) {
	return nil, acp.MethodNotFound(method)
}

// PrintProbe prints probe results as a table.
func PrintProbe(w io.Writer, rs []ProbeResult) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "AGENT\tSTATUS\tAGENT INFO\tSTARTUP\tSANDBOX\tCOMMAND")
	for _, r := range rs {
		name := r.ID
		if r.Default {
			name += " (default)"
		}
		status, info := "ok", ""
		if !r.OK {
			status = "FAILED"
		}
		if r.AgentInfo != nil {
			info = r.AgentInfo.Name + " " + r.AgentInfo.Version
		}
		cmd := r.Command
		for _, a := range r.Args {
			cmd += " " + a
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%dms\t%s\t%s\n", name, status, info, r.StartupMS, sandboxWord(r.Sandbox), cmd)
	}
	_ = tw.Flush()
	for _, r := range rs {
		if r.Error != "" {
			fmt.Fprintf(w, "\n%s: %s\n", r.ID, r.Error)
		}
		if p := r.Sandbox; p != nil && p.Enabled && !p.Confined {
			fmt.Fprintf(w, "%s: WARNING: runs without the OS sandbox: %s\n", r.ID, p.Reason)
		}
		if len(r.Capabilities) > 0 {
			fmt.Fprintf(w, "%s capabilities: %s\n", r.ID, r.Capabilities)
		}
	}
}

// Explain evaluates one call under the current settings, as the bridge would
// for a new session of the agent in cwd.
func Explain(snap *settings.Snapshot, workspace, agent, mode, cwd string, call policy.Call) (policy.Call, policy.Verdict, []policy.RuleError, error) {
	if agent == "" {
		agent = snap.Config.DefaultAgent
	}
	cfg, ok := snap.Config.Agents[agent]
	if !ok && agent != "" {
		return call, policy.Verdict{}, nil, fmt.Errorf("unknown agent %q", agent)
	}
	var rules []policy.RuleText
	for _, r := range snap.AgentRules(agent) {
		rules = append(rules, ruleText(r))
	}
	pol, errs := policy.Compile(rules)
	m := policy.ModeDefault
	for _, candidate := range []string{mode, cfg.Mode, snap.Config.Permissions.DefaultMode} {
		if candidate == "" {
			continue
		}
		pm, err := policy.ParseMode(candidate)
		if err != nil {
			if candidate == mode {
				return call, policy.Verdict{}, errs, err
			}
			continue
		}
		m = pm
		break
	}
	home, _ := userHome()
	v := policy.Evaluate(policy.Input{
		Call: call, Mode: m, Policy: pol, AgentBypass: cfg.BypassPermissions && mode == "",
		Env: policy.Env{Cwd: cwd, ProjectRoot: workspace, Home: home, AdditionalDirectories: snap.Config.Permissions.AdditionalDirectories, FS: policy.OSFS{},
			ProtectedPaths: snapshotPolicyFiles(snap)},
	})
	return call, v, errs, nil
}

// sandboxWord is the SANDBOX column of `acp-bridge agents`.
func sandboxWord(p *SandboxPlan) string {
	switch {
	case p == nil:
		return "?"
	case p.Confined:
		return p.Mechanism
	case !p.Enabled:
		return "off"
	}
	return "UNCONFINED"
}
