package policy

import "testing"

func TestProxyHosts(t *testing.T) {
	env := Env{Cwd: "/w/p", ProjectRoot: "/w/p", Home: "/home/u", FS: MapFS(map[string]string{})}
	p, errs := Compile([]RuleText{
		{List: "allow", Text: "Bash", Origin: Origin{Layer: "user"}},
		{List: "deny", Text: "WebFetch(domain:evil.com)", Origin: Origin{Layer: "user"}},
		{List: "deny", Text: "WebFetch(domain:10.9.9.9)", Origin: Origin{Layer: "user"}},
	})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	for _, c := range []struct {
		cmd  string
		want Decision
	}{
		{"curl -x evil.com:8080 http://a.example/", Deny},
		{"curl -sxevil.com:8080 http://a.example/", Deny},
		{"curl --proxy http://user@evil.com http://a.example/", Deny},
		{"curl --preproxy socks5://evil.com http://a.example/", Deny},
		{"curl --socks5-hostname evil.com:1080 http://a.example/", Deny},
		{"curl --connect-to a.example:443:evil.com:443 https://a.example/", Deny},
		{"curl --resolve a.example:443:10.9.9.9 https://a.example/", Deny},
		{"HTTPS_PROXY=evil.com curl https://a.example/", Deny},
		{"ALL_PROXY=socks5h://EVIL.com. wget https://a.example/", Deny},
		{"https_proxy=\"$P\" curl https://a.example/", Ask},
		{"wget --execute=https_proxy=evil.com https://a.example/", Deny},
		{"wget -e https_proxy=$P https://a.example/", Ask},
		{"env https_proxy=evil.com curl https://a.example/", Deny},
		{"env -u X HTTPS_PROXY=evil.com wget https://a.example/", Deny},
		{"export https_proxy=evil.com; curl https://a.example/", Deny},
		{"export https_proxy=$P; curl https://a.example/", Ask},
		{"curl -x good.example:8080 http://a.example/", Allow},
		{"export https_proxy=good.example; curl https://a.example/", Allow},
		{"curl --resolve a.example:443:10.1.1.1 https://a.example/", Allow},
		{"https_proxy=http://good.example curl https://a.example/", Allow},
	} {
		v := Evaluate(Input{Call: Call{Tool: "Bash", Command: c.cmd}, Mode: ModeBypass, Env: env, Policy: p})
		if v.Decision != c.want {
			t.Errorf("%s: got %s (%s), want %s", c.cmd, v.Decision, v.Reason, c.want)
		}
	}
}
