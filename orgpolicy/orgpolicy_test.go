package orgpolicy

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acp-bridge/acp-bridge/hooks"
	"github.com/acp-bridge/acp-bridge/orgpolicy/opatest"
	"github.com/acp-bridge/acp-bridge/policy"
)

// server serves one bundle (swappable) and collects decision logs.
type server struct {
	mu     sync.Mutex
	bundle []byte
	etag   int
	logs   []map[string]any
	gotLog chan struct{}
}

func (s *server) set(b []byte) {
	s.mu.Lock()
	s.bundle, s.etag = b, s.etag+1
	s.mu.Unlock()
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path == "/bundles/acp.tar.gz":
		s.mu.Lock()
		b, etag := s.bundle, s.etag
		s.mu.Unlock()
		if b == nil {
			http.NotFound(w, r)
			return
		}
		tag := `"` + string(rune('a'+etag)) + `"`
		if r.Header.Get("If-None-Match") == tag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("ETag", tag)
		_, _ = w.Write(b)
	case r.URL.Path == "/logs/decisions":
		var rd io.Reader = r.Body
		if r.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(r.Body)
			if err != nil {
				http.Error(w, err.Error(), 400)
				return
			}
			rd = zr
		}
		var events []map[string]any
		_ = json.NewDecoder(rd).Decode(&events)
		s.mu.Lock()
		s.logs = append(s.logs, events...)
		s.mu.Unlock()
		select {
		case s.gotLog <- struct{}{}:
		default:
		}
	default:
		http.NotFound(w, r)
	}
}

const regoV1 = `package acp

default decision := {"decision": "ask", "reason": "not decided by the organisation"}

decision := {"decision": "deny", "reason": "no curl on company laptops"} if {
	startswith(input.call.command, "curl ")
}

decision := {"decision": "allow", "reason": "tests are fine"} if {
	startswith(input.call.command, "go test")
}
`

const regoV2 = `package acp

default decision := "ask"

decision := {"decision": "deny", "reason": "no go test either"} if {
	startswith(input.call.command, "go test")
}
`

func in(cmd string) Input {
	return Input{Call: policy.Call{Tool: "Bash", Command: cmd}, Agent: "claude", SessionID: "s1", Mode: "default", Workspace: "/w"}
}

// waitFor polls Decide until want holds (the bundle poller runs on OPA's
// own schedule; the wait is bounded).
func waitFor(t *testing.T, s *Stage, cmd string, want func(Result) bool) Result {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	var r Result
	for time.Now().Before(deadline) {
		r = s.Decide(context.Background(), in(cmd))
		if want(r) {
			return r
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s: last result %+v", cmd, r)
	return r
}

func TestRealOPABundlesSignedAndLogged(t *testing.T) {
	priv, pub := opatest.Keys(t)
	srv := &server{gotLog: make(chan struct{}, 1)}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	persist := t.TempDir()
	cfg := Config{BundleURL: hs.URL + "/bundles/acp.tar.gz", PollMin: time.Second, PollMax: time.Second,
		KeyID: "org", Key: pub, Algorithm: "RS256", Query: "data.acp.decision",
		DecisionLogURL: hs.URL + "/logs/decisions", PersistDir: persist, Timeout: 20 * time.Second}
	ctx := context.Background()
	st, err := Start(ctx, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}

	// No bundle yet: no verdict (asks).
	if r := st.Decide(ctx, in("curl https://x")); r.Outcome != hooks.OutcomeNoVerdict || !strings.Contains(r.Reason, "no verified bundle") {
		t.Fatalf("before any bundle: %+v", r)
	}

	srv.set(opatest.Build(t, regoV1, "rev-1", priv))
	r := waitFor(t, st, "curl https://x", func(r Result) bool { return r.Outcome == hooks.OutcomeVerdict })
	if r.Decision != policy.Deny || r.Reason != "no curl on company laptops" || r.DecisionID == "" || r.Revision != "rev-1" {
		t.Fatalf("rev-1 curl: %+v", r)
	}
	if r := st.Decide(ctx, in("go test ./...")); r.Decision != policy.Allow {
		t.Fatalf("rev-1 go test: %+v", r)
	}
	if r := st.Decide(ctx, in("ls")); r.Decision != policy.Ask {
		t.Fatalf("rev-1 ls: %+v", r)
	}

	// A new revision reaches the running stage.
	srv.set(opatest.Build(t, regoV2, "rev-2", priv))
	waitFor(t, st, "go test ./...", func(r Result) bool { return r.Decision == policy.Deny && r.Revision == "rev-2" })

	// A tampered bundle (policy changed after signing) is refused: rev-2 stays.
	srv.set(opatest.Tamper(t, opatest.Build(t, regoV2, "rev-3", priv), strings.Replace(regoV2, `default decision := "ask"`, `default decision := "allow"`, 1)))
	refused(t, st, "digest mismatch")
	if r := st.Decide(ctx, in("ls")); r.Decision != policy.Ask || r.Revision != "rev-2" {
		t.Fatalf("after a tampered bundle: %+v (want rev-2's ask)", r)
	}
	// A bundle signed by another key is refused too.
	otherPriv, _ := opatest.Keys(t)
	srv.set(opatest.Build(t, strings.Replace(regoV2, `default decision := "ask"`, `default decision := "allow"`, 1), "rev-4", otherPriv))
	refused(t, st, "")
	if r := st.Decide(ctx, in("ls")); r.Decision != policy.Ask || r.Revision != "rev-2" {
		t.Fatalf("after a bundle signed by another key: %+v (want rev-2's ask)", r)
	}

	// Decision logs reach the service with OPA's decision ids.
	last := st.Decide(ctx, in("go test ./..."))
	deadline := time.After(20 * time.Second)
	for {
		srv.mu.Lock()
		found := false
		for _, e := range srv.logs {
			if e["decision_id"] == last.DecisionID {
				found = true
			}
		}
		srv.mu.Unlock()
		if found {
			break
		}
		select {
		case <-srv.gotLog:
		case <-deadline:
			t.Fatalf("decision %s not in the decision logs (%d events)", last.DecisionID, len(srv.logs))
		}
	}

	st.Stop(ctx)

	// Offline start: the service is gone; the persisted, verified bundle decides.
	hs.Close()
	st2, err := Start(ctx, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Stop(ctx)
	r = waitFor(t, st2, "go test ./...", func(r Result) bool { return r.Outcome == hooks.OutcomeVerdict })
	if r.Decision != policy.Deny || r.Revision != "rev-2" {
		t.Fatalf("offline start: %+v", r)
	}
}

// refused waits for OPA to report the bundle refused (an error whose text
// has want), the active revision unchanged.
func refused(t *testing.T, s *Stage, want string) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		st, next := s.Status()
		if st.Error != "" && strings.Contains(st.Error, want) {
			if st.Revision != "rev-2" {
				t.Fatalf("refused bundle, but the active revision is %q", st.Revision)
			}
			return
		}
		select {
		case <-next:
		case <-deadline:
			t.Fatalf("OPA did not report the bundle refused (last status %+v)", st)
		}
	}
}

func TestConfigRefusals(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{}, "bundleUrl is required"},
		{Config{BundleURL: "file:///b.tar.gz", KeyID: "k", Key: "x", Query: "data.a"}, "not an http(s) URL"},
		{Config{BundleURL: "http://127.0.0.1/b", Query: "data.a"}, "always verified"},
		{Config{BundleURL: "http://127.0.0.1/b", KeyID: "k", Key: "x"}, "query is required"},
		{Config{BundleURL: "http://127.0.0.1/b", KeyID: "k", Key: "x", Query: "data.a", DecisionLogURL: "ftp://x/y"}, "decisionLogUrl"},
	} {
		if _, err := Start(context.Background(), c.cfg, nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.cfg, err, c.want)
		}
	}
}

func TestReadResult(t *testing.T) {
	for _, c := range []struct {
		v      any
		d      policy.Decision
		reason string
		bad    bool
	}{
		{"allow", policy.Allow, "", false},
		{map[string]any{"decision": "deny", "reason": "x"}, policy.Deny, "x", false},
		{map[string]any{"decision": "maybe"}, "", "", true},
		{true, "", "", true},
		{nil, "", "", true},
	} {
		d, reason, err := readResult(c.v)
		if (err != nil) != c.bad || d != c.d || reason != c.reason {
			t.Errorf("%v: %s %q %v", c.v, d, reason, err)
		}
	}
}
