package acp

import "github.com/acp-bridge/acp-bridge/wire"

// Workspace trust (docs/extension-surface.md "Workspace trust"). Kept in a
// file of their own beside methods.go.
const (
	// MethodWorkspaceDidChangeTrust (notification, editor -> bridge):
	// {trusted: bool}. Grants (or revokes) trust in the workspace at run time.
	MethodWorkspaceDidChangeTrust = wire.WorkspaceDidChangeTrust
	// MethodWorkspaceTrust (notification, bridge -> editor): {trusted,
	// ignored: [{key, file, line?, reason}]}, after initialize and whenever
	// either changes.
	MethodWorkspaceTrust = wire.WorkspaceTrust
	// MethodWorkspaceApprove (request, editor -> bridge): {digest}. Approves
	// the workspace file's version with that digest (the one the person
	// reviewed; the trust report's pending.digest); answers the new report,
	// or -32602 when the file is not that version.
	MethodWorkspaceApprove = wire.WorkspaceApprove
)
