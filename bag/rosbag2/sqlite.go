package rosbag2

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	_ "modernc.org/sqlite" // the sqlite3 storage: pure Go, so the pure-Go build reads .db3 too
)

// sqliteStorage reads a sqlite3 storage file (.db3): tables topics,
// messages, and message_definitions where rosbag2 wrote them (Iron+).
type sqliteStorage struct {
	db       *sql.DB
	path     string
	metas    []topicMeta
	ids      []int64 // topic ids, parallel to metas
	maxBytes int
}

func openSQLite(ctx context.Context, path string, opts Options) (*sqliteStorage, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	// read-only and immutable: a recorded bag is not written while it is
	// replayed, and a read-only directory must not need a journal
	u := url.URL{Scheme: "file", Path: abs, RawQuery: "mode=ro&immutable=1"}
	db, err := sql.Open("sqlite", u.String())
	if err != nil {
		return nil, fmt.Errorf("sqlite3 storage %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	s := &sqliteStorage{db: db, path: path, maxBytes: opts.MaxMessageBytes}
	if err := s.readTopics(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("sqlite3 storage %s: %w (is it a rosbag2 .db3 file?)", path, err)
	}
	return s, nil
}

func (s *sqliteStorage) readTopics(ctx context.Context) error {
	defs := s.definitions(ctx)
	rows, err := s.db.QueryContext(ctx, fmt.Sprintf(`SELECT id, name, type, serialization_format FROM topics ORDER BY id LIMIT %d`, maxTopics+1))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if len(s.metas) == maxTopics {
			return fmt.Errorf("more than %d topics: not a bag edged can replay", maxTopics)
		}
		var id int64
		var m topicMeta
		if err := rows.Scan(&id, &m.name, &m.typ, &m.format); err != nil {
			return err
		}
		d, ok := defs[m.typ]
		if !ok {
			// a service event's definition is stored under the service
			d, ok = defs[strings.TrimSuffix(m.typ, "_Event")]
		}
		if ok {
			m.definition, m.defEncoding = d[0], d[1]
		}
		s.ids, s.metas = append(s.ids, id), append(s.metas, m)
	}
	return rows.Err()
}

// definitions reads message_definitions (type -> text, encoding); a bag
// from before Iron has no such table: then none.
func (s *sqliteStorage) definitions(ctx context.Context) map[string][2]string {
	out := map[string][2]string{}
	rows, err := s.db.QueryContext(ctx, fmt.Sprintf(`SELECT topic_type, encoding, encoded_message_definition FROM message_definitions LIMIT %d`, maxTopics))
	if err != nil {
		return out
	}
	defer rows.Close()
	for rows.Next() {
		var typ, enc, text string
		if rows.Scan(&typ, &enc, &text) == nil && len(text) <= maxDefinitionBytes {
			out[typ] = [2]string{text, enc}
		}
	}
	return out
}

// maxDefinitionBytes caps one stored definition.
const maxDefinitionBytes = 1 << 20

// maxTopics caps the topics (and definitions) of one .db3: the rows
// read at Open are held in memory.
const maxTopics = 10000

func (s *sqliteStorage) topics() []topicMeta { return s.metas }
func (s *sqliteStorage) problems() []string  { return nil }
func (s *sqliteStorage) indexed() bool       { return true }
func (s *sqliteStorage) close() error        { return s.db.Close() }

func (s *sqliteStorage) messages(ctx context.Context, want map[string]bool) storageIter {
	it := &sqliteIter{s: s, index: map[int64]int{}}
	var ids []string
	for i, m := range s.metas {
		if want == nil || want[m.name] {
			ids = append(ids, fmt.Sprint(s.ids[i]))
			it.index[s.ids[i]] = i
		}
	}
	if len(ids) == 0 {
		return it
	}
	// the data only when within the cap: a bigger blob is never loaded
	q := fmt.Sprintf(`SELECT topic_id, timestamp, length(data), CASE WHEN length(data) <= %d THEN data END
		FROM messages WHERE topic_id IN (%s) ORDER BY timestamp, id`, s.maxBytes, strings.Join(ids, ","))
	it.rows, it.e = s.db.QueryContext(ctx, q)
	return it
}

type sqliteIter struct {
	s     *sqliteStorage
	rows  *sql.Rows
	index map[int64]int
	topic int
	t     int64
	data  sql.RawBytes
	e     error
	// skipped names the messages not yielded (over the cap), the first
	// maxSkips; skippedMore counts the rest
	skipped     []string
	skippedMore int
}

func (it *sqliteIter) next() bool {
	if it.rows == nil || it.e != nil {
		return false
	}
	for it.rows.Next() {
		var id, n int64
		if err := it.rows.Scan(&id, &it.t, &n, &it.data); err != nil {
			it.e = fmt.Errorf("sqlite3 storage %s: %w", it.s.path, err)
			return false
		}
		if n <= int64(it.s.maxBytes) {
			it.topic = it.index[id]
			return true
		}
		// its blob was never loaded: skip it, name it, read on
		if len(it.skipped) == maxSkips {
			it.skippedMore++
			continue
		}
		it.skipped = append(it.skipped, fmt.Sprintf("%s: the message at %d (topic id %d) is %d bytes, more than the cap of %d: skipped (raise MaxMessageBytes)",
			it.s.path, it.t, id, n, it.s.maxBytes))
	}
	it.e = it.rows.Err()
	return false
}

func (it *sqliteIter) skips() []string {
	if it.skippedMore == 0 {
		return it.skipped
	}
	return append(it.skipped, fmt.Sprintf("%s: %d more messages over the cap of %d skipped", it.s.path, it.skippedMore, it.s.maxBytes))
}

func (it *sqliteIter) message() (int, int64, []byte) { return it.topic, it.t, it.data }
func (it *sqliteIter) err() error                    { return it.e }
func (it *sqliteIter) close() {
	if it.rows != nil {
		it.rows.Close()
	}
}
