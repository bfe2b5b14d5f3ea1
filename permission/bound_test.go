package permission

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/acp-bridge/acp-bridge/policy"
)

// ctxStage is a Stage that sees its context (stageFunc does not).
type ctxStage struct {
	fn func(ctx context.Context, r *Request) (policy.Verdict, bool)
}

func (ctxStage) Name() string                                                    { return "slow" }
func (s ctxStage) Decide(ctx context.Context, r *Request) (policy.Verdict, bool) { return s.fn(ctx, r) }

// Every decision is bounded in time: a stage past its budget on a large
// call leaves an engine-error ask (a deny in dontAsk), its context is
// cancelled, and what it writes afterwards never reaches the request; in
// time, its verdict and its writes count. A small call is decided inline,
// whatever the stage takes (the control: the budget is what cut the slow
// stage short, not the stage itself).
func TestStageBudget(t *testing.T) {
	old := stageBudget
	stageBudget = 50 * time.Millisecond
	t.Cleanup(func() { stageBudget = old })
	large := strings.Repeat("a", inlineCallBytes+1)
	cases := []struct {
		name    string
		command string
		mode    policy.Mode
		slow    bool
		want    policy.Decision
		source  policy.Source
	}{
		{"large call, slow stage", large, policy.ModeDefault, true, policy.Ask, SourceEngineError},
		{"large call, slow stage, dontAsk", large, policy.ModeDontAsk, true, policy.Deny, SourceEngineError},
		{"large call, stage in time", large, policy.ModeDefault, false, policy.Allow, policy.SourceRule},
		{"small call, slow stage: inline", "x", policy.ModeDefault, true, policy.Allow, policy.SourceRule},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cancelled := make(chan struct{})
			release := make(chan struct{})
			defer close(release)
			stage := ctxStage{fn: func(ctx context.Context, r *Request) (policy.Verdict, bool) {
				if c.slow {
					if len(r.Call.Command) > inlineCallBytes {
						<-ctx.Done() // past the budget only by the bound's cancel
						close(cancelled)
						<-release
					} else {
						time.Sleep(2 * stageBudget) // inline: nothing cuts it short
					}
				}
				r.OPADecisionID = "written by the stage"
				return policy.Verdict{Decision: policy.Allow, Source: policy.SourceRule, Specifier: "Bash(x)", Reason: "stage"}, true
			}}
			rg := newRig([]Stage{stage}, c.mode)
			d := rg.flow.Decide(context.Background(), rg.session, policy.Call{Tool: "Bash", Command: c.command}, "")
			if d.Verdict.Decision != c.want || d.Verdict.Source != c.source {
				t.Fatalf("verdict %s/%s (%s), want %s/%s", d.Verdict.Decision, d.Verdict.Source, d.Verdict.Reason, c.want, c.source)
			}
			if c.want == policy.Allow && d.OPADecisionID != "written by the stage" {
				t.Fatalf("the stage's write to the request was lost: %q", d.OPADecisionID)
			}
			if c.source == SourceEngineError {
				<-cancelled
				if !strings.Contains(d.Verdict.Reason, "took longer than") {
					t.Fatalf("reason %q does not say the stage was too slow", d.Verdict.Reason)
				}
			}
		})
	}
}
