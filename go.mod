module github.com/edged-robotics/edged

go 1.24
