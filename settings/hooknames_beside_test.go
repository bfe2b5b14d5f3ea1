package settings

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// A hook program with more than one name is accepted when every name is
// an entry of its own directory, outside every writable tree (a
// distribution's /usr/bin/perl and perl5.36.0, which a bridge run as
// root owns and could write): no name is left for an agent. One name
// more anywhere else, in the workspace or in a directory the check does
// not read, is a doubt and refuses, as before.
func TestHookNamesAllBesideEachOther(t *testing.T) {
	root := t.TempDir()
	ws, tools, elsewhere := filepath.Join(root, "ws"), filepath.Join(root, "tools"), filepath.Join(root, "elsewhere")
	for _, d := range []string{ws, tools, elsewhere} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	trees := []WritableTree{{Path: ws, Why: "it is the workspace"}}
	environ := []string{"HOME=/nonexistent-home", "PATH=/usr/bin:/bin"}
	hook := filepath.Join(tools, "guard.sh")
	cases := []struct {
		name   string
		others []string // the other names of hook
		ok     bool
	}{
		{"one name", nil, true},
		{"a second name beside it", []string{filepath.Join(tools, "guard-v1.sh")}, true},
		{"three names beside each other", []string{filepath.Join(tools, "guard-v1.sh"), filepath.Join(tools, "guard-v2.sh")}, true},
		{"a second name in the workspace", []string{filepath.Join(ws, "guard.sh")}, false},
		{"one beside, one in the workspace", []string{filepath.Join(tools, "guard-v1.sh"), filepath.Join(ws, "x")}, false},
		{"a second name in another directory", []string{filepath.Join(elsewhere, "guard.sh")}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, d := range []string{ws, tools, elsewhere} {
				ents, _ := os.ReadDir(d)
				for _, e := range ents {
					os.Remove(filepath.Join(d, e.Name()))
				}
			}
			if err := os.WriteFile(hook, []byte("#!/bin/sh\necho '{\"decision\":\"ask\"}'\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			for _, o := range c.others {
				if err := os.Link(hook, o); err != nil {
					t.Skipf("link: %v", err)
				}
			}
			probs := hookPathProblems(Config{Hooks: []HookConfig{{Name: "guard", Command: []string{hook}}}}, trees, nil, environ)
			if c.ok && len(probs) != 0 {
				t.Errorf("refused: %v", probs)
			}
			if !c.ok && len(probs) == 0 {
				t.Errorf("accepted while %v are other names of %s", c.others, hook)
			}
		})
	}
	// The real case: a system program with two names beside each other.
	checked := 0
	for _, p := range []string{"/usr/bin/perl", "/usr/bin/bzip2", "/usr/bin/unzip"} {
		var st syscall.Stat_t
		if syscall.Stat(p, &st) != nil || st.Nlink < 2 {
			continue
		}
		ents, err := os.ReadDir(filepath.Dir(p))
		if err != nil {
			continue
		}
		n := 0
		for _, e := range ents {
			if info, err := e.Info(); err == nil && e.Type().IsRegular() {
				if s, ok := info.Sys().(*syscall.Stat_t); ok && s.Ino == st.Ino && s.Dev == st.Dev {
					n++
				}
			}
		}
		if uint64(n) != uint64(st.Nlink) {
			continue // some name lies elsewhere on this machine
		}
		script := filepath.Join(tools, "hook.in")
		if err := os.WriteFile(script, []byte("1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if probs := hookPathProblems(Config{Hooks: []HookConfig{{Name: "sys", Command: []string{p, script}}}}, trees, nil, environ); len(probs) != 0 {
			t.Errorf("%s (%d names, all in %s) refused: %v", p, st.Nlink, filepath.Dir(p), probs[0])
		}
		checked++
	}
	t.Logf("system programs with every name beside each other checked: %d", checked)
}
