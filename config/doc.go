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
//   - This package imports no other edged package: cmd/edged maps the
//     sections onto each component's own config struct.
//
// A Config is a plain value: safe to copy, not safe to mutate
// concurrently.
package config
