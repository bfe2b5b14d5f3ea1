package orgproc

import (
	"context"
	"encoding/json"
	"io"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/settings"
)

// Name is the companion's executable name; it lives in the bridge's own
// directory (Beside).
const Name = "acp-bridge-org"

// Protocol is the version of the messages below; hello compares it (and
// the build's version) and the bridge refuses a companion that differs.
// 2: JSON-RPC 2.0 through acp's engine (1 was the companion's own framing);
// 3: authzen.evaluate.
const Protocol = 3

// Methods, declared once for both sides (the companion's wire is internal:
// it is not part of the editor-facing surface, wire/). Requests carry an
// id and get one answer with the same id, a result or an error from acp's
// table (acp/errors.go); notifications (no id) get none.
const (
	// MethodHello (request, bridge → companion): Hello → Hello.
	MethodHello = "hello"
	// MethodOPAStart (request): opastage.Config → Empty; a configuration
	// OPA refuses is acp.CodeInvalidParams (a StartError on the bridge).
	MethodOPAStart = "opa.start"
	// MethodOPADecide (request): opastage.Input → opastage.Result.
	MethodOPADecide = "opa.decide"
	// MethodOPAStatus (notification, companion → bridge): BundleStatus.
	MethodOPAStatus = "opa.status"
	// MethodTelemetryStart (request): TelemetryStart → TelemetryStarted;
	// a sink that cannot start is acp.CodeInvalidParams.
	MethodTelemetryStart = "telemetry.start"
	// MethodTelemetryRecord (notification): audit.Record.
	MethodTelemetryRecord = "telemetry.record"
	// MethodTelemetryFlush (request): Empty → Empty; exports what is queued.
	MethodTelemetryFlush = "telemetry.flush"
	// MethodAuthZENEvaluate (request): AuthZENEvaluate → AuthZENAnswer;
	// an AuthZEN hook's HTTP request (hooks.Post), made by the companion
	// so that the bridge links no HTTP client. The companion POSTs Body to
	// URL (http or https only; a redirect is refused, not followed; the
	// proxy from the environment, as net/http's DefaultClient), within
	// TimeoutMs and until the bridge's $/cancel_request, and answers the
	// status and the body; a body over hooks.MaxAnswer, or any transport
	// failure, is an error (the hook gives no verdict: the call asks).
	MethodAuthZENEvaluate = "authzen.evaluate"
	// MethodShutdown (request): Empty → Empty; flushes, stops OPA, then the
	// companion exits. A closed stdin does the same.
	MethodShutdown = "shutdown"
)

// Empty is the params or result of a method that carries nothing.
type Empty struct{}

// Hello is both sides' identity.
type Hello struct {
	Version  string `json:"version"`
	Protocol int    `json:"protocol"`
}

// TelemetryStart starts the OpenTelemetry sink (telemetry.Config).
type TelemetryStart struct {
	Telemetry settings.Telemetry `json:"telemetry"`
	Version   string             `json:"version"`
}

// TelemetryStarted is where the sink sends its events.
type TelemetryStarted struct {
	Endpoint string `json:"endpoint"`
	Protocol string `json:"protocol"`
}

// AuthZENEvaluate is one AuthZEN request (authzen.evaluate).
type AuthZENEvaluate struct {
	URL string `json:"url"`
	// Body is the AuthZEN Access Evaluation request (hooks' mapping).
	Body json.RawMessage `json:"body"`
	// TimeoutMs bounds the request in the companion (the hook's budget
	// left); 0 or less: the companion's default.
	TimeoutMs int64 `json:"timeoutMs"`
}

// AuthZENAnswer is the PDP's HTTP status and body (at most
// hooks.MaxAnswer bytes; base64 on the wire, as encoding/json carries
// []byte: an answer need not be JSON).
type AuthZENAnswer struct {
	Status int    `json:"status"`
	Body   []byte `json:"body"`
}

// BundleStatus is what OPA last said of the bundle (orgpolicy.BundleStatus).
type BundleStatus struct {
	Revision string `json:"revision,omitempty"`
	Error    string `json:"error,omitempty"`
	Seq      int    `json:"seq"`
	// Ready: OPA has activated a verified bundle and decides.
	Ready bool `json:"ready"`
}

// MaxLine bounds one line either way (an audit record with a large call).
// acp's stream drops a longer line on either side and answers the id it
// can read in its beginning (acp.StreamOptions.MaxLineBytes).
const MaxLine = 16 << 20

// envelope is more than acp writes around a message's params: the id (at
// most 20 digits), "jsonrpc", the method's members and the braces
// (`{"id":N,"jsonrpc":"2.0","method":"…","params":…}`), beyond the
// method's own length.
const envelope = 96

// lineBytes bounds the line acp writes for method with params of n bytes.
func lineBytes(method string, n int) int { return n + len(method) + envelope }

// NewConn is one side of the companion's wire, the same on both: acp's
// JSON-RPC engine (acp.NewConn over acp.NewStream) on r and w, lines
// bounded by MaxLine. onDrop sees every line the stream skipped (over
// the bound, not JSON, not a message); an over-long request is answered
// -32600 to its id and an over-long answer fails our call by the stream
// itself. Nothing in orgproc or the companion frames lines of its own.
func NewConn(r io.Reader, w io.Writer, h acp.Handler, onDrop func(acp.StreamEvent), opts acp.ConnOptions) *acp.Conn {
	stream := acp.NewStream(r, w, nil, acp.StreamOptions{MaxLineBytes: MaxLine, OnDrop: onDrop})
	return acp.NewConn(context.Background(), stream, h, opts)
}
