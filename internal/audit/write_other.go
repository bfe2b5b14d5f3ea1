//go:build !unix

package audit

import "os"

// writeOnce writes b with the platform's file write. On Windows a file
// opened for appending writes each call at the end atomically; a short
// write is reported, and the Log starts the next record on a fresh line.
func writeOnce(f *os.File, b []byte) (int, error) {
	return f.Write(b)
}

// oNoFollow: no O_NOFOLLOW here; OpenOwned's Lstat check still refuses a symlink.
const oNoFollow = 0
