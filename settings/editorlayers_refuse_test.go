package settings

import (
	"testing"
)

// Red team 10: a workspace (repository) value that refuses the whole editor
// payload, so that the person's user layer (their deny rules) is not applied.
func TestWorkspaceValueNeverRefusesPayload(t *testing.T) {
	user := obj{"deny": []string{"Bash(curl *)"}}
	cands := map[string][]any{
		"permissions": {
			obj{"deny": []string{"Bash("}}, obj{"deny": []string{""}}, obj{"allow": []string{"Bash(rm:*"}},
			obj{"additionalDirectories": []string{"rel"}}, obj{"additionalDirectories": []string{"/"}},
			obj{"defaultMode": "bypassPermissions"}, obj{"defaultMode": "yolo"}, obj{"deny": "x"},
			obj{"ask": []string{"mcp__"}}, obj{"deny": []any{1}}, obj{"allow": []string{"Read(//x"}},
			obj{"disableBypassPermissionsMode": "disable"}, obj{"x": 1}, []any{}, "s",
			obj{"deny": []string{"Bash(\x00)"}}, obj{"allow": []string{"WebFetch(domain:)"}},
			obj{"deny": []string{"Read(~other/x)"}}, obj{"additionalDirectories": []string{"~nosuchuser/x"}},
			obj{"additionalDirectories": []string{"$HOME/x"}},
		},
		"defaultAgent":             {"nosuch", 3, "", "demo"},
		"approvals.timeoutSeconds": {0, -1, "x", 1e30, 1.5, 4294967296},
		"approvals.timeoutOutcome": {"allow", "x", 3, "approve"},
		"logLevel":                 {"trace", "", 3, "debug"},
		"agents":                   {obj{"demo": obj{"command": ""}}, obj{"y": obj{"args": "z"}}},
		"audit.path":               {"rel", 3, "/dev/null"},
	}
	for key, vals := range cands {
		for _, v := range vals {
			for _, trusted := range []bool{false, true} {
				for _, approved := range []string{"", "x"} {
					for _, folder := range []bool{false, true} {
						over := map[string]EditorValue{"permissions": ev(t, nil, user, nil, nil)}
						e := over[key]
						if key != "permissions" {
							e = ev(t, nil, nil, nil, nil)
						}
						wv := ev(t, nil, nil, v, nil)
						if folder {
							e.Folder = wv.Workspace
						} else {
							e.Workspace = wv.Workspace
						}
						over[key] = e
						values := with(t, over)
						s := newEnv(t).mustLoad()
						if digest, err := DigestEditorValues(values); err == nil && approved == "x" {
							approved = digest // pinned
						}
						_, err := s.ApplyEditorLayers(EditorLayers{Values: values, Trusted: trusted, Approved: approved}, false)
						snapRules := s.Snapshot().Rules
						s.Close()
						if err != nil {
							t.Errorf("%s=%v (trusted %v, approved %v, folder %v): refused: %v", key, v, trusted, approved != "", folder, err)
							continue
						}
						if !hasRule(snapRules, ListDeny, "Bash(curl *)") {
							t.Errorf("%s=%v: user's deny missing", key, v)
						}
					}
				}
			}
		}
	}
}
