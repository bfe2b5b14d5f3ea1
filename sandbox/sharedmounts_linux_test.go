package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// runHolding starts the sandbox p (its command waits on the fifo "go" in
// ws after writing "ready" there), runs between once it is up, lets it go
// and waits for it. It returns the command's output.
func runHolding(t *testing.T, p Prepared, ws string, between func()) string {
	t.Helper()
	cmd := exec.Command(p.Path, p.Args...)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	up := make(chan error, 1)
	go func() { _, err := os.ReadFile(filepath.Join(ws, "ready")); up <- err }()
	select {
	case err := <-up:
		if err != nil {
			t.Fatal(err)
		}
	case err := <-done:
		t.Fatalf("the sandboxed command ended before it was up: %v\n%s", err, out.String())
	}
	between()
	wrote := make(chan error, 1)
	go func() {
		f, err := os.OpenFile(filepath.Join(ws, "go"), os.O_WRONLY, 0)
		if err == nil {
			_, err = f.WriteString("go\n")
			f.Close()
		}
		wrote <- err
	}()
	select {
	case err := <-wrote:
		if err != nil {
			t.Fatal(err)
		}
		<-done
	case err := <-done:
		t.Fatalf("the sandboxed command ended before it was told to go: %v\n%s", err, out.String())
	}
	return out.String()
}

func makeFifos(t *testing.T, ws string) {
	t.Helper()
	for _, f := range []string{"go", "ready"} {
		if err := unix.Mkfifo(filepath.Join(ws, f), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

const vscodeAttack = "mkdir -p .vscode 2>/dev/null; echo evil > .vscode/tasks.json"

// Red team 10, 2: an agent whose sandbox may write the temp directory
// (sandbox.allowWrite naming $TMPDIR or /tmp) rewrites its own private
// directory's placeholders.json, dropping its record of the shared .vscode
// placeholder; the other sandbox that made it ends; its Cleanup must not
// remove it (the kernel would detach the agent's own mount and the agent
// would create .vscode/tasks.json). The kernel's mount tables, not the
// manifest, keep it. Controls: the manifest untouched holds; without the
// kernel's word the rewrite does the damage.
func TestOwnManifestRewritten(t *testing.T) {
	requireMechanism(t)
	cases := []struct {
		name                 string
		rewrite, guard, kern bool
		wantDamage           bool
	}{
		{"agent rewrites its own manifest", true, true, true, false},
		{"state writable (no read-only bind), kernel asked", true, false, true, false},
		{"control: manifest untouched", false, true, true, false},
		{"control: state writable, kernel not asked", true, false, false, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			askKernel, guardState = c.kern, c.guard
			t.Cleanup(func() { askKernel, guardState = true, true })
			tmp := t.TempDir()
			t.Setenv("TMPDIR", tmp)
			ws := t.TempDir()
			makeFifos(t, ws)
			vscode := filepath.Join(ws, ".vscode")
			spec := Spec{Writable: []string{ws, tmp}, Network: NetworkAll, Blocked: []Path{{Path: vscode, Dir: true}}}
			other, err := Prepare(spec, ws, []string{"true"}, nil) // another agent's sandbox: makes the placeholder
			if err != nil {
				t.Fatal(err)
			}
			script := "echo up > ready; read x < go; " + vscodeAttack
			if c.rewrite {
				script = `M="$(dirname "$TMPDIR")/placeholders.json"; printf '{"version":1,"placeholders":[]}' > "$M.new" && mv "$M.new" "$M"; echo "rewrite rc=$?"; ` + script
			}
			agent, err := Prepare(spec, ws, []string{"/bin/sh", "-c", script}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer agent.Cleanup()
			out := runHolding(t, agent, ws, other.Cleanup)
			manifest, _ := os.ReadFile(filepath.Join(filepath.Dir(agent.TmpDir), manifestName))
			rewritten := !strings.Contains(string(manifest), ".vscode")
			if c.rewrite && c.guard && rewritten {
				t.Errorf("the agent rewrote its own manifest (%s) through a writable TMPDIR\n%s", manifest, out)
			}
			if c.rewrite && !c.guard && !rewritten {
				t.Errorf("control: the agent could not rewrite its manifest with the state writable: the test proves nothing\n%s", out)
			}
			data, err := os.ReadFile(filepath.Join(vscode, "tasks.json"))
			damaged := err == nil && strings.Contains(string(data), "evil")
			switch {
			case c.wantDamage && !damaged:
				t.Errorf("control: the agent could not write .vscode/tasks.json: the test proves nothing\n%s", out)
			case !c.wantDamage && damaged:
				t.Errorf("the agent created .vscode/tasks.json (%q)\n%s", data, out)
			}
		})
	}
}

// Red team 10, 3: two bridges on one workspace with different TMPDIRs (a
// Flatpak editor's, a shell's) do not see each other's manifests; the
// first one's Cleanup must not remove the .vscode placeholder the second's
// sandbox holds. Controls: the same TMPDIR holds; without the kernel's
// word a different TMPDIR does the damage. The last one out leaves the
// placeholder only when it did not know it (borrowed): checked on disk.
func TestPlaceholderAcrossTMPDIRs(t *testing.T) {
	requireMechanism(t)
	cases := []struct {
		name          string
		same, noCheck bool
		wantDamage    bool
	}{
		{"different TMPDIR", false, false, false},
		{"control: same TMPDIR", true, false, false},
		{"control: different TMPDIR, kernel not asked", false, true, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.noCheck {
				askKernel = false
				t.Cleanup(func() { askKernel = true })
			}
			t1, t2 := t.TempDir(), t.TempDir()
			if c.same {
				t2 = t1
			}
			ws := t.TempDir()
			makeFifos(t, ws)
			vscode := filepath.Join(ws, ".vscode")
			spec := Spec{Writable: []string{ws}, Network: NetworkAll, Blocked: []Path{{Path: vscode, Dir: true}}}
			t.Setenv("TMPDIR", t1)
			first, err := Prepare(spec, ws, []string{"true"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Setenv("TMPDIR", t2)
			second, err := Prepare(spec, ws, []string{"/bin/sh", "-c", "echo up > ready; read x < go; " + vscodeAttack}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer second.Cleanup()
			var statErr error
			out := runHolding(t, second, ws, func() {
				first.Cleanup()
				_, statErr = os.Lstat(vscode)
			})
			data, err := os.ReadFile(filepath.Join(vscode, "tasks.json"))
			damaged := err == nil && strings.Contains(string(data), "evil")
			switch {
			case c.wantDamage && !damaged:
				t.Errorf("control: the agent could not write .vscode/tasks.json: the test proves nothing\n%s", out)
			case !c.wantDamage && damaged:
				t.Errorf("the second sandbox's agent created .vscode/tasks.json (%q) after the first one's Cleanup\n%s", data, out)
			case !c.wantDamage && statErr != nil:
				t.Errorf("the first Cleanup removed the placeholder the second holds: %v", statErr)
			}
		})
	}
}

// A placeholder no one holds any more is still removed: the kernel check
// keeps only what another namespace has a mount on.
func TestForeignMountsLetsUnheldGo(t *testing.T) {
	requireMechanism(t)
	t.Setenv("TMPDIR", t.TempDir())
	ws := t.TempDir()
	vscode := filepath.Join(ws, ".vscode")
	p, err := Prepare(Spec{Writable: []string{ws}, Network: NetworkAll, Blocked: []Path{{Path: vscode, Dir: true}}}, ws, []string{"true"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := exec.Command(p.Path, p.Args...).Run(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(vscode); err != nil {
		t.Fatalf("no placeholder made: %v", err)
	}
	p.Cleanup()
	if _, err := os.Lstat(vscode); err == nil {
		t.Errorf("the placeholder stayed after its only sandbox ended")
	}
}

func TestParseMountPoints(t *testing.T) {
	cases := []struct {
		name, table string
		want        []string
		wantErr     bool
	}{
		{"plain", "36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue\n", []string{"/mnt2"}, false},
		{"escapes", `1 2 0:1 / /w/a\040b\011c\012d\134e rw - tmpfs t rw` + "\n", []string{"/w/a b\tc\nd\\e"}, false},
		{"two", "1 0 0:1 / / rw - x y rw\n2 1 0:2 / /w/.vscode ro - x y ro\n", []string{"/", "/w/.vscode"}, false},
		{"short line", "1 2 0:1 /\n", nil, true},
		{"bad escape", `1 2 0:1 / /a\09 rw - x y rw` + "\n", nil, true},
		{"cut escape", `1 2 0:1 / /a\04 rw - x y rw` + "\n", nil, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := map[string]bool{}
			err := parseMountPoints(strings.NewReader(c.table), got)
			if (err != nil) != c.wantErr {
				t.Fatalf("err = %v, want error %v", err, c.wantErr)
			}
			if c.wantErr {
				return
			}
			want := map[string]bool{}
			for _, w := range c.want {
				want[w] = true
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got %v, want %v", got, want)
			}
		})
	}
}

// foreignMounts sees a mount in another namespace (a real sandbox's) and
// none of this process's own.
func TestForeignMountsSeesSandbox(t *testing.T) {
	requireMechanism(t)
	t.Setenv("TMPDIR", t.TempDir())
	ws := t.TempDir()
	makeFifos(t, ws)
	vscode := filepath.Join(ws, ".vscode")
	p, err := Prepare(Spec{Writable: []string{ws}, Network: NetworkAll, Blocked: []Path{{Path: vscode, Dir: true}}}, ws,
		[]string{"/bin/sh", "-c", "echo up > ready; read x < go"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Cleanup()
	before, ok := foreignMounts()
	if !ok {
		t.Fatal("foreignMounts in doubt with no sandbox running")
	}
	if before[vscode] {
		t.Fatalf("%s already mounted elsewhere before the sandbox started", vscode)
	}
	runHolding(t, p, ws, func() {
		held, ok := foreignMounts()
		if !ok || !held[vscode] {
			t.Errorf("foreignMounts = ok %v, %s held %v while the sandbox runs", ok, vscode, held[vscode])
		}
	})
	after, ok := foreignMounts()
	if !ok || after[vscode] {
		t.Errorf("after the sandbox ended: ok %v, held %v", ok, after[vscode])
	}
}
