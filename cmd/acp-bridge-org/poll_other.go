//go:build !unix

package main

import "os"

func pollable(f *os.File) *os.File { return f }
