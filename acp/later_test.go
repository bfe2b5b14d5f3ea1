package acp

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
)

// A handler that returns Later answers through its Reply after it returned;
// the request stays in flight (WaitHandlers waits, $/cancel_request reaches
// its ctx) until then, and only the first answer counts.
func TestLaterAnswersThroughTheReply(t *testing.T) {
	type deferred struct {
		ctx   context.Context
		reply Reply
	}
	cases := []struct {
		name string
		// answer answers the deferred request (nil: the handler does not take a Reply).
		answer func(t *testing.T, d deferred, client *Conn)
		// early: answer before the handler returns.
		early   bool
		want    string // the result's "v", or "" for an error
		wantErr int64
		then    bool // the answer carries an AfterReply whose Then must run after it
	}{
		{name: "after return", answer: func(t *testing.T, d deferred, _ *Conn) { d.reply(map[string]string{"v": "later"}, nil) }, want: "later"},
		{name: "before return", early: true, answer: func(t *testing.T, d deferred, _ *Conn) { d.reply(map[string]string{"v": "early"}, nil) }, want: "early"},
		{name: "first answer wins", answer: func(t *testing.T, d deferred, _ *Conn) {
			d.reply(map[string]string{"v": "first"}, nil)
			d.reply(map[string]string{"v": "second"}, nil)
			d.reply(nil, errors.New("third"))
		}, want: "first"},
		{name: "error keeps its code", answer: func(t *testing.T, d deferred, _ *Conn) {
			d.reply(nil, Errorf(-32001, "refused"))
		}, wantErr: -32001},
		{name: "after reply runs then", then: true, answer: func(t *testing.T, d deferred, _ *Conn) {
			d.reply(AfterReply{Result: map[string]string{"v": "then"}}, nil)
		}, want: "then"},
		{name: "later without a reply is an internal error", answer: nil, wantErr: CodeInternalError},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := make(chan deferred, 1)
			returned := make(chan struct{})
			thenRan := make(chan struct{})
			server := funcHandler{req: func(ctx context.Context, _ string, _ json.RawMessage) (any, error) {
				if tc.answer == nil {
					close(returned)
					return Later, nil
				}
				d := deferred{ctx: ctx, reply: Defer(ctx)}
				if d.reply == nil {
					t.Error("Defer gave no Reply inside a Conn's handler")
					return nil, nil
				}
				if tc.then {
					inner := d.reply
					d.reply = func(res any, err error) {
						if ar, ok := res.(AfterReply); ok {
							ar.Then = func() { close(thenRan) }
							res = ar
						}
						inner(res, err)
					}
				}
				if tc.early {
					tc.answer(t, d, nil)
				} else {
					got <- d
				}
				close(returned)
				return Later, nil
			}}
			client, srv := pair(t, funcHandler{}, server)
			ctx := tctx(t)
			p, err := client.Start(ctx, "deferred", map[string]int{})
			if err != nil {
				t.Fatal(err)
			}
			<-returned
			if tc.answer != nil && !tc.early {
				d := <-got
				select {
				case <-p.Done():
					t.Fatal("answered before the Reply was called")
				default:
				}
				if srv.WaitHandlers(canceledCtx()) == nil {
					t.Fatal("WaitHandlers saw no request in flight while the answer was deferred")
				}
				tc.answer(t, d, client)
			}
			var res struct{ V string }
			err = p.Wait(ctx, &res)
			if tc.wantErr != 0 {
				var e *Error
				if !errors.As(err, &e) || e.Code != tc.wantErr {
					t.Fatalf("Wait = %v, want code %d", err, tc.wantErr)
				}
			} else if err != nil || res.V != tc.want {
				t.Fatalf("Wait = %v, %q; want %q", err, res.V, tc.want)
			}
			if tc.then {
				<-thenRan
			}
			if err := srv.WaitHandlers(ctx); err != nil {
				t.Fatalf("the request stayed in flight after its answer: %v", err)
			}
		})
	}
}

func canceledCtx() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

// $/cancel_request ends a deferred request's ctx, and the connection's end
// does too: a Reply waiting on it is not left hanging.
func TestLaterRequestSeesCancel(t *testing.T) {
	server := funcHandler{req: func(ctx context.Context, _ string, _ json.RawMessage) (any, error) {
		reply := Defer(ctx)
		context.AfterFunc(ctx, func() { reply(nil, ctx.Err()) })
		return Later, nil
	}}
	client, srv := pair(t, funcHandler{}, server)
	ctx, cancel := context.WithCancel(tctx(t))
	p, err := client.Start(ctx, "deferred", nil)
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := p.Wait(ctx, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("Wait = %v, want context.Canceled", err)
	}
	if err := srv.WaitHandlers(tctx(t)); err != nil {
		t.Fatalf("the cancelled request stayed in flight: %v", err)
	}
}

// Defer outside a Conn's handler gives nil: the handler answers by returning.
func TestDeferOutsideAConn(t *testing.T) {
	if Defer(context.Background()) != nil {
		t.Fatal("Defer gave a Reply outside a request")
	}
}

// OnDone runs once the answer is in: registered before (run by the
// delivering goroutine) or after (run at once), and when the connection
// ends first.
func TestPendingOnDone(t *testing.T) {
	cases := []struct {
		name  string
		after bool // register once the answer is in
		close bool // the connection ends before an answer
	}{
		{name: "registered before the answer"},
		{name: "registered after the answer", after: true},
		{name: "connection ends", close: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			release := make(chan struct{})
			server := funcHandler{req: func(ctx context.Context, _ string, _ json.RawMessage) (any, error) {
				select {
				case <-release:
				case <-ctx.Done():
				}
				return map[string]string{"v": "ok"}, nil
			}}
			client, srv := pair(t, funcHandler{}, server)
			p, err := client.Start(tctx(t), "x", nil)
			if err != nil {
				t.Fatal(err)
			}
			ran := make(chan struct{})
			register := func() {
				p.OnDone(func() {
					select {
					case <-p.Done():
					default:
						t.Error("OnDone ran before Done was closed")
					}
					close(ran)
				})
			}
			if !tc.after {
				register()
			}
			switch {
			case tc.close:
				_ = srv.Close()
			default:
				close(release)
			}
			if tc.after {
				<-p.Done()
				register()
			}
			select {
			case <-ran:
			case <-tctx(t).Done():
				t.Fatal("OnDone's function never ran")
			}
			err = p.Wait(tctx(t), nil)
			if tc.close != (err != nil) {
				t.Fatalf("Wait = %v (connection closed: %v)", err, tc.close)
			}
		})
	}
}
