package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"path/filepath"
	"sync"
)

// comparison is what -compare reports: the group's run, the one-sink
// run beside it, and what the group carries against one sink.
type comparison struct {
	Reference, Group *result
	// Group / Reference: the sustained rates, the rates at the slowest
	// sink's pace, and the whole runs' messages/s.
	Sustained, Paced, WholeRun float64
}

// compare runs a one-sink fleet and the -sinks fleet at the same time,
// each with its own broker, so that both see the same machine (its other
// work, its CPU frequency, its noisy neighbours): their ratio is then
// the group's against one sink, not one moment's against another's.
// It returns the exit status.
func compare(ctx context.Context, o options) int {
	if err := compareOptions(o); err != nil {
		log.Print(err)
		return 2
	}
	ref := o
	ref.sinks = 1
	if o.profile != "" {
		ref.profile = filepath.Join(o.profile, "reference")
	}
	var c comparison
	var errs [2]error
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); c.Reference, errs[0] = run(ctx, ref) }()
	go func() { defer wg.Done(); c.Group, errs[1] = run(ctx, o) }()
	wg.Wait()
	if err := errors.Join(errs[:]...); err != nil {
		log.Print(err)
		return 1
	}
	fmt.Println("one sink (the reference):")
	printResult(c.Reference, ref)
	fmt.Printf("%d sinks, at the same time:\n", o.sinks)
	printResult(c.Group, o)
	c.Sustained = ratio(c.Group.SustainedPerS, c.Reference.SustainedPerS)
	c.Paced = ratio(c.Group.PacedPerS, c.Reference.PacedPerS)
	c.WholeRun = ratio(c.Group.MessagesPerS, c.Reference.MessagesPerS)
	fmt.Printf("%d sinks carry, against one: %.2fx sustained, %.2fx at the slowest sink's pace, %.2fx over the whole run\n",
		o.sinks, c.Sustained, c.Paced, c.WholeRun)
	if o.jsonOut != "" {
		writeJSON(o.jsonOut, c)
	}
	for _, r := range []*result{c.Reference, c.Group} {
		if r.Lost+r.Duplicated+r.Corrupt > 0 {
			return 1
		}
	}
	return 0
}

// compareOptions refuses what two fleets at once cannot share.
func compareOptions(o options) error {
	switch {
	case o.broker != "":
		return errors.New("-compare starts a broker per fleet: leave -broker out")
	case o.out != "":
		return errors.New("-compare writes each fleet's output in its own directory: leave -out out")
	case o.sinks < 2:
		return fmt.Errorf("-compare: -sinks must be at least 2 (got %d): the reference is one sink", o.sinks)
	}
	return nil
}

func ratio(a, b float64) float64 {
	if b <= 0 {
		return 0
	}
	return a / b
}
