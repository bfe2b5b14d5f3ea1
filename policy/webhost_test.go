package policy

import (
	"strings"
	"testing"
)

func TestHostsOf(t *testing.T) {
	cases := []struct {
		url   string
		hosts string // comma-joined, in order
		ok    bool
	}{
		{"https://example.com/x", "example.com", true},
		{"HTTPS://EXAMPLE.COM.:443/", "example.com", true},
		{"https://ｅｘａｍｐｌｅ。ｃｏｍ", "example.com", true},
		{"https://a.b｡c．d", "a.b.c.d", true},
		{"https://user:pw@example.com", "example.com", true},
		{"https://a@b@example.com", "example.com", false}, // "b@example.com" (first "@") is no host: not ok
		{"https://example.com\\@good.com", "good.com,example.com", true},
		{"example.com/x", "example.com", true},
		{"//example.com", "example.com", true},
		{"example.com:8080", "example.com", true},
		{"https://bücher.example", "xn--bcher-kva.example", true},
		{"https://XN--BCHER-KVA.example", "xn--bcher-kva.example", true},
		{"http://127.1", "127.0.0.1", true},
		{"http://2130706433", "127.0.0.1", true},
		{"http://0x7f000001", "127.0.0.1", true},
		{"http://0177.0.0.1", "127.0.0.1", true},
		{"http://127.000.000.001", "127.0.0.1", true},
		{"http://[::ffff:127.0.0.1]", "127.0.0.1", true},
		{"http://[::1]:80", "::1", true},
		{"http://1.2.3.4.5", "", false},
		{"http://256.1.1.1", "", false},
		{"http://09.1.1.1", "", false},
		{"https://ex ample.com", "", false},
		{"https://example.com\x00", "", false},
		{"https://example.com:http", "example.com", false},
		{"mailto:a@example.com", "", false},
		{"", "", false},
		{"https://host_with_underscore.example", "host_with_underscore.example", true},
	}
	for _, c := range cases {
		hs, ok := hostsOf(c.url)
		if got := strings.Join(hs, ","); got != c.hosts || ok != c.ok {
			t.Errorf("hostsOf(%q) = %q, %v; want %q, %v", c.url, got, ok, c.hosts, c.ok)
		}
	}
}

func TestCompileDomainNormalises(t *testing.T) {
	for spec, want := range map[string]string{
		"domain:EXAMPLE.com.":         "example.com",
		"domain:ｅｘａｍｐｌｅ.com":          "example.com",
		"domain:bücher.example":       "xn--bcher-kva.example",
		"domain:127.1":                "127.0.0.1",
		"domain:[::1]":                "::1",
		"domain:::ffff:10.0.0.1":      "10.0.0.1",
		"domain:*.Example.COM":        "example.com",
		"domain:host_with_underscore": "host_with_underscore",
	} {
		r := &rule{}
		if err := compileDomain(r, spec); err != nil || r.domain != want {
			t.Errorf("compileDomain(%q) = %q, %v; want %q", spec, r.domain, err, want)
		}
	}
	for _, spec := range []string{"domain:", "domain:a b", "domain:*.[::1]", "domain:a..b", "evil.com"} {
		if err := compileDomain(&rule{}, spec); err == nil {
			t.Errorf("compileDomain(%q): no error", spec)
		}
	}
}
