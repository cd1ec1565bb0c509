package daemon

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/edged-robotics/edged/uplink"
)

// The status page lists the episodes awaiting the receiver, with what it
// said it lacks (the first five, and an ellipsis for more).
func TestStatusPageAwaiting(t *testing.T) {
	aw := []uplink.Awaiting{
		{Episode: "arm-20260101T000000.000Z", Since: time.Now().Add(-90 * time.Second), Held: 12, Resends: 1,
			Lacks: []string{"segment/1", "sheet/top/2", "sheet/top/3", "sheet/top/4", "sheet/top/5", "sheet/top/6"}, Unavailable: []string{"sheet/top/6"}},
		{Episode: "arm-20260101T000100.000Z", Since: time.Now(), Held: 3},
	}
	var page bytes.Buffer
	if err := statusPage.Execute(&page, pageData{Awaiting: aw}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`id="awaiting"`, "arm-20260101T000000.000Z", "1m30s", "12 messages", "segment/1 sheet/top/2", "&hellip;",
		"(1 no longer held)", "arm-20260101T000100.000Z"} {
		if !strings.Contains(page.String(), want) {
			t.Fatalf("status page lacks %q:\n%s", want, page.String())
		}
	}
}
