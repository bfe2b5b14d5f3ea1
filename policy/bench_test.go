package policy

import (
	"fmt"
	"strconv"
	"testing"
)

// benchPolicy has 1,000 rules: mostly Bash, some path, domain and MCP rules.
func benchPolicy(tb testing.TB) *Policy {
	var rules []RuleText
	o := Origin{Layer: "user", Root: "/w/p"}
	for i := 0; i < 700; i++ {
		list := "allow"
		switch i % 10 {
		case 3:
			list = "deny"
		case 7:
			list = "ask"
		}
		text := fmt.Sprintf("Bash(tool%d sub%d *)", i, i%13)
		if i%50 == 0 {
			text = fmt.Sprintf("Bash(*secret%d*)", i)
		}
		rules = append(rules, RuleText{List: list, Text: text, Origin: o})
	}
	for i := 0; i < 150; i++ {
		rules = append(rules, RuleText{List: []string{"deny", "allow", "ask"}[i%3], Text: fmt.Sprintf("%s(dir%d/**/*.key)", []string{"Read", "Edit"}[i%2], i), Origin: o})
	}
	for i := 0; i < 100; i++ {
		rules = append(rules, RuleText{List: "allow", Text: fmt.Sprintf("WebFetch(domain:site%d.example.com)", i), Origin: o})
	}
	for i := 0; i < 46; i++ {
		rules = append(rules, RuleText{List: "allow", Text: fmt.Sprintf("mcp__srv%d__*", i), Origin: o})
	}
	rules = append(rules,
		RuleText{List: "allow", Text: "Bash(npm run *)", Origin: o},
		RuleText{List: "allow", Text: "Bash(npm test)", Origin: o},
		RuleText{List: "allow", Text: "Bash(go vet *)", Origin: o},
		RuleText{List: "allow", Text: "Bash(make *)", Origin: o},
	)
	pol, errs := Compile(rules)
	if len(errs) > 0 || pol.Len() != 1000 {
		tb.Fatalf("bench policy: %d rules, errors %v", pol.Len(), errs)
	}
	return pol
}

var benchEnv = Env{Cwd: "/w/p", ProjectRoot: "/w/p", Home: "/home/u"}

func benchEval(b *testing.B, cmd string, want Decision) {
	in := Input{Call: Call{Tool: "Bash", Command: cmd}, Mode: ModeDefault, Env: benchEnv, Policy: benchPolicy(b)}
	if v := Evaluate(in); v.Decision != want {
		b.Fatalf("%q: %s (%s), want %s", cmd, v.Decision, v.Reason, want)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		Evaluate(in)
	}
}

func BenchmarkEvaluateSimple(b *testing.B) {
	benchEval(b, "npm run build", Allow)
}

const compound10 = "npm run build && npm test && go vet ./... && ls -la && git status && make lint && echo done && pwd && tool501 sub7 x && wc -l README.md"

func BenchmarkEvaluateCompound10(b *testing.B) {
	benchEval(b, compound10, Allow)
}

// The same with quoting, so the real parser runs instead of the fast path.
func BenchmarkEvaluateCompound10Parsed(b *testing.B) {
	benchEval(b, "npm run 'build' && npm test && go vet ./... && ls -la && git status && make lint && echo \"done\" && pwd && tool501 sub7 x && wc -l README.md", Allow)
}

// benchWriteEnv: a workspace under home, as the bridge's sessions have it,
// with the user's policy files protected: about 150 protected places.
var benchWriteEnv = Env{Cwd: "/home/u/proj", ProjectRoot: "/home/u/proj", Home: "/home/u",
	ProtectedPaths: []string{"/home/u/.config/acp-bridge/config.yaml", "/etc/acp-bridge/managed.yaml"}}

// BenchmarkBashWriteNewFile: the approval benchmark's call shape, a Bash
// write of a new file each time (touch out/file-N.txt), decided in full.
func BenchmarkBashWriteNewFile(b *testing.B) {
	pol := benchPolicy(b)
	cmds := make([]string, 1024)
	for i := range cmds {
		cmds[i] = "touch out/file-" + strconv.Itoa(i) + ".txt"
	}
	in := Input{Call: Call{Tool: "Bash", Command: cmds[0]}, Mode: ModeDefault, Env: benchWriteEnv, Policy: pol}
	if v := Evaluate(in); v.Decision != Ask || v.Breaker != "" {
		b.Fatalf("%q: %s (%s, breaker %q), want an ask without a breaker", cmds[0], v.Decision, v.Reason, v.Breaker)
	}
	b.ReportAllocs()
	b.ResetTimer()
	n := 0
	for b.Loop() {
		in.Call.Command = cmds[n%len(cmds)]
		n++
		Evaluate(in)
	}
}

// BenchmarkProtectedCheck: the write breaker's check of one such path
// against every protected place, folded and indexed (the engine's) and by
// the matcher it replaced (protmatch_test.go's reference), in one run.
func BenchmarkProtectedCheck(b *testing.B) {
	e := newEnvx(benchWriteEnv)
	b.ReportMetric(float64(len(e.probeList())), "places")
	paths := make([]string, 1024)
	for i := range paths {
		paths[i] = "/home/u/proj/out/file-" + strconv.Itoa(i) + ".txt"
	}
	lh := e.home
	for _, c := range []struct {
		name    string
		prot    func(*envx, string) string
		persist func(string, string) string
	}{
		{"folded", (*envx).protectedFile, persistPlace},
		{"reference", protectedFileRef, persistPlaceRef},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				p := paths[n%len(paths)]
				n++
				if c.persist(p, p[len(lh)+1:]) != "" || c.prot(&e, p) != "" {
					b.Fatal(p)
				}
			}
		})
	}
}
