package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"go/parser"
	"go/token"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acp-bridge/acp-bridge/policy"
)

var req = Request{Call: policy.Call{Tool: "Bash", Command: "git push"}, Agent: "claude", SessionID: "s1", Mode: "default",
	Workspace: "/w", Earlier: Earlier{Decision: "ask", Source: "default", Reason: "no rule allows Bash"}}

// sh is a hook running script from a file in a directory of its own (a
// hook runs a script file, never shell code: settings/hookpaths.go).
func sh(t testing.TB, script string) []string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "hook.sh")
	if err := os.WriteFile(p, []byte(script+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return []string{"/bin/sh", p}
}

func TestCommandHook(t *testing.T) {
	for _, c := range []struct {
		name, script string
		outcome      Outcome
		decision     policy.Decision
		reason       string // substring
	}{
		{"allow", `cat >/dev/null; echo '{"decision":"allow","reason":"CI runner"}'`, OutcomeVerdict, policy.Allow, "CI runner"},
		{"deny", `cat >/dev/null; echo '{"decision":"deny","reason":"no pushes on Fridays"}'`, OutcomeVerdict, policy.Deny, "Fridays"},
		{"ask", `cat >/dev/null; echo '{"decision":"ask"}'`, OutcomeVerdict, policy.Ask, ""},
		{"reads the request", `in=$(cat); echo "$in" | grep -q '"command":"git push"' && echo "$in" | grep -q '"agent":"claude"' && echo '{"decision":"deny"}'`, OutcomeVerdict, policy.Deny, ""},
		{"crash", `cat >/dev/null; echo oops >&2; exit 3`, OutcomeNoVerdict, "", "oops"},
		{"killed", `kill -9 $$`, OutcomeNoVerdict, "", "signal"},
		{"no output", `cat >/dev/null`, OutcomeNoVerdict, "", "malformed"},
		{"not json", `echo allow`, OutcomeNoVerdict, "", "malformed"},
		{"unknown decision", `echo '{"decision":"yes"}'`, OutcomeNoVerdict, "", "not allow, ask or deny"},
		{"missing decision", `echo '{"reason":"x"}'`, OutcomeNoVerdict, "", "not allow, ask or deny"},
		{"unknown field", `echo '{"decision":"allow","permissionDecision":"deny"}'`, OutcomeNoVerdict, "", "unknown field"},
		{"two verdicts", `echo '{"decision":"deny"}{"decision":"allow"}'`, OutcomeNoVerdict, "", "more than one"},
		{"too much output", `head -c 2000000 /dev/zero | tr '\0' ' '; echo '{"decision":"allow"}'`, OutcomeNoVerdict, "", "more than"},
		{"hangs", `sleep 30`, OutcomeNoVerdict, "", "no verdict within"},
		{"answers then its child holds stdout", `echo '{"decision":"allow"}'; sleep 30 &`, OutcomeVerdict, policy.Allow, ""},
		{"not found", ``, OutcomeNoVerdict, "", "no such file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			// A generous budget (CI machines are loaded); only the hanging
			// hook meets a short one.
			budget := 20 * time.Second
			if c.name == "hangs" {
				budget = 300 * time.Millisecond
			}
			h := Hook{Name: "h", Command: sh(t, c.script), Timeout: budget}
			if c.name == "not found" {
				h.Command = []string{"/nonexistent/hook"}
			}
			r := Consult(context.Background(), h, req)
			if r.Outcome != c.outcome || r.Decision != c.decision || !strings.Contains(r.Reason, c.reason) {
				t.Errorf("got %+v, want %s %s %q", r, c.outcome, c.decision, c.reason)
			}
			if r.Hook != "h" {
				t.Errorf("hook name %q", r.Hook)
			}
		})
	}
}

// A command hook runs with the environment it is given (the settings'
// HookEnv: nothing an agent's tree can steer): a variable of the bridge's
// that names code to load does not reach it. Control: without Env, it does.
func TestCommandHookEnvironment(t *testing.T) {
	t.Setenv("PYTHONPATH", "/ws/planted")
	script := `cat >/dev/null; echo "{\"decision\":\"ask\",\"reason\":\"[$PYTHONPATH][$PATH]\"}"`
	for _, c := range []struct {
		env  []string
		want string
	}{
		{[]string{"PATH=/usr/bin:/bin"}, "[][/usr/bin:/bin]"},
		{nil, "[/ws/planted]"},
	} {
		r := Consult(context.Background(), Hook{Name: "h", Command: sh(t, script), Timeout: 20 * time.Second, Env: c.env}, req)
		if r.Outcome != OutcomeVerdict || !strings.Contains(r.Reason, c.want) {
			t.Errorf("env %q: got %+v, want a reason with %s", c.env, r, c.want)
		}
	}
}

func TestAuthZENHook(t *testing.T) {
	for _, c := range []struct {
		name     string
		status   int
		body     string
		hang     bool
		outcome  Outcome
		decision policy.Decision
		reason   string
	}{
		{"true is allow", 200, `{"decision":true}`, false, OutcomeVerdict, policy.Allow, ""},
		{"false is deny, with its reason", 200, `{"decision":false,"context":{"reason":"outside office hours"}}`, false, OutcomeVerdict, policy.Deny, "office hours"},
		{"reason_user", 200, `{"decision":false,"context":{"reason_user":{"en":"not for agents"}}}`, false, OutcomeVerdict, policy.Deny, "not for agents"},
		{"ask", 200, `{"decision":false,"context":{"acp-bridge":"ask"}}`, false, OutcomeVerdict, policy.Ask, ""},
		{"no decision", 200, `{"context":{}}`, false, OutcomeNoVerdict, "", "no decision"},
		{"decision not a bool", 200, `{"decision":"true"}`, false, OutcomeNoVerdict, "", "malformed"},
		{"server error", 500, `{"decision":true}`, false, OutcomeNoVerdict, "", "HTTP 500"},
		{"hangs", 200, ``, true, OutcomeNoVerdict, "", "no verdict within"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := make(chan azRequest, 1)
			release := make(chan struct{})
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				var ar azRequest
				data, _ := io.ReadAll(r.Body)
				_ = json.Unmarshal(data, &ar)
				got <- ar
				if c.hang {
					select {
					case <-release:
					case <-r.Context().Done():
					}
					return
				}
				w.WriteHeader(c.status)
				_, _ = io.WriteString(w, c.body)
			}))
			defer srv.Close()
			defer close(release)
			budget := 20 * time.Second
			if c.hang {
				budget = 300 * time.Millisecond
			}
			r := Consult(context.Background(), Hook{Name: "pdp", URL: srv.URL + "/access/v1/evaluation", Timeout: budget, Post: httpPost}, req)
			if r.Outcome != c.outcome || r.Decision != c.decision || !strings.Contains(r.Reason, c.reason) {
				t.Errorf("got %+v, want %s %s %q", r, c.outcome, c.decision, c.reason)
			}
			ar := <-got
			if ar.Subject.Type != "agent" || ar.Subject.ID != "claude" || ar.Action.Name != "Bash" || ar.Resource.ID != "Bash(git push)" {
				t.Errorf("AuthZEN request %+v", ar)
			}
		})
	}
}

// httpPost is a Post over net/http for these tests (the bridge's goes
// through its companion: orgproc.Client.AuthZEN).
func httpPost(ctx context.Context, url string, body []byte) (int, []byte, error) {
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	hr.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(hr)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxAnswer+1))
	return resp.StatusCode, data, err
}

// A URL hook's transport: none is a no-verdict naming why (the call
// asks); the transport's error, and an answer over the bound, are
// no-verdicts too. Control: the same hook with a transport that answers
// true is an allow.
func TestAuthZENTransport(t *testing.T) {
	called := 0
	for _, c := range []struct {
		name    string
		post    Post
		outcome Outcome
		reason  string
	}{
		{"control: answers true", func(context.Context, string, []byte) (int, []byte, error) {
			called++
			return 200, []byte(`{"decision":true}`), nil
		}, OutcomeVerdict, ""},
		{"no transport", nil, OutcomeNoVerdict, "no transport for AuthZEN"},
		{"transport fails", func(context.Context, string, []byte) (int, []byte, error) {
			return 0, nil, errors.New("acp-bridge-org is not running: gone")
		}, OutcomeNoVerdict, "acp-bridge-org is not running"},
		{"answer over the bound", func(context.Context, string, []byte) (int, []byte, error) {
			return 200, []byte(`{"decision":true}` + strings.Repeat(" ", MaxAnswer)), nil
		}, OutcomeNoVerdict, "answer longer than"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := Consult(context.Background(), Hook{Name: "pdp", URL: "https://pdp.example/access/v1/evaluation", Post: c.post}, req)
			if r.Outcome != c.outcome || !strings.Contains(r.Reason, c.reason) {
				t.Errorf("got %+v, want %s %q", r, c.outcome, c.reason)
			}
			if c.outcome == OutcomeVerdict && r.Decision != policy.Allow {
				t.Errorf("decision %q, want allow", r.Decision)
			}
		})
	}
	if called != 1 {
		t.Errorf("the control's transport was called %d times", called)
	}
}

func TestHookNeedsOneTarget(t *testing.T) {
	for _, h := range []Hook{{Name: "none"}, {Name: "both", Command: sh(t, "true"), URL: "http://127.0.0.1:1/"}} {
		if r := Consult(context.Background(), h, req); r.Outcome != OutcomeNoVerdict {
			t.Errorf("%s: %+v", h.Name, r)
		}
	}
}

// Combine, as a property over every earlier verdict, hook answer and mode:
// a hook never loosens a deny, a breaker or a managed rule; no verdict never
// allows; where the mode never asks nothing asks.
func TestCombineProperties(t *testing.T) {
	managed := &policy.Origin{Layer: "managed"}
	user := &policy.Origin{Layer: "user"}
	var earlier []policy.Verdict
	for _, d := range []policy.Decision{policy.Allow, policy.Ask, policy.Deny} {
		for _, src := range []policy.Source{policy.SourceRule, policy.SourceBreaker, policy.SourceDefault, policy.SourceMode, policy.SourceUnknownCall} {
			for _, o := range []*policy.Origin{nil, user, managed} {
				earlier = append(earlier, policy.Verdict{Decision: d, Source: src, RuleOrigin: o, Reason: "built-in"})
			}
		}
	}
	answers := []Result{
		{Outcome: OutcomeVerdict, Decision: policy.Allow, Hook: "h"},
		{Outcome: OutcomeVerdict, Decision: policy.Ask, Hook: "h"},
		{Outcome: OutcomeVerdict, Decision: policy.Deny, Hook: "h", Reason: "no"},
		{Outcome: OutcomeNoVerdict, Hook: "h", Reason: "hook h: no verdict within 2s"},
	}
	n := 0
	for _, v := range earlier {
		for _, r := range answers {
			for _, m := range []policy.Mode{policy.ModeDefault, policy.ModeAcceptEdits, policy.ModePlan, policy.ModeDontAsk, policy.ModeBypass} {
				n++
				got := Combine(v, r, m)
				neverAsks := m == policy.ModePlan || m == policy.ModeDontAsk
				switch {
				case v.Decision == policy.Deny && got.Decision != policy.Deny:
					t.Errorf("%+v + %+v in %s: a deny became %s", v, r, m, got.Decision)
				case !(v.Decision == policy.Ask && v.Source == policy.SourceDefault) && rank(got.Decision) < rank(v.Decision):
					t.Errorf("%+v + %+v in %s: loosened what a rule, breaker or doubt decided, to %s", v, r, m, got.Decision)
				case r.Outcome == OutcomeNoVerdict && got.Decision == policy.Allow:
					t.Errorf("%+v + no verdict in %s: allowed", v, m)
				case r.Outcome == OutcomeVerdict && rank(r.Decision) > rank(v.Decision) && rank(got.Decision) < rank(r.Decision) && !(neverAsks && r.Decision == policy.Ask):
					t.Errorf("%+v + %+v in %s: the hook's stricter %s was not kept (%s)", v, r, m, r.Decision, got.Decision)
				case neverAsks && got.Decision == policy.Ask && v.Decision != policy.Ask:
					t.Errorf("%+v + %+v in %s: asks where the mode never asks", v, r, m)
				}
				if r.Outcome == OutcomeNoVerdict && v.Decision != policy.Deny && got.Source != SourceNoVerdict {
					t.Errorf("%+v + no verdict: source %q, want %q", v, got.Source, SourceNoVerdict)
				}
				if (got.Source == SourceHook || got.Source == SourceNoVerdict) && !strings.Contains(got.Reason, "hook h") {
					t.Errorf("hook verdict reason %q does not name the hook", got.Reason)
				}
			}
		}
	}
	if n != 45*4*5 {
		t.Fatalf("%d combinations", n)
	}
	// and the hook does loosen a plain ask
	if got := Combine(policy.Verdict{Decision: policy.Ask, Source: policy.SourceDefault}, answers[0], policy.ModeDefault); got.Decision != policy.Allow || got.Source != SourceHook {
		t.Errorf("an ask the hook allows: %+v", got)
	}
	// an ask rule of any tier stays an ask (red team 4: a managed ask
	// matched beside a workspace one was named as the workspace's)
	for _, o := range []*policy.Origin{user, managed, {Layer: "workspace"}} {
		if got := Combine(policy.Verdict{Decision: policy.Ask, Source: policy.SourceRule, RuleOrigin: o}, answers[0], policy.ModeDefault); got.Decision != policy.Ask {
			t.Errorf("a %s ask rule the hook allows: %+v", o.Layer, got)
		}
	}
}

// The package does no HTTP itself: its files (not the tests) import no
// net/http, whose client the bridge would then link (docs/org.md, "The
// companion"). Control: this test file does import it, and is seen to.
func TestNoHTTPClientImported(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil || len(files) < 3 {
		t.Fatalf("the package's files: %v %v", files, err)
	}
	seenInTest := false
	for _, f := range files {
		af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, im := range af.Imports {
			if !strings.HasPrefix(im.Path.Value, `"net/http`) {
				continue
			}
			if strings.HasSuffix(f, "_test.go") {
				seenInTest = true
				continue
			}
			t.Errorf("%s imports %s", f, im.Path.Value)
		}
	}
	if !seenInTest {
		t.Error("no test file imports net/http: the check sees nothing")
	}
}
