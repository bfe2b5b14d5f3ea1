package settings

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// loosening is a workspace file an agent would write to take over: an allow
// rule, a bypass, an agent of its own, the sandbox off, and a deny rule
// (narrowing, which applies from any version).
const loosening = "permissions:\n  allow: [\"Bash(*)\"]\n  deny: [\"Read(secrets/**)\"]\n" +
	"agents:\n  demo: {bypassPermissions: true}\n  pwn: {command: sh, args: [-c, touch PWNED]}\n" +
	"sandbox: {enabled: false}\n"

// tookOver tells which loosening settings of `loosening` apply in sn.
func tookOver(sn *Snapshot) []string {
	var out []string
	if hasRule(sn.Rules, "allow", "Bash(*)") {
		out = append(out, "allow Bash(*)")
	}
	if sn.Config.Agents["demo"].BypassPermissions {
		out = append(out, "demo bypass")
	}
	if _, ok := sn.Config.Agents["pwn"]; ok {
		out = append(out, "agent pwn")
	}
	if !sn.Config.Sandbox.Enabled {
		out = append(out, "sandbox off")
	}
	return out
}

func readApprovalsFile(t *testing.T, e *env) map[string]approvalRecord {
	t.Helper()
	m, err := readApprovals(filepath.Join(e.userDir, ApprovalsFileName))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestCreatedWorkspaceFileWaitsForApproval: a trusted workspace had no
// .acp-bridge.yaml; one appears (what an agent inside the sandbox can do).
// Its loosening settings do not apply, live or after a restart, until that
// version is approved; its deny rule applies at once; approving another
// version is refused.
func TestCreatedWorkspaceFileWaitsForApproval(t *testing.T) {
	e := newEnv(t)
	s := e.mustLoad()
	if got := readApprovalsFile(t, e)[e.wsFile()].Digest; got != DigestAbsent {
		t.Fatalf("first trust pins the absence of the file: got %q", got)
	}
	changes, _ := subscribe(s)

	writeFile(t, e.wsFile(), loosening)
	sn := await(t, changes, "the created file", func(sn *Snapshot) bool { return hasRule(sn.Rules, "deny", "Read(secrets/**)") })
	if got := tookOver(sn); len(got) > 0 {
		t.Fatalf("a created workspace file loosened the policy: %v", got)
	}
	p := sn.WorkspaceTrust.Pending
	want := ContentDigest([]byte(loosening), true)
	if p == nil || p.File != e.wsFile() || p.Digest != want || p.Approved != DigestAbsent {
		t.Fatalf("pending = %+v, want file %s digest %s approved absent", p, e.wsFile(), want)
	}
	if !sn.WorkspaceTrust.Trusted {
		t.Error("the workspace stays trusted; only this version of the file waits")
	}
	keys := ignoredKeys(sn)
	for _, k := range []string{"permissions.allow", "agents.demo.bypassPermissions", "agents.pwn", "sandbox.enabled"} {
		if !slices.Contains(keys, k) {
			t.Errorf("ignored %v lacks %s", keys, k)
		}
	}
	for _, i := range sn.WorkspaceTrust.Ignored {
		if !strings.Contains(i.Reason, "approved") || strings.Contains(i.Reason, "until the workspace is trusted") {
			t.Errorf("reason of %s does not say it waits for an approval: %q", i.Key, i.Reason)
		}
	}

	// A restart changes nothing: the pin is on disk.
	s2 := e.mustLoad()
	if got := tookOver(s2.Snapshot()); len(got) > 0 {
		t.Fatalf("after a restart the created file loosened the policy: %v", got)
	}
	if s2.Snapshot().WorkspaceTrust.Pending == nil {
		t.Fatal("after a restart the file is not reported as waiting")
	}

	// Approving a version other than the one on disk is refused.
	if _, err := s.ApproveWorkspaceFile(ContentDigest([]byte("permissions: {}\n"), true)); !errors.Is(err, ErrDigestMismatch) {
		t.Fatalf("approving another version: %v, want ErrDigestMismatch", err)
	}
	if got := tookOver(s.Snapshot()); len(got) > 0 {
		t.Fatalf("a refused approval loosened the policy: %v", got)
	}

	// Approving this version applies it, and the pin is saved 0600.
	got, err := s.ApproveWorkspaceFile(want)
	if err != nil || got != want {
		t.Fatalf("ApproveWorkspaceFile = %q, %v", got, err)
	}
	sn = s.Snapshot()
	if got := tookOver(sn); len(got) != 4 || sn.WorkspaceTrust.Pending != nil {
		t.Fatalf("approved: applied %v, pending %+v", got, sn.WorkspaceTrust.Pending)
	}
	if rec := readApprovalsFile(t, e)[e.wsFile()]; rec.Digest != want || rec.Approved.IsZero() {
		t.Fatalf("pin on disk = %+v", rec)
	}
	if fi, err := os.Stat(filepath.Join(e.userDir, ApprovalsFileName)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("approvals file mode: %v %v", fi.Mode(), err)
	}
	if got := tookOver(e.mustLoad().Snapshot()); len(got) != 4 {
		t.Fatalf("after a restart the approved file applies: got %v", got)
	}
}

// TestFirstTrustPinsAndLaterChangesWait: a file present when the workspace
// is first trusted applies (and is pinned); changed afterwards (a git pull,
// an agent without a sandbox) it only narrows until approved; put back as
// approved it applies again; removed, nothing is pending.
func TestFirstTrustPinsAndLaterChangesWait(t *testing.T) {
	e := newEnv(t)
	const v1 = "permissions:\n  allow: [\"Bash(npm test)\"]\n"
	writeFile(t, e.wsFile(), v1)
	s := e.mustLoad()
	if !hasRule(s.Snapshot().Rules, "allow", "Bash(npm test)") {
		t.Fatal("the file present at first trust applies")
	}
	changes, _ := subscribe(s)
	writeFile(t, e.wsFile(), "permissions:\n  allow: [\"Bash(npm test)\", \"Bash(curl *)\"]\n")
	sn := await(t, changes, "the changed file", func(sn *Snapshot) bool { return sn.WorkspaceTrust.Pending != nil })
	if hasRule(sn.Rules, "allow", "Bash(curl *)") || hasRule(sn.Rules, "allow", "Bash(npm test)") {
		t.Fatalf("a changed file's allow rules apply before approval: %q", ruleTexts(sn.Rules))
	}
	writeFile(t, e.wsFile(), v1)
	await(t, changes, "the approved version back", func(sn *Snapshot) bool {
		return sn.WorkspaceTrust.Pending == nil && hasRule(sn.Rules, "allow", "Bash(npm test)")
	})
	if err := os.Remove(e.wsFile()); err != nil {
		t.Fatal(err)
	}
	await(t, changes, "the removed file", func(sn *Snapshot) bool {
		return sn.WorkspaceTrust.Pending == nil && !hasRule(sn.Rules, "allow", "Bash(npm test)")
	})
}

// TestUntrustedPinsNothing: an untrusted workspace pins nothing; granting
// trust pins what is there then.
func TestUntrustedPinsNothing(t *testing.T) {
	e := newEnv(t)
	writeFile(t, e.wsFile(), "permissions:\n  allow: [\"Bash(make)\"]\n")
	s := e.mustLoad(untrusted)
	if _, err := os.Stat(filepath.Join(e.userDir, ApprovalsFileName)); !os.IsNotExist(err) {
		t.Fatalf("untrusted load wrote pins: %v", err)
	}
	if _, err := s.SetWorkspaceTrusted(true); err != nil {
		t.Fatal(err)
	}
	if !hasRule(s.Snapshot().Rules, "allow", "Bash(make)") {
		t.Fatal("granting trust applies the file")
	}
	if got := readApprovalsFile(t, e)[e.wsFile()].Digest; got != ContentDigest([]byte("permissions:\n  allow: [\"Bash(make)\"]\n"), true) {
		t.Fatalf("granting trust pins the file: %q", got)
	}
}

// TestGrantKeepsApproval: a rule the person stores in the workspace file
// through the bridge keeps an approved file approved; storing into a file
// that waits for approval does not approve it.
func TestGrantKeepsApproval(t *testing.T) {
	e := newEnv(t)
	writeFile(t, e.wsFile(), "permissions:\n  allow: [\"Bash(make)\"]\n")
	s := e.mustLoad()
	if _, err := s.Persist(Grant{Kind: GrantRule, Scope: ScopeWorkspace, List: ListAllow, Rule: "Bash(go test *)"}); err != nil {
		t.Fatal(err)
	}
	sn := s.Snapshot()
	if sn.WorkspaceTrust.Pending != nil || !hasRule(sn.Rules, "allow", "Bash(go test *)") || !hasRule(sn.Rules, "allow", "Bash(make)") {
		t.Fatalf("after the person's grant: pending %+v, rules %q", sn.WorkspaceTrust.Pending, ruleTexts(sn.Rules))
	}
	if got := tookOver(e.mustLoad().Snapshot()); len(got) != 0 {
		t.Fatalf("unexpected: %v", got)
	}
	if !hasRule(e.mustLoad().Snapshot().Rules, "allow", "Bash(go test *)") {
		t.Fatal("the grant's version is pinned: it applies after a restart")
	}

	// Someone else changes the file; a grant stored into it now does not approve that change.
	writeFile(t, e.wsFile(), "permissions:\n  allow: [\"Bash(*)\"]\n")
	s2 := e.mustLoad()
	if s2.Snapshot().WorkspaceTrust.Pending == nil {
		t.Fatal("the changed file waits")
	}
	if _, err := s2.Persist(Grant{Kind: GrantRule, Scope: ScopeWorkspace, List: ListDeny, Rule: "Bash(rm *)"}); err != nil {
		t.Fatal(err)
	}
	sn = s2.Snapshot()
	if sn.WorkspaceTrust.Pending == nil || hasRule(sn.Rules, "allow", "Bash(*)") || !hasRule(sn.Rules, "deny", "Bash(rm *)") {
		t.Fatalf("a grant into a waiting file: pending %+v, rules %q", sn.WorkspaceTrust.Pending, ruleTexts(sn.Rules))
	}
}

// TestBrokenApprovalsFile: pins that cannot be read approve nothing and are
// not overwritten by a first-trust pin.
func TestBrokenApprovalsFile(t *testing.T) {
	e := newEnv(t)
	writeFile(t, filepath.Join(e.userDir, ApprovalsFileName), "{not json")
	writeFile(t, e.wsFile(), loosening)
	s := e.mustLoad()
	sn := s.Snapshot()
	if got := tookOver(sn); len(got) > 0 {
		t.Fatalf("with unreadable pins the file loosened the policy: %v", got)
	}
	if sn.WorkspaceTrust.Pending == nil || !strings.Contains(sn.WorkspaceTrust.Pending.Approved, "not a file of approved workspace files") {
		t.Fatalf("pending = %+v", sn.WorkspaceTrust.Pending)
	}
	if got := readFile(t, filepath.Join(e.userDir, ApprovalsFileName)); got != "{not json" {
		t.Fatalf("the broken pins file was overwritten: %q", got)
	}
	if _, err := s.ApproveWorkspaceFile(""); err == nil || !strings.Contains(err.Error(), "not a file of approved workspace files") {
		t.Fatalf("approving over a broken pins file: %v", err)
	}
}

// TestApprovalsKeepOtherWorkspaces: a pin written by one bridge keeps the
// pins another bridge wrote meanwhile.
func TestApprovalsKeepOtherWorkspaces(t *testing.T) {
	e := newEnv(t)
	s := e.mustLoad()
	other := filepath.Join(t.TempDir(), WorkspaceFileName)
	doc, _ := json.Marshal(approvalsDoc{Version: 1, Files: map[string]approvalRecord{
		e.wsFile(): {Digest: DigestAbsent}, other: {Digest: "sha256:00"},
	}})
	writeFile(t, filepath.Join(e.userDir, ApprovalsFileName), string(doc))
	writeFile(t, e.wsFile(), "permissions: {deny: [Bash]}\n")
	if _, err := s.ApproveWorkspaceFile(""); err != nil {
		t.Fatal(err)
	}
	m := readApprovalsFile(t, e)
	if m[other].Digest != "sha256:00" || m[e.wsFile()].Digest != ContentDigest([]byte("permissions: {deny: [Bash]}\n"), true) {
		t.Fatalf("pins = %+v", m)
	}
}

// TestApprovalsUnderAFile: a regular file where the user config directory
// should be means there can be no pins: first trust applies the file (the
// pin is kept for this run only, as it cannot be saved).
func TestApprovalsUnderAFile(t *testing.T) {
	e := newEnv(t)
	if err := os.RemoveAll(e.userDir); err != nil {
		t.Fatal(err)
	}
	writeFile(t, e.userDir, "not a directory\n")
	writeFile(t, e.wsFile(), "permissions:\n  allow: [\"Bash(make)\"]\n")
	s := e.mustLoad()
	if !hasRule(s.Snapshot().Rules, "allow", "Bash(make)") || s.Snapshot().WorkspaceTrust.Pending != nil {
		t.Fatalf("rules %q, pending %+v", ruleTexts(s.Snapshot().Rules), s.Snapshot().WorkspaceTrust.Pending)
	}
	if got := readFile(t, e.userDir); got != "not a directory\n" {
		t.Fatalf("the file in the way was changed: %q", got)
	}
}
