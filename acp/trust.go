package acp

// Workspace trust (docs/extension-surface.md "Workspace trust"). Kept in a
// file of their own beside methods.go.
const (
	// MethodWorkspaceDidChangeTrust (notification, editor -> bridge):
	// {trusted: bool}. Grants (or revokes) trust in the workspace at run time.
	MethodWorkspaceDidChangeTrust = "_acp-bridge/workspace/didChangeTrust"
	// MethodWorkspaceTrust (notification, bridge -> editor): {trusted,
	// ignored: [{key, file, line?, reason}]}, after initialize and whenever
	// either changes.
	MethodWorkspaceTrust = "_acp-bridge/workspace/trust"
)
