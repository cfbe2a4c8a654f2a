package temporal

import (
	"context"
	"time"

	"go.temporal.io/sdk/activity"
)

// heartbeatTimeout is the heartbeat timeout of the LLM and tool
// activities: a call whose worker has not heartbeat for this long is taken
// for lost and made again (much sooner than its own timeout). Heartbeats
// are also how an activity learns that its workflow cancelled it or ended:
// the SDK then cancels the activity's context, which the tool's Func and
// the model receive. The SDK sends a heartbeat at most every 80% of the
// timeout, so a cancelled call sees its context end within about 8 s.
const heartbeatTimeout = 10 * time.Second

// heartbeatEvery is how often a running call records a heartbeat (the SDK
// sends them on at its own pace).
const heartbeatEvery = time.Second

// heartbeat records heartbeats for the activity of ctx until the returned
// stop is called or ctx ends.
func heartbeat(ctx context.Context) (stop func()) {
	if !activity.IsActivity(ctx) {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(heartbeatEvery)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				activity.RecordHeartbeat(ctx)
			}
		}
	}()
	return func() { close(done) }
}
