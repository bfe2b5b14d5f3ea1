package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/acp-bridge/acp-bridge/policy"
)

// DefaultTimeout is a hook's time budget when it names none.
const DefaultTimeout = 2 * time.Second

// maxOutput bounds what a hook may write (stdout, an HTTP body).
const maxOutput = 1 << 20

// MaxAnswer is maxOutput for a Post: the most of a PDP's answer its
// transport may return (orgproc's authzen.evaluate refuses a longer one).
const MaxAnswer = maxOutput

// Post is an AuthZEN hook's transport: it POSTs body (JSON) to url within
// ctx and returns the HTTP status and at most MaxAnswer bytes of the
// answer (a longer one is an error). The bridge's is orgproc.Client's
// AuthZEN, which does the HTTP in the companion (acp-bridge-org): the
// bridge links no HTTP client (docs/org.md, "The companion").
type Post func(ctx context.Context, url string, body []byte) (status int, answer []byte, err error)

// Hook is one configured decision hook.
type Hook struct {
	// Name identifies the hook in the audit log and on cards.
	Name string
	// Command is the program and its arguments (no shell). Exactly one of
	// Command and URL is set.
	Command []string
	// URL is an AuthZEN 1.0 PDP's evaluation endpoint
	// (…/access/v1/evaluation).
	URL string
	// Timeout is the budget of one consultation; 0 = DefaultTimeout.
	Timeout time.Duration
	// Env is a command hook's environment (settings.Snapshot.HookEnv);
	// nil inherits the bridge's.
	Env []string
	// Tier is the settings layer it came from (user, managed).
	Tier string
	// Wrap, when set, turns a command hook's argv into the argv that runs
	// it blind to what agents write (sandbox.HookArgv); an error fails the
	// consultation (the hook gives no verdict: the call is asked).
	Wrap func(argv []string) ([]string, error)
	// Post carries a URL hook's request (nil: the hook gives no verdict,
	// so the call asks, as on every hook failure).
	Post Post
}

// Request is what a hook is told of one decision.
type Request struct {
	Call      policy.Call `json:"call"`
	Agent     string      `json:"agent"`
	SessionID string      `json:"sessionId"`
	Mode      string      `json:"mode"`
	Workspace string      `json:"workspace"`
	// Earlier is what the stages before the hook decided.
	Earlier Earlier `json:"earlier"`
}

// Earlier is the built-in verdict a hook sees.
type Earlier struct {
	Decision string `json:"decision"`
	Source   string `json:"source"`
	Rule     string `json:"rule,omitempty"`
	Tier     string `json:"tier,omitempty"`
	Reason   string `json:"reason"`
}

// Outcome is how a consultation ended.
type Outcome string

const (
	OutcomeVerdict   Outcome = "verdict"    // the hook decided
	OutcomeNoVerdict Outcome = "no-verdict" // timeout, crash, malformed or missing verdict
)

// Result is one hook's answer.
type Result struct {
	Hook     string          `json:"hook"`
	Outcome  Outcome         `json:"outcome"`
	Decision policy.Decision `json:"decision,omitempty"` // set for OutcomeVerdict
	Reason   string          `json:"reason"`
	Elapsed  time.Duration   `json:"elapsed"`
}

// Consult asks one hook, within its budget and ctx. It never fails: what
// goes wrong is a no-verdict Result naming why.
func Consult(ctx context.Context, h Hook, req Request) Result {
	budget := h.Timeout
	if budget <= 0 {
		budget = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	start := time.Now()
	var r Result
	var err error
	switch {
	case len(h.Command) > 0 && h.URL == "":
		r, err = consultCommand(ctx, h, req)
	case h.URL != "" && len(h.Command) == 0:
		r, err = consultAuthZEN(ctx, h, req)
	default:
		err = errors.New("a hook needs exactly one of command and url")
	}
	r.Hook = h.Name
	r.Elapsed = time.Since(start)
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			err = fmt.Errorf("no verdict within %v", budget)
		}
		return Result{Hook: h.Name, Outcome: OutcomeNoVerdict, Reason: "hook " + h.Name + ": " + err.Error(), Elapsed: r.Elapsed}
	}
	return r
}

// verdictDoc is a command hook's stdout.
type verdictDoc struct {
	Decision string `json:"decision"`
	Reason   string `json:"reason"`
}

func parseDecision(s string) (policy.Decision, error) {
	switch policy.Decision(s) {
	case policy.Allow, policy.Ask, policy.Deny:
		return policy.Decision(s), nil
	}
	return "", fmt.Errorf("decision %q is not allow, ask or deny", s)
}

func consultCommand(ctx context.Context, h Hook, req Request) (Result, error) {
	in, err := json.Marshal(req)
	if err != nil {
		return Result{}, err
	}
	if !filepath.IsAbs(h.Command[0]) {
		// exec would look a bare name up in the bridge's own PATH, not
		// the hook's (settings refuse it too; red team 14b).
		return Result{}, fmt.Errorf("the program %q is not an absolute path", h.Command[0])
	}
	argv := h.Command
	if h.Wrap != nil {
		if argv, err = h.Wrap(argv); err != nil {
			return Result{}, fmt.Errorf("the hook's sandbox: %w", err)
		}
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stdin = bytes.NewReader(in)
	cmd.Dir = "/" // never the workspace: a relative argument names no file an agent wrote
	if h.Env != nil {
		cmd.Env = h.Env // the settings' HookEnv: nothing an agent's tree can steer
	}
	var out, errb limitedBuffer
	out.max, errb.max = maxOutput, 4096
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.WaitDelay = 100 * time.Millisecond // a child that keeps the pipes open is not waited for
	err = cmd.Run()
	if errors.Is(err, exec.ErrWaitDelay) && cmd.ProcessState != nil && cmd.ProcessState.Success() {
		// The hook exited with its verdict written; a child of its that
		// still holds the pipe is not waited for.
		err = nil
	}
	if err != nil {
		msg := strings.TrimSpace(errb.String())
		if msg != "" {
			return Result{}, fmt.Errorf("%w (stderr: %s)", err, msg)
		}
		return Result{}, err
	}
	if out.over {
		return Result{}, fmt.Errorf("wrote more than %d bytes", maxOutput)
	}
	var v verdictDoc
	dec := json.NewDecoder(bytes.NewReader(out.Bytes()))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		return Result{}, fmt.Errorf("malformed verdict on stdout: %w", err)
	}
	if dec.More() {
		return Result{}, errors.New("malformed verdict on stdout: more than one JSON value")
	}
	d, err := parseDecision(v.Decision)
	if err != nil {
		return Result{}, fmt.Errorf("missing or malformed verdict: %w", err)
	}
	return Result{Outcome: OutcomeVerdict, Decision: d, Reason: v.Reason}, nil
}

// limitedBuffer keeps at most max bytes and remembers it was cut. (Not an
// embedded bytes.Buffer: io.Copy would use its ReadFrom, unbounded.)
type limitedBuffer struct {
	buf  bytes.Buffer
	max  int
	over bool
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.buf.Len(); len(p) > room {
		b.over = true
		if room > 0 {
			b.buf.Write(p[:room])
		}
		return len(p), nil
	}
	return b.buf.Write(p)
}

func (b *limitedBuffer) Bytes() []byte  { return b.buf.Bytes() }
func (b *limitedBuffer) String() string { return b.buf.String() }

// AuthZEN 1.0 Access Evaluation request and response.
type azRequest struct {
	Subject  azEntity       `json:"subject"`
	Action   azAction       `json:"action"`
	Resource azEntity       `json:"resource"`
	Context  map[string]any `json:"context,omitempty"`
}

type azEntity struct {
	Type       string         `json:"type"`
	ID         string         `json:"id"`
	Properties map[string]any `json:"properties,omitempty"`
}

type azAction struct {
	Name       string         `json:"name"`
	Properties map[string]any `json:"properties,omitempty"`
}

type azResponse struct {
	Decision *bool          `json:"decision"`
	Context  map[string]any `json:"context"`
}

// authzenRequest maps a decision to AuthZEN: the subject is the agent, the
// action the tool, the resource what the call touches.
func authzenRequest(req Request) azRequest {
	id := policy.Specifier(req.Call)
	return azRequest{
		Subject:  azEntity{Type: "agent", ID: req.Agent, Properties: map[string]any{"session": req.SessionID}},
		Action:   azAction{Name: req.Call.Tool},
		Resource: azEntity{Type: "tool_call", ID: id, Properties: map[string]any{"call": req.Call, "workspace": req.Workspace}},
		Context:  map[string]any{"mode": req.Mode, "earlier": req.Earlier},
	}
}

// consultAuthZEN asks a PDP. decision true is allow, false deny; a PDP may
// say ask in context["acp-bridge"] = "ask" (AuthZEN has two outcomes; an
// "ask" stays between them). context.reason (a string, or an object with
// a "reason_user" or "reason" member) is shown on the card.
func consultAuthZEN(ctx context.Context, h Hook, req Request) (Result, error) {
	body, err := json.Marshal(authzenRequest(req))
	if err != nil {
		return Result{}, fmt.Errorf("AuthZEN request: %w", err)
	}
	if h.Post == nil {
		return Result{}, errors.New("no transport for AuthZEN requests (the bridge's companion, acp-bridge-org, carries them)")
	}
	status, data, err := h.Post(ctx, h.URL, body)
	if err != nil {
		return Result{}, err
	}
	if len(data) > maxOutput {
		return Result{}, fmt.Errorf("answer longer than %d bytes", maxOutput)
	}
	if status != 200 {
		return Result{}, fmt.Errorf("HTTP %d", status)
	}
	var az azResponse
	if err := json.Unmarshal(data, &az); err != nil {
		return Result{}, fmt.Errorf("malformed AuthZEN answer: %w", err)
	}
	if az.Decision == nil {
		return Result{}, errors.New("AuthZEN answer has no decision")
	}
	d := policy.Deny
	if *az.Decision {
		d = policy.Allow
	}
	if s, _ := az.Context["acp-bridge"].(string); s == "ask" {
		d = policy.Ask
	}
	return Result{Outcome: OutcomeVerdict, Decision: d, Reason: azReason(az.Context)}, nil
}

func azReason(c map[string]any) string {
	switch r := c["reason"].(type) {
	case string:
		return r
	case map[string]any:
		for _, k := range []string{"reason_user", "reason"} {
			if s, ok := r[k].(string); ok {
				return s
			}
		}
	}
	if r, ok := c["reason_user"].(map[string]any); ok {
		for _, v := range r {
			if s, ok := v.(string); ok {
				return s
			}
		}
	}
	return ""
}

// SourceHook is the Source of a verdict a hook decided; SourceNoVerdict
// of the ask (deny) made because a hook gave none (timeout, crash,
// malformed): the audit log tells the two apart.
const (
	SourceHook      policy.Source = "hook"
	SourceNoVerdict policy.Source = "hook-no-verdict"
)

// Combine folds a hook's result into v, the verdict of the stages before it,
// in mode. Stricter always wins. A hook may loosen only an ask the mode's
// default made (no rule, breaker or doubt), and never a deny. No verdict
// asks (denies where the mode never asks).
func Combine(v policy.Verdict, r Result, mode policy.Mode) policy.Verdict {
	return CombineFirm(v, r, mode, false)
}

// CombineFirm is Combine where firm says the earlier ask is a doubt that
// holds in every mode (permission.Request.Firm): then it is never loosened.
func CombineFirm(v policy.Verdict, r Result, mode policy.Mode, firm bool) policy.Verdict {
	neverAsks := mode == policy.ModeDontAsk || mode == policy.ModePlan
	if r.Outcome != OutcomeVerdict {
		if v.Decision == policy.Deny {
			return v
		}
		d := policy.Ask
		if neverAsks {
			d = policy.Deny
		}
		return policy.Verdict{Decision: d, Source: SourceNoVerdict, Reason: r.Reason + "; asking", Specifier: v.Specifier,
			SubCommands: v.SubCommands}
	}
	hv := policy.Verdict{Decision: r.Decision, Source: SourceHook, Reason: hookReason(r), Specifier: v.Specifier, SubCommands: v.SubCommands}
	if hv.Decision == policy.Ask && neverAsks {
		hv.Decision = policy.Deny
	}
	switch {
	case rank(hv.Decision) > rank(v.Decision):
		return hv
	case rank(hv.Decision) == rank(v.Decision):
		return v
	}
	// The hook is looser: it may answer only an ask that nothing but the
	// mode's default made. An ask rule (of any tier: a managed one may be
	// matched beside a lower one that is named instead), a circuit breaker,
	// a call that could not be read, an engine failure: each stays an ask.
	if v.Decision == policy.Ask && v.Source == policy.SourceDefault && !firm {
		return hv
	}
	return v
}

func hookReason(r Result) string {
	s := "hook " + r.Hook + " says " + string(r.Decision)
	if r.Reason != "" {
		s += ": " + r.Reason
	}
	return s
}

func rank(d policy.Decision) int {
	switch d {
	case policy.Deny:
		return 2
	case policy.Ask:
		return 1
	}
	return 0
}
