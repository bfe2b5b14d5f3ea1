package orgproc

import (
	"encoding/json"

	"github.com/acp-bridge/acp-bridge/settings"
)

// Name is the companion's executable name; it lives in the bridge's own
// directory (Beside).
const Name = "acp-bridge-org"

// Protocol is the version of the messages below; hello compares it (and
// the build's version) and the bridge refuses a companion that differs.
const Protocol = 1

// Methods. Requests carry an id and get one answer with the same id;
// notifications (no id) get none.
const (
	// MethodHello (request, bridge → companion): Hello → Hello.
	MethodHello = "hello"
	// MethodOPAStart (request): opastage.Config → {}.
	MethodOPAStart = "opa.start"
	// MethodOPADecide (request): opastage.Input → opastage.Result.
	MethodOPADecide = "opa.decide"
	// MethodOPAStatus (notification, companion → bridge): BundleStatus.
	MethodOPAStatus = "opa.status"
	// MethodTelemetryStart (request): TelemetryStart → TelemetryStarted.
	MethodTelemetryStart = "telemetry.start"
	// MethodTelemetryRecord (notification): audit.Record.
	MethodTelemetryRecord = "telemetry.record"
	// MethodTelemetryFlush (request): {} → {}; exports what is queued.
	MethodTelemetryFlush = "telemetry.flush"
	// MethodShutdown (request): {} → {}; flushes, stops OPA, then the
	// companion exits. A closed stdin does the same.
	MethodShutdown = "shutdown"
)

// Message is one line of the protocol, either way.
type Message struct {
	ID     uint64          `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  string          `json:"error,omitempty"`
}

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

// BundleStatus is what OPA last said of the bundle (orgpolicy.BundleStatus).
type BundleStatus struct {
	Revision string `json:"revision,omitempty"`
	Error    string `json:"error,omitempty"`
	Seq      int    `json:"seq"`
	// Ready: OPA has activated a verified bundle and decides.
	Ready bool `json:"ready"`
}

// MaxLine bounds one protocol line (an audit record with a large call).
const MaxLine = 16 << 20
