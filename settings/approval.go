package settings

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"syscall"
	"time"

	"go.uber.org/zap"
)

// Trust covers content, not a path, and trusting is not approving a
// loosening. Trusting a workspace pins the digest of its .acp-bridge.yaml as
// it is then (or that there is none) only when that file loosens nothing
// compared with reading it untrusted: a file that only narrows is pinned at
// once. A file that loosens anything (a looser mode, allow rules, agents,
// sandbox off or wider, more directories...) is not pinned: it stays pending
// and only narrows until the person approves exactly that version, which
// the pending report lists with everything it loosens (Loosens: the
// difference between the trusted and the untrusted reading). A file that
// later differs from what was pinned (an agent wrote it, a git pull changed
// it, someone created it) may only narrow the policy, like an untrusted
// one, until the person approves that version (Store.ApproveWorkspaceFile,
// `acp-bridge workspace approve`, the editor's prompt). An agent inside the
// sandbox can create a workspace file that did not exist (only existing
// files can be made read-only without creating them on disk,
// docs/sandbox.md "Limits"); pinning is what stops such a file, or any
// other later change, from loosening the policy it runs under.
//
// The pins live in ApprovalsFileName in the user config directory, which
// every agent's sandbox keeps read-only (sandbox.HomeProtected).

// ApprovalsFileName is the file of pinned workspace files in the user
// config directory.
const ApprovalsFileName = "approved-workspace-files.json"

// DigestAbsent is the digest of a workspace file that does not exist.
const DigestAbsent = "absent"

// changedReason replaces untrustedReason when the workspace is trusted but
// its file is not the version that was approved.
const changedReason = "ignored until this version of the file is approved: it differs from the version approved when the workspace was trusted (run `acp-bridge workspace approve`, or approve it in the editor)"

// firstTrustReason replaces untrustedReason when the workspace was just
// trusted and its file loosens the policy: trusting is not approving.
const firstTrustReason = "ignored until this version of the file is approved: the workspace is trusted, but trusting it does not approve what its file loosens (review it, then run `acp-bridge workspace approve`, or approve it in the editor)"

// PendingApproval is a trusted workspace's file that differs from the
// approved version: its loosening settings wait for an approval.
type PendingApproval struct {
	File string `json:"file"`
	// Digest is the current content's digest ("sha256:<hex>"), to pass to
	// ApproveWorkspaceFile.
	Digest string `json:"digest"`
	// Approved is the digest approved before ("absent": there was no file;
	// DigestNone: nothing was ever approved, the workspace was just trusted).
	Approved string `json:"approved"`
	// Loosens lists what this version loosens compared with reading it
	// untrusted, one "key value" each (IgnoredSetting.Loosening), in file
	// order: what approving it lets through.
	Loosens []string `json:"loosens"`
}

// DigestNone is PendingApproval.Approved when no version was ever approved.
const DigestNone = "none"

// Loosenings is what the untrusted reading ignored, in short form, without
// the settings no workspace file may set at all: what trusting and
// approving the file would add.
func Loosenings(ignored []IgnoredSetting) []string { return loosenings(ignored) }

// loosenings is the short form of what an untrusted reading left out,
// without the settings no workspace file may set at all (audit and log
// paths): what trusting the file would add.
func loosenings(ignored []IgnoredSetting) []string {
	out := []string{}
	for _, ig := range ignored {
		if ig.Reason == neverFromWSAudit || ig.Reason == neverFromWSLog || ig.Reason == neverFromWSTelemetry {
			continue
		}
		out = append(out, ig.Loosening())
	}
	return out
}

// ContentDigest is the digest approvals pin: sha256 of the file's bytes,
// or DigestAbsent.
func ContentDigest(data []byte, exists bool) string {
	if !exists {
		return DigestAbsent
	}
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// approvalRecord is one pinned file in ApprovalsFileName.
type approvalRecord struct {
	Digest   string    `json:"digest"`
	Approved time.Time `json:"approved"`
}

type approvalsDoc struct {
	Version int                       `json:"version"`
	Files   map[string]approvalRecord `json:"files"`
}

// approvalsPath is the pins file, "" when there is no user config directory
// (pins are then kept in memory only, for this process).
func (s *Store) approvalsPath() string {
	if s.opts.UserConfigDir == "" {
		return ""
	}
	return filepath.Join(s.opts.UserConfigDir, ApprovalsFileName)
}

// readApprovals reads the pins file. A missing file is no pins; an
// unreadable or broken one is an error (never "no pins", which would pin
// whatever the file holds now).
func readApprovals(path string) (map[string]approvalRecord, error) {
	if path == "" {
		return map[string]approvalRecord{}, nil
	}
	data, exists, err := readOptional(path)
	if errors.Is(err, syscall.ENOTDIR) {
		// A parent is a regular file: the pins file cannot exist, so there are none.
		exists, err = false, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if !exists {
		return map[string]approvalRecord{}, nil
	}
	var doc approvalsDoc
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: not a file of approved workspace files: %w", path, err)
	}
	if doc.Files == nil {
		doc.Files = map[string]approvalRecord{}
	}
	return doc.Files, nil
}

// pinLocked records digest as the approved content of file, in memory and
// on disk (re-reading the file first, so pins another bridge wrote since
// are kept). s.mu held.
func (s *Store) pinLocked(file, digest string) error {
	rec := approvalRecord{Digest: digest, Approved: time.Now().UTC().Truncate(time.Second)}
	if s.approved == nil {
		s.approved = map[string]approvalRecord{}
	}
	s.approved[file] = rec
	path := s.approvalsPath()
	if path == "" {
		return nil
	}
	onDisk, err := readApprovals(path)
	if err != nil {
		return err
	}
	onDisk[file] = rec
	data, err := json.MarshalIndent(approvalsDoc{Version: 1, Files: onDisk}, "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(path, append(data, '\n'), s.rename)
}

// approvalLocked decides whether the workspace file whose content has
// digest may apply as trusted. loosens says what that content loosens
// compared with an untrusted reading. The first time a trusted workspace is
// seen, its file (or its absence) is pinned if it loosens nothing;
// otherwise it waits for the person's approval. A missing file is always
// fine: no file loosens nothing. s.mu held.
func (s *Store) approvalLocked(file, digest string, loosens func() []string) (ok bool, pending *PendingApproval) {
	if s.approved == nil {
		m, err := readApprovals(s.approvalsPath())
		if err != nil {
			// Nothing known: nothing is approved, and nothing is pinned over
			// a file we could not read.
			s.log.Error("cannot read the approved workspace files; the workspace file may only narrow the policy", zap.Error(err))
			return false, &PendingApproval{File: file, Digest: digest, Approved: "unknown (" + err.Error() + ")", Loosens: loosens()}
		}
		s.approved = m
	}
	rec, known := s.approved[file]
	if !known {
		if l := loosens(); len(l) > 0 {
			// Trusting is not approving a loosening.
			return false, &PendingApproval{File: file, Digest: digest, Approved: DigestNone, Loosens: l}
		}
		if err := s.pinLocked(file, digest); err != nil {
			s.log.Warn("cannot save the approved workspace file; it stays approved for this run only", zap.String("file", file), zap.Error(err))
		} else {
			s.log.Info("workspace file approved as it is now (first trust; it loosens nothing)", zap.String("file", file), zap.String("digest", digest))
		}
		return true, nil
	}
	if digest == DigestAbsent || rec.Digest == digest {
		return true, nil
	}
	return false, &PendingApproval{File: file, Digest: digest, Approved: rec.Digest, Loosens: loosens()}
}

// loosensFunc is what the workspace layer ws loosens against the other
// layers (user, env, editor): the untrusted reading's omissions.
func (s *Store) loosensFunc(ws, user, env *layer, editor editorSet) func() []string {
	return func() []string {
		_, ignored := restrictWorkspace(ws, s.baseConfig(user, env, editor), false)
		return loosenings(ignored)
	}
}

// ErrDigestMismatch is returned by ApproveWorkspaceFile when the file is not
// the version the caller approved.
var ErrDigestMismatch = errors.New("the workspace file is not the version you approved")

// ApproveWorkspaceFile pins the workspace file's current content as
// approved, provided its digest is digest (what the person reviewed; "" to
// approve whatever it holds now, for the command line, which shows it), and
// rebuilds the settings: a trusted workspace's file then applies in full.
// It returns the digest approved.
func (s *Store) ApproveWorkspaceFile(digest string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.opts.WorkspaceDir == "" {
		return "", errors.New("no workspace directory: there is no workspace file to approve")
	}
	file := filepath.Join(s.opts.WorkspaceDir, WorkspaceFileName)
	data, exists, err := readOptional(file)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", file, err)
	}
	cur := ContentDigest(data, exists)
	if digest != "" && digest != cur {
		return "", fmt.Errorf("%w: %s is now %s, not %s; review it again", ErrDigestMismatch, file, cur, digest)
	}
	if err := s.pinLocked(file, cur); err != nil {
		return "", fmt.Errorf("save the approval of %s: %w", file, err)
	}
	user, ws, problems := s.readFiles()
	if len(problems) > 0 {
		// Approved; it applies once the file is valid (the watcher reloads).
		return cur, nil
	}
	snap, problems := s.build(user, ws, s.env, s.editor, nil)
	if err := asError(problems); err != nil {
		return cur, fmt.Errorf("approved, but the settings with it are invalid; the previous settings stay: %w", err)
	}
	s.user, s.workspace = user, ws
	s.commitLocked(snap)
	return cur, nil
}

// WorkspaceFileDigest is the digest of the workspace file as it is on disk
// now ("" when there is no workspace directory).
func (s *Store) WorkspaceFileDigest() (file, digest string, err error) {
	if s.opts.WorkspaceDir == "" {
		return "", "", nil
	}
	file = filepath.Join(s.opts.WorkspaceDir, WorkspaceFileName)
	data, exists, err := readOptional(file)
	if err != nil {
		return file, "", fmt.Errorf("read %s: %w", file, err)
	}
	return file, ContentDigest(data, exists), nil
}

// ApprovedDigest is the pinned digest of the workspace file: "" when none
// was pinned yet (the workspace was never trusted).
func (s *Store) ApprovedDigest() (string, error) {
	if s.opts.WorkspaceDir == "" {
		return "", nil
	}
	m, err := readApprovals(s.approvalsPath())
	if err != nil {
		return "", err
	}
	return m[filepath.Join(s.opts.WorkspaceDir, WorkspaceFileName)].Digest, nil
}
