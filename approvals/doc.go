// Package approvals is the former home of the broker of pending approvals.
// The broker now lives in package permission (permission.Broker), which owns
// a permission request end to end; these names are aliases kept so that
// code written against the old package still builds. New code imports
// permission.
package approvals
