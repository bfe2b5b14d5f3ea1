//go:build linux

package sandbox

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acp-bridge/acp-bridge/policy"
)

// connectScript tries each Unix socket address (a path, or @name for an
// abstract one) from Python and prints CONNECTED:addr for each it reaches.
func connectScript(addrs ...string) string {
	var b strings.Builder
	b.WriteString("import socket\n")
	for _, a := range addrs {
		arg := strconv.Quote(a)
		if strings.HasPrefix(a, "@") {
			arg = strconv.Quote("\x00" + a[1:])
		}
		fmt.Fprintf(&b, "try:\n s=socket.socket(socket.AF_UNIX); s.connect(%s); print('CONNECTED:'+%q)\nexcept Exception as e:\n print('refused:'+%q+': '+str(e))\n", arg, a, a)
	}
	return b.String()
}

func listenUnix(t *testing.T, addr string) {
	t.Helper()
	ln, err := net.Listen("unix", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
}

// No Unix socket outside the writable trees, no abstract socket and no
// process outside is reachable from inside, in every network mode; each
// is reachable from outside (the control).
func TestHostIPCClosed(t *testing.T) {
	requireMechanism(t)
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	outside := t.TempDir()
	xdg := filepath.Join(outside, "xdg")
	if err := os.Mkdir(xdg, 0o700); err != nil {
		t.Fatal(err)
	}
	agentSock := filepath.Join(outside, "ssh-agent.sock")
	busSock := filepath.Join(xdg, "bus")
	abstract := fmt.Sprintf("@acp-bridge-test-%d-%d", os.Getpid(), time.Now().UnixNano())
	for _, a := range []string{agentSock, busSock, abstract} {
		listenUnix(t, a)
	}
	env := map[string]string{"SSH_AUTH_SOCK": agentSock, "XDG_RUNTIME_DIR": xdg}
	getenv := func(k string) string { return env[k] }

	// the control: from outside, all three connect
	ctl := exec.Command("python3", "-c", connectScript(agentSock, busSock, abstract))
	out, err := ctl.CombinedOutput()
	if err != nil || strings.Count(string(out), "CONNECTED:") != 3 {
		t.Fatalf("unsandboxed, the sockets should be reachable (the test's premise): %v\n%s", err, out)
	}
	victim := exec.Command("sleep", "60")
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	defer victim.Process.Kill()
	victimDone := make(chan struct{})
	go func() { victim.Wait(); close(victimDone) }()

	for _, network := range []Network{NetworkAll, NetworkNone} {
		t.Run(string(network), func(t *testing.T) {
			tr := newTree(t)
			s, err := Compute(Options{Workspace: []string{tr.ws}, Home: tr.home, Network: network, Getenv: getenv, Policy: mustCompile(t)})
			if err != nil {
				t.Fatal(err)
			}
			script := fmt.Sprintf("python3 -c %s; echo SSH_AUTH_SOCK=$SSH_AUTH_SOCK; kill -TERM %d && echo KILLED; python3 -c 'import os; os.kill(%d, 15); print(\"KILLED\")'; true",
				shellQuote(connectScript(agentSock, busSock, abstract)), victim.Process.Pid, victim.Process.Pid)
			p, err := Prepare(s, tr.ws, []string{"/bin/sh", "-c", script}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer p.Cleanup()
			cmd := exec.Command(p.Path, p.Args...)
			cmd.Env = append(os.Environ(), "HOME="+tr.home, "SSH_AUTH_SOCK="+agentSock, "XDG_RUNTIME_DIR="+xdg)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("the sandbox did not run: %v\n%s", err, out)
			}
			if strings.Contains(string(out), "CONNECTED:") {
				t.Errorf("a host socket is reachable from inside:\n%s", out)
			}
			if strings.Count(string(out), "refused:") != 3 {
				t.Errorf("the connection attempts did not all run:\n%s", out)
			}
			if strings.Contains(string(out), "SSH_AUTH_SOCK=/") {
				t.Errorf("SSH_AUTH_SOCK reached the sandboxed environment:\n%s", out)
			}
			select {
			case <-victimDone:
				t.Fatalf("a process outside the sandbox was killed from inside:\n%s", out)
			default:
			}
			if err := victim.Process.Signal(syscall.Signal(0)); err != nil {
				t.Fatalf("the outside process is gone: %v", err)
			}
		})
	}
	// the control of the kill: from outside it dies
	if err := exec.Command("kill", "-TERM", strconv.Itoa(victim.Process.Pid)).Run(); err != nil {
		t.Fatalf("unsandboxed kill failed: %v", err)
	}
	select {
	case <-victimDone:
	case <-time.After(10 * time.Second):
		t.Fatal("unsandboxed kill did not end the process")
	}
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// The environment inside comes from the allow list: host IPC and cloud
// credentials are dropped, the family's model keys and the names the
// person's config gives are kept.
func TestSandboxEnvAllowList(t *testing.T) {
	requireMechanism(t)
	tr := newTree(t)
	s, err := Compute(Options{Workspace: []string{tr.ws}, Home: tr.home, Policy: mustCompile(t),
		EnvKeep: append(FamilyEnv("claude"), "AWS_PROFILE")})
	if err != nil {
		t.Fatal(err)
	}
	p, err := Prepare(s, tr.ws, []string{"/usr/bin/env"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Cleanup()
	cmd := exec.Command(p.Path, p.Args...)
	set := map[string]bool{
		"SSH_AUTH_SOCK=/x": false, "DBUS_SESSION_BUS_ADDRESS=unix:path=/x": false, "AWS_SECRET_ACCESS_KEY=s": false,
		"GOOGLE_APPLICATION_CREDENTIALS=/c.json": false, "AZURE_CLIENT_SECRET=s": false, "GITHUB_TOKEN=t": false, "DISPLAY=:0": false,
		"ANTHROPIC_API_KEY=k": true, "AWS_PROFILE=bedrock": true, "HOME=" + tr.home: true, "LANG=C.UTF-8": true,
	}
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	for kv := range set {
		cmd.Env = append(cmd.Env, kv)
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	lines := map[string]bool{}
	for _, l := range strings.Split(string(out), "\n") {
		lines[l] = true
	}
	for kv, keep := range set {
		if lines[kv] != keep {
			t.Errorf("%s inside: %v, want %v", kv, lines[kv], keep)
		}
	}
	// the control: unsandboxed, env sees them all
	ctl := exec.Command("/usr/bin/env")
	ctl.Env = cmd.Env
	out2, _ := ctl.CombinedOutput()
	if !strings.Contains(string(out2), "SSH_AUTH_SOCK=/x") {
		t.Errorf("unsandboxed env lacks SSH_AUTH_SOCK: %s", out2)
	}
}

// An agent's own permission state (~/.claude.json) is a private copy inside:
// the agent reads and writes it, the real file never changes.
func TestClaudeStateIsACopy(t *testing.T) {
	requireMechanism(t)
	home, ws := placeTree(t)
	s := placeSpec(t, home, ws)
	real := filepath.Join(home, ".claude.json")
	found := false
	for _, c := range s.Copies {
		found = found || c == real
	}
	if !found {
		t.Fatalf("Copies = %v, want %s", s.Copies, real)
	}
	script := `cat "$HOME/.claude.json"; echo; printf '{"mcpServers":{"evil":{"command":"sh"}}}' > "$HOME/.claude.json" && cat "$HOME/.claude.json"`
	out, err := runIn(t, s, ws, home, script)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(out, `{"mcpServers":{}}`) || !strings.Contains(out, "evil") {
		t.Errorf("inside, the copy should read as the original and take the write:\n%s", out)
	}
	if b, _ := os.ReadFile(real); string(b) != `{"mcpServers":{}}` {
		t.Errorf("the real ~/.claude.json changed: %s", b)
	}
	// the control: unsandboxed the write lands
	h2, w2 := placeTree(t)
	c := exec.Command("/bin/sh", "-c", script)
	c.Dir, c.Env = w2, append(os.Environ(), "HOME="+h2)
	c.Run()
	if b, _ := os.ReadFile(filepath.Join(h2, ".claude.json")); !strings.Contains(string(b), "evil") {
		t.Errorf("unsandboxed, the write did not land: %s", b)
	}
}

// A state file a Read deny rule names is not copied: the bridge never puts
// a readable copy of what the policy makes unreadable where the agent (or
// another agent's sandbox, which sees the host's temp directory) reads it.
// Control: without the rule the copy is made and reads as the original.
func TestStateCopyHonoursReadDeny(t *testing.T) {
	requireMechanism(t)
	home, ws := placeTree(t)
	real := filepath.Join(home, ".claude.json")
	secret := `{"mcpServers":{"gh":{"env":{"GITHUB_TOKEN":"ghp_SECRET_rt8"}}}}`
	if err := os.WriteFile(real, []byte(secret), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		rules []policy.RuleText
		copy  bool
	}{
		{"denied", []policy.RuleText{{List: "deny", Text: "Read(~/.claude.json)"}}, false},
		{"control", nil, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := Compute(Options{Workspace: []string{ws}, Home: home, StateDirs: StateDirs("claude", home), Policy: mustCompile(t, c.rules...),
				Env: policy.Env{Cwd: ws, ProjectRoot: ws, Home: home}})
			if err != nil {
				t.Fatal(err)
			}
			copied := false
			for _, cp := range s.Copies {
				copied = copied || cp == real
			}
			if copied != c.copy {
				t.Fatalf("Copies = %v, want copied %v", s.Copies, c.copy)
			}
			out, _ := runIn(t, s, ws, home, `cat "$HOME/.claude.json"; grep -rl ghp_SECRET_rt8 "$TMPDIR/.." 2>/dev/null; true`)
			if strings.Contains(out, "ghp_SECRET_rt8") != c.copy {
				t.Errorf("inside, the secret was read: %v, want %v:\n%s", strings.Contains(out, "ghp_SECRET_rt8"), c.copy, out)
			}
		})
	}
}
