//go:build !linux

package audit

// idWatch is Linux's inotify (identity_linux.go); elsewhere the Log stats
// each file's path per record.
type idWatch struct{}

func newIDWatch() *idWatch              { return nil }
func (w *idWatch) add(fd uintptr) int32 { return -1 }
func (w *idWatch) remove(wd int32)      {}
func (w *idWatch) moved(func(wd int32)) {}
func (w *idWatch) close()               {}
