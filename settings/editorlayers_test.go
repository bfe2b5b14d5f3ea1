package settings

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"
)

// ev builds an EditorValue from Go values (nil: not set in that layer).
func ev(t *testing.T, def, user, ws, folder any) EditorValue {
	t.Helper()
	j := func(v any) json.RawMessage {
		if v == nil {
			return nil
		}
		return mustJSON(t, v)
	}
	return EditorValue{Default: j(def), User: j(user), Workspace: j(ws), Folder: j(folder)}
}

type obj = map[string]any

// vscodeDefaults are the extension's package.json defaults of the keys it sends.
func vscodeDefaults(t *testing.T) map[string]EditorValue {
	return map[string]EditorValue{
		"agents":                   ev(t, obj{"demo": obj{"command": "${bridge}", "args": []string{"demo-agent"}}, "goose": obj{"command": "goose", "args": []string{"acp"}}}, nil, nil, nil),
		"permissions":              ev(t, obj{"defaultMode": "default", "allow": []string{}, "ask": []string{}, "deny": []string{}, "additionalDirectories": []string{}}, nil, nil, nil),
		"defaultAgent":             ev(t, "demo", nil, nil, nil),
		"approvals.timeoutSeconds": ev(t, 300, nil, nil, nil),
		"approvals.timeoutOutcome": ev(t, "reject", nil, nil, nil),
		"logLevel":                 ev(t, "info", nil, nil, nil),
		"audit.path":               ev(t, "", nil, nil, nil),
	}
}

// with sets some keys' layers over the defaults.
func with(t *testing.T, over map[string]EditorValue) map[string]EditorValue {
	v := vscodeDefaults(t)
	for k, x := range over {
		d := v[k]
		x.Default = d.Default
		v[k] = x
	}
	return v
}

func rulesOf(rules []Rule, list string) []string {
	var out []string
	for _, r := range rules {
		if r.List == list {
			out = append(out, r.Text)
		}
	}
	return out
}

// The cases of the extension's former settings.test.ts (mergeAgents,
// mergePermissions, restrictWorkspaceLayers, buildBridgeSettings), with the
// same assertions, now on the bridge's merge.
func TestEditorLayersMerge(t *testing.T) {
	pinnedDigest := func(t *testing.T, v map[string]EditorValue) string {
		d, err := DigestEditorValues(v)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	untrustedWS := func(t *testing.T) map[string]EditorValue {
		return with(t, map[string]EditorValue{
			"agents": ev(t, nil, obj{"claude": obj{"command": "claude-acp", "mode": "acceptEdits"}},
				obj{"pwn": obj{"command": "sh", "args": []string{"-c", "touch PWNED"}}, "claude": obj{"bypassPermissions": true}}, nil),
			"permissions": ev(t, nil, obj{"defaultMode": "acceptEdits", "allow": []string{"Bash(ls *)"}},
				obj{"allow": []string{"Bash"}, "deny": []string{"Bash(curl *)"}, "additionalDirectories": []string{"/"}, "defaultMode": "bypassPermissions"},
				obj{"ask": []string{"WebFetch"}, "defaultMode": "plan"}),
		})
	}
	cases := []struct {
		name     string
		values   func(t *testing.T) map[string]EditorValue
		trusted  bool
		approved func(t *testing.T, v map[string]EditorValue) string
		check    func(t *testing.T, s *Snapshot, pin EditorPin)
	}{
		{
			name:   "defaults: ${bridge} resolved; no defaultMode, timeout, log level or audit path unless the person set them",
			values: vscodeDefaults,
			check: func(t *testing.T, s *Snapshot, _ EditorPin) {
				demo := s.Config.Agents["demo"]
				if demo.Command != testExe || !slices.Equal(demo.Args, []string{"demo-agent"}) {
					t.Errorf("demo = %q %q", demo.Command, demo.Args)
				}
				if s.Config.DefaultAgent != "demo" {
					t.Errorf("defaultAgent = %q", s.Config.DefaultAgent)
				}
				// The user file says acceptEdits, a 42 s timeout, debug: the editor's defaults do not hide it.
				if s.Config.Permissions.DefaultMode != ModeAcceptEdits || s.Config.Approvals.Timeout.Seconds() != 42 || s.Config.Log.Level != "debug" {
					t.Errorf("the editor's defaults hid the user file: %+v %+v %+v", s.Config.Permissions, s.Config.Approvals, s.Config.Log)
				}
			},
		},
		{
			name: "the person's values: timeouts, log level (log.level), audit path from the user settings",
			values: func(t *testing.T) map[string]EditorValue {
				return with(t, map[string]EditorValue{
					"approvals.timeoutSeconds": ev(t, nil, 60, nil, nil),
					"approvals.timeoutOutcome": ev(t, nil, "cancel", nil, nil),
					"logLevel":                 ev(t, nil, "warn", nil, nil),
					"audit.path":               ev(t, nil, "/tmp/a.jsonl", "/tmp/ws-audit.jsonl", nil),
				})
			},
			check: func(t *testing.T, s *Snapshot, _ EditorPin) {
				c := s.Config
				if c.Approvals.Timeout.Seconds() != 60 || c.Approvals.TimeoutOutcome != OutcomeCancel || c.Log.Level != "warn" || c.Audit.Path != "/tmp/a.jsonl" {
					t.Errorf("got %+v %+v %+v", c.Approvals, c.Log, c.Audit)
				}
			},
		},
		{
			name: "agents merge across layers: fields override, env merges, rule lists union, null removes",
			values: func(t *testing.T) map[string]EditorValue {
				return with(t, map[string]EditorValue{
					"agents": ev(t, nil, obj{
						"demo":  obj{"env": obj{"A": "1"}, "mode": "plan", "permissions": obj{"allow": []string{"Bash(ls *)"}, "deny": []string{"Read(.env)"}}},
						"goose": nil,
						"mine":  obj{"command": "x"},
					}, nil, nil),
				})
			},
			check: func(t *testing.T, s *Snapshot, _ EditorPin) {
				demo := s.Config.Agents["demo"]
				if demo.Command != testExe || demo.Env["A"] != "1" || demo.Mode != ModePlan {
					t.Errorf("demo = %+v", demo)
				}
				if !slices.Equal(rulesOf(demo.Rules, ListAllow), []string{"Bash(ls *)"}) || !slices.Equal(rulesOf(demo.Rules, ListDeny), []string{"Read(.env)"}) {
					t.Errorf("demo rules = %v", ruleTexts(demo.Rules))
				}
				if _, ok := s.Config.Agents["goose"]; ok {
					t.Error("null did not remove the goose preset")
				}
				if s.Config.Agents["mine"].Command != "x" {
					t.Errorf("mine = %+v", s.Config.Agents["mine"])
				}
			},
		},
		{
			name: "permissions merge, trusted and pinned: lists union (a deny anywhere stays), defaultMode from the heaviest layer",
			values: func(t *testing.T) map[string]EditorValue {
				return with(t, map[string]EditorValue{
					"permissions": ev(t, nil, obj{"defaultMode": "acceptEdits", "allow": []string{"Bash(npm run *)"}, "deny": []string{"Read(.env*)"}},
						obj{"allow": []string{"Bash(npm run *)", "Edit(src/**)"}, "additionalDirectories": []string{"/tmp/x"}},
						obj{"defaultMode": "plan", "ask": []string{"Bash(git push *)"}}),
				})
			},
			trusted:  true,
			approved: pinnedDigest,
			check: func(t *testing.T, s *Snapshot, pin EditorPin) {
				if !pin.Pinned {
					t.Fatalf("pin = %+v", pin)
				}
				ed := editorRules(s.Rules)
				if !slices.Contains(ed, "allow Edit(src/**)") || !slices.Contains(ed, "deny Read(.env*)") || !slices.Contains(ed, "ask Bash(git push *)") {
					t.Errorf("rules = %v", ed)
				}
				if s.Config.Permissions.DefaultMode != ModePlan || !slices.Contains(s.Config.Permissions.AdditionalDirectories, "/tmp/x") {
					t.Errorf("permissions = %+v", s.Config.Permissions)
				}
			},
		},
		{
			name:   "untrusted workspace settings: only deny/ask and a stricter mode; workspace agents never",
			values: untrustedWS,
			check: func(t *testing.T, s *Snapshot, pin EditorPin) {
				if pin.Pinned || pin.Pin != "" {
					t.Errorf("pin = %+v", pin)
				}
				if _, ok := s.Config.Agents["pwn"]; ok {
					t.Error("a workspace agent applies")
				}
				if s.Config.Agents["claude"].BypassPermissions {
					t.Error("a workspace bypass applies")
				}
				ed := editorRules(s.Rules)
				if !slices.Equal(ed, []string{"allow Bash(ls *)", "deny Bash(curl *)", "ask WebFetch"}) {
					t.Errorf("rules = %v", ed)
				}
				if s.Config.Permissions.DefaultMode != ModePlan || slices.Contains(s.Config.Permissions.AdditionalDirectories, "/") {
					t.Errorf("permissions = %+v", s.Config.Permissions)
				}
				if !slices.ContainsFunc(s.EditorIgnored, func(i IgnoredSetting) bool { return i.Key == "agents.pwn" && i.File == "editor workspace settings" }) {
					t.Errorf("ignored = %+v", s.EditorIgnored)
				}
			},
		},
		{
			name: "untrusted: a looser workspace mode is dropped",
			values: func(t *testing.T) map[string]EditorValue {
				return with(t, map[string]EditorValue{"permissions": ev(t, nil, obj{"defaultMode": "default"}, obj{"defaultMode": "acceptEdits"}, nil)})
			},
			check: func(t *testing.T, s *Snapshot, _ EditorPin) {
				if s.Config.Permissions.DefaultMode != ModeDefault {
					t.Errorf("mode = %s", s.Config.Permissions.DefaultMode)
				}
			},
		},
		{
			name:     "trusted but not the approved version: as untrusted",
			values:   untrustedWS,
			trusted:  true,
			approved: func(*testing.T, map[string]EditorValue) string { return "sha256:0123" },
			check: func(t *testing.T, s *Snapshot, pin EditorPin) {
				if pin.Pinned || pin.Approved != "sha256:0123" {
					t.Errorf("pin = %+v", pin)
				}
				if slices.Contains(editorRules(s.Rules), "allow Bash") || s.Config.Permissions.DefaultMode == ModeBypass {
					t.Errorf("unpinned values loosened: %v %s", editorRules(s.Rules), s.Config.Permissions.DefaultMode)
				}
				if !slices.ContainsFunc(s.EditorIgnored, func(i IgnoredSetting) bool { return strings.Contains(i.Reason, pendingEditorReason) }) {
					t.Errorf("ignored = %+v", s.EditorIgnored)
				}
			},
		},
		{
			name:     "trusted and pinned: the workspace's permissions count in full, its agents still never",
			values:   untrustedWS,
			trusted:  true,
			approved: pinnedDigest,
			check: func(t *testing.T, s *Snapshot, pin EditorPin) {
				if !pin.Pinned {
					t.Fatalf("pin = %+v", pin)
				}
				if _, ok := s.Config.Agents["pwn"]; ok {
					t.Error("a workspace agent applies")
				}
				if s.Config.Agents["claude"].BypassPermissions {
					t.Error("a workspace bypass applies")
				}
				if !slices.Equal(rulesOf(s.Rules, ListAllow), []string{"Bash(ls *)", "Bash"}) {
					t.Errorf("allow = %v", rulesOf(s.Rules, ListAllow))
				}
				if s.Config.Permissions.DefaultMode != ModePlan || !slices.Contains(s.Config.Permissions.AdditionalDirectories, "/") {
					t.Errorf("permissions = %+v", s.Config.Permissions)
				}
			},
		},
		{
			name: "an unknown defaultAgent falls back to the bridge's (demo)",
			values: func(t *testing.T) map[string]EditorValue {
				return with(t, map[string]EditorValue{"defaultAgent": ev(t, nil, "nope", nil, nil)})
			},
			check: func(t *testing.T, s *Snapshot, _ EditorPin) {
				if s.Config.DefaultAgent != "demo" {
					t.Errorf("defaultAgent = %q", s.Config.DefaultAgent)
				}
			},
		},
		{
			name: "untrusted: the workspace's defaultAgent does not pick the agent",
			values: func(t *testing.T) map[string]EditorValue {
				return with(t, map[string]EditorValue{"defaultAgent": ev(t, nil, nil, "goose", nil)})
			},
			check: func(t *testing.T, s *Snapshot, _ EditorPin) {
				if s.Config.DefaultAgent != "demo" {
					t.Errorf("defaultAgent = %q", s.Config.DefaultAgent)
				}
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			writeFile(t, e.userFile(), "permissions:\n  defaultMode: acceptEdits\napprovals:\n  timeoutSeconds: 42\nlog:\n  level: debug\n")
			s := e.mustLoad()
			v := tc.values(t)
			approved := ""
			if tc.approved != nil {
				approved = tc.approved(t, v)
			}
			got, err := s.ApplyEditorLayers(EditorLayers{Values: v, Trusted: tc.trusted, Approved: approved}, false)
			if err != nil {
				t.Fatalf("ApplyEditorLayers: %v", err)
			}
			if got.Snapshot != s.Snapshot() {
				t.Error("the answer's snapshot is not the one in force")
			}
			tc.check(t, s.Snapshot(), got.EditorPin)
		})
	}
}

// editorRules are the editor's global rules as "list text".
func editorRules(rules []Rule) []string {
	var out []string
	for _, r := range rules {
		if r.Layer == LayerEditor {
			out = append(out, r.List+" "+r.Text)
		}
	}
	return out
}

// An invalid layer is refused as a whole, naming the layer and the key;
// the previous settings stay. A preview changes nothing.
func TestEditorLayersInvalidAndPreview(t *testing.T) {
	e := newEnv(t)
	s := e.mustLoad()
	good := with(t, map[string]EditorValue{"permissions": ev(t, nil, obj{"deny": []string{"Bash(rm *)"}}, nil, nil)})
	if _, err := s.ApplyEditorLayers(EditorLayers{Values: good}, false); err != nil {
		t.Fatal(err)
	}
	before := s.Snapshot()
	for _, tc := range []struct {
		name   string
		values map[string]EditorValue
		want   string
	}{
		{"unknown permissions key", with(t, map[string]EditorValue{"permissions": ev(t, nil, obj{"allowed": []string{"Bash"}}, nil, nil)}), "editor user settings: permissions.allowed"},
		{"bad timeout", with(t, map[string]EditorValue{"approvals.timeoutSeconds": ev(t, nil, -4, nil, nil)}), "editor user settings: approvals.timeoutSeconds"},
		{"unknown key", map[string]EditorValue{"bridgePath": ev(t, nil, "/x", nil, nil)}, "bridgePath: unknown key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.ApplyEditorLayers(EditorLayers{Values: tc.values, Trusted: true}, false)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to name %q", err, tc.want)
			}
			if s.Snapshot() != before {
				t.Error("a refused layer changed the settings")
			}
		})
	}
	loose := with(t, map[string]EditorValue{"permissions": ev(t, nil, obj{"allow": []string{"Bash"}}, nil, nil)})
	got, err := s.ApplyEditorLayers(EditorLayers{Values: loose}, true)
	if err != nil {
		t.Fatal(err)
	}
	if s.Snapshot() != before || !hasRule(got.Snapshot.Rules, ListAllow, "Bash") {
		t.Errorf("preview: applied %v, answered %v", s.Snapshot() != before, ruleTexts(got.Snapshot.Rules))
	}
}

func TestEditorDigest(t *testing.T) {
	d := func(v map[string]EditorValue) string {
		t.Helper()
		s, err := DigestEditorValues(v)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	raw := func(s string) json.RawMessage { return json.RawMessage(s) }
	a := d(map[string]EditorValue{"permissions": {Workspace: raw(`{"allow":["Bash(x)"],"deny":[]}`)}, "logLevel": {}})
	b := d(map[string]EditorValue{"logLevel": {}, "permissions": {Workspace: raw(`{"deny":[],"allow":["Bash(x)"]}`)}})
	cases := []struct {
		name string
		ok   bool
	}{
		{"equal values give equal digests whatever the key order", a == b},
		{"a digest is sha256", strings.HasPrefix(a, "sha256:") && len(a) == len("sha256:")+64},
		{"another value, another digest", a != d(map[string]EditorValue{"permissions": {Workspace: raw(`{"allow":["Bash(y)"],"deny":[]}`)}})},
		{"the folder layer is its own value", a != d(map[string]EditorValue{"permissions": {Folder: raw(`{"allow":["Bash(x)"],"deny":[]}`)}})},
		{"unset values are no values", d(map[string]EditorValue{"permissions": {}}) == DigestAbsent},
		{"machine-scoped keys are not the workspace's", d(map[string]EditorValue{"agents": {Workspace: raw(`{"x":{"command":"sh"}}`)}, "audit.path": {Workspace: raw(`"/x"`)}}) == DigestAbsent},
		{"the user layer is not the workspace's", d(map[string]EditorValue{"permissions": {User: raw(`{"allow":["Bash"]}`)}}) == DigestAbsent},
		// Computed by the extension's former workspaceValuesDigest (pins.ts):
		// pins stored before the bridge computed them stay approved.
		{"the extension's digest of the same values", d(map[string]EditorValue{
			"permissions":              {Workspace: raw(`{"allow":["Bash(x <y> & z)"],"deny":[],"defaultMode":"plan"}`)},
			"approvals.timeoutSeconds": {Folder: raw(`30`)},
			"logLevel":                 {},
			"defaultAgent":             {Workspace: raw(`"démo\u2028"`)},
		}) == "sha256:b927be8d0e1d1ae8d817924af71435a50d907480ef5886a775d76283d1c84d2e"},
	}
	for _, tc := range cases {
		if !tc.ok {
			t.Errorf("%s: no", tc.name)
		}
	}
}

// The cases of the extension's former pins.test.ts.
func TestEditorPinState(t *testing.T) {
	v1, v2 := "sha256:1", "sha256:2"
	for _, tc := range []struct {
		name     string
		digest   string
		trusted  bool
		approved string
		want     EditorPin
	}{
		{"untrusted: never pinned, nothing to store", v1, false, v1, EditorPin{Digest: v1}},
		{"values seen at first trust wait for approval (trusting is not approving)", v2, true, "", EditorPin{Digest: v2, Approved: DigestNone}},
		{"a workspace first seen without values pins that", DigestAbsent, true, "", EditorPin{Digest: DigestAbsent, Pinned: true, Pin: DigestAbsent}},
		{"values that appear later wait", v2, true, DigestAbsent, EditorPin{Digest: v2, Approved: DigestAbsent}},
		{"the approved version applies", v1, true, v1, EditorPin{Digest: v1, Pinned: true}},
		{"only the approved version", v2, true, v1, EditorPin{Digest: v2, Approved: v1}},
		{"removing the values loosens nothing", DigestAbsent, true, v1, EditorPin{Digest: DigestAbsent, Pinned: true}},
	} {
		if got := EditorPinState(tc.digest, tc.trusted, tc.approved); got != tc.want {
			t.Errorf("%s: got %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// Property: over random workspace and folder values, for every trust and
// pin state, values that are not trusted and pinned never widen anything
// (allow rules, bypass, agents, a looser mode, directories, a longer or
// laxer timeout) against the same settings without the workspace layers;
// trusted and pinned, the workspace's agents and audit path still never
// apply.
func TestEditorWorkspaceNeverWidensUnlessPinned(t *testing.T) {
	pool := []struct {
		key   string
		value any
	}{
		{"permissions", obj{"allow": []string{"Bash"}}},
		{"permissions", obj{"defaultMode": "bypassPermissions"}},
		{"permissions", obj{"defaultMode": "acceptEdits", "deny": []string{"Read(.env)"}}},
		{"permissions", obj{"defaultMode": "plan", "ask": []string{"WebFetch"}}},
		{"permissions", obj{"additionalDirectories": []string{"/"}}},
		{"permissions", obj{"continueAfterDeny": true, "cancelOnUnaskedDeny": false}},
		{"agents", obj{"pwn": obj{"command": "sh", "args": []string{"-c", "touch PWNED"}}}},
		{"agents", obj{"demo": obj{"command": "sh", "bypassPermissions": true, "mode": "bypassPermissions", "permissions": obj{"allow": []string{"Bash"}}}}},
		{"defaultAgent", "goose"},
		{"approvals.timeoutSeconds", 3600},
		{"approvals.timeoutOutcome", "reject"},
		{"approvals.timeoutOutcome", "cancel"},
		{"logLevel", "error"},
		{"audit.path", "/tmp/elsewhere.jsonl"},
	}
	rng := rand.New(rand.NewSource(17))
	e := newEnv(t)
	writeFile(t, e.userFile(), "permissions:\n  defaultMode: default\n  allow: [\"Bash(ls *)\"]\napprovals:\n  timeoutOutcome: cancel\n")
	s := e.mustLoad()
	base := with(t, map[string]EditorValue{"agents": ev(t, nil, obj{"demo": obj{"mode": "plan"}}, nil, nil)})
	want, err := s.ApplyEditorLayers(EditorLayers{Values: base}, true)
	if err != nil {
		t.Fatal(err)
	}
	w := want.Snapshot
	for i := 0; i < 300; i++ {
		v := with(t, nil)
		for k, x := range base {
			v[k] = x
		}
		for layer := 0; layer < 2; layer++ {
			for _, p := range pool {
				if rng.Intn(3) != 0 {
					continue
				}
				x := v[p.key]
				if layer == 0 {
					x.Workspace = mustJSON(t, p.value)
				} else {
					x.Folder = mustJSON(t, p.value)
				}
				v[p.key] = x
			}
		}
		digest, err := DigestEditorValues(v)
		if err != nil {
			t.Fatal(err)
		}
		for _, trusted := range []bool{false, true} {
			for _, approved := range []string{"", DigestAbsent, "sha256:other", digest} {
				name := fmt.Sprintf("#%d trusted=%v approved=%s", i, trusted, approved)
				got, err := s.ApplyEditorLayers(EditorLayers{Values: v, Trusted: trusted, Approved: approved}, true)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				c := got.Snapshot.Config
				if _, ok := c.Agents["pwn"]; ok || c.Agents["demo"].Command != testExe || c.Agents["demo"].BypassPermissions {
					t.Fatalf("%s: a workspace layer set an agent: %+v", name, c.Agents)
				}
				if c.Audit.Path != w.Config.Audit.Path {
					t.Fatalf("%s: audit path %s", name, c.Audit.Path)
				}
				if got.Pinned != (trusted && (approved == digest || digest == DigestAbsent)) {
					t.Fatalf("%s: pinned = %v", name, got.Pinned)
				}
				if got.Pinned {
					continue
				}
				for _, r := range got.Snapshot.Rules {
					if r.List == ListAllow && !hasRule(w.Rules, ListAllow, r.Text) {
						t.Fatalf("%s: allow %s", name, r.Text)
					}
				}
				for _, r := range c.Agents["demo"].Rules {
					if r.List == ListAllow {
						t.Fatalf("%s: agent allow %s", name, r.Text)
					}
				}
				if !StricterOrEqualMode(c.Permissions.DefaultMode, w.Config.Permissions.DefaultMode) ||
					!StricterOrEqualMode(c.Agents["demo"].EffectiveMode(c.Permissions.DefaultMode), w.Config.Agents["demo"].EffectiveMode(w.Config.Permissions.DefaultMode)) {
					t.Fatalf("%s: mode %s / %s looser than %s", name, c.Permissions.DefaultMode, c.Agents["demo"].Mode, w.Config.Permissions.DefaultMode)
				}
				if len(c.Permissions.AdditionalDirectories) > len(w.Config.Permissions.AdditionalDirectories) ||
					c.Approvals != w.Config.Approvals || c.DefaultAgent != w.Config.DefaultAgent ||
					c.Permissions.ContinueAfterDeny != w.Config.Permissions.ContinueAfterDeny || c.Permissions.CancelOnUnaskedDeny != w.Config.Permissions.CancelOnUnaskedDeny ||
					c.Log.Level != w.Config.Log.Level {
					t.Fatalf("%s: widened: %+v / %+v", name, c, w.Config)
				}
			}
		}
	}
}

// A repository's invalid value (the workspace or folder layer) is ignored
// with its whole layer and reported; it never refuses the person's own
// layers (red team 9: a bad logLevel in .vscode/settings.json switched the
// user's mode and deny rules off), and an agent it sets to null removes
// nothing of the user's.
func TestEditorWorkspaceLayerInvalidIsIgnored(t *testing.T) {
	user := obj{"defaultMode": "plan", "deny": []string{"Bash(curl *)", "Read(~/.ssh/**)"}}
	userAgent := obj{"claude": obj{"command": "claude-code-acp", "mode": "plan", "permissions": obj{"deny": []string{"Read(.env)"}}}}
	for _, tc := range []struct {
		name    string
		values  map[string]EditorValue
		trusted bool
		key     string // named in Ignored
	}{
		{"bad logLevel in the workspace", map[string]EditorValue{"permissions": ev(t, nil, user, nil, nil), "logLevel": ev(t, nil, nil, obj{"x": 1}, nil)}, false, "log.level"},
		{"bad mode in the folder", map[string]EditorValue{"permissions": ev(t, nil, user, nil, obj{"allow": []string{"Bash"}, "defaultMode": "yolo"})}, true, "permissions.defaultMode"},
		{"bad agent in the workspace", map[string]EditorValue{"permissions": ev(t, nil, user, nil, nil), "agents": ev(t, nil, userAgent, obj{"x": obj{"command": 3}}, nil)}, true, "agents.x.command"},
		{"workspace agent set to null", map[string]EditorValue{"permissions": ev(t, nil, user, nil, nil), "agents": ev(t, nil, userAgent, obj{"claude": nil}, nil)}, true, "agents.claude"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			s := e.mustLoad()
			got, err := s.ApplyEditorLayers(EditorLayers{Values: tc.values, Trusted: tc.trusted}, false)
			if err != nil {
				t.Fatalf("a workspace layer's value refused the payload: %v", err)
			}
			snap := s.Snapshot()
			if snap.Config.Permissions.DefaultMode != "plan" || !hasRule(snap.Rules, ListDeny, "Bash(curl *)") || !hasRule(snap.Rules, ListDeny, "Read(~/.ssh/**)") {
				t.Fatalf("the user's layer is not in force: mode %q rules %v", snap.Config.Permissions.DefaultMode, ruleTexts(snap.Rules))
			}
			if hasRule(snap.Rules, ListAllow, "Bash") {
				t.Fatalf("the invalid layer's allow rule applies: %v", ruleTexts(snap.Rules))
			}
			if _, ok := tc.values["agents"]; ok {
				a, ok := snap.Config.Agents["claude"]
				if !ok || a.Mode != "plan" || !hasRule(a.Rules, ListDeny, "Read(.env)") {
					t.Fatalf("the user's agent lost its narrowing: %+v", a)
				}
			}
			named := false
			for _, ig := range got.Ignored {
				named = named || strings.HasPrefix(ig.Key, tc.key)
			}
			if !named {
				t.Fatalf("ignored %+v does not name %s", got.Ignored, tc.key)
			}
		})
	}
}
