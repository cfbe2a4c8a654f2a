package lisp

import "testing"

// TestLocalTimeTextRoundTrip: a time of day's text reads back as the same
// time, for every kind of fraction Java's toString writes, and text that
// is not Java's ISO_LOCAL_TIME is not a time of day.
func TestLocalTimeTextRoundTrip(t *testing.T) {
	for _, n := range []int64{0, 1, 999, 1_000, 999_999, 1_000_000, 59_999_999_999, 3_600_000_000_000,
		nanosPerDay - 1, 12*3_600_000_000_000 + 34*60_000_000_000 + 56_000_000_000 + 789_000_000} {
		text := localTimeText(n)
		got, ok := localTimeOf(text)
		if !ok || got != n {
			t.Errorf("localTimeOf(localTimeText(%d) = %q) = %d, %v", n, text, got, ok)
		}
	}
	for _, s := range []string{"", "9:30", "24:00", "10:60", "10:15:60", "10:15:", "10:15:30.", "10:15:30.1234567890",
		"10-15", "10:15:30,5", "10:1x", "１０:15", "10:15 "} {
		if _, ok := localTimeOf(s); ok {
			t.Errorf("localTimeOf(%q) reads a time of day", s)
		}
	}
}

// TestWrapDay: moves around the clock stay within a day, whatever the
// amount, as Java's LocalTime.plus does.
func TestWrapDay(t *testing.T) {
	for _, c := range []struct{ n, d, want int64 }{
		{0, -1, nanosPerDay - 1}, {nanosPerDay - 1, 1, 0}, {5, 3 * nanosPerDay, 5}, {5, -3*nanosPerDay - 6, nanosPerDay - 1},
		{0, 1<<63 - 1, (1<<63 - 1) % nanosPerDay}, {0, -1 << 63, nanosPerDay + (-1<<63)%nanosPerDay},
	} {
		if got := wrapDay(c.n, c.d); got != c.want {
			t.Errorf("wrapDay(%d, %d) = %d, want %d", c.n, c.d, got, c.want)
		}
	}
}
