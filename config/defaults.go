package config

import (
	"time"

	"github.com/edged-robotics/edged/capture"
	"github.com/edged-robotics/edged/clip/policy"
	"github.com/edged-robotics/edged/episode/store"
	"github.com/edged-robotics/edged/fsm"
	"github.com/edged-robotics/edged/fsm/fsmkind"
	"github.com/edged-robotics/edged/ringbuf"
	"github.com/edged-robotics/edged/ros"
	"github.com/edged-robotics/edged/sheet/recipe"
	"github.com/edged-robotics/edged/uplink"
)

// Defaults of what config itself owns: the file's layout and the
// settings no component reads as its own (data_dir, http, replay, the
// sheet presets' names). Every other default is its component's and
// Default takes it from there (one owner; TestDefaultsAreTheComponents
// and pipeline's TestDefaultsReachTheComponents check the mapping).
const (
	DefaultDataDir = "/var/lib/edged"
	DefaultFSMType = fsmkind.Default
	DefaultListen  = "127.0.0.1:9090"
	DefaultMaxGap  = Duration(5 * time.Minute)
	MinMaxGap      = Duration(time.Second)
	MaxMaxGap      = Duration(24 * time.Hour)
	// The sheet section's names; its defaults are the recipe's
	// (sheet/recipe owns them; `edged sheet` uses the same).
	DefaultPreset    = PresetPublished
	PresetPublished  = recipe.PresetPublished
	PresetLowCost    = recipe.PresetLowCost
	LowCostTileWidth = recipe.LowCostTileWidth // sheet.preset low-cost
	DefaultTileWidth = recipe.DefaultTileWidth
)

// Default returns a config with every documented default; RobotID is
// left empty because it has none.
func Default() Config {
	return Config{
		DataDir: DefaultDataDir,
		ROS: ROS{NodeName: ros.DefaultNodeName, MaxMessage: Size(ros.DefaultMaxMessageBytes), QueueSize: ros.DefaultQueueSize,
			StateQueueSize: capture.DefaultStateQueueSize, QueueBytes: Size(capture.DefaultQueueBytes),
			MaxStateMessage: Size(capture.DefaultMaxStateMessageBytes), StateQueueBytes: Size(capture.DefaultStateQueueBytes)},
		Episode: Episode{MaxDuration: Duration(fsm.DefaultMaxDuration), KeepBytes: Size(store.DefaultMaxBytes),
			KeepEpisodes: store.DefaultMaxEpisodes, MinFreeBytes: Size(store.DefaultMinFree)},
		Ring:  Ring{MaxBytes: Size(ringbuf.DefaultMaxBytes), MaxAge: Duration(ringbuf.DefaultMaxAge)},
		Sheet: defaultSheet(),
		Uplink: Uplink{TopicPrefix: uplink.DefaultTopicPrefix, MaxPayload: Size(uplink.DefaultMaxPayload),
			OutboxBytes: Size(uplink.DefaultOutboxBytes), ResendAfter: Duration(uplink.DefaultResendAfter)},
		HTTP:      HTTP{Listen: DefaultListen},
		Capture:   CaptureOptions{MaxStampSkew: Duration(capture.DefaultMaxStampSkew)},
		Discovery: defaultDiscovery(),
		Replay:    Replay{MaxGap: DefaultMaxGap},
		Clips:     defaultClips(),
	}
}

// defaultClips is the clips section of the clip package's defaults.
func defaultClips() Clips {
	d := policy.Default()
	return Clips{Enabled: d.Enabled, Pre: Duration(d.Pre), Post: Duration(d.Post), OnStates: d.OnStates,
		OnFailureOutcome: d.OnFailureOutcome, OnUnsat: d.OnUnsat, OnGoalFailure: d.OnGoalFailure, MinInterval: Duration(d.MinInterval),
		MaxBytes: Size(d.MaxBytes), Quality: d.Quality,
		Upload: d.Upload, UploadRate: Size(d.UploadRate), UploadPart: Size(d.UploadPart), KeepUploaded: d.KeepUploaded}
}

// defaultSheet is the sheet section of the recipe's defaults
// (recipe.Default), so that Sheet.Recipe of the defaults is that recipe.
func defaultSheet() Sheet {
	r := recipe.Default()
	return Sheet{Preset: DefaultPreset, Interval: Duration(r.Interval), TileWidth: r.TileWidth, Columns: r.Columns,
		Rows: r.Rows, Quality: r.Quality, Grace: Duration(r.Grace), WaitGrace: r.WaitGrace,
		ShipLabelSheets: r.ShipLabelSheets}
}

// applyDerivedDefaults fills defaults that depend on other fields or live
// inside lists, after decoding.
func (c *Config) applyDerivedDefaults() {
	for i := range c.FSM {
		setS(&c.FSM[i].Type, DefaultFSMType)
	}
	if c.Sheet.Preset == PresetLowCost && c.Sheet.TileWidth == DefaultTileWidth {
		c.Sheet.TileWidth = LowCostTileWidth
	}
	if c.Uplink.ClientID == "" && c.RobotID != "" {
		c.Uplink.ClientID = uplink.DefaultClientID(c.RobotID)
	}
}

func setS(p *string, v string) {
	if *p == "" {
		*p = v
	}
}
