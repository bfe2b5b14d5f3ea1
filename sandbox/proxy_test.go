package sandbox

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acp-bridge/acp-bridge/policy"
)

// startProxy serves a Proxy on a Unix socket and returns the socket path.
func startProxy(t *testing.T, allow func(string, int) bool) (string, *[]string) {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "p.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	var denied []string
	p := &Proxy{Allow: allow, Denied: func(h string, port int) { denied = append(denied, fmt.Sprintf("%s:%d", h, port)) }}
	done := make(chan error, 1)
	go func() { done <- p.Serve(ln) }()
	t.Cleanup(func() {
		p.Close()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return sock, &denied
}

func TestProxyConnectAndForward(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "hello "+r.URL.Path) }))
	defer srv.Close()
	host, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	sock, denied := startProxy(t, func(h string, _ int) bool { return h == host })

	// CONNECT to an allowed host: a tunnel, through which HTTP works.
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "CONNECT %s:%s HTTP/1.1\r\nHost: %s:%s\r\n\r\n", host, port, host, port)
	br := bufio.NewReader(c)
	res, err := http.ReadResponse(br, nil)
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("CONNECT allowed host: %v %v", res, err)
	}
	fmt.Fprintf(c, "GET /tunnel HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
	res, err = http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	if string(body) != "hello /tunnel" {
		t.Errorf("through the tunnel: %q", body)
	}

	cases := []struct {
		name, req string
		code      int
		body      string
	}{
		{"plain http, allowed", "GET http://" + host + ":" + port + "/plain HTTP/1.1\r\nHost: " + host + "\r\n\r\n", 200, "hello /plain"},
		{"CONNECT refused host", "CONNECT 10.0.0.1:443 HTTP/1.1\r\nHost: 10.0.0.1:443\r\n\r\n", 403, "destination not allowed"},
		{"plain http refused host", "GET http://example.com/ HTTP/1.1\r\nHost: example.com\r\n\r\n", 403, "destination not allowed"},
		{"control characters in the host", "CONNECT ev%0ail.com:443 HTTP/1.1\r\nHost: x\r\n\r\n", 400, "malformed"},
		{"userinfo trick", "CONNECT evil.com\\@good.com:443 HTTP/1.1\r\nHost: x\r\n\r\n", 400, "malformed"},
		{"odd characters in the host", "CONNECT evil.com!x:443 HTTP/1.1\r\nHost: x\r\n\r\n", 403, "not allowed"},
		{"not an absolute URL", "GET /x HTTP/1.1\r\nHost: " + host + "\r\n\r\n", 400, "absolute"},
		{"https without CONNECT", "GET https://" + host + "/ HTTP/1.1\r\nHost: " + host + "\r\n\r\n", 400, "absolute http"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := net.Dial("unix", sock)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			io.WriteString(c, tc.req)
			res, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			if res.StatusCode != tc.code || !strings.Contains(string(body), tc.body) {
				t.Errorf("got %d %q, want %d with %q", res.StatusCode, body, tc.code, tc.body)
			}
		})
	}
	if len(*denied) < 2 {
		t.Errorf("refusals reported: %v", *denied)
	}
}

func TestHostPolicy(t *testing.T) {
	pol, errs := policy.Compile([]policy.RuleText{
		{List: "allow", Text: "WebFetch(domain:docs.example.com)"},
		{List: "allow", Text: "WebFetch(domain:*.pkg.dev)"},
		{List: "deny", Text: "WebFetch(domain:evil.com)"},
	})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	domains := HostPolicy{Network: NetworkDomains, Policy: pol, AllowDomains: []string{"api.anthropic.com", "*.corp.net", "10.1.2.3"}}
	loop := HostPolicy{Network: NetworkLoopback, Policy: pol}
	cases := []struct {
		h    HostPolicy
		host string
		want bool
	}{
		{domains, "docs.example.com", true},
		{domains, "DOCS.example.com.", true},
		{domains, "example.com", false},
		{domains, "go.pkg.dev", true},
		{domains, "api.anthropic.com", true},
		{domains, "x.corp.net", true},
		{domains, "corp.net", false},
		{domains, "10.1.2.3", true},
		{domains, "evil.com", false},
		{domains, "127.0.0.1", false},
		{loop, "127.0.0.1", true},
		{loop, "127.9.9.9", true},
		{loop, "::1", true},
		{loop, "localhost", true},
		{loop, "example.com", false},
		{loop, "10.0.0.1", false},
		{HostPolicy{Network: NetworkLoopback, Policy: mustDeny(t, "WebFetch(domain:localhost)")}, "localhost", false},
	}
	for _, c := range cases {
		if got := c.h.Allow(c.host, 443); got != c.want {
			t.Errorf("%s network: Allow(%q) = %v, want %v", c.h.Network, c.host, got, c.want)
		}
	}
}

func mustDeny(t *testing.T, rule string) *policy.Policy {
	pol, errs := policy.Compile([]policy.RuleText{{List: "deny", Text: rule}})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	return pol
}
