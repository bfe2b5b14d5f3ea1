//go:build !linux

package bridge

// placeWatch keeps nothing on this system: every decision resolves every
// protected place (see placewatch_linux.go).
type placeWatch struct{}

func sharedPlaceWatch() *placeWatch { return nil }

func (w *placeWatch) realPlaces(key string, places []string) []string { return nil }

func (w *placeWatch) keepAll(key string, places []string) uint64 { return 0 }

func (w *placeWatch) keptSince(key string) uint64 { return 0 }
