package acp

import (
	"context"
	"sync/atomic"
)

// Later, returned by HandleRequest with a nil error, says that the handler
// took its request's Reply (Defer) and answers through it, after it
// returned. The request stays in flight ($/cancel_request still ends its
// ctx; Conn.WaitHandlers still waits for it) with no goroutine left waiting
// for it: a permission request's card may stay open for minutes, thousands
// at once.
var Later any = later{}

type later struct{}

// Reply answers a request whose handler returned Later. Its first call
// answers (res and err are taken as HandleRequest's would be: an
// AfterReply's Then runs after the answer is written); later calls do
// nothing. It may be called from any goroutine, before or after the handler
// returned, and must not be called from the connection's read loop while
// an AfterReply's Then could wait on it.
type Reply func(res any, err error)

type deferKey struct{}

// deferral is the Reply of one request, put in its handler's ctx.
type deferral struct {
	taken atomic.Bool
	send  Reply
}

// Defer returns the Reply of the request ctx belongs to, for a handler that
// then returns Later. It returns nil when ctx is not a request's of a Conn
// (a handler called directly, as tests do): the handler then answers by
// returning, as usual.
func Defer(ctx context.Context) Reply {
	d, _ := ctx.Value(deferKey{}).(*deferral)
	if d == nil {
		return nil
	}
	d.taken.Store(true)
	return d.send
}
