package main

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"time"

	"github.com/edged-robotics/edged/capture"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/ringbuf"
	"github.com/edged-robotics/edged/sheet"
	"github.com/edged-robotics/edged/ship"
	"github.com/edged-robotics/edged/sink/receive"
	"github.com/edged-robotics/edged/uplink/wire"
)

// params of a generated episode.
type params struct {
	Duration time.Duration // episode time
	Segment  time.Duration // a segment every Segment
	Joints   int           // joints of the robot's JointState
	JointHz  float64       // JointState rate
	FPS      float64       // camera rate
}

// budgetEpisode is the episode of issue 9's budget: a segment every
// 12 s, one camera at 30 fps, a 29-joint JointState at 100 Hz (a G1),
// 10 minutes (a whole number of sheets and segments, so the per-hour
// figures are those of a long episode).
var budgetEpisode = params{Duration: 10 * time.Minute, Segment: 12 * time.Second, Joints: 29, JointHz: 100, FPS: 30}

const (
	robotID = "bench-robot"
	camera  = "/camera/color/image_raw/compressed"
)

var epStart = time.Date(2026, 4, 22, 7, 22, 6, 0, time.UTC)

// buildEpisode makes one episode through the robot's pipeline and ships
// it into a sink's store (out) as the uplink and the sink do, then
// returns the cost line of the sink's copy (what was shipped):
//
//   - frames (real JPEGs, cycled) enter a camera ring at p.FPS;
//   - a sheet.Builder with recipe r makes the contact sheets, and one
//     labeling sheet per segment (a segment every p.Segment), shipped
//     only when r.ShipLabelSheets (the cloud composes them otherwise);
//   - every contact sheet's state snippet is cut by the shipping
//     stage's ship.Recorder from a p.JointHz JointState stream, encoded as on
//     the wire (wire.EncodeSnippet);
//   - sheets go to an receive.Receiver with their metadata encoded as
//     ship encodes it (compact JSON), snippets and segments too,
//     then the end manifest: the episode is complete.
func buildEpisode(out string, frames [][]byte, r sheet.Recipe, p params) (episode.Cost, string, error) {
	rcv, err := receive.Open(filepath.Join(out, episode.EpisodesDir), receive.Options{})
	if err != nil {
		return episode.Cost{}, "", err
	}
	defer rcv.Close()
	id := episode.NewID(robotID, epStart, "")
	m := episode.Manifest{Format: episode.ManifestFormat, ID: id, Robot: robotID, Start: epStart, Created: epStart}
	if _, err := rcv.Manifest(robotID, m); err != nil {
		return episode.Cost{}, "", err
	}
	ring, err := ringbuf.New(ringbuf.Config{MaxBytes: 64 << 20, MaxAge: 10 * time.Second, MaxFrames: 1024})
	if err != nil {
		return episode.Cost{}, "", err
	}
	snips := ship.NewRecorder(ship.SnippetConfig{})
	produced := episode.CameraCounts{}
	var shipErr error
	b, err := sheet.NewBuilder(sheet.BuilderConfig{Camera: camera, Recipe: r, Start: epStart, Source: ring,
		Emit: func(s *sheet.Sheet) error {
			sn, err := wire.EncodeSnippet(snips.ForSheet(id, &s.Meta))
			if err == nil {
				_, err = rcv.Snippet(robotID, id, camera, s.Meta.Index, sn)
			}
			if err == nil {
				err = shipSheet(rcv, id, s, false)
			}
			if err != nil && shipErr == nil {
				shipErr = err
			}
			produced.Sheets++
			produced.Snippets++
			return err
		}})
	if err != nil {
		return episode.Cost{}, "", err
	}
	defer b.Close()

	frameStep := time.Duration(float64(time.Second) / p.FPS)
	jointStep := time.Duration(float64(time.Second) / p.JointHz)
	names := make([]string, p.Joints)
	for j := range names {
		names[j] = fmt.Sprintf("joint_%02d", j)
	}
	end := epStart.Add(p.Duration)
	nextJoint, nextSeg, segStart, seg := epStart, epStart.Add(p.Segment), epStart, 0
	var pendingLabels []sheet.Segment
	settle := r.Interval/2 + r.Grace
	for i := 0; ; i++ {
		now := epStart.Add(time.Duration(i) * frameStep)
		if now.After(end) {
			break
		}
		for ; !nextJoint.After(now); nextJoint = nextJoint.Add(jointStep) {
			snips.PutJoints(jointSample(names, nextJoint))
		}
		f := capture.Frame{Topic: camera, Stamp: now, Received: now, Format: capture.FormatJPEG, Data: frames[i%len(frames)]}
		if err := ring.Put(&f); err != nil {
			return episode.Cost{}, "", err
		}
		if !nextSeg.After(now) {
			s := sheet.Segment{Index: seg, Start: segStart, End: nextSeg}
			if err := shipSegment(rcv, id, s); err != nil {
				return episode.Cost{}, "", err
			}
			pendingLabels = append(pendingLabels, s)
			seg, segStart, nextSeg = seg+1, nextSeg, nextSeg.Add(p.Segment)
		}
		if err := b.Advance(now); err != nil {
			return episode.Cost{}, "", err
		}
		for len(pendingLabels) > 0 && !now.Before(pendingLabels[0].End.Add(settle)) {
			if err := label(b, rcv, id, pendingLabels[0], r, &produced); err != nil {
				return episode.Cost{}, "", err
			}
			pendingLabels = pendingLabels[1:]
		}
	}
	if segStart.Before(end) { // the last, shorter segment
		s := sheet.Segment{Index: seg, Start: segStart, End: end}
		if err := shipSegment(rcv, id, s); err != nil {
			return episode.Cost{}, "", err
		}
		pendingLabels = append(pendingLabels, s)
		seg++
	}
	if err := b.Finish(end); err != nil {
		return episode.Cost{}, "", err
	}
	for _, s := range pendingLabels {
		if err := label(b, rcv, id, s, r, &produced); err != nil {
			return episode.Cost{}, "", err
		}
	}
	if shipErr != nil {
		return episode.Cost{}, "", shipErr
	}
	m.Closed, m.End, m.Outcome, m.EndReason, m.Segments = true, end, episode.Completed, episode.EndIdle, seg
	m.Produced = map[string]episode.CameraCounts{episode.CameraDir(camera): produced}
	complete, err := rcv.Manifest(robotID, m)
	if err != nil {
		return episode.Cost{}, "", err
	}
	if !complete {
		return episode.Cost{}, "", fmt.Errorf("the sink's copy is not complete")
	}
	dir := filepath.Join(out, episode.EpisodesDir, id)
	c, err := episode.ReadCost(dir)
	return c, dir, err
}

// ship writes a sheet as the sink does on receipt: the JPEG and the
// metadata exactly as uplink.sheetBody carries them.
func shipSheet(rcv *receive.Receiver, id string, s *sheet.Sheet, label bool) error {
	meta, err := json.Marshal(&s.Meta)
	if err != nil {
		return err
	}
	_, err = rcv.Sheet(robotID, id, s.Meta.Camera, sheet.Name(s), label, s.JPEG, meta)
	return err
}

// label builds the labeling sheet of s, as the robot does, and ships it
// when the recipe says so (as pipeline's sheet session does).
func label(b *sheet.Builder, rcv *receive.Receiver, id string, s sheet.Segment, r sheet.Recipe, produced *episode.CameraCounts) error {
	sh, err := b.LabelSheet(s)
	if err != nil || !r.ShipLabelSheets {
		return err
	}
	produced.LabelSheets++
	return shipSheet(rcv, id, sh, true)
}

func shipSegment(rcv *receive.Receiver, id string, s sheet.Segment) error {
	_, err := rcv.Segment(robotID, id, episode.Segment{Index: s.Index, Start: s.Start, End: s.End,
		StartSec: s.Start.Sub(epStart).Seconds(), EndSec: s.End.Sub(epStart).Seconds(),
		Label: fmt.Sprintf("STEP_%d", s.Index%7), Source: "/task/state", Kind: "string", Outcome: episode.Completed})
	return err
}

// jointSample is a smooth, distinct trajectory per joint (what a real
// arm's JointState looks like to the compressor: no repeated values).
func jointSample(names []string, t time.Time) capture.JointSample {
	s := capture.JointSample{Topic: "/joint_states", Stamp: t, Received: t, Names: names,
		Position: make([]float64, len(names)), Velocity: make([]float64, len(names)), Effort: make([]float64, len(names))}
	x := t.Sub(epStart).Seconds()
	for j := range names {
		w := 0.3 + 0.07*float64(j)
		s.Position[j] = math.Sin(w*x + float64(j))
		s.Velocity[j] = w * math.Cos(w*x+float64(j))
		s.Effort[j] = 2 * math.Sin(1.7*w*x)
	}
	return s
}
