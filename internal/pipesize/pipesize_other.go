//go:build !linux

package pipesize

func setPipeSize(uintptr, int) (int, error) { return 0, ErrUnsupported }

func pipeSize(uintptr) (int, error) { return 0, ErrUnsupported }
