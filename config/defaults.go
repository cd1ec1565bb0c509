package config

import (
	"time"

	"github.com/edged-robotics/edged/fsm/fsmkind"
	"github.com/edged-robotics/edged/ringbuf"
	"github.com/edged-robotics/edged/sheet/recipe"
)

// Defaults, named so documentation and code cannot drift apart.
const (
	DefaultDataDir      = "/var/lib/edged"
	DefaultNodeName     = "edged"
	DefaultMaxMessage   = Size(64 << 20)
	DefaultQueueSize    = 8
	DefaultStateQueue   = 1024
	DefaultQueueBytes   = Size(128 << 20)
	DefaultMaxStateMsg  = Size(1 << 20)
	DefaultStateBytes   = Size(16 << 20)
	DefaultFSMType      = fsmkind.Default
	DefaultMaxEpisode   = Duration(time.Hour)
	DefaultKeepBytes    = Size(4 << 30)
	DefaultKeepEpisodes = 10000
	DefaultMinFree      = Size(256 << 20)
	DefaultRingBytes    = Size(ringbuf.DefaultMaxBytes) // ringbuf owns the ring's defaults
	DefaultRingAge      = Duration(ringbuf.DefaultMaxAge)
	// The sheet section's defaults are the recipe's (sheet/recipe owns
	// them; `edged sheet` uses the same).
	DefaultInterval     = Duration(recipe.DefaultInterval)
	DefaultTileWidth    = recipe.DefaultTileWidth
	DefaultPreset       = PresetPublished
	PresetPublished     = recipe.PresetPublished
	PresetLowCost       = recipe.PresetLowCost
	LowCostTileWidth    = recipe.LowCostTileWidth // sheet.preset low-cost
	DefaultGrace        = Duration(recipe.DefaultGrace)
	DefaultTopicPrefix  = "edged"
	DefaultMaxPayload   = Size(128 << 10)
	DefaultOutboxBytes  = Size(2 << 30)
	DefaultResendAfter  = Duration(5 * time.Minute)
	DefaultListen       = "127.0.0.1:9090"
	DefaultMaxStampSkew = Duration(10 * time.Minute)
	DefaultMaxGap       = Duration(5 * time.Minute)
	MinMaxGap           = Duration(time.Second)
	MaxMaxGap           = Duration(24 * time.Hour)
)

// Default returns a config with every documented default; RobotID is
// left empty because it has none.
func Default() Config {
	return Config{
		DataDir: DefaultDataDir,
		ROS: ROS{NodeName: DefaultNodeName, MaxMessage: DefaultMaxMessage, QueueSize: DefaultQueueSize,
			StateQueueSize: DefaultStateQueue, QueueBytes: DefaultQueueBytes, MaxStateMessage: DefaultMaxStateMsg,
			StateQueueBytes: DefaultStateBytes},
		Episode: Episode{MaxDuration: DefaultMaxEpisode, KeepBytes: DefaultKeepBytes, KeepEpisodes: DefaultKeepEpisodes,
			MinFreeBytes: DefaultMinFree},
		Ring:  Ring{MaxBytes: DefaultRingBytes, MaxAge: DefaultRingAge},
		Sheet: defaultSheet(),
		Uplink: Uplink{TopicPrefix: DefaultTopicPrefix, MaxPayload: DefaultMaxPayload, OutboxBytes: DefaultOutboxBytes,
			ResendAfter: DefaultResendAfter},
		HTTP:      HTTP{Listen: DefaultListen},
		Capture:   CaptureOptions{MaxStampSkew: DefaultMaxStampSkew},
		Discovery: defaultDiscovery(),
		Replay:    Replay{MaxGap: DefaultMaxGap},
	}
}

// defaultSheet is the sheet section of the recipe's defaults
// (recipe.Default), so that Sheet.Recipe of the defaults is that recipe.
func defaultSheet() Sheet {
	r := recipe.Default()
	return Sheet{Preset: DefaultPreset, Interval: Duration(r.Interval), TileWidth: r.TileWidth, Columns: r.Columns,
		Rows: r.Rows, Quality: r.Quality, Grace: Duration(r.Grace), WaitGrace: r.WaitGrace}
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
		c.Uplink.ClientID = "edged-" + c.RobotID
	}
}

func setS(p *string, v string) {
	if *p == "" {
		*p = v
	}
}
