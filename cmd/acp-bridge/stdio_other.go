//go:build !unix

package main

import (
	"errors"
	"os"
)

// pollable: off unix the editor's stdio stays as it is.
func pollable(f, avoid *os.File) (*os.File, error) {
	return nil, errors.New("only on unix")
}
