package settings

import (
	"net/url"
	"strings"
	"time"
)

// keyOPA is the managed tier's opa section: only the managed tier may name
// a policy engine (docs/org.md, "OPA").
const keyOPA = "opa"

var opaKeys = []string{"bundleUrl", "pollMinSeconds", "pollMaxSeconds", "signingKeyId", "signingKey", "signingAlgorithm", "query", "decisionLogUrl", "timeoutMs"}

// OPAConfig is the managed tier's opa section.
type OPAConfig struct {
	BundleURL        string        `json:"bundleUrl"`
	PollMin, PollMax time.Duration `json:"-"`
	SigningKeyID     string        `json:"signingKeyId"`
	SigningKey       string        `json:"-"`
	SigningAlgorithm string        `json:"signingAlgorithm,omitempty"`
	Query            string        `json:"query"`
	DecisionLogURL   string        `json:"decisionLogUrl,omitempty"`
	Timeout          time.Duration `json:"-"`
}

// opa decodes the opa section; a problem makes the tier invalid.
func (d *decoder) opa(p []string, v any) *OPAConfig {
	m, ok := d.object(p, v, opaKeys)
	if !ok {
		return nil
	}
	c := &OPAConfig{}
	n := len(d.problems)
	str := func(k string, dst *string) {
		if x, ok := m[k]; ok && x != nil {
			*dst, _ = d.str(child(p, k), x)
		}
	}
	secs := func(k string, dst *time.Duration, unit time.Duration) {
		if x, ok := m[k]; ok && x != nil {
			if n := d.atLeast(child(p, k), x, 1); n != nil {
				*dst = time.Duration(*n) * unit
			}
		}
	}
	str("bundleUrl", &c.BundleURL)
	str("signingKeyId", &c.SigningKeyID)
	str("signingKey", &c.SigningKey)
	str("signingAlgorithm", &c.SigningAlgorithm)
	str("query", &c.Query)
	str("decisionLogUrl", &c.DecisionLogURL)
	secs("pollMinSeconds", &c.PollMin, time.Second)
	secs("pollMaxSeconds", &c.PollMax, time.Second)
	secs("timeoutMs", &c.Timeout, time.Millisecond)
	httpURL := func(k, s string) {
		u, err := url.Parse(s)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			d.errorf(child(p, k), "%q is not an http(s) URL", s)
		}
	}
	switch {
	case c.BundleURL == "":
		d.errorf(child(p, "bundleUrl"), "required")
	default:
		httpURL("bundleUrl", c.BundleURL)
	}
	if c.DecisionLogURL != "" {
		httpURL("decisionLogUrl", c.DecisionLogURL)
	}
	if c.SigningKeyID == "" || strings.TrimSpace(c.SigningKey) == "" {
		d.errorf(p, "signingKeyId and signingKey are required: bundles are always verified")
	}
	if c.Query == "" {
		d.errorf(child(p, "query"), "required (e.g. data.acp.decision)")
	}
	if len(d.problems) > n {
		return nil
	}
	return c
}
