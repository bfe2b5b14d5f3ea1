// Package mountnames finds the other names a file has through the mounts
// of this process's mount namespace: a bind mount (mount --bind, an fstab
// bind, a container volume) makes a file reachable at two paths, and a
// check by path (is this file outside every tree an agent may write?)
// judges one of them. Only root on the host makes mounts; an agent in
// the sandbox cannot, so the mounts a check sees at load are the ones
// that hold while the bridge runs (a mount made later by root is out of
// reach).
//
// The mechanism: the mount that holds the file (statx's mount id, else
// the longest mount point above its real path) gives the file's path
// inside its file system (the mount's root joined with the rest); every
// mount of the same file system (major:minor) whose root holds that path
// names the file too, at its mount point joined with the rest.
//
// Concurrency: it keeps no state; Read parses the table afresh at each call
// and a Table is read only. Callers (settings at load, orgproc before it
// runs the companion) call it on their own goroutine.
package mountnames
