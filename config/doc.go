// Package config owns edged's one YAML configuration file: its schema
// (the names are binding, see DESIGN.md "The config file"), every
// default, and validation.
//
// Contract:
//   - Load reads and parses a file; Parse parses bytes. Both refuse
//     unknown keys, apply defaults, then Validate.
//   - Validate does no I/O (no stat, no DNS, no environment) and reports
//     every problem at once, each naming the field and the rule, e.g.
//     `sheet.tile_width: must be > 0`.
//   - Durations are Go durations ("0.5s", "10m"); sizes accept plain bytes
//     or KiB/MiB/GiB/TiB (and kB/MB/GB as powers of ten).
//   - CheckFiles is the separate, documented I/O step: every file the
//     config names must be a readable regular file. pipeline.Check
//     (daemon.Check forwards to it) runs Validate, CheckFiles and the
//     components' own rules; `edged config check`, `edged run` and
//     `edged replay` all call it, so the check never accepts what run
//     refuses.
//   - Errors are *FieldError values inside a *ValidationError;
//     RenameFields renames fields a command took from flags (data_dir
//     -> --out), so errors about a flag name the flag.
//   - One owner per rule: a setting a component reads is validated by
//     that component's own rule, which names the config key, and
//     pipeline.Check applies it: ringbuf (ring.max_bytes, max_age); uplink
//     (robot_id, uplink.topic_prefix, max_payload, outbox_bytes,
//     bandwidth, cert_file/key_file); uplink/mqttconn (uplink.broker);
//     ros (ros.master_uri, ros.node_name; ros.CheckName, the rule of
//     every ROS name, which Validate here applies to the topics as
//     written); fsm (fsm[].type and field, episode.max_duration);
//     capture (one role per topic, on the resolved names). Validate here
//     holds the schema's rules and the rules that span sections.
//     Components return *FieldError values too (internal/fielderr), so
//     RenameFields renames a flag's field in pipeline.Check's errors as
//     well. pipeline's TestConfigCheckAgreesWithRun keeps the check and
//     run from drifting apart; IsKey and ProblemsWithoutKey let tests
//     (TestValidationProblemsNameKeys, pipeline's
//     TestCheckProblemsNameKeys) assert every error names a key.
//   - One owner per default: a setting a component reads has that
//     component's default, which Default takes from it (ros, capture,
//     ringbuf, sheet/recipe, fsm and fsmkind, episode, uplink); config
//     owns only the defaults of what no component reads (data_dir,
//     discovery, http, replay). TestDefaultsAreTheComponents here and
//     pipeline's TestDefaultsReachTheComponents keep them so. So config
//     imports the components it configures (it sits above them in
//     internal/layers, and none of them imports config); it applies
//     sheet/recipe's rule set itself (Sheet.Recipe), so that config and
//     the sheet builder share one rule (field ranges, at most 400
//     tiles, the sheet's pixel budget), ros2/dds's QoS profiles
//     (dds.ParseProfile) and ros.CheckName. pipeline (and cmd/edged for
//     its commands) maps the other sections onto each component's own
//     config struct.
//
// A Config is a plain value: safe to copy, not safe to mutate
// concurrently.
package config
