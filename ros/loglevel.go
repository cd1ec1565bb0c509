package ros

import (
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"strings"
)

// LoggerName is the one logger edged reports to rosconsole tools.
const LoggerName = "edged"

// ServeLogLevel provides roscpp's ~get_loggers and ~set_logger_level
// services over level, so rqt_logger_level and `rosservice call
// /NODE/set_logger_level edged debug` read and change the node's log
// level (the terminal's and /rosout's, when both use level).
func (n *Node) ServeLogLevel(level *slog.LevelVar) error {
	get := ServiceOptions{Name: "~get_loggers", Type: "roscpp/GetLoggers", MD5Sum: "32e97e85527d4678a8f9279894bb64b0",
		RequestType: "roscpp/GetLoggersRequest", ResponseType: "roscpp/GetLoggersResponse"}
	set := ServiceOptions{Name: "~set_logger_level", Type: "roscpp/SetLoggerLevel", MD5Sum: "51da076440d78ca1684d36c868df61ea",
		RequestType: "roscpp/SetLoggerLevelRequest", ResponseType: "roscpp/SetLoggerLevelResponse"}
	if _, err := n.AdvertiseService(get, func([]byte) ([]byte, error) {
		// Logger[] loggers, each {string name, string level}
		b := binary.LittleEndian.AppendUint32(nil, 1)
		b = appendROSString(b, LoggerName)
		return appendROSString(b, levelName(level.Level())), nil
	}); err != nil {
		return err
	}
	_, err := n.AdvertiseService(set, func(req []byte) ([]byte, error) {
		logger, rest, err := readROSString(req)
		if err != nil {
			return nil, err
		}
		name, _, err := readROSString(rest)
		if err != nil {
			return nil, err
		}
		if logger != LoggerName && logger != "ros" {
			return nil, fmt.Errorf("no logger %q: edged has one, %q", logger, LoggerName)
		}
		l, ok := parseLevel(name)
		if !ok {
			return nil, fmt.Errorf("level %q: want debug, info, warn, error or fatal", name)
		}
		level.Set(l)
		n.log.Info("ros: log level set through set_logger_level", "level", strings.ToLower(name))
		return nil, nil
	})
	return err
}

func appendROSString(b []byte, s string) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(len(s)))
	return append(b, s...)
}

func readROSString(b []byte) (string, []byte, error) {
	if len(b) < 4 {
		return "", nil, errors.New("request too short")
	}
	n := binary.LittleEndian.Uint32(b)
	if uint64(n) > uint64(len(b)-4) {
		return "", nil, errors.New("string longer than the request")
	}
	return string(b[4 : 4+n]), b[4+n:], nil
}

// levelName and parseLevel map slog levels to rosconsole's names.
func levelName(l slog.Level) string {
	switch {
	case l >= slog.LevelError+4:
		return "fatal"
	case l >= slog.LevelError:
		return "error"
	case l >= slog.LevelWarn:
		return "warn"
	case l >= slog.LevelInfo:
		return "info"
	default:
		return "debug"
	}
}

func parseLevel(s string) (slog.Level, bool) {
	l, ok := map[string]slog.Level{"debug": slog.LevelDebug, "info": slog.LevelInfo, "warn": slog.LevelWarn,
		"error": slog.LevelError, "fatal": slog.LevelError + 4}[strings.ToLower(s)]
	return l, ok
}
