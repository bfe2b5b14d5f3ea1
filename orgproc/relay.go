package orgproc

import (
	"bufio"
	"encoding/json"
	"io"
	"sort"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// relayLevel is the level a companion's log line is relayed at: the one
// it names up to error; fatal, panic, dpanic and anything else are error
// (a Fatal or Panic entry would end the bridge: a companion only ever
// costs its verdicts and events).
func relayLevel(v any) zapcore.Level {
	s, _ := v.(string)
	var lvl zapcore.Level
	if s == "" || lvl.UnmarshalText([]byte(s)) != nil || lvl > zapcore.ErrorLevel || lvl < zapcore.DebugLevel {
		return zapcore.ErrorLevel
	}
	return lvl
}

// relayLog writes the companion's zap JSON lines into the bridge's log,
// level (capped: relayLevel), message and fields kept; any other line as
// it is. Past a line it cannot read it drains the rest, so the companion
// never blocks on its stderr.
func (c *Client) relayLog(r io.Reader) {
	defer func() {
		_, _ = io.Copy(io.Discard, r)
	}()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			c.log.Warn(Name+" wrote", zap.String("line", sc.Text()))
			continue
		}
		lvl := relayLevel(m["level"])
		msg, _ := m["msg"].(string)
		delete(m, "level")
		delete(m, "msg")
		delete(m, "ts")
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		if ce := c.log.Check(lvl, msg); ce != nil {
			fields := make([]zap.Field, 0, len(keys)+1)
			for _, k := range keys {
				fields = append(fields, zap.Any(k, m[k]))
			}
			ce.Write(append(fields, zap.String("process", Name))...)
		}
	}
}

func levelOf(l *zap.Logger) zapcore.Level {
	for _, lvl := range []zapcore.Level{zapcore.DebugLevel, zapcore.InfoLevel, zapcore.WarnLevel} {
		if l.Core().Enabled(lvl) {
			return lvl
		}
	}
	return zapcore.ErrorLevel
}
