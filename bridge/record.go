package bridge

import (
	"errors"
	"strings"
	"time"

	"github.com/google/uuid"
	"go.uber.org/zap"

	"github.com/acp-bridge/acp-bridge/acp"
)

const timeFormat = time.RFC3339Nano

func newID() string { return uuid.NewString() }

func isClosed(err error) bool {
	return errors.Is(err, acp.ErrClosed) || (err != nil && strings.Contains(err.Error(), "connection is closed"))
}

func traceMsg(log *zap.Logger, dir string, m acp.TraceMessage) {
	if m.Response {
		log.Debug(dir+" response", zap.String("id", m.ID), zap.String("method", m.Method), zap.Bool("error", m.Error))
		return
	}
	log.Debug(dir, zap.String("method", m.Method), zap.String("id", m.ID), zap.Bool("notification", m.Notification))
}
