package bridge

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"go.uber.org/zap"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/settings"
	"github.com/acp-bridge/acp-bridge/wire"
)

// trustReport is _meta["acp-bridge"].workspaceTrust of initialize and the
// params of _acp-bridge/workspace/trust.
type trustReport struct {
	Trusted bool                      `json:"trusted"`
	Ignored []settings.IgnoredSetting `json:"ignored"`
	// Pending: trusted, but this version of the workspace file was never
	// approved, so it only narrows (settings/approval.go).
	Pending *settings.PendingApproval `json:"pending,omitempty"`
}

func trustOf(snap *settings.Snapshot) trustReport {
	r := trustReport{Trusted: snap.WorkspaceTrust.Trusted, Ignored: snap.WorkspaceTrust.Ignored, Pending: snap.WorkspaceTrust.Pending}
	if r.Ignored == nil {
		r.Ignored = []settings.IgnoredSetting{}
	}
	return r
}

// wire is r as declared on the surface (wire.TrustReport).
func (r trustReport) wire() wire.TrustReport {
	out := wire.TrustReport{Trusted: r.Trusted, Ignored: make([]wire.IgnoredSetting, len(r.Ignored))}
	for i, x := range r.Ignored {
		out.Ignored[i] = wire.IgnoredSetting{Key: x.Key, File: x.File, Line: x.Line, Reason: x.Reason, Value: x.Value}
	}
	if p := r.Pending; p != nil {
		out.Pending = &wire.PendingApproval{File: p.File, Digest: p.Digest, Approved: p.Approved, Loosens: p.Loosens}
	}
	return out
}

// trustNotice is the chat text that says what of the workspace file is
// ignored, or "" when nothing is.
func trustNotice(r trustReport) string {
	if len(r.Ignored) == 0 {
		return ""
	}
	var b strings.Builder
	if r.Pending != nil && r.Pending.Approved == settings.DigestNone {
		fmt.Fprintf(&b, "acp-bridge: this workspace is trusted, but trusting it does not approve what %s loosens, so it may only narrow the policy until this version is approved.", r.Pending.File)
	} else if r.Pending != nil {
		fmt.Fprintf(&b, "acp-bridge: %s is not the version approved when this workspace was trusted (an agent, a git pull or an editor changed or created it), so it may only narrow the policy until this version is approved.", r.Pending.File)
	}
	if r.Pending != nil && len(r.Pending.Loosens) > 0 {
		b.WriteString(" Approving it would loosen:\n")
		for _, l := range r.Pending.Loosens {
			fmt.Fprintf(&b, "- %s\n", l)
		}
	}
	if r.Pending != nil {
		b.WriteString("Ignored until then:\n")
	} else if r.Trusted {
		b.WriteString("acp-bridge: some settings of the workspace file are ignored:\n")
	} else {
		b.WriteString("acp-bridge: this workspace is not trusted, so its settings file may only narrow the policy. Ignored:\n")
	}
	for _, i := range r.Ignored {
		fmt.Fprintf(&b, "- %s\n", i)
	}
	if r.Pending != nil {
		fmt.Fprintf(&b, "Review it, then approve it (VS Code: the prompt, or ACP Bridge: Approve Workspace Settings; otherwise acp-bridge workspace approve --digest %s).\n", r.Pending.Digest)
	} else if !r.Trusted {
		b.WriteString("Trust the workspace (VS Code: Workspace Trust; otherwise --trust-workspace) to apply them.\n")
	}
	return b.String()
}

// setWorkspaceTrust applies a trust the editor sent (initialize _meta or
// _acp-bridge/workspace/didChangeTrust).
func (b *Bridge) setWorkspaceTrust(trusted bool, from string) {
	if b.store == nil {
		return
	}
	changed, err := b.store.SetWorkspaceTrusted(trusted)
	if err != nil {
		b.reportSettingsError(err)
		return
	}
	if changed {
		b.log.Info("workspace trust changed", zap.Bool("trusted", trusted), zap.String("by", from))
	}
}

// reportTrust logs what of the workspace file is ignored (once per
// distinct report) and, when notify, sends _acp-bridge/workspace/trust if
// the report changed since it was last sent (or was never sent).
func (b *Bridge) reportTrust(notify bool) {
	r := trustOf(b.snapshot())
	raw, _ := json.Marshal(r)
	key := string(raw)
	b.mu.Lock()
	logIt := b.trustLogged != key
	b.trustLogged = key
	send := notify && b.trustSent != key
	if send {
		b.trustSent = key
	}
	b.mu.Unlock()
	if logIt {
		for _, i := range r.Ignored {
			b.log.Warn("workspace setting ignored", zap.Bool("trusted", r.Trusted), zap.String("setting", i.String()))
		}
	}
	if send {
		b.notifyEditor(acp.MethodWorkspaceTrust, r)
	}
}

// noticeTrust puts the ignored-settings notice into a new session's chat, as
// an agent message marked _meta["acp-bridge"].notice = "workspaceTrust", so
// any ACP client shows it.
func (b *Bridge) noticeTrust(sessionID string) {
	text := trustNotice(trustOf(b.snapshot()))
	if text == "" {
		return
	}
	b.notifyEditor(acp.MethodSessionUpdate, map[string]any{
		"sessionId": sessionID,
		"update": map[string]any{
			"sessionUpdate": "agent_message_chunk",
			"content":       map[string]any{"type": "text", "text": text},
			"_meta":         map[string]any{acp.MetaKey: wire.NoticeMeta{Notice: wire.NoticeWorkspaceTrust}},
		},
	})
}

// auditStatus is _meta["acp-bridge"].audit of initialize: {enabled, path,
// error?}.
func (b *Bridge) auditStatus() wire.AuditStatus {
	return wire.AuditStatus{Enabled: b.opts.Audit != nil && b.opts.AuditError == "", Path: b.opts.AuditPath, Error: b.opts.AuditError}
}

// PrintWorkspaceTrust writes, for `acp-bridge agents`, what of the
// workspace file is ignored and why (nothing when nothing is).
func PrintWorkspaceTrust(w io.Writer, snap *settings.Snapshot) {
	PrintManaged(w, snap)
	if text := trustNotice(trustOf(snap)); text != "" {
		fmt.Fprintln(w, strings.TrimPrefix(text, "acp-bridge: "))
	}
}

// workspaceApprove serves _acp-bridge/workspace/approve {digest}: the
// person approved the workspace file's version with that digest.
func (b *Bridge) workspaceApprove(params json.RawMessage) (any, error) {
	var p struct {
		Digest string `json:"digest"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, acp.InvalidParams(acp.MethodWorkspaceApprove, err)
	}
	if p.Digest == "" {
		return nil, acp.InvalidParams(acp.MethodWorkspaceApprove, errors.New("digest is required: the version the person reviewed (the trust report's pending.digest)"))
	}
	if b.store == nil {
		return nil, acp.Errorf(acp.CodeInvalidParams, "%s: no settings store", acp.MethodWorkspaceApprove)
	}
	got, err := b.store.ApproveWorkspaceFile(p.Digest)
	if err != nil {
		if errors.Is(err, settings.ErrDigestMismatch) {
			return nil, acp.InvalidParams(acp.MethodWorkspaceApprove, err)
		}
		return nil, acp.Errorf(acp.CodeInternalError, "%s: %v", acp.MethodWorkspaceApprove, err)
	}
	b.log.Info("workspace file approved by the editor", zap.String("digest", got))
	// The store's change subscription (settingsChanged) reports the new trust.
	return trustOf(b.snapshot()), nil
}

// inForce lists every mode, bypass and rule in force with its source, for
// the rules manager (_acp-bridge/grants/stored's inForce): the settings'
// (settings.Snapshot.InForce: default, user file, workspace file, env,
// editor), then what this run added: a bypass switched on at run time and
// the session grants (source "session").
func (b *Bridge) inForce() []settings.InForce {
	out := append([]settings.InForce{}, b.snapshot().InForce...)
	b.mu.Lock()
	var bypass []string
	for agent, on := range b.runtimeBypass {
		if on {
			bypass = append(bypass, agent)
		}
	}
	sessions := make([]*session, 0, len(b.sessions))
	for _, s := range b.sessions {
		sessions = append(sessions, s)
	}
	b.mu.Unlock()
	sort.Strings(bypass)
	for _, a := range bypass {
		out = append(out, settings.InForce{Kind: "bypass", Value: "true", Agent: a, Source: "session"})
	}
	sort.Slice(sessions, func(i, j int) bool { return sessions[i].id < sessions[j].id })
	for _, s := range sessions {
		if m := s.modeOverride(); m != "" {
			out = append(out, settings.InForce{Kind: "mode", Value: string(m), Agent: s.agent.name, Source: "session " + s.id})
		}
		_, gs := s.grantPolicy()
		for _, g := range gs {
			out = append(out, settings.InForce{Kind: "rule", List: settings.ListAllow, Value: g.Text, Agent: s.agent.name, Source: "session " + s.id})
		}
	}
	return out
}
