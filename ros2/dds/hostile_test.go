//go:build cgo && !purego

package dds_test

import (
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/edged-robotics/edged/internal/poll"
	"github.com/edged-robotics/edged/ros2/cdr"
	"github.com/edged-robotics/edged/ros2/dds"
	"github.com/edged-robotics/edged/ros2/ddstest"
)

// A writer of another type that appears on a topic before the honest
// one (type squatting) decides nothing: a subscription that names the
// types it can use takes the honest writer's type, receives its
// samples, and warns once (counted) about the squatter. The
// subscription took the first writer's type: it read the squatter and
// nothing of the honest writer, silently (or failed on a non-ROS type).
func TestLiveTypeSquatter(t *testing.T) {
	tools := ddstest.Build(t)
	cases := []struct {
		name, topic string
		squat       []string // the squatter's pub arguments
		honest      []string
		types       []string
		want        string // the type of what arrives
	}{
		{"string on /joint_states", "/joint_states", []string{"-k", "string"}, []string{"-k", "joints"},
			[]string{cdr.TypeJointState}, cdr.TypeJointState},
		{"joints on the fsm topic", "/task/state", []string{"-k", "joints"}, []string{"-k", "string"},
			[]string{cdr.TypeString}, cdr.TypeString},
		{"non-ROS type on a camera", "/cam/compressed", []string{"-k", "blob"}, []string{"-k", "image", "-s", "64"},
			[]string{cdr.TypeCompressedImage, cdr.TypeImage}, cdr.TypeCompressedImage},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			domain := ddstest.Domain()
			logs := &logBuffer{}
			p, err := dds.NewParticipant(dds.Config{DomainID: domain, CycloneConfig: dds.LoopbackConfig,
				Logger: slog.New(slog.NewTextHandler(logs, nil))})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { p.Close() })
			squat := ddstest.Start(t, tools.Pub, domain, append([]string{"-t", c.topic, "-n", "1000000", "-p", "20"}, c.squat...)...)
			squat.WaitLine(t, "ready")
			s := subscribe(t, p, dds.SubscribeOptions{Topic: c.topic, Types: c.types})
			poll.Until(t, 30*time.Second, "the warning about the squatter", func() bool {
				return strings.Contains(logs.String(), "writer of another type") && s.Mismatched() == 1
			})
			honest := ddstest.Start(t, tools.Pub, domain, append([]string{"-t", c.topic, "-n", "1000000", "-p", "20"}, c.honest...)...)
			honest.WaitLine(t, "ready")
			for range 3 {
				m := next(t, s)
				if m.Publisher == nil || m.Publisher.Type != c.want {
					t.Fatalf("a sample of %+v, want %s", m.Publisher, c.want)
				}
				m.Release()
			}
			if n := s.Mismatched(); n != 1 {
				t.Errorf("Mismatched() = %d, want 1 (one squatting writer)", n)
			}
			if n := strings.Count(logs.String(), "writer of another type"); n != 1 {
				t.Errorf("%d warnings for one squatting writer, want 1:\n%s", n, logs.String())
			}
		})
	}
}

// A squatter that appears after the reader exists is warned about too.
func TestLiveLateSquatterWarns(t *testing.T) {
	tools := ddstest.Build(t)
	domain := ddstest.Domain()
	logs := &logBuffer{}
	p, err := dds.NewParticipant(dds.Config{DomainID: domain, CycloneConfig: dds.LoopbackConfig,
		Logger: slog.New(slog.NewTextHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	s := subscribe(t, p, dds.SubscribeOptions{Topic: "/task/state", Types: []string{cdr.TypeString}})
	honest := ddstest.Start(t, tools.Pub, domain, "-t", "/task/state", "-n", "1000000", "-p", "20")
	honest.WaitLine(t, "ready")
	next(t, s).Release()
	squat := ddstest.Start(t, tools.Pub, domain, "-t", "/task/state", "-k", "joints", "-n", "0")
	squat.WaitLine(t, "ready")
	poll.Until(t, 30*time.Second, "the warning about the late squatter", func() bool {
		return s.Mismatched() == 1 && strings.Contains(logs.String(), "writer_type=sensor_msgs/msg/JointState")
	})
}

// When every participant index of the domain is taken, NewParticipant
// says so (ErrNoParticipantIndex) instead of blaming the configuration.
func TestParticipantIndexExhausted(t *testing.T) {
	tools := ddstest.Build(t)
	domain := ddstest.Domain()
	holder := ddstest.Start(t, tools.Pub, domain, "-n", "0") // takes index 0
	holder.WaitLine(t, "ready")
	one := strings.Replace(dds.LoopbackConfig, "<MaxAutoParticipantIndex>60<", "<MaxAutoParticipantIndex>1<", 1)
	p, err := dds.NewParticipant(dds.Config{DomainID: domain, CycloneConfig: one})
	if err == nil {
		p.Close()
		t.Fatal("joined a domain whose only participant index is taken")
	}
	if !errors.Is(err, dds.ErrNoParticipantIndex) || strings.Contains(err.Error(), "check") {
		t.Errorf("error %q: want ErrNoParticipantIndex, not a configuration problem", err)
	}
}
