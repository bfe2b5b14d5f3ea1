package bridge

import (
	"errors"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/sourcegraph/jsonrpc2"
	"go.uber.org/zap"
)

const timeFormat = time.RFC3339Nano

func newID() string { return uuid.NewString() }

func isClosed(err error) bool {
	return errors.Is(err, jsonrpc2.ErrClosed) || (err != nil && strings.Contains(err.Error(), "connection is closed"))
}

type (
	jsonrpc2Request  = jsonrpc2.Request
	jsonrpc2Response = jsonrpc2.Response
)

func traceMsg(log *zap.Logger, dir string, req *jsonrpc2.Request, resp *jsonrpc2.Response) {
	switch {
	case req != nil && resp == nil:
		log.Debug(dir, zap.String("method", req.Method), zap.String("id", req.ID.String()), zap.Bool("notification", req.Notif))
	case resp != nil:
		m := ""
		if req != nil {
			m = req.Method
		}
		log.Debug(dir+" response", zap.String("id", resp.ID.String()), zap.String("method", m), zap.Bool("error", resp.Error != nil))
	}
}
