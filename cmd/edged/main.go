// Command edged is the edged daemon and its tools. This package holds
// wiring and flags only: every subcommand lives in its own file and
// registers itself with register; logic belongs to the packages.
package main

import (
	"fmt"
	"os"

	"github.com/edged-robotics/edged/ros"
	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

var subcommands []func() *cobra.Command

// register adds a subcommand constructor; called from init in each
// subcommand's file so that files can be added without editing this one.
func register(f func() *cobra.Command) { subcommands = append(subcommands, f) }

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:           "edged",
		Short:         "edged records self-labeled robot episodes and ships contact sheets over MQTT",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	for _, f := range subcommands {
		root.AddCommand(f())
	}
	return root
}

// rosArgs are the ROS arguments of the command line (__name:=,
// __ns:=, remappings...), taken out before cobra parses the rest, as
// roscpp's init does: roslaunch appends them to any node's command.
var rosArgs ros.Args

func main() {
	args, rest, err := ros.SplitArgs(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "edged:", err)
		os.Exit(2)
	}
	rosArgs = args
	root := newRootCmd()
	root.SetArgs(rest)
	if err := root.Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "edged:", err)
		os.Exit(exitCode(err))
	}
}
