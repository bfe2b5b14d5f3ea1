package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/acp-bridge/acp-bridge/hooks"
	"github.com/acp-bridge/acp-bridge/orgproc"
)

// authzenDefaultTimeout bounds a request whose params name no timeout
// (the bridge always names the hook's budget left).
const authzenDefaultTimeout = hooks.DefaultTimeout

// authzenClient carries AuthZEN hooks' requests for the bridge
// (orgproc.MethodAuthZENEvaluate). What net/http's DefaultClient did in
// the bridge before, it does here: the proxy from the environment
// (HTTP_PROXY, HTTPS_PROXY, NO_PROXY), the system's roots. Unlike it, no
// redirect is followed (the 3xx is the answer, which the hook reads as no
// verdict): a PDP's endpoint moved elsewhere, or to another scheme, is
// not consulted silently.
var authzenClient = &http.Client{
	Transport: http.DefaultTransport,
	CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	},
}

// authzenEvaluate POSTs the request's body to its URL within its timeout
// and ctx (ended by the bridge's $/cancel_request), and answers the status
// and at most hooks.MaxAnswer bytes of the body; more is an error.
func authzenEvaluate(ctx context.Context, p orgproc.AuthZENEvaluate) (orgproc.AuthZENAnswer, error) {
	u, err := url.Parse(p.URL)
	if err != nil {
		return orgproc.AuthZENAnswer{}, fmt.Errorf("authzen.evaluate: the URL: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return orgproc.AuthZENAnswer{}, fmt.Errorf("authzen.evaluate: %q is not an http or https URL", p.URL)
	}
	timeout := authzenDefaultTimeout
	if p.TimeoutMs > 0 {
		timeout = time.Duration(p.TimeoutMs) * time.Millisecond
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewBuffer(p.Body)) // a buffer, not a reader of the wire (TestNoOwnFraming)
	if err != nil {
		return orgproc.AuthZENAnswer{}, fmt.Errorf("authzen.evaluate: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := authzenClient.Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return orgproc.AuthZENAnswer{}, fmt.Errorf("authzen.evaluate: no answer within %v: %w", timeout, err)
		}
		return orgproc.AuthZENAnswer{}, fmt.Errorf("authzen.evaluate: %w", err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, hooks.MaxAnswer+1))
	if err != nil {
		return orgproc.AuthZENAnswer{}, fmt.Errorf("authzen.evaluate: reading the answer: %w", err)
	}
	if len(data) > hooks.MaxAnswer {
		return orgproc.AuthZENAnswer{}, fmt.Errorf("authzen.evaluate: the answer is longer than %d bytes", hooks.MaxAnswer)
	}
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		return orgproc.AuthZENAnswer{}, fmt.Errorf("authzen.evaluate: HTTP %d to %q: redirects are not followed", resp.StatusCode, resp.Header.Get("Location"))
	}
	return orgproc.AuthZENAnswer{Status: resp.StatusCode, Body: data}, nil
}
