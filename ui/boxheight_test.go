package ui

import (
	"strings"
	"testing"
)

// TestAskBoxFitsAShortScreen: on a narrow, short screen the permission
// box's key line and the hint under the arguments wrap onto more rows;
// the box gives the arguments fewer rows so that it stays whole over the
// chat, its bottom border and its keys on screen. At 60×20 and 44×30 its
// bottom was cut off. (A screen shorter still, 50×18, has no room for
// the box's fixed rows even with one row of arguments: there it is still
// cut.)
func TestAskBoxFitsAShortScreen(t *testing.T) {
	for _, size := range [][2]int{{60, 20}, {80, 24}, {44, 30}, {120, 40}} {
		m := argsBoxModel(t, size[0], size[1])
		askCall(m, "", "write_file", map[string]any{
			"path": "/home/me/notes.txt", "content": strings.Repeat("long argument text ", 40),
			"mode": "overwrite", "backup": true, "encoding": "utf-8", "owner": "me"})
		v := m.View()
		rows := strings.Split(v, "\n")
		top, bottom := -1, -1
		for i, r := range rows {
			if strings.Contains(r, "╭") || strings.Contains(r, "┌") {
				top = i
			}
			if strings.Contains(r, "╰") || strings.Contains(r, "└") {
				bottom = i
			}
		}
		if top < 0 || bottom < top {
			t.Errorf("at %dx%d the box is not whole (top row %d, bottom row %d):\n%s", size[0], size[1], top, bottom, v)
			continue
		}
		box := strings.Join(rows[top:bottom+1], "\n")
		for _, want := range []string{"y run once", "deny and"} {
			if !strings.Contains(box, want) {
				t.Errorf("at %dx%d the box lacks %q:\n%s", size[0], size[1], want, v)
			}
		}
	}
}
