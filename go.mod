module github.com/edged-robotics/edged

go 1.24

require (
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/spf13/cobra v1.10.2 // indirect
	github.com/spf13/pflag v1.0.9 // indirect
	golang.org/x/image v0.24.0 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)
