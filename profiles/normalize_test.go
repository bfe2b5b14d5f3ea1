package profiles

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acp-bridge/acp-bridge/policy"
)

// normalizeCase is one entry of testdata/normalize/<family>.json: real
// payload shapes, the session/updates that came before, and the canonical
// call expected.
type normalizeCase struct {
	Name     string            `json:"name"`
	Source   string            `json:"source"`
	Updates  []json.RawMessage `json:"updates"`
	ToolCall json.RawMessage   `json:"toolCall"`
	Want     struct {
		Tool    string   `json:"tool"`
		Command string   `json:"command"`
		Paths   []string `json:"paths"`
		URL     string   `json:"url"`
		Query   string   `json:"query"`
	} `json:"want"`
}

func loadNormalizeCases(t testing.TB) map[Family][]normalizeCase {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "normalize", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no normalize testdata: %v", err)
	}
	out := make(map[Family][]normalizeCase)
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var cases []normalizeCase
		if err := json.Unmarshal(data, &cases); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		fam := Family(strings.TrimSuffix(filepath.Base(f), ".json"))
		out[fam] = append(out[fam], cases...)
	}
	return out
}

func TestNormalizeRealPayloads(t *testing.T) {
	all := loadNormalizeCases(t)
	for _, fam := range []Family{FamilyClaude, FamilyCodex, FamilyGemini, FamilyGoose, FamilyOpenCode, FamilyKimi, FamilyGeneric} {
		if len(all[fam]) == 0 {
			t.Errorf("no testdata for family %s", fam)
		}
	}
	for fam, cases := range all {
		for _, tc := range cases {
			t.Run(string(fam)+"/"+tc.Name, func(t *testing.T) {
				cache := NewToolCallCache(16)
				for _, u := range tc.Updates {
					cache.Upsert(u)
				}
				merged := cache.Merge(tc.ToolCall)
				got, err := Normalize(fam, merged)
				if err != nil {
					t.Fatalf("Normalize: %v", err)
				}
				if got.Tool != tc.Want.Tool || got.Command != tc.Want.Command ||
					!slices.Equal(got.Paths, tc.Want.Paths) || got.URL != tc.Want.URL || got.Query != tc.Want.Query {
					t.Errorf("got  tool=%q command=%q paths=%q url=%q query=%q\nwant tool=%q command=%q paths=%q url=%q query=%q\n(source: %s)",
						got.Tool, got.Command, got.Paths, got.URL, got.Query,
						tc.Want.Tool, tc.Want.Command, tc.Want.Paths, tc.Want.URL, tc.Want.Query, tc.Source)
				}
				checkAsSent(t, merged, got)
			})
		}
	}
}

// checkAsSent asserts Kind, Title and Input are the merged payload's own.
func checkAsSent(t *testing.T, merged json.RawMessage, got policy.Call) {
	t.Helper()
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(merged, &obj); err != nil {
		t.Fatalf("merged toolCall: %v", err)
	}
	kind, _ := jsonString(obj["kind"])
	title, _ := jsonString(obj["title"])
	if got.Kind != kind || got.Title != title {
		t.Errorf("kind/title = %q/%q, want as sent %q/%q", got.Kind, got.Title, kind, title)
	}
	raw := obj["rawInput"]
	if isNull(raw) {
		raw = nil
	}
	if !jsonEqual(t, got.Input, raw) {
		t.Errorf("Input = %s, want rawInput as sent %s", got.Input, raw)
	}
}

func jsonEqual(t *testing.T, a, b json.RawMessage) bool {
	t.Helper()
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	var ca, cb bytes.Buffer
	if err := json.Compact(&ca, a); err != nil {
		t.Fatal(err)
	}
	if err := json.Compact(&cb, b); err != nil {
		t.Fatal(err)
	}
	return bytes.Equal(ca.Bytes(), cb.Bytes())
}

// Every family falls back to the generic adapter: a plain ACP call with a
// kind and a standard rawInput is understood whatever the family; a
// title-only call is understood by none.
func TestNormalizeFallsBackToGeneric(t *testing.T) {
	families := []Family{FamilyClaude, FamilyCodex, FamilyGemini, FamilyGoose, FamilyOpenCode, FamilyKimi, FamilyGeneric, "unknown-family"}
	cases := []struct {
		name     string
		toolCall string
		tool     string
		command  string
		paths    []string
	}{
		{"execute", `{"toolCallId":"x","title":"go vet","kind":"execute","rawInput":{"command":"go vet ./..."}}`, "Bash", "go vet ./...", nil},
		{"delete", `{"toolCallId":"x","title":"remove","kind":"delete","locations":[{"path":"/w/tmp.txt"}]}`, "Edit", "", []string{"/w/tmp.txt"}},
		{"title only", `{"toolCallId":"x","title":"rm -rf /"}`, "", "", nil},
		// not understood, but the command it carries is kept for the
		// policy to judge (normalize_touch.go).
		{"think", `{"toolCallId":"x","title":"thinking","kind":"think","rawInput":{"command":"rm -rf /"}}`, "", "rm -rf /", nil},
	}
	for _, f := range families {
		for _, c := range cases {
			got, err := Normalize(f, json.RawMessage(c.toolCall))
			if err != nil {
				t.Fatalf("%s/%s: %v", f, c.name, err)
			}
			if got.Tool != c.tool || got.Command != c.command || !slices.Equal(got.Paths, c.paths) {
				t.Errorf("%s/%s: got %q %q %q, want %q %q %q", f, c.name, got.Tool, got.Command, got.Paths, c.tool, c.command, c.paths)
			}
		}
	}
}

func TestNormalizeRejectsNonObjects(t *testing.T) {
	for _, in := range []string{``, `null`, `[]`, `"x"`, `42`, `{`, `{"toolCallId":}`} {
		got, err := Normalize(FamilyClaude, json.RawMessage(in))
		if !errors.Is(err, ErrNotToolCall) {
			t.Errorf("Normalize(%q) error = %v, want ErrNotToolCall", in, err)
		}
		if got.Tool != "" {
			t.Errorf("Normalize(%q) tool = %q, want \"\"", in, got.Tool)
		}
	}
}

func TestDetectFamily(t *testing.T) {
	cases := []struct {
		name, agent, command string
		args                 []string
		want                 Family
	}{
		{"claude-code-acp via npx", "claude", "npx", []string{"-y", "@zed-industries/claude-code-acp@latest"}, FamilyClaude},
		{"claude-agent-acp bin", "main", "claude-agent-acp", nil, FamilyClaude},
		{"claude by path to index.js", "x", "node", []string{"/usr/lib/node_modules/@agentclientprotocol/claude-agent-acp/dist/index.js"}, FamilyClaude},
		{"codex-acp", "c", "/usr/local/bin/codex-acp", nil, FamilyCodex},
		{"codex-acp via npx", "c", "npx", []string{"@zed-industries/codex-acp"}, FamilyCodex},
		{"gemini --acp", "g", "gemini", []string{"--acp"}, FamilyGemini},
		{"gemini via npx", "g", "npx", []string{"@google/gemini-cli", "--experimental-acp"}, FamilyGemini},
		{"qwen", "q", "qwen", []string{"--acp"}, FamilyGemini},
		{"goose acp", "g", "goose", []string{"acp"}, FamilyGoose},
		{"opencode acp with a gemini model flag", "o", "opencode", []string{"acp", "--model=gemini-2.5-pro"}, FamilyOpenCode},
		{"kimi acp", "k", "kimi", []string{"acp"}, FamilyKimi},
		{"windows exe", "k", `C:\tools\kimi.exe`, []string{"acp"}, FamilyKimi},
		{"agent name only", "gemini", "/opt/wrapper.sh", nil, FamilyGemini},
		{"command wins over agent name", "claude", "goose", []string{"acp"}, FamilyGoose},
		{"demo agent", "demo", "acp-bridge", []string{"demo-agent"}, FamilyGeneric},
		{"unknown", "devin", "devin-acp", nil, FamilyGeneric},
		{"flags are ignored", "x", "my-agent", []string{"--provider=claude"}, FamilyGeneric},
	}
	for _, c := range cases {
		if got := DetectFamily(c.agent, c.command, c.args); got != c.want {
			t.Errorf("%s: DetectFamily(%q, %q, %q) = %s, want %s", c.name, c.agent, c.command, c.args, got, c.want)
		}
	}
}

// Gemini's web_fetch carries only a prompt title. Under a WebFetch domain
// deny, in bypassPermissions (where a call that is not understood is
// allowed), a prompt naming one denied URL must be denied by the rule (it
// was allowed before: measured with Gemini CLI 0.61 in the interop matrix).
// A prompt naming several URLs is a fetch of each: a deny on any host
// decides, an allow rule must cover all of them.
func TestGeminiPromptFetchUnderDomainDeny(t *testing.T) {
	pol, errs := policy.Compile([]policy.RuleText{{List: "deny", Text: "WebFetch(domain:localhost)", Origin: policy.Origin{Layer: "user"}}})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	title := func(prompt string) json.RawMessage {
		p, _ := json.Marshal(prompt)
		b, _ := json.Marshal(map[string]any{"toolCallId": "web_fetch-1", "status": "pending", "kind": "fetch",
			"title": "Processing URLs and instructions from prompt: " + string(p)})
		return b
	}
	for _, tc := range []struct {
		prompt string
		tool   string
		want   policy.Decision
	}{
		{"Summarize http://localhost:8080/x", "WebFetch", policy.Deny},
		{"Summarize http://localhost:8080/x.", "WebFetch", policy.Deny},
		{"Read http://localhost/a, then http://localhost/a again", "WebFetch", policy.Deny},
		{"Summarize https://example.com/a", "WebFetch", policy.Allow}, // bypass: no rule names it
		{"Compare https://example.com/a and http://localhost:8080/x", "WebFetch", policy.Deny},
		{"Compare http://localhost:8080/x and https://example.com/a", "WebFetch", policy.Deny},
		{"Compare https://example.com/a and https://example.org/b", "WebFetch", policy.Allow},
	} {
		call, err := Normalize(FamilyGemini, title(tc.prompt))
		if call.Tool != tc.tool {
			t.Errorf("%q: tool %q (%v), want %q", tc.prompt, call.Tool, err, tc.tool)
		}
		v := policy.Evaluate(policy.Input{Call: call, Mode: policy.ModeBypass, Policy: pol, Env: policy.Env{Cwd: "/w", Home: "/h"}})
		if v.Decision != tc.want {
			t.Errorf("%q: %s (%s), want %s; call %+v", tc.prompt, v.Decision, v.Reason, tc.want, call)
		}
	}
}
