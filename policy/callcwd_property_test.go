package policy

import (
	"path"
	"testing"
)

// TestCallCwdIsWhereRelativePathsResolve (red team 16, the class of
// TestRT16CallCwdIsNotTheWorkspace): a call's own directory (Call.Cwd) is
// where its relative paths resolve, never a workspace root. For every mode,
// tool shape (a Bash string, an agent's argv-style execute tool, Read,
// Edit), call directory (the workspace, a directory in it, one outside it,
// a link in it to a directory outside, "..", a relative one) and rule set,
// the verdict on a relative path equals the verdict on the same call with
// the absolute path and no call directory (the session's).
//
// Control: the reading red team 16 found (the call's directory taken as
// the session's, Env.Cwd) breaks the property for some case, so the
// comparison can fail.
func TestCallCwdIsWhereRelativePathsResolve(t *testing.T) {
	const ws, home = "/w/proj", "/home/u"
	fs := MapFS{"/w/proj/link": "/home/u/out"}
	env := Env{Cwd: ws, ProjectRoot: ws, Home: home, FS: fs}
	// where each call directory is, spelled as an absolute path with its
	// links kept (the engine resolves them for both calls).
	cwds := map[string]string{
		ws: ws, ws + "/sub": ws + "/sub", home + "/out": home + "/out", "link": ws + "/link",
		"..": "/w", "sub": ws + "/sub", "~/out": home + "/out", ws + "/link/..": home,
	}
	ruleSets := []struct {
		name             string
		allow, ask, deny []string
	}{
		{"none", nil, nil, nil},
		{"deny outside", nil, nil, []string{"Read(//home/u/out/**)", "Edit(//home/u/out/**)"}},
		{"ask ./sub", nil, []string{"Read(./sub/**)", "Edit(./sub/**)"}, nil},
		{"deny bare name", nil, nil, []string{"Read(f)", "Edit(f)"}},
		{"allow outside", []string{"Read(//home/u/out/**)", "Edit(//home/u/out/**)"}, nil, nil},
	}
	type shape struct {
		name string
		call func(p string) Call
	}
	shapes := []shape{
		{"Bash cat", func(p string) Call { return Call{Tool: "Bash", Command: "cat " + p, Kind: "execute"} }},
		{"Bash rm", func(p string) Call { return Call{Tool: "Bash", Command: "rm -rf " + p, Kind: "execute"} }},
		{"Bash grep -r", func(p string) Call { return Call{Tool: "Bash", Command: "grep -r key " + p, Kind: "execute"} }},
		{"argv execute", func(p string) Call { return Call{Tool: "exec_command", Command: "head -n 1 " + p, Kind: "execute"} }},
		{"Read", func(p string) Call { return Call{Tool: "Read", Paths: []string{p}, Kind: "read"} }},
		{"Edit", func(p string) Call { return Call{Tool: "Edit", Paths: []string{p}, Kind: "edit"} }},
	}
	modes := []Mode{ModeDefault, ModeAcceptEdits, ModePlan, ModeDontAsk, ModeBypass}
	checked, oldBroke := 0, 0
	for _, rs := range ruleSets {
		var rules []RuleText
		origin := Origin{Layer: "workspace", File: ws + "/.acp-bridge.yaml", Root: ws}
		for list, texts := range map[string][]string{"allow": rs.allow, "ask": rs.ask, "deny": rs.deny} {
			for _, r := range texts {
				rules = append(rules, RuleText{List: list, Text: r, Origin: origin})
			}
		}
		pol, errs := Compile(rules)
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		for cwd, abs := range cwds {
			// no path at all: ls, du and tree read the directory itself.
			for _, prog := range []string{"ls", "du -s", "tree"} {
				for _, m := range modes {
					got := Evaluate(Input{Call: Call{Tool: "Bash", Command: prog, Kind: "execute", Cwd: cwd}, Env: env, Mode: m, Policy: pol})
					want := Evaluate(Input{Call: Call{Tool: "Bash", Command: prog + " " + abs, Kind: "execute"}, Env: env, Mode: m, Policy: pol})
					checked++
					if got.Decision != want.Decision {
						t.Errorf("%s, %s, `%s` in %q: %s (%s); `%s %s`: %s (%s)", rs.name, m, prog, cwd, got.Decision, got.Reason, prog, abs, want.Decision, want.Reason)
					}
				}
			}
			for _, sh := range shapes {
				for _, rel := range []string{"f", "d/f", "./f"} {
					for _, m := range modes {
						c := sh.call(rel)
						c.Cwd = cwd
						a := sh.call(path.Join(abs, rel))
						got := Evaluate(Input{Call: c, Env: env, Mode: m, Policy: pol})
						want := Evaluate(Input{Call: a, Env: env, Mode: m, Policy: pol})
						checked++
						if got.Decision != want.Decision {
							t.Errorf("%s, %s, %s, cwd %q, %q: %s (%s); with the absolute path %q: %s (%s)",
								rs.name, m, sh.name, cwd, rel, got.Decision, got.Reason, path.Join(abs, rel), want.Decision, want.Reason)
						}
						// the reading red team 16 found: the call's directory
						// taken as the session's.
						oldEnv := env
						oldEnv.Cwd = path.Clean(abs)
						c.Cwd = ""
						if old := Evaluate(Input{Call: c, Env: oldEnv, Mode: m, Policy: pol}); old.Decision != want.Decision {
							oldBroke++
						}
					}
				}
			}
		}
	}
	if checked < 1000 {
		t.Fatalf("only %d cases checked", checked)
	}
	if oldBroke == 0 {
		t.Fatal("control: taking the call's directory as the session's broke no case; the property cannot fail")
	}
	t.Logf("%d cases; the old reading broke %d", checked, oldBroke)
}
