// Package policy is the incident clips' settings and rules (as
// sheet/recipe is the contact sheets'): Config with its defaults
// (Default) and Validate, whose errors name the config file's clips
// keys. It sits low so that package config composes its defaults and
// rules without importing the clip stage (which reads rings and encodes
// JPEG). clips.upload is checked with blob/s3's ParseURL, the one
// reading of an s3:// URL. It does no I/O; a Config is a value, safe to
// copy.
package policy
