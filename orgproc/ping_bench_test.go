package orgproc

import (
	"testing"
)

// BenchmarkRoundTrip times one request with no work behind it (a flush
// with no sink): the pipe both ways and the hand-offs, without OPA.
func BenchmarkRoundTrip(b *testing.B) {
	c := newClient(b, companionBin, nil)
	if err := c.StartOPA(b.Context(), opaConfig(b, 0)); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if err := c.Flush(b.Context()); err != nil {
			b.Fatal(err)
		}
	}
}
