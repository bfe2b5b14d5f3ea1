package telemetry

import (
	"context"
	"testing"
	"time"

	"github.com/acp-bridge/acp-bridge/telemetry/otelcoltest"
)

// The tests of this package run a real OpenTelemetry Collector
// (otelcoltest) on loopback and read what it exported.

type exported = otelcoltest.Exported

// collector is otelcoltest.Collector with the names these tests use.
type collector struct {
	*otelcoltest.Collector
	http, grpc string
}

func newCollector(t *testing.T) *collector {
	c := otelcoltest.New(t)
	return &collector{Collector: c, http: c.HTTP, grpc: c.GRPC}
}

func (c *collector) start()              { c.Start() }
func (c *collector) stop()               { c.Stop() }
func (c *collector) records() []exported { return c.Records() }
func (c *collector) awaitRecords(within time.Duration, pred func([]exported) bool) []exported {
	return c.AwaitRecords(within, pred)
}

// byApproval indexes exported records by acp_bridge.approval_id, counting
// duplicates.
func byApproval(recs []exported) (map[string]exported, map[string]int) {
	m, n := map[string]exported{}, map[string]int{}
	for _, r := range recs {
		id, _ := r.Attrs[AttrApprovalID].(string)
		m[id] = r
		n[id]++
	}
	return m, n
}

func flush(t *testing.T, s *Sink, within time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	if err := s.Flush(ctx); err != nil {
		t.Fatalf("flush: %v", err)
	}
}

func freePort(t *testing.T) string { return otelcoltest.FreePort(t) }
