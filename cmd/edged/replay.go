package main

import (
	"errors"
	"io"
	"log/slog"
	"os"

	"github.com/edged-robotics/edged/config"
	"github.com/edged-robotics/edged/replay"
	"github.com/spf13/cobra"
)

func init() { register(newReplayCmd) }

func newReplayCmd() *cobra.Command {
	var (
		flags            replay.Flags
		quiet, keepGoing bool
	)
	cmd := &cobra.Command{
		Use:   "replay [--config FILE] [--out DIR] BAG...",
		Short: "Run edged's pipeline over ROS1 and ROS 2 bags, as fast as the machine allows",
		Long:  replayHelp,
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, bags []string) error {
			cfg, err := replay.Config(flags)
			if err != nil {
				return err
			}
			log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
			r, err := replay.New(cfg, replay.Options{Logger: log, Version: version})
			if err != nil {
				return err
			}
			ctx, cancel := signalContext(cmd.Context())
			defer cancel()
			var bar io.Writer = os.Stderr // a nil *os.File would not be a nil io.Writer
			if quiet {
				bar = nil
			}
			sum, err := r.Run(ctx, bags, bar)
			if errors.Is(err, replay.ErrDamagedInput) && keepGoing {
				err = nil // the damage was logged; the output holds what could be read
			}
			if err != nil {
				return err
			}
			return sum.Print(cmd.OutOrStdout())
		},
	}
	f := cmd.Flags()
	f.StringVarP(&flags.Config, "config", "c", "", "config file (default: built from the flags)")
	f.StringVarP(&flags.Out, "out", "o", "", "output directory (overrides data_dir; default ./replay-out without --config)")
	f.StringVar(&flags.Broker, "broker", "", "also ship to this MQTT broker (overrides uplink.broker)")
	f.StringVar(&flags.FSMTopic, "fsm", "", "FSM topic (overrides the config's fsm sources)")
	f.StringVar(&flags.FSMType, "fsm-type", config.DefaultFSMType, "FSM source type: string, smach, actionlib")
	f.StringSliceVar(&flags.Idle, "idle", nil, "idle states of the --fsm topic (between episodes)")
	f.BoolVarP(&quiet, "quiet", "q", false, "no progress bar")
	f.BoolVar(&keepGoing, "keep-going", false, "exit 0 on a damaged bag (its problems are still reported) once everything readable is replayed")
	return cmd
}

const replayHelp = "Replays bags through the same pipeline as\n" +
	"edged run, with no ROS master: sheets, labeling sheets, FSM segments and episodes\n" +
	"are those a live edged makes of `rosbag play --clock`. Output goes to --out (or\n" +
	"the config's data_dir), and to a broker with --broker (or uplink.broker).\n" +
	"Without --config: robot_id replay, cameras and joints from the bags.\n" +
	"A BAG is a ROS1 .bag file (format 2.0: uncompressed, bz2 or lz4) or a ROS 2\n" +
	"rosbag2 bag: its directory (metadata.yaml; split bags, zstd file or message\n" +
	"compression), or one .mcap (chunks none, zstd or lz4) or .db3 (sqlite3) file,\n" +
	"or an incident clip edged wrote (its string FSM sources rebuilt from its\n" +
	"transitions; docs/clips.md).\n" +
	"The kind is detected from the path; ROS 2 messages are decoded as CDR from the\n" +
	"definitions the bag carries (or the bundled ones), so both give the same output.\n" +
	"A stretch without messages longer than replay.max_gap (default 5m) ends the open\n" +
	"episode and is reported; the replay goes on after it.\n" +
	"A damaged bag (bad chunk, cut short) is replayed as far as it can be read, each\n" +
	"problem is reported with the bag and byte offset, and the exit status is 1\n" +
	"unless --keep-going; so are messages that could not be used (malformed, of a\n" +
	"type the role cannot use, over a size cap), counted per topic."
