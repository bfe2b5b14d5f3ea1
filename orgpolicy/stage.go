package orgpolicy

import "github.com/acp-bridge/acp-bridge/orgpolicy/opastage"

// The OPA-free half of this package lives in opastage, which the bridge
// imports without the SDK; these names keep this package's API whole.
type (
	// PermissionStage is opastage.PermissionStage.
	PermissionStage = opastage.PermissionStage
	// Input is OPA's input document for one decision (opastage.Input).
	Input = opastage.Input
	// Result is OPA's answer (opastage.Result).
	Result = opastage.Result
	// Config is the managed tier's opa section (opastage.Config).
	Config = opastage.Config
)

// Sources of the OPA stage's verdicts (opastage).
const (
	SourceOPA          = opastage.SourceOPA
	SourceOPANoVerdict = opastage.SourceOPANoVerdict
)

// DefaultTimeout bounds one OPA decision when the config names none.
const DefaultTimeout = opastage.DefaultTimeout

var _ opastage.Decider = (*Stage)(nil)
