package sandbox

import (
	"net"
	"strconv"
	"strings"

	"github.com/acp-bridge/acp-bridge/policy"
)

// HostPolicy decides, for a proxied network, where the proxy may connect.
type HostPolicy struct {
	Network Network
	// Policy: WebFetch allow rules name the hosts of NetworkDomains; its
	// WebFetch deny rules refuse a host whatever else allows it.
	Policy *policy.Policy
	Env    policy.Env
	// AllowDomains are more hosts for NetworkDomains: "example.com",
	// "*.example.com" (subdomains only), an IP address.
	AllowDomains []string
}

// Allow reports whether the proxy may connect to host:port.
func (h HostPolicy) Allow(host string, port int) bool {
	host = strings.ToLower(strings.TrimSuffix(strings.Trim(host, "[]"), "."))
	if host == "" {
		return false
	}
	// The policy is asked as if the agent fetched the URL, in dontAsk mode:
	// what a rule allows passes, what would ask or is denied does not.
	v := policy.Evaluate(policy.Input{
		Call: policy.Call{Tool: "WebFetch", URL: "https://" + net.JoinHostPort(host, strconv.Itoa(port)) + "/"},
		Mode: policy.ModeDontAsk, Env: h.Env, Policy: h.Policy,
	})
	if v.Decision == policy.Deny && v.Source == policy.SourceRule {
		return false // a WebFetch deny rule holds in every network
	}
	switch h.Network {
	case NetworkLoopback:
		return isLoopback(host)
	case NetworkDomains:
		if v.Decision == policy.Allow {
			return true
		}
		for _, d := range h.AllowDomains {
			if matchDomain(d, host) {
				return true
			}
		}
	}
	return false
}

func isLoopback(host string) bool {
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// matchDomain: pattern is a host, "*.host" (subdomains only) or an IP.
func matchDomain(pattern, host string) bool {
	pattern = strings.ToLower(strings.Trim(pattern, "[]"))
	if rest, ok := strings.CutPrefix(pattern, "*."); ok {
		return strings.HasSuffix(host, "."+rest)
	}
	if pi, hi := net.ParseIP(pattern), net.ParseIP(host); pi != nil && hi != nil {
		return pi.Equal(hi)
	}
	return pattern == host
}
