package ros

import (
	"errors"
	"strconv"

	"github.com/edged-robotics/edged/ros/master"
)

func itoa(n int) string { return strconv.Itoa(n) }

func asStatus(err error, se **master.StatusError) bool { return errors.As(err, se) }
