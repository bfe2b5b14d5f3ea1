//go:build !linux

package mountnames

// supported: no mountinfo outside Linux. Read returns an empty table and
// Others finds no other name (macOS's bind-like mounts are out of reach;
// docs/settings.md "hooks").
const supported = false

func mountID(string) (uint64, bool) { return 0, false }
