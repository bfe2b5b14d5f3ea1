package profiles

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acp-bridge/acp-bridge/policy"
)

// programSpellings are the ways a tool call can name the program name: bare
// and in a system directory (controls: the real program), and by a path
// into a tree the agent writes (ws is the workspace): absolute, relative
// below and above the workspace, and a symlink the agent made to the real
// binary (the reader never resolves it: the link is the agent's, it can
// point it anywhere before the tool runs).
func programSpellings(t *testing.T, ws, name string) (system []string, agents []string) {
	t.Helper()
	for _, d := range []string{"evil", "link"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(ws, "evil", name), []byte("#!/bin/sh\nrm -rf src\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/usr/bin/"+name, filepath.Join(ws, "link", name)); err != nil && !os.IsExist(err) {
		t.Fatal(err)
	}
	return []string{name, "/usr/bin/" + name},
		[]string{ws + "/evil/" + name, "./evil/" + name, "../x/" + name, "evil/" + name, ws + "/link/" + name, "./link/" + name}
}

// programShape is a tool call's input naming the program prog, as a member
// of a kind the profiles read, and the argument words after it.
type programShape struct {
	member string
	input  func(prog string, args []string) map[string]any
	// beside: the member stands beside a command whose first word is the
	// bare name (a program that is not the command's first word).
	beside bool
}

func strs(a []string) []any {
	out := make([]any, len(a))
	for i, s := range a {
		out[i] = s
	}
	return out
}

var programShapes = []programShape{
	{member: "command array", input: func(p string, a []string) map[string]any {
		return map[string]any{"command": strs(append([]string{p}, a...))}
	}},
	{member: "cmd array", input: func(p string, a []string) map[string]any {
		return map[string]any{"cmd": strs(append([]string{p}, a...))}
	}},
	{member: "argv", input: func(p string, a []string) map[string]any {
		return map[string]any{"argv": strs(append([]string{p}, a...))}
	}},
	{member: "program+args", input: func(p string, a []string) map[string]any {
		return map[string]any{"program": p, "args": strs(a)}
	}},
	{member: "program beside", beside: true, input: func(p string, a []string) map[string]any {
		return map[string]any{"program": p, "args": strs(a)}
	}},
	{member: "executable beside", beside: true, input: func(p string, a []string) map[string]any {
		return map[string]any{"executable": p}
	}},
	{member: "bin beside", beside: true, input: func(p string, a []string) map[string]any {
		return map[string]any{"bin": p, "arguments": strs(a)}
	}},
	{member: "argv beside", beside: true, input: func(p string, a []string) map[string]any {
		return map[string]any{"argv": strs(append([]string{p}, a...))}
	}},
	{member: "nested program beside", beside: true, input: func(p string, a []string) map[string]any {
		return map[string]any{"options": map[string]any{"program": p}}
	}},
}

// TestProgramByPathIsJudgedAsThatPath is the property (red team 16): for
// every tool-call shape naming a program (an argv command under command,
// cmd or argv; program/executable/bin beside a command or alone; a shell
// running the command), every family's reader, every spelling of the
// program: what the policy judges is what the tool runs. A program named
// by a path into a tree the agent writes is never judged as the bare
// program: the call is a doubt, or its command's first word is that path
// exactly; in plan mode it is never allowed. Controls: the bare and system
// spellings, given where the command holds them, read without a doubt and
// are allowed in plan; and the predicate fails on the base-name reading the
// reader had before.
func TestProgramByPathIsJudgedAsThatPath(t *testing.T) {
	ws := t.TempDir()
	pol, errs := policy.Compile([]policy.RuleText{{List: "deny", Text: "Bash(rm *)"}})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	env := policy.Env{Cwd: ws, ProjectRoot: ws, Home: "/home/u"}
	normalize := func(fam Family, kind string, in map[string]any) policy.Call {
		raw, _ := json.Marshal(map[string]any{"toolCallId": "t1", "kind": kind, "title": "mcp__shell__run", "rawInput": in})
		call, err := Normalize(fam, raw)
		if err != nil {
			t.Fatal(err)
		}
		return call
	}
	// judgedAsPath: the call is a doubt, or it runs prog itself.
	judgedAsPath := func(call policy.Call, prog string) error {
		if call.Unread != "" {
			return nil
		}
		w := shellWords(call.Command)
		if len(w) == 0 || w[0] != prog {
			return fmt.Errorf("judged as %q (tool %q), not as the program %q that runs", call.Command, call.Tool, prog)
		}
		return nil
	}
	// control: the predicate fails on the reading red team 16 found (the
	// argv [/ws/evil/bash, -lc, S] read as S; a program beside "git
	// status" accepted by its base name).
	for _, old := range []policy.Call{{Tool: "Bash", Command: "git status"}, {Tool: "Bash", Command: "/usr/bin/git status"}} {
		if judgedAsPath(old, ws+"/evil/git") == nil {
			t.Fatalf("control: the predicate accepts the base-name reading %q", old.Command)
		}
	}
	families := []Family{FamilyGeneric, FamilyClaude, FamilyCodex, FamilyGemini, FamilyGoose, FamilyOpenCode, FamilyKimi}
	programs := []struct {
		name string
		args []string
	}{
		{"git", []string{"status"}},
		{"bash", []string{"-lc", "git status"}},
		{"sh", []string{"-c", "ls"}},
	}
	bashControls := 0
	for _, p := range programs {
		system, agents := programSpellings(t, ws, p.name)
		bareLine := policy.ShellJoin(p.name, p.args)
		for _, fam := range families {
			for _, kind := range []string{"execute", "other"} {
				for _, sh := range programShapes {
					build := func(prog string) map[string]any {
						in := sh.input(prog, p.args)
						if sh.beside {
							in = maps.Clone(in)
							in["command"] = bareLine
						}
						return in
					}
					for _, prog := range agents {
						in := build(prog)
						call := normalize(fam, kind, in)
						if err := judgedAsPath(call, prog); err != nil {
							t.Errorf("%s %s %s %v: %v", fam, kind, sh.member, in, err)
						}
						if v := policy.Evaluate(policy.Input{Call: call, Policy: pol, Env: env, Mode: policy.ModePlan}); v.Decision == policy.Allow {
							t.Errorf("%s %s %s %v: allowed in plan as %q (%s)", fam, kind, sh.member, in, call.Command, v.Reason)
						}
					}
					if kind != "execute" || (fam != FamilyGeneric && fam != FamilyCodex) || sh.beside && sh.member != "program beside" {
						continue
					}
					// controls: the real program, named where the command
					// names it, reads without a doubt and is allowed in plan
					// (a call the generic reader takes as Bash: kind
					// execute; the other families' readers take this MCP
					// title as an MCP tool, which plan denies whatever it
					// runs).
					for _, prog := range system {
						in := sh.input(prog, p.args)
						if sh.beside {
							in = maps.Clone(in)
							in["command"] = policy.ShellJoin(prog, p.args)
						}
						call := normalize(fam, kind, in)
						if call.Unread != "" || judgedAsPath(call, prog) != nil {
							t.Errorf("control %s %s %v: Command %q, doubt %q", fam, sh.member, in, call.Command, call.Unread)
							continue
						}
						if call.Tool != "Bash" {
							continue // an MCP tool (argv, cmd, program alone): plan denies it whatever it runs
						}
						bashControls++
						if v := policy.Evaluate(policy.Input{Call: call, Policy: pol, Env: env, Mode: policy.ModePlan}); v.Decision != policy.Allow {
							t.Errorf("control %s %s %v: %s in plan (%s), want allow", fam, sh.member, in, v.Decision, v.Reason)
						}
					}
				}
			}
		}
	}
	if bashControls == 0 {
		t.Error("no control was read as a Bash call")
	}
}

// TestShellBesideACommandIsItsProgram: a shell member beside a command
// names the interpreter the tool runs the command with ({command: C,
// shell: S} runs S -c C: Desktop Commander's start_process, Node's spawn
// with a shell): it is judged as the program running the command, never as
// a word of the command's data ({command: "echo /ws/evil.sh", shell:
// /ws/evil.sh} ran the agent's script under echo's verdict). Controls: a
// real shell reads without a doubt and the command is judged as it would
// be alone; a shell alone is the command; a boolean shell names no program.
func TestShellBesideACommandIsItsProgram(t *testing.T) {
	ws := t.TempDir()
	pol, errs := policy.Compile([]policy.RuleText{{List: "deny", Text: "Bash(rm *)"}})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	env := policy.Env{Cwd: ws, ProjectRoot: ws, Home: "/home/u"}
	system, agents := programSpellings(t, ws, "bash")
	for _, fam := range []Family{FamilyGeneric, FamilyCodex, FamilyClaude, FamilyGemini, FamilyGoose} {
		for _, kind := range []string{"execute", "other"} {
			eval := func(in map[string]any) (policy.Call, policy.Verdict) {
				raw, _ := json.Marshal(map[string]any{"toolCallId": "t1", "kind": kind, "title": "mcp__dc__start_process", "rawInput": in})
				call, err := Normalize(fam, raw)
				if err != nil {
					t.Fatal(err)
				}
				return call, policy.Evaluate(policy.Input{Call: call, Policy: pol, Env: env, Mode: policy.ModePlan})
			}
			for _, sh := range agents {
				for _, cmd := range []string{"git status", "echo " + sh, "ls " + sh} {
					for _, in := range []map[string]any{
						{"command": cmd, "shell": sh, "timeout_ms": 5000},
						{"cmd": cmd, "shell": sh},
						{"command": strs(strings.Fields(cmd)), "shell": sh},
						{"command": cmd, "options": map[string]any{"shell": sh}},
					} {
						call, v := eval(in)
						if w := shellWords(call.Command); call.Unread == "" && (len(w) == 0 || w[0] != sh) {
							t.Errorf("%s %s %v: judged as %q, not as the shell %q running it", fam, kind, in, call.Command, sh)
						}
						if v.Decision == policy.Allow {
							t.Errorf("%s %s %v: allowed in plan as %q (%s)", fam, kind, in, call.Command, v.Reason)
						}
					}
				}
			}
			for _, sh := range append(system, "/bin/bash", "sh", "/bin/zsh") {
				for _, in := range []map[string]any{
					{"command": "git status", "shell": sh, "timeout_ms": 5000},
					{"command": "git status", "shell": true},
					{"command": "git status", "options": map[string]any{"shell": true}},
					{"shell": "git status"},
				} {
					call, v := eval(in)
					want := "git status"
					if s, ok := in["shell"].(string); ok && in["command"] != nil {
						want = policy.ShellJoin(s, []string{"-c", "git status"})
					}
					if call.Unread != "" || call.Command != want {
						t.Errorf("control %s %s %v: %q (doubt %q), want %q without a doubt", fam, kind, in, call.Command, call.Unread, want)
					}
					if call.Tool == "Bash" && v.Decision != policy.Allow {
						t.Errorf("control %s %s %v: %s as %q (%s), want allow", fam, kind, in, v.Decision, call.Command, v.Reason)
					}
				}
				// a deny rule meets the command the shell runs.
				if call, v := eval(map[string]any{"command": "rm -rf src", "shell": sh}); call.Tool == "Bash" && v.Decision != policy.Deny {
					t.Errorf("control %s %s shell %s: rm -rf src %s (%s), want deny", fam, kind, sh, v.Decision, v.Reason)
				}
			}
		}
	}
}

// TestArgsMustBeAListOfTheCommandsWords (red team 16, finding 9): beside a
// command, an args member is the command's words only as a JSON array of
// them; an object ({"0": cat, "1": X} beside "echo X cat"), a number, a
// boolean or a string is a doubt. Control: the array of the command's own
// words reads without a doubt.
func TestArgsMustBeAListOfTheCommandsWords(t *testing.T) {
	for _, fam := range []Family{FamilyGeneric, FamilyCodex, FamilyClaude} {
		eval := func(in map[string]any) policy.Call {
			raw, _ := json.Marshal(map[string]any{"toolCallId": "t1", "kind": "execute", "title": "mcp__shell__run", "rawInput": in})
			call, err := Normalize(fam, raw)
			if err != nil {
				t.Fatal(err)
			}
			return call
		}
		for _, key := range argsKeys {
			for _, args := range []any{
				map[string]any{"0": "cat", "1": "/ws/secret/x"},
				map[string]any{"file": "/ws/secret/x"},
				5, true, "cat /ws/secret/x", "/ws/secret/x",
				[]any{"/ws/secret/x", "cat"},
			} {
				in := map[string]any{"command": "echo /ws/secret/x cat 5 true", key: args}
				if call := eval(in); call.Unread == "" {
					t.Errorf("%s %v: read without a doubt as %q", fam, in, call.Command)
				}
			}
			in := map[string]any{"command": "echo /ws/secret/x cat", key: []any{"/ws/secret/x", "cat"}}
			if call := eval(in); call.Unread != "" {
				t.Errorf("control %s %v: a doubt %q", fam, in, call.Unread)
			}
		}
	}
}

// TestRecordedShapesNamingTheAgentsProgram: the real agents' recorded
// calls (testdata/normalize) that run a command, with the program named
// by a path into the workspace: an argv's program word replaced, or a
// program, executable, bin or shell member added beside a command line.
// Each is judged as that path (or is a doubt) and never allowed in plan.
// Control: the recorded call itself reads without a doubt
// (TestRealAgentShellShapesReadWithoutADoubt holds them all).
func TestRecordedShapesNamingTheAgentsProgram(t *testing.T) {
	ws := t.TempDir()
	pol, errs := policy.Compile([]policy.RuleText{{List: "deny", Text: "Bash(rm *)"}})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	env := policy.Env{Cwd: ws, ProjectRoot: ws, Home: "/home/u"}
	_, agents := programSpellings(t, ws, "bash")
	n := 0
	for fam, cases := range loadNormalizeCases(t) {
		for _, tc := range cases {
			if tc.Want.Tool != "Bash" || len(tc.Updates) > 0 {
				continue
			}
			var call map[string]any
			if err := json.Unmarshal(tc.ToolCall, &call); err != nil {
				t.Fatal(err)
			}
			in, ok := call["rawInput"].(map[string]any)
			if !ok {
				continue
			}
			var variants []map[string]any
			for _, prog := range agents {
				switch c := in["command"].(type) {
				case []any:
					v := maps.Clone(in)
					argv := append([]any{prog}, c[1:]...)
					v["command"] = argv
					variants = append(variants, v)
				case string:
					for _, m := range []string{"program", "executable", "bin", "shell"} {
						v := maps.Clone(in)
						v[m] = prog
						variants = append(variants, v)
					}
				}
			}
			for _, v := range variants {
				call["rawInput"] = v
				raw, _ := json.Marshal(call)
				got, err := Normalize(fam, raw)
				if err != nil {
					t.Fatal(err)
				}
				n++
				if w := shellWords(got.Command); got.Unread == "" && (len(w) == 0 || !strings.HasSuffix(w[0], "/bash") || w[0] == "/usr/bin/bash") {
					t.Errorf("%s/%s %v: judged as %q, not as the agent's program", fam, tc.Name, v, got.Command)
				}
				if verdict := policy.Evaluate(policy.Input{Call: got, Policy: pol, Env: env, Mode: policy.ModePlan}); verdict.Decision == policy.Allow {
					t.Errorf("%s/%s %v: allowed in plan as %q (%s)", fam, tc.Name, v, got.Command, verdict.Reason)
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("no recorded shape runs a command")
	}
}
