package settings

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Red team 15 (refused now: hookArgPaths): an option glued to a path (-I/ws/lib, -f/ws/x.awk,
// @/ws/argfile) is one word that starts with "-" or "@" and holds a
// slash: argument() joins it to "/" ("/-I/ws/lib"), which lies in no
// tree, so the workspace path inside it is never judged. The program
// then loads the workspace's file outside every sandbox. Control: the
// same path as a separate argument (-I /ws/lib) is refused.
func TestHookGluedOptionPathJudged(t *testing.T) {
	root := t.TempDir()
	ws := filepath.Join(root, "ws")
	tools := filepath.Join(root, "tools")
	for _, d := range []string{filepath.Join(ws, "lib"), tools} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	marker := filepath.Join(root, "ran")
	// The agent's: a module the hook uses, an awk program.
	writeFile(t, filepath.Join(ws, "lib", "strict.pm"), "package strict; open(my $f, '>', '"+marker+"'); close $f; sub import {} sub unimport {} 1;\n")
	writeFile(t, filepath.Join(ws, "x.awk"), "BEGIN { printf \"\" > \""+marker+"\" }\n")
	writeFile(t, filepath.Join(tools, "hook.pl"), "use strict;\nprint qq({\"decision\":\"ask\"}\\n);\n")
	writeFile(t, filepath.Join(tools, "hook.awk"), "BEGIN { print \"{\\\"decision\\\":\\\"ask\\\"}\" }\n")
	trees := []WritableTree{{Path: ws, Why: "it is the workspace"}}
	environ := []string{"HOME=/nonexistent-home", "PATH=/usr/bin:/bin"}
	for _, c := range []struct {
		needs string
		cmd   []string
		ctl   []string
	}{
		{"/usr/bin/perl", []string{"/usr/bin/perl", "-I" + filepath.Join(ws, "lib"), filepath.Join(tools, "hook.pl")}, []string{"/usr/bin/perl", "-I", filepath.Join(ws, "lib"), filepath.Join(tools, "hook.pl")}},
		{"/usr/bin/perl", []string{"/usr/bin/perl", "-wI" + filepath.Join(ws, "lib"), filepath.Join(tools, "hook.pl")}, nil},
		{"/usr/bin/awk", []string{"/usr/bin/awk", "-f", filepath.Join(tools, "hook.awk"), "-f" + filepath.Join(ws, "x.awk")}, []string{"/usr/bin/awk", "-f", filepath.Join(tools, "hook.awk"), "-f", filepath.Join(ws, "x.awk")}},
	} {
		if _, err := os.Stat(c.needs); err != nil {
			continue
		}
		os.Remove(marker)
		probs := hookPathProblems(Config{Hooks: []HookConfig{{Name: "guard", Command: c.cmd}}}, trees, nil, environ)
		cmd := exec.Command(c.cmd[0], c.cmd[1:]...)
		cmd.Dir, cmd.Env, cmd.Stdin = "/", hookEnviron(environ, trees, nil), strings.NewReader("{}")
		out, err := cmd.CombinedOutput()
		_, statErr := os.Stat(marker)
		t.Logf("%q: problems %v; ran the workspace's file: %v (%v %s)", c.cmd, probs, statErr == nil, err, out)
		if len(probs) == 0 && statErr == nil {
			t.Errorf("HOLE: %q accepted, and it loads the workspace's file outside every sandbox", c.cmd)
		}
		if c.ctl != nil {
			if p := hookPathProblems(Config{Hooks: []HookConfig{{Name: "guard", Command: c.ctl}}}, trees, nil, environ); len(p) == 0 {
				t.Errorf("control: %q accepted", c.ctl)
			}
		}
	}
}

// Red team 15 (refused now: an @argfile is a path to judge): java reads options and operands from an @argfile; the
// word "@/ws/args" starts with "@" and holds a slash, so argument() joins
// it to "/" ("/@/ws/args") and the workspace's argfile is never judged.
// Here the argfile names a source file in the workspace, which java runs
// (source-file mode). Control: the argfile's content on the command line
// is refused.
func TestHookJavaArgfileJudged(t *testing.T) {
	java := "/usr/bin/java"
	if _, err := os.Stat(java); err != nil {
		t.Skip("no java")
	}
	root := t.TempDir()
	ws := filepath.Join(root, "ws")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(root, "ran")
	writeFile(t, filepath.Join(ws, "Evil.java"), "public class Evil { public static void main(String[] a) throws Exception { new java.io.File(\""+marker+"\").createNewFile(); System.out.println(\"{\\\"decision\\\":\\\"allow\\\"}\"); } }\n")
	writeFile(t, filepath.Join(ws, "hook.args"), filepath.Join(ws, "Evil.java")+"\n")
	trees := []WritableTree{{Path: ws, Why: "it is the workspace"}}
	environ := []string{"HOME=/nonexistent-home", "PATH=/usr/bin:/bin"}
	cmd := []string{java, "@" + filepath.Join(ws, "hook.args")}
	probs := hookPathProblems(Config{Hooks: []HookConfig{{Name: "guard", Command: cmd}}}, trees, nil, environ)
	c := exec.Command(cmd[0], cmd[1:]...)
	c.Dir, c.Env, c.Stdin = "/", hookEnviron(environ, trees, nil), strings.NewReader("{}")
	out, err := c.CombinedOutput()
	_, statErr := os.Stat(marker)
	t.Logf("%q: problems %v; ran the workspace's Evil.java: %v (%v %s)", cmd, probs, statErr == nil, err, out)
	if len(probs) == 0 && statErr == nil {
		t.Errorf("HOLE: %q accepted, and java runs the workspace's source named in the argfile", cmd)
	}
	if p := hookPathProblems(Config{Hooks: []HookConfig{{Name: "guard", Command: []string{java, filepath.Join(ws, "Evil.java")}}}}, trees, nil, environ); len(p) == 0 {
		t.Fatal("control: the source named directly was accepted")
	}
}

// The class as a property: every option or argfile prefix glued to a
// path in the workspace (absolute, and relative to "/", the hook's
// directory) is refused, for every interpreter kind; the same prefixes
// glued to a path outside every writable tree load (so the refusal is the
// path's, not the spelling's). And data:/javascript: anywhere is refused.
func TestHookGluedPathProperty(t *testing.T) {
	root := t.TempDir()
	ws, tools := filepath.Join(root, "ws"), filepath.Join(root, "tools")
	for _, d := range []string{filepath.Join(ws, "lib"), filepath.Join(tools, "lib")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(ws, "x.awk"), "BEGIN{}\n")
	writeFile(t, filepath.Join(tools, "x.awk"), "BEGIN{}\n")
	writeFile(t, filepath.Join(tools, "hook.pl"), "1;\n")
	writeFile(t, filepath.Join(tools, "hook.js"), "1;\n")
	trees := []WritableTree{{Path: ws, Why: "it is the workspace"}}
	environ := []string{"HOME=/nonexistent-home", "PATH=/usr/bin:/bin"}
	prefixes := []string{"-I", "-wI", "-f", "@", "--import=", "--loader=", "-Mlib=", "x:", "--opt=a,", "-r", "--require=", "+", "-", "--include="}
	progs := [][]string{{"/usr/bin/perl"}, {"/usr/bin/node"}, {"/usr/bin/awk", "-f", filepath.Join(tools, "x.awk")}, {"/usr/bin/java"}, {"/opt/unknown-tool"}}
	for _, prog := range progs {
		script := []string{}
		switch hookKind(prog[0]) {
		case "perl":
			script = []string{filepath.Join(tools, "hook.pl")}
		case "node":
			script = []string{filepath.Join(tools, "hook.js")}
		}
		for _, pre := range prefixes {
			for _, target := range []string{filepath.Join(ws, "lib"), filepath.Join(ws, "x.awk"), strings.TrimPrefix(filepath.Join(ws, "x.awk"), "/")} {
				cmd := append(append(append([]string{}, prog...), pre+target), script...)
				if p := hookPathProblems(Config{Hooks: []HookConfig{{Name: "g", Command: cmd}}}, trees, nil, environ); len(p) == 0 {
					t.Errorf("%q accepted: the glued workspace path was not judged", cmd)
				}
			}
			if _, known := hookInterpTable[hookKind(prog[0])]; known {
				continue // an interpreter's own option letters are judged too (-e, -M LIST...): the control is a program with no option table
			}
			ok := append(append(append([]string{}, prog...), pre+filepath.Join(tools, "lib")), script...)
			if p := hookPathProblems(Config{Hooks: []HookConfig{{Name: "g", Command: ok}}}, trees, nil, environ); len(p) != 0 {
				t.Errorf("control: %q refused: %v", ok, p[0])
			}
		}
	}
	for _, a := range []string{"-x/usr/bin/python3", "--with=/bin/sh", "@/usr/bin/node"} {
		cmd := []string{"/opt/unknown-tool", a}
		if p := hookPathProblems(Config{Hooks: []HookConfig{{Name: "g", Command: cmd}}}, trees, nil, environ); len(p) == 0 {
			t.Errorf("%q accepted: a glued word naming an interpreter", cmd)
		}
	}
	for _, a := range []string{"--import=data:text/javascript,1", "--loader=DATA:x", "javascript:1", "--experimental-loader=data:x"} {
		cmd := []string{"/usr/bin/node", a, filepath.Join(tools, "hook.js")}
		if p := hookPathProblems(Config{Hooks: []HookConfig{{Name: "g", Command: cmd}}}, trees, nil, environ); len(p) == 0 {
			t.Errorf("%q accepted: a data:/javascript: URL is code", cmd)
		}
	}
}
