package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The bridge links no HTTP client: an AuthZEN hook's request is the
// companion's (orgproc authzen.evaluate), so the bridge carries no
// net/http Transport, Client, HTTP/2 or TLS handshake, nor x509's chain
// verification (its start-up memory: docs/org.md, "The companion").
// net/http itself stays (sandbox/proxy.go reads requests; zap imports
// it), and with it crypto/tls's package initialisation and the String
// methods of two of its types: no other crypto/tls code. `go list -deps`
// cannot tell (the packages stay); the linker's symbols can. Control: a
// program that calls http.DefaultClient.Do is seen to link them.
func TestBridgeLinksNoHTTPClient(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go tool is not available")
	}
	dir := t.TempDir()
	bridgeBin := filepath.Join(dir, "acp-bridge")
	build := exec.Command(goTool, "build", "-o", bridgeBin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	ctl := filepath.Join(dir, "ctl")
	if err := os.MkdirAll(ctl, 0o755); err != nil {
		t.Fatal(err)
	}
	src := "package main\n\nimport \"net/http\"\n\nfunc main() {\n\treq, _ := http.NewRequest(\"POST\", \"https://pdp.example/\", nil)\n\t_, _ = http.DefaultClient.Do(req)\n}\n"
	if err := os.WriteFile(filepath.Join(ctl, "main.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	ctlBin := filepath.Join(dir, "ctl-bin")
	build = exec.Command(goTool, "build", "-o", ctlBin, "main.go")
	build.Dir = ctl
	build.Env = append(os.Environ(), "GOWORK=off", "GO111MODULE=off")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build (control): %v\n%s", err, out)
	}
	for _, c := range []struct {
		name, bin string
		wantBad   bool
	}{{"acp-bridge", bridgeBin, false}, {"control: http.DefaultClient.Do", ctlBin, true}} {
		out, err := exec.Command(goTool, "tool", "nm", c.bin).Output()
		if err != nil {
			t.Fatalf("go tool nm %s: %v", c.name, err)
		}
		bad := httpClientSymbols(string(out))
		if (len(bad) > 0) != c.wantBad {
			t.Errorf("%s links %d symbols of the HTTP client, want some=%v: %s", c.name, len(bad), c.wantBad, strings.Join(bad[:min(len(bad), 20)], " "))
		}
	}
}

// httpClientSymbols are the symbols of go tool nm's listing that belong
// to net/http's client, HTTP/2, a TLS connection or x509's verification.
func httpClientSymbols(nm string) []string {
	var bad []string
	for _, line := range strings.Split(nm, "\n") {
		f := strings.Fields(line)
		if len(f) < 3 {
			continue
		}
		kind, name := f[len(f)-2], f[len(f)-1]
		switch {
		case strings.HasPrefix(name, "net/http.(*Transport)"),
			strings.HasPrefix(name, "net/http.(*Client)"),
			strings.HasPrefix(name, "net/http.(*http2"),
			strings.HasPrefix(name, "crypto/tls.(*Conn)"),
			strings.HasPrefix(name, "crypto/x509.(*Certificate).Verify"):
			bad = append(bad, name)
		case strings.HasPrefix(name, "crypto/tls.") && (kind == "T" || kind == "t") &&
			name != "crypto/tls.init" && !strings.HasSuffix(name, ".String"):
			bad = append(bad, name)
		}
	}
	return bad
}
