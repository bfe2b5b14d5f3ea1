package policy

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The adversarial corpus: testdata/adversarial/*.jsonl, one file per class
// of attack (docs/policy.md, "What the static reading holds"). Each line is a
// call that must never be allowed. It is judged in every mode, with its own
// rules (typically a broad allow rule that must not cover it) and with the
// agent's bypass:
//
//   - want "ask": asks (or denies) in default, acceptEdits,
//     bypassPermissions and under the agent's bypass; denied in dontAsk;
//     asked or denied in plan.
//   - want "deny": denied in every mode.
//   - want "allow": a control (a should-not-match case beside the attacks
//     of its class): allowed in default and bypassPermissions.
//
// A line is an adversarialCase; unknown fields are an error, so a typo
// cannot make a case vacuous.
type adversarialCase struct {
	Class   string   `json:"class"`
	Tool    string   `json:"tool"`
	Cmd     string   `json:"cmd"`
	Paths   []string `json:"paths"`
	URL     string   `json:"url"`
	Kind    string   `json:"kind"`
	Allow   []string `json:"allow"`
	Ask     []string `json:"ask"`
	Deny    []string `json:"deny"`
	Session []string `json:"session"`
	Cwd     string   `json:"cwd"`
	// CallCwd is the call's own directory (Call.Cwd: codex's {command,
	// cwd}, terminal/create's cwd); Cwd is the session's (Env.Cwd).
	CallCwd  string            `json:"callCwd"`
	Symlinks map[string]string `json:"symlinks"`
	Want     Decision          `json:"want"`
	Note     string            `json:"note"`
	// ExceptBypass: not judged under bypassPermissions (the mode or the
	// agent's): the call's effects are visible, and bypass allows visible
	// effects that no deny rule or breaker stops.
	ExceptBypass bool `json:"exceptBypass"`
	// BadRule: the case's rules are expected not to compile (a rule that
	// can never match is an error, and must still never loosen anything).
	BadRule bool `json:"badRule"`
	// Source, when set, is the source the decision must have wherever it is
	// not a deny (a breaker's ask must read as a breaker's to later stages:
	// hooks and OPA loosen only the mode's default ask).
	Source Source `json:"source"`
}

var adversarialModes = []struct {
	name        string
	mode        Mode
	agentBypass bool
}{
	{"default", ModeDefault, false},
	{"acceptEdits", ModeAcceptEdits, false},
	{"plan", ModePlan, false},
	{"dontAsk", ModeDontAsk, false},
	{"bypassPermissions", ModeBypass, false},
	{"agentBypass", ModeDefault, true},
}

func loadAdversarial(t testing.TB) map[string][]adversarialCase {
	t.Helper()
	files, err := filepath.Glob("testdata/adversarial/*.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]adversarialCase{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 1<<20)
		for n := 1; sc.Scan(); n++ {
			line := strings.TrimSpace(sc.Text())
			if line == "" || strings.HasPrefix(line, "//") {
				continue
			}
			dec := json.NewDecoder(strings.NewReader(line))
			dec.DisallowUnknownFields()
			var c adversarialCase
			if err := dec.Decode(&c); err != nil {
				t.Fatalf("%s:%d: %v", f, n, err)
			}
			if c.Tool == "" || (c.Want != Ask && c.Want != Deny && c.Want != Allow) {
				t.Fatalf("%s:%d: every case needs a tool and want ask, deny or allow (a control)", f, n)
			}
			out[filepath.Base(f)] = append(out[filepath.Base(f)], c)
		}
	}
	return out
}

func (c *adversarialCase) input(t testing.TB, mode Mode, agentBypass bool) Input {
	pc := policyCase{Src: c.Class, Tool: c.Tool, Cmd: c.Cmd, Paths: c.Paths, URL: c.URL, Kind: c.Kind,
		Allow: c.Allow, Ask: c.Ask, Deny: c.Deny, Session: c.Session, Cwd: c.Cwd, CallCwd: c.CallCwd, Symlinks: c.Symlinks, BadRule: c.BadRule}
	in := pc.input(t)
	in.Mode, in.AgentBypass = mode, agentBypass
	return in
}

func TestAdversarialCorpus(t *testing.T) {
	corpus := loadAdversarial(t)
	if len(corpus) == 0 {
		t.Fatal("no adversarial corpus under testdata/adversarial")
	}
	for file, cases := range corpus {
		for i, c := range cases {
			for _, m := range adversarialModes {
				c, m := c, m
				if c.ExceptBypass && (m.mode == ModeBypass || m.agentBypass) {
					continue
				}
				if c.Want == Allow && m.mode != ModeDefault && m.mode != ModeBypass {
					continue // a control: judged in default and bypassPermissions
				}
				name := file + "/" + m.name + "/" + caseName(policyCase{Tool: c.Tool, Cmd: c.Cmd, Paths: c.Paths, URL: c.URL})
				t.Run(name, func(t *testing.T) {
					v := Evaluate(c.input(t, m.mode, m.agentBypass))
					ok := true
					switch {
					case c.Want == Allow:
						ok = v.Decision == Allow
					case v.Decision == Allow:
						ok = false
					case c.Want == Deny:
						ok = v.Decision == Deny
					case m.mode == ModeDontAsk:
						ok = v.Decision == Deny
					case m.mode == ModePlan:
						ok = v.Decision != Allow
					default:
						// Stricter than asked for is fine: never allowed is
						// the property; a deny rule may catch a piece.
						ok = v.Decision == Ask || v.Decision == Deny
					}
					if ok && c.Source != "" && v.Decision == Ask && v.Source != c.Source {
						ok = false
					}
					if !ok {
						t.Errorf("%s line %d [%s] in %s: got %s (%s: %s), want %s\n call: %s %s%s%s",
							file, i+1, c.Class, m.name, v.Decision, v.Source, v.Reason, c.Want, c.Tool, c.Cmd, strings.Join(c.Paths, ","), c.URL)
					}
				})
			}
		}
	}
}
