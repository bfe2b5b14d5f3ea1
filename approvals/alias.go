package approvals

import (
	"time"

	"github.com/acp-bridge/acp-bridge/permission"
)

// Aliases of the broker's names in package permission.
type (
	Broker     = permission.Broker
	Approval   = permission.Approval
	Ticket     = permission.Ticket
	Resolution = permission.Resolution
)

// Errors of the broker, for errors.Is.
var (
	ErrNotPending      = permission.ErrNotPending
	ErrAlreadyResolved = permission.ErrAlreadyResolved
)

// NewBroker is permission.NewBroker.
func NewBroker(now func() time.Time) *Broker { return permission.NewBroker(now) }
