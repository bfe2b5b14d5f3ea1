package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/acp-bridge/acp-bridge/wire"
)

// JSON-RPC and ACP error codes (the table, with every code of the bridge's
// own: wire.Errors).
const (
	CodeParseError       = wire.CodeParseError
	CodeInvalidRequest   = wire.CodeInvalidRequest
	CodeMethodNotFound   = wire.CodeMethodNotFound
	CodeInvalidParams    = wire.CodeInvalidParams
	CodeInternalError    = wire.CodeInternalError
	CodeAuthRequired     = wire.CodeAuthRequired
	CodeResourceNotFound = wire.CodeNotFound
	CodeRequestCancelled = wire.CodeRequestCancelled
)

// Error is an error that carries its JSON-RPC code. Wrap it with %w anywhere;
// ToRPCError finds it with errors.As.
type Error struct {
	Code    int64
	Message string
	Data    any
}

func (e *Error) Error() string { return e.Message }

// Is makes errors.Is(err, ErrInvalidParams) match any *Error of the same code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code && t.Message == ""
}

// Sentinels for errors.Is; their empty message means "any error of this code".
var (
	ErrInvalidParams    = &Error{Code: CodeInvalidParams}
	ErrInvalidRequest   = &Error{Code: CodeInvalidRequest}
	ErrMethodNotFound   = &Error{Code: CodeMethodNotFound}
	ErrInternal         = &Error{Code: CodeInternalError}
	ErrResourceNotFound = &Error{Code: CodeResourceNotFound}
	ErrCancelled        = &Error{Code: CodeRequestCancelled}
)

// Errorf builds an *Error with the given code.
func Errorf(code int64, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// InvalidParams reports bad params of method; it names the method and the problem.
func InvalidParams(method string, err error) *Error {
	return &Error{Code: CodeInvalidParams, Message: fmt.Sprintf("invalid params for %s: %v", method, err)}
}

// MethodNotFound reports an unknown method by name.
func MethodNotFound(method string) *Error {
	return &Error{Code: CodeMethodNotFound, Message: "method not found: " + method}
}

// ToRPCError is the one place errors become JSON-RPC errors. A wrapped
// *Error or *jsonrpc2.Error keeps its code (with the full wrapped message);
// context cancellation becomes -32800; anything else -32603, never code 0.
func ToRPCError(err error) *jsonrpc2.Error {
	if err == nil {
		return nil
	}
	out := &jsonrpc2.Error{Code: CodeInternalError, Message: err.Error()}
	var ae *Error
	var je *jsonrpc2.Error
	switch {
	case errors.As(err, &ae):
		out.Code = ae.Code
		if ae.Data != nil {
			b, mErr := json.Marshal(ae.Data)
			if mErr == nil {
				raw := json.RawMessage(b)
				out.Data = &raw
			}
		}
	case errors.As(err, &je):
		out.Code = je.Code
		out.Data = je.Data
		if out.Code == 0 {
			out.Code = CodeInternalError
		}
	case errors.Is(err, context.Canceled):
		out.Code = CodeRequestCancelled
	}
	if out.Message == "" {
		out.Message = "error"
	}
	return out
}

// FromRPCError turns an error returned by jsonrpc2 (a peer's error reply)
// into an *Error, keeping code, message and data; other errors pass through.
func FromRPCError(err error) error {
	var je *jsonrpc2.Error
	if errors.As(err, &je) {
		out := &Error{Code: je.Code, Message: je.Message}
		if je.Data != nil {
			out.Data = *je.Data
		}
		return out
	}
	return err
}

// ErrClosed is what a call on a closed connection fails with (errors.Is).
var ErrClosed = jsonrpc2.ErrClosed

// ErrorCode is the JSON-RPC error code err carries (an *Error, or a peer's
// error answer), or 0 when it carries none.
func ErrorCode(err error) int64 {
	var ae *Error
	if errors.As(err, &ae) {
		return ae.Code
	}
	var je *jsonrpc2.Error
	if errors.As(err, &je) {
		return je.Code
	}
	return 0
}
