package rostest

import "embed"

//go:embed scripts/*.py
var scripts embed.FS
