package main

import (
	"io"
	"strings"
	"testing"
)

func TestParseApproveReject(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want decideArgs
	}{
		{[]string{"approve", "gw_1a"}, decideArgs{approve: true, id: "gw_1a"}},
		{[]string{"reject", "gw_1a", "--reason", "not today"}, decideArgs{id: "gw_1a", reason: "not today"}},
		{[]string{"reject", "--reason", "no\x1b[2J", "gw_1a"}, decideArgs{id: "gw_1a", reason: "no␛[2J"}},
	} {
		f, err := parseFlags(tt.args, io.Discard)
		if err != nil || f.command != "decide" || f.decide != tt.want {
			t.Errorf("%q: %+v, %v; want %+v", tt.args, f.decide, err, tt.want)
		}
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"approve"}, "give the id of a waiting call"},
		{[]string{"approve", "gw_1", "gw_2"}, `unexpected argument "gw_2"`},
		{[]string{"approve", "../x"}, "not a call id"},
		{[]string{"approve", "gw_1", "--reason", "x"}, "flag provided but not defined"},
		{[]string{"approvals", "x"}, `unexpected argument "x"`},
	} {
		if _, err := parseFlags(tt.args, io.Discard); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: %v, want %q", tt.args, err, tt.want)
		}
	}
}
