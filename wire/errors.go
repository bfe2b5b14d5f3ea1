package wire

// JSON-RPC error codes the bridge answers with, one meaning each. Errors
// lists them for docs/extension-surface.md and the TypeScript side.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
	CodeAuthRequired   = -32000
	// CodeRefused: the policy or the person refused a child's fs/*,
	// terminal/create or open-URL request.
	CodeRefused = -32001
	// CodeNotFound: the thing named is not there (a file, an approval
	// already resolved, a stored grant, a session grant).
	CodeNotFound = -32002
	// CodeAlreadyAttached: another editor is attached to the bridge.
	CodeAlreadyAttached = -32003
	// CodeBadToken: the attach token is wrong or missing.
	CodeBadToken = -32004
	// CodeTooManyRequests: past the bound on requests in flight.
	CodeTooManyRequests = -32005
	// CodePersistDeclined: the person chose not to store a grant anywhere
	// (the editor's answer to settings/persist).
	CodePersistDeclined  = -32042
	CodeRequestCancelled = -32800
)

// ErrorCode is one row of the error table.
type ErrorCode struct {
	Code    int
	Key     string // the TypeScript name: ERR.<Key>
	Meaning string
}

// Errors is the error table: every code above once.
var Errors = []ErrorCode{
	{CodeParseError, "parseError", "the line is not JSON"},
	{CodeInvalidRequest, "invalidRequest", "not a JSON-RPC request (on the attach socket: the first message is not an attach)"},
	{CodeMethodNotFound, "methodNotFound", "unknown method, or a capability the editor did not offer"},
	{CodeInvalidParams, "invalidParams", "bad params; the message names the field"},
	{CodeInternalError, "internalError", "anything else"},
	{CodeAuthRequired, "authRequired", "the agent needs authentication (ACP)"},
	{CodeRefused, "refused", "a child's fs/*, terminal/create or open-URL request refused by the policy or the person"},
	{CodeNotFound, "notFound", "not there: a missing file, an approval already resolved, a stored or session grant not held"},
	{CodeAlreadyAttached, "alreadyAttached", "another editor is attached (the message names it)"},
	{CodeBadToken, "badToken", "_acp-bridge/attach with a wrong or missing token"},
	{CodeTooManyRequests, "tooManyRequests", "past the bound on requests in flight for the editor"},
	{CodePersistDeclined, "persistDeclined", "the editor's answer to settings/persist: the person chose not to store the grant"},
	{CodeRequestCancelled, "requestCancelled", "the request was cancelled"},
}
