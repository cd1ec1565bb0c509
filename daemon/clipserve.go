package daemon

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/edged-robotics/edged/episode"
)

// GET /clips lists the incident clips in the store (StoredClip, JSON);
// GET /clips/EPISODE/NAME serves one (http.ServeContent: Range, so an
// interrupted `edged clip fetch` resumes). Read-only. An episode id must
// be this robot's (episode.CheckID) and a name exactly a clip's
// (episode.IsClipName), so nothing outside the store's clips
// directories is ever served.

// StoredClip is one clip GET /clips lists.
type StoredClip struct {
	Episode string    `json:"episode"`
	Name    string    `json:"name"`
	Bytes   int64     `json:"bytes"`
	Kind    string    `json:"kind"`
	At      time.Time `json:"at"`
	Where   string    `json:"where"` // episode.ClipOnRobot
}

// MaxListedClips caps the clips GET /clips lists (the newest first are
// kept; the budget, clips.max_bytes, keeps far fewer).
const MaxListedClips = 4096

func (d *Daemon) handleClips(w http.ResponseWriter, _ *http.Request) {
	clips, err := d.storedClips()
	if err != nil {
		http.Error(w, "clips: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(clips)
}

// storedClips lists the clips of every episode of the store, by trigger
// time.
func (d *Daemon) storedClips() ([]StoredClip, error) {
	dir := d.storeDir()
	eps, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	out := []StoredClip{}
	for _, ep := range eps {
		if !ep.IsDir() || episode.CheckID(d.cfg.RobotID, ep.Name()) != nil {
			continue
		}
		files, _ := os.ReadDir(episode.ClipDir(filepath.Join(dir, ep.Name()))) // most episodes have none
		for _, f := range files {
			at, kind, ok := episode.ParseClipName(f.Name())
			info, err := f.Info()
			if !ok || err != nil || !info.Mode().IsRegular() {
				continue
			}
			out = append(out, StoredClip{Episode: ep.Name(), Name: f.Name(), Bytes: info.Size(), Kind: kind, At: at, Where: episode.ClipOnRobot})
		}
	}
	slices.SortFunc(out, func(a, b StoredClip) int { return strings.Compare(a.Name, b.Name) })
	if len(out) > MaxListedClips {
		out = out[len(out)-MaxListedClips:]
	}
	return out, nil
}

func (d *Daemon) handleClipFile(w http.ResponseWriter, r *http.Request) {
	id, name := r.PathValue("episode"), r.PathValue("name")
	if episode.CheckID(d.cfg.RobotID, id) != nil || !episode.IsClipName(name) {
		http.Error(w, "not a clip of this robot: GET /clips lists them", http.StatusNotFound)
		return
	}
	f, err := os.Open(filepath.Join(episode.ClipDir(filepath.Join(d.storeDir(), id)), name))
	if err != nil {
		http.Error(w, "no such clip (deleted by clips.max_bytes or retention?): GET /clips lists them", http.StatusNotFound)
		return
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() {
		http.Error(w, "not a clip file", http.StatusNotFound)
		return
	}
	// A clip is larger than the server's write timeout allows on a slow
	// link: this response has none (an interrupted fetch resumes anyway).
	_ = http.NewResponseController(w).SetWriteDeadline(time.Time{})
	w.Header().Set("Content-Type", "application/octet-stream")
	http.ServeContent(w, r, name, info.ModTime(), f)
}

// storeDir is the episode store's directory (DATA_DIR/episodes).
func (d *Daemon) storeDir() string {
	if d.pipe == nil {
		return episode.StoreDir(d.cfg.DataDir)
	}
	if s := d.pipe.Store(); s != nil {
		return s.Dir()
	}
	return episode.StoreDir(d.cfg.DataDir)
}
