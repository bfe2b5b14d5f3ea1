//go:build !linux

package bench

import "errors"

// Pinning: placing processes on CPUs is implemented on Linux only.
type Pinning struct {
	AgentCPU, RestCPU int
}

// PinningFor reports that pinned runs are not available here.
func PinningFor() (Pinning, bool) { return Pinning{}, false }

func (p Pinning) start(cpu int, start func() error) error {
	return errors.New("pinning is implemented on Linux only")
}

func (p Pinning) apply(agentPIDs ...int) (func(), error) {
	return func() {}, errors.New("pinning is implemented on Linux only")
}
