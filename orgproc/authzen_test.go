package orgproc

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/acp-bridge/acp-bridge/hooks"
	"github.com/acp-bridge/acp-bridge/policy"
)

// pdp is an AuthZEN PDP on loopback: each path answers as its case says;
// /moved counts the requests a followed redirect would send it; every
// request's body and the end of its context are seen.
type pdp struct {
	moved  atomic.Int32
	bodies chan []byte
	ended  chan struct{} // a hanging request's context ended
}

func (p *pdp) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	data, _ := io.ReadAll(r.Body)
	select {
	case p.bodies <- data:
	default:
	}
	switch r.URL.Path {
	case "/allow":
		_, _ = io.WriteString(w, `{"decision":true}`)
	case "/deny":
		_, _ = io.WriteString(w, `{"decision":false,"context":{"reason":"outside office hours"}}`)
	case "/ask":
		_, _ = io.WriteString(w, `{"decision":false,"context":{"acp-bridge":"ask","reason":"a person decides"}}`)
	case "/long":
		_, _ = io.WriteString(w, `{"decision":true}`+strings.Repeat(" ", hooks.MaxAnswer))
	case "/exact":
		// Control of /long: exactly the bound is read.
		_, _ = io.WriteString(w, `{"decision":true}`+strings.Repeat(" ", hooks.MaxAnswer-len(`{"decision":true}`)))
	case "/error":
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = io.WriteString(w, `{"decision":true}`)
	case "/redirect":
		http.Redirect(w, r, "/moved", http.StatusTemporaryRedirect)
	case "/moved":
		p.moved.Add(1)
		_, _ = io.WriteString(w, `{"decision":true}`)
	case "/hang":
		<-r.Context().Done()
		p.ended <- struct{}{}
	default:
		http.NotFound(w, r)
	}
}

// AuthZEN hooks through the real companion (authzen.evaluate): the client
// starts it (no Start* before), it POSTs the hook's request and the
// hook's mapping reads the answer. A PDP's allow, deny and ask (in its
// context) hold; an answer over the bound, a status other than 200, a
// PDP past the budget, a redirect and a URL that is not http(s) give no
// verdict, each naming why. Controls: an answer of exactly the bound is
// read; the redirect's target is never asked.
func TestAuthZENThroughCompanion(t *testing.T) {
	p := &pdp{bodies: make(chan []byte, 1), ended: make(chan struct{}, 1)}
	srv := httptest.NewServer(p)
	defer srv.Close()
	c := newClient(t, companionBin, nil)
	req := hooks.Request{Call: policy.Call{Tool: "Bash", Command: "git push"}, Agent: "claude", SessionID: "s1", Mode: "default"}
	for _, tc := range []struct {
		name     string
		url      string
		timeout  time.Duration
		outcome  hooks.Outcome
		decision policy.Decision
		reason   string
	}{
		{"allow", srv.URL + "/allow", 0, hooks.OutcomeVerdict, policy.Allow, ""},
		{"deny", srv.URL + "/deny", 0, hooks.OutcomeVerdict, policy.Deny, "office hours"},
		{"ask via context", srv.URL + "/ask", 0, hooks.OutcomeVerdict, policy.Ask, "a person decides"},
		{"answer over the bound", srv.URL + "/long", 0, hooks.OutcomeNoVerdict, "", "longer than " + strconv.Itoa(hooks.MaxAnswer) + " bytes"},
		{"control: answer at the bound", srv.URL + "/exact", 0, hooks.OutcomeVerdict, policy.Allow, ""},
		{"not 200", srv.URL + "/error", 0, hooks.OutcomeNoVerdict, "", "HTTP 500"},
		{"redirect refused", srv.URL + "/redirect", 0, hooks.OutcomeNoVerdict, "", "redirects are not followed"},
		{"not http", "file:///etc/passwd", 0, hooks.OutcomeNoVerdict, "", "not an http or https URL"},
		{"past the budget", srv.URL + "/hang", 500 * time.Millisecond, hooks.OutcomeNoVerdict, "", "no verdict within 500ms"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			timeout := tc.timeout
			if timeout == 0 {
				timeout = 30 * time.Second // loaded machines: only the hanging PDP meets its budget
			}
			r := hooks.Consult(t.Context(), hooks.Hook{Name: "pdp", URL: tc.url, Timeout: timeout, Post: c.AuthZEN}, req)
			if r.Outcome != tc.outcome || r.Decision != tc.decision || !strings.Contains(r.Reason, tc.reason) {
				t.Errorf("got %+v, want %s %q %q", r, tc.outcome, tc.decision, tc.reason)
			}
			if strings.HasPrefix(tc.url, "http") {
				var ar struct {
					Subject struct{ ID string }   `json:"subject"`
					Action  struct{ Name string } `json:"action"`
				}
				body := <-p.bodies
				if err := json.Unmarshal(body, &ar); err != nil || ar.Subject.ID != "claude" || ar.Action.Name != "Bash" {
					t.Errorf("the PDP got %s (%v), want the hook's AuthZEN request", body, err)
				}
			}
			if tc.timeout > 0 {
				select {
				case <-p.ended:
				case <-time.After(20 * time.Second):
					t.Error("the companion's request to the hanging PDP did not end with the budget")
				}
			}
		})
	}
	if n := p.moved.Load(); n != 0 {
		t.Errorf("the redirect was followed %d times", n)
	}
}

// The bridge's $/cancel_request ends the companion's HTTP request: a
// caller whose ctx is cancelled long before the request's own timeout
// (30 s) gets an error at once, and the PDP sees its request end.
func TestAuthZENCancelled(t *testing.T) {
	p := &pdp{bodies: make(chan []byte, 1), ended: make(chan struct{}, 1)}
	srv := httptest.NewServer(p)
	defer srv.Close()
	c := newClient(t, companionBin, nil)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	errc := make(chan error, 1)
	go func() { _, _, err := c.AuthZEN(ctx, srv.URL+"/hang", []byte(`{}`)); errc <- err }()
	<-p.bodies // the PDP has the request
	cancel()
	if err := <-errc; err == nil {
		t.Fatal("a cancelled AuthZEN call: no error")
	}
	select {
	case <-p.ended:
	case <-time.After(20 * time.Second):
		t.Fatal("the PDP's request did not end with the bridge's cancel")
	}
}

// The companion missing, or of another version: an error, so the hook
// gives no verdict (the call asks). Control: the real companion answers.
func TestAuthZENFailsClosed(t *testing.T) {
	srv := httptest.NewServer(&pdp{bodies: make(chan []byte, 8), ended: make(chan struct{}, 1)})
	defer srv.Close()
	for _, tc := range []struct {
		name, path, want string
	}{
		{"control", companionBin, ""},
		{"missing", filepath.Join(t.TempDir(), Name), "not running"},
		{"other version", otherBin, "9.9.9-other"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newClient(t, tc.path, nil)
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			status, body, err := c.AuthZEN(ctx, srv.URL+"/allow", []byte(`{}`))
			if tc.want == "" {
				if err != nil || status != 200 || string(body) != `{"decision":true}` {
					t.Fatalf("control: %d %q %v", status, body, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %d %q %v, want an error naming %q", status, body, err, tc.want)
			}
			r := hooks.Consult(ctx, hooks.Hook{Name: "pdp", URL: srv.URL + "/allow", Timeout: 20 * time.Second, Post: c.AuthZEN}, hooks.Request{})
			if r.Outcome != hooks.OutcomeNoVerdict {
				t.Errorf("the hook: %+v, want no verdict", r)
			}
		})
	}
}
