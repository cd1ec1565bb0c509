//go:build !cgo || purego

package dds

import (
	"context"

	"github.com/edged-robotics/edged/ros"
)

// Built reports whether this build has Cyclone DDS: false in this one.
const Built = false

// Participant is unavailable without Cyclone DDS: NewParticipant returns
// ErrNotBuilt.
type Participant struct{}

// NewParticipant checks cfg, then returns ErrNotBuilt.
func NewParticipant(cfg Config) (*Participant, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return nil, ErrNotBuilt
}

// DomainID is the participant's domain.
func (p *Participant) DomainID() int { return 0 }

// Publications returns nothing.
func (p *Participant) Publications() []Publication { return nil }

// WaitPublications returns ErrNotBuilt.
func (p *Participant) WaitPublications(ctx context.Context, ok func([]Publication) bool) ([]Publication, error) {
	return nil, ErrNotBuilt
}

// Subscribe returns ErrNotBuilt.
func (p *Participant) Subscribe(ctx context.Context, opts SubscribeOptions) (*Subscription, error) {
	return nil, ErrNotBuilt
}

// NewWriter returns ErrNotBuilt.
func (p *Participant) NewWriter(topic, typ string, qos QoS) (*Writer, error) { return nil, ErrNotBuilt }

// NewWriterOn returns ErrNotBuilt.
func (p *Participant) NewWriterOn(ddsTopic, typ string, qos QoS) (*Writer, error) {
	return nil, ErrNotBuilt
}

// Close does nothing.
func (p *Participant) Close() error { return nil }

// Subscription is unavailable without Cyclone DDS.
type Subscription struct{}

// Topic returns "".
func (s *Subscription) Topic() string { return "" }

// Messages returns a closed channel.
func (s *Subscription) Messages() <-chan *ros.Message {
	ch := make(chan *ros.Message)
	close(ch)
	return ch
}

// QoS returns the zero QoS.
func (s *Subscription) QoS() (QoS, bool) { return QoS{}, false }

// Stats returns zeros.
func (s *Subscription) Stats() ros.SubscriptionStats { return ros.SubscriptionStats{} }

// Mismatched returns 0.
func (s *Subscription) Mismatched() uint64 { return 0 }

// Close does nothing.
func (s *Subscription) Close() error { return nil }

// Writer is unavailable without Cyclone DDS.
type Writer struct{}

// Write returns ErrNotBuilt.
func (w *Writer) Write(data []byte) error { return ErrNotBuilt }

// Matched returns 0.
func (w *Writer) Matched() int { return 0 }

// Close does nothing.
func (w *Writer) Close() error { return nil }
