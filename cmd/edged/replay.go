package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/edged-robotics/edged/config"
	"github.com/edged-robotics/edged/daemon"
	"github.com/spf13/cobra"
)

func init() { register(newReplayCmd) }

func newReplayCmd() *cobra.Command {
	var (
		cfgPath, out, broker, fsmTopic, fsmType string
		idle                                    []string
		quiet, keepGoing                        bool
	)
	cmd := &cobra.Command{
		Use:   "replay [--config FILE] [--out DIR] BAG...",
		Short: "Run edged's pipeline over ROS1 and ROS 2 bags, as fast as the machine allows",
		Long: "Replays bags through the same pipeline as\n" +
			"edged run, with no ROS master: sheets, labeling sheets, FSM segments and episodes\n" +
			"are those a live edged makes of `rosbag play --clock`. Output goes to --out (or\n" +
			"the config's data_dir), and to a broker with --broker (or uplink.broker).\n" +
			"Without --config: robot_id replay, cameras and joints from the bags.\n" +
			"A BAG is a ROS1 .bag file (format 2.0: uncompressed, bz2 or lz4) or a ROS 2\n" +
			"rosbag2 bag: its directory (metadata.yaml; split bags, zstd file or message\n" +
			"compression), or one .mcap (chunks none, zstd or lz4) or .db3 (sqlite3) file.\n" +
			"The kind is detected from the path; ROS 2 messages are decoded as CDR from the\n" +
			"definitions the bag carries (or the bundled ones), so both give the same output.\n" +
			"A stretch without messages longer than replay.max_gap (default 5m) ends the open\n" +
			"episode and is reported; the replay goes on after it.\n" +
			"A damaged bag (bad chunk, cut short) is replayed as far as it can be read, each\n" +
			"problem is reported with the bag and byte offset, and the exit status is 1\n" +
			"unless --keep-going; so are messages that could not be used (malformed, of a\n" +
			"type the role cannot use, over a size cap), counted per topic.",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, bags []string) error {
			cfg, err := replayConfig(cfgPath, out, broker, fsmTopic, fsmType, idle)
			if err != nil {
				return err
			}
			log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
			d, err := daemon.New(cfg, daemon.Options{Logger: log, Version: version})
			if err != nil {
				return err
			}
			ctx, cancel := signalContext(cmd.Context())
			defer cancel()
			var bar io.Writer = os.Stderr
			if quiet {
				bar = nil
			}
			sum, err := d.Replay(ctx, bags, bar)
			if errors.Is(err, daemon.ErrDamagedInput) && keepGoing {
				err = nil // the damage was logged; the output holds what could be read
			}
			if err != nil {
				return err
			}
			speed := 0.0
			if sum.Wall > 0 {
				speed = sum.BagTime.Seconds() / sum.Wall.Seconds()
			}
			_, err = fmt.Fprintf(cmd.OutOrStdout(), "replayed %d messages (%.1f s of recording) in %s (%.0fx real time): %d episodes, %d segments, %d sheets in %s\n",
				sum.Messages, sum.BagTime.Seconds(), sum.Wall.Round(time.Millisecond), speed, sum.Episodes, sum.Segments, sum.Sheets, cfg.DataDir)
			if err == nil && sum.Unused > 0 {
				_, err = fmt.Fprintf(cmd.OutOrStdout(), "%d messages could not be used (listed above)\n", sum.Unused)
			}
			if err == nil && len(sum.Gaps) > 0 {
				_, err = fmt.Fprintf(cmd.OutOrStdout(), "%d gaps longer than replay.max_gap (%s) each ended the episode before them (listed above)\n",
					len(sum.Gaps), cfg.Replay.MaxGap.D())
			}
			return err
		},
	}
	f := cmd.Flags()
	f.StringVarP(&cfgPath, "config", "c", "", "config file (default: built from the flags)")
	f.StringVarP(&out, "out", "o", "", "output directory (overrides data_dir; default ./replay-out without --config)")
	f.StringVar(&broker, "broker", "", "also ship to this MQTT broker (overrides uplink.broker)")
	f.StringVar(&fsmTopic, "fsm", "", "FSM topic (overrides the config's fsm sources)")
	f.StringVar(&fsmType, "fsm-type", config.DefaultFSMType, "FSM source type: string, smach, actionlib")
	f.StringSliceVar(&idle, "idle", nil, "idle states of the --fsm topic (between episodes)")
	f.BoolVarP(&quiet, "quiet", "q", false, "no progress bar")
	f.BoolVar(&keepGoing, "keep-going", false, "exit 0 on a damaged bag (its problems are still reported) once everything readable is replayed")
	return cmd
}

// replayConfig loads the config (or starts from the defaults) and applies
// the flags, then checks it as daemon.New will.
func replayConfig(path, out, broker, fsmTopic, fsmType string, idle []string) (*config.Config, error) {
	c := config.Default()
	c.RobotID, c.DataDir = "replay", "./replay-out"
	if path != "" {
		loaded, err := config.Load(path)
		if err != nil {
			return nil, err
		}
		c = *loaded
	}
	c.HTTP.Listen = "off"
	if out != "" {
		abs, err := filepath.Abs(out) // a flag's relative path is relative to the working directory
		if err != nil {
			return nil, fmt.Errorf("--out: %w", err)
		}
		c.DataDir = abs
	}
	if broker != "" {
		c.Uplink.Broker = broker
	}
	if fsmTopic != "" {
		c.FSM = []config.FSMSource{{Topic: fsmTopic, Type: fsmType, IdleStates: idle}}
	}
	if err := daemon.Check(&c); err != nil {
		// Errors about values the flags set name the flags, whichever
		// component's rule refused them (Check applies them all).
		return nil, config.RenameFields(err, flagFields(out, broker, fsmTopic))
	}
	return &c, nil
}

// flagFields maps the config fields the given flags set to the flags.
func flagFields(out, broker, fsmTopic string) map[string]string {
	m := map[string]string{}
	if out != "" {
		m["data_dir"] = "--out"
	}
	if broker != "" {
		m["uplink.broker"] = "--broker"
	}
	if fsmTopic != "" {
		m["fsm[0].topic"], m["fsm[0].type"], m["fsm[0]"] = "--fsm", "--fsm-type", "--fsm"
	}
	return m
}
