package temporal

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"go.temporal.io/api/serviceerror"
	sdktemporal "go.temporal.io/sdk/temporal"
)

// Mission.Result waits again when one long poll for the result timed
// out, and only then: a mission's own failure or cancellation is its
// answer.
func TestPollTimedOut(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"the poll's context", fmt.Errorf("polling: %w", context.DeadlineExceeded), true},
		{"the server's deadline", serviceerror.NewDeadlineExceeded("context deadline exceeded"), true},
		{"the workflow failed", sdktemporal.NewApplicationError("failed", "max_turns_exceeded"), false},
		{"the workflow was cancelled", sdktemporal.NewCanceledError(), false},
		{"not found", serviceerror.NewNotFound("no such workflow"), false},
		{"other", errors.New("connection refused"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := pollTimedOut(tt.err); got != tt.want {
				t.Errorf("pollTimedOut(%v) = %v, want %v", tt.err, got, tt.want)
			}
		})
	}
}
