package permission

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/policy"
)

// Config.BypassDisabled (the managed tier's disableBypassPermissionsMode):
// the card does not offer bypass; approvals/respond with it is refused
// with the reason; a card answered with it anyway is cancelled and grants
// nothing, also when the tier came to disable it while the card (which
// offered it) was open. The control (bypass allowed) offers it, and
// choosing it allows the call and grants bypass.
func TestBypassDisabledIsNotOfferedNorTaken(t *testing.T) {
	ask := func(*Request) (policy.Verdict, bool) {
		return policy.Verdict{Decision: policy.Ask, Source: policy.SourceDefault, Specifier: "Bash(make)", Reason: "no rule"}, true
	}
	const why = "bypassPermissions is disabled by the managed settings (/etc/acp-bridge/managed-settings.yaml: disableBypassPermissionsMode)"
	for _, c := range []struct {
		name              string
		disabled, atShown string // BypassDisabled when the card is shown, and after
	}{
		{"control: bypass allowed", "", ""},
		{"disabled by the managed tier", why, why},
		{"disabled while the card was open", why, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			var trace []string
			r := newRig([]Stage{stageFunc{"s", &trace, ask}}, policy.ModeDefault)
			var reason atomic.Value
			reason.Store(c.atShown)
			r.flow.Config = func() Config { return Config{BypassDisabled: reason.Load().(string)} }
			done := run(r, context.Background(), permReq("make"))
			card := answerCard(t, r.editor, nil)
			reason.Store(c.disabled)
			var p struct {
				Options []acp.PermissionOption `json:"options"`
			}
			if err := json.Unmarshal(card.params, &p); err != nil {
				t.Fatal(err)
			}
			offered := slices.ContainsFunc(p.Options, func(o acp.PermissionOption) bool { return o.OptionID == OptBypass })
			if offered != (c.atShown == "") {
				t.Fatalf("bypass offered %v with BypassDisabled %q: %+v", offered, c.atShown, p.Options)
			}
			err := r.flow.Respond(card.meta(t).ApprovalID, OptBypass, "", "", "")
			if c.disabled == "" {
				if err != nil {
					t.Fatalf("control: respond with bypass: %v", err)
				}
			} else {
				if err == nil || !strings.Contains(err.Error(), why) {
					t.Fatalf("respond with bypass: %v, want a refusal with the reason", err)
				}
				// The editor answers the card itself with it anyway.
				card.answer(EditorAnswer{Outcome: acp.OutcomeSelected, OptionID: OptBypass})
			}
			out := <-done
			resp := out.resp.(acp.RequestPermissionResponse)
			if c.disabled == "" {
				if resp.Outcome.OptionID != "yes" || len(r.grants.bypass) != 1 {
					t.Fatalf("control: answered %+v, bypass grants %v", resp.Outcome, r.grants.bypass)
				}
				return
			}
			if resp.Outcome.Outcome != acp.OutcomeCancelled || len(r.grants.bypass) != 0 {
				t.Fatalf("answered %+v, bypass grants %v: want cancelled and none", resp.Outcome, r.grants.bypass)
			}
			if recs := r.audit.records(); len(recs) != 1 || recs[0].Decision == "allow" {
				t.Fatalf("records %+v", recs)
			}
		})
	}
}
