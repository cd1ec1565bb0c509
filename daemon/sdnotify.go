package daemon

import (
	"context"
	"net"
	"os"
	"strconv"
	"time"
)

// sdNotify sends state to systemd's notification socket ($NOTIFY_SOCKET,
// set for Type=notify units); without it, it does nothing.
func sdNotify(state string) error {
	path := os.Getenv("NOTIFY_SOCKET")
	if path == "" {
		return nil
	}
	if path[0] == '@' { // abstract socket
		path = "\x00" + path[1:]
	}
	conn, err := net.DialUnix("unixgram", nil, &net.UnixAddr{Name: path, Net: "unixgram"})
	if err != nil {
		return err
	}
	defer conn.Close()
	_, err = conn.Write([]byte(state))
	return err
}

// watchdogInterval is how often systemd wants WATCHDOG=1 (half its
// WatchdogSec), or 0 when no watchdog is set for this process.
func watchdogInterval() time.Duration {
	usec, err := strconv.ParseInt(os.Getenv("WATCHDOG_USEC"), 10, 64)
	if err != nil || usec <= 0 {
		return 0
	}
	if pid := os.Getenv("WATCHDOG_PID"); pid != "" && pid != strconv.Itoa(os.Getpid()) {
		return 0
	}
	return time.Duration(usec) * time.Microsecond / 2
}

// feedWatchdog pings systemd every interval while the pipeline makes
// progress: the sheet loop has ticked recently and the fsm loop answers.
// A wedged stage stops the pings and systemd restarts edged. It returns
// when ctx ends.
func (d *Daemon) feedWatchdog(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := d.pipe.Progressing(ctx, every); err != nil {
				d.log.Warn("daemon: not feeding the systemd watchdog", "err", err)
				continue
			}
			if err := sdNotify("WATCHDOG=1"); err != nil {
				d.log.Warn("daemon: systemd notify", "err", err)
			}
		}
	}
}
