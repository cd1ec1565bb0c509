package rosbag2

import (
	"context"

	"github.com/edged-robotics/edged/bag/mcap"
)

// topicMeta is one topic of a storage file.
type topicMeta struct {
	name, typ, format string // format: the serialization format (cdr)
	definition        string // ros2msg text with its dependencies, "" when the file has none
	defEncoding       string // ros2msg, ros2idl, ...
}

// storage is one storage file of a bag. Its iterator yields messages in
// time order as (topic index in topics(), log time in ns, data borrowed
// until the next call).
type storage interface {
	topics() []topicMeta
	messages(ctx context.Context, want map[string]bool) storageIter
	problems() []string
	indexed() bool
	close() error
}

type storageIter interface {
	next() bool
	message() (topic int, t int64, data []byte)
	err() error
	// skips names the messages passed over (too large to load), each
	// once; the iteration went on after them.
	skips() []string
	close()
}

// mcapStorage reads an MCAP storage file.
type mcapStorage struct {
	r      *mcap.Reader
	metas  []topicMeta
	byChan map[*mcap.Channel]int
	byName map[string]int
}

func openMCAP(path string, opts Options) (*mcapStorage, error) {
	r, err := mcap.Open(path, mcap.Options{MaxChunkBytes: opts.MaxChunkBytes, VerifyDataCRC: opts.VerifyDataCRC})
	if err != nil {
		return nil, err
	}
	s := &mcapStorage{r: r, byChan: map[*mcap.Channel]int{}, byName: map[string]int{}}
	for _, c := range r.Channels() {
		s.add(c)
	}
	return s, nil
}

// add gives a channel its topic index: channels of one topic share one.
func (s *mcapStorage) add(c *mcap.Channel) int {
	if i, ok := s.byName[c.Topic]; ok {
		s.byChan[c] = i
		return i
	}
	m := topicMeta{name: c.Topic, format: c.MessageEncoding}
	if c.Schema != nil {
		m.typ, m.definition, m.defEncoding = c.Schema.Name, string(c.Schema.Data), c.Schema.Encoding
	}
	s.metas = append(s.metas, m)
	s.byName[c.Topic], s.byChan[c] = len(s.metas)-1, len(s.metas)-1
	return len(s.metas) - 1
}

func (s *mcapStorage) topics() []topicMeta { return s.metas }
func (s *mcapStorage) problems() []string  { return s.r.Info().Problems }
func (s *mcapStorage) indexed() bool       { return s.r.Info().Indexed }
func (s *mcapStorage) close() error        { return s.r.Close() }

func (s *mcapStorage) messages(_ context.Context, want map[string]bool) storageIter {
	var topics []string
	for t := range want {
		topics = append(topics, t)
	}
	if want != nil && len(topics) == 0 {
		topics = []string{"\x00none"} // a filter that matches nothing
	}
	return &mcapIter{s: s, it: s.r.Messages(topics...)}
}

type mcapIter struct {
	s  *mcapStorage
	it *mcap.Iterator
}

func (m *mcapIter) next() bool      { return m.it.Next() }
func (m *mcapIter) err() error      { return m.it.Err() }
func (m *mcapIter) close()          { m.it.Close() }
func (m *mcapIter) skips() []string { return nil } // mcap ends the iteration at damage

func (m *mcapIter) message() (int, int64, []byte) {
	msg := m.it.Message()
	i, ok := m.s.byChan[msg.Channel]
	if !ok {
		// a channel defined only inside a chunk: topics() did not list
		// it at Open, so the message is attributed by topic name
		i, ok = m.s.byName[msg.Channel.Topic]
		if !ok {
			i = -1
		}
	}
	return i, int64(msg.LogTime), msg.Data
}
