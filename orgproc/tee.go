package orgproc

import (
	"time"

	"github.com/acp-bridge/acp-bridge/internal/audit"
)

// Auditor is what the bridge appends decisions to (bridge.Auditor).
type Auditor interface {
	Append(audit.Record) error
}

type tee struct {
	log Auditor
	c   *Client
}

// Tee returns an Auditor that appends every record to log (which may be
// nil: no JSONL audit) and then hands it to the companion's telemetry
// sink (Client.Record, which never waits). The log's error is returned.
func Tee(log Auditor, c *Client) Auditor { return tee{log: log, c: c} }

func (t tee) Append(r audit.Record) error {
	if r.Time.IsZero() {
		r.Time = time.Now().UTC()
	}
	var err error
	if t.log != nil {
		err = t.log.Append(r)
	}
	t.c.Record(r)
	return err
}
