//go:build !unix

package main

import (
	"errors"
	"io"
)

// pollableStdio leaves stdio as it is off unix.
func pollableStdio(stdin io.Reader, stdout io.Writer) (io.Reader, io.Writer, func(), error) {
	return stdin, stdout, func() {}, errors.New("stdio stays blocking on this platform")
}
