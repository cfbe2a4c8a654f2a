package testenv

import "testing"

func TestLong(t *testing.T) {
	for _, tt := range []struct {
		val  string
		long bool
	}{{"", false}, {"0", false}, {"no", false}, {"1", true}, {"true", true}, {"TRUE", true}} {
		t.Setenv(LongVar, tt.val)
		if got := Long(); got != tt.long {
			t.Errorf("%s=%q: Long() = %v, want %v", LongVar, tt.val, got, tt.long)
		}
		want := 10
		if tt.long {
			want = 1000
		}
		if got := Scale(10, 1000); got != want {
			t.Errorf("%s=%q: Scale(10, 1000) = %d, want %d", LongVar, tt.val, got, want)
		}
	}
}
