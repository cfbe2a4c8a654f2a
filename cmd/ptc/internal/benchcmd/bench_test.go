package benchcmd

import (
	"testing"
	"time"
)

func TestThreeDigits(t *testing.T) {
	for _, tt := range []struct{ in, want time.Duration }{
		{999, 999},
		{4248, 4250},
		{3_935_850, 3_940_000},
		{216_456, 216_000},
		{12_345_678_901, 12_300_000_000},
	} {
		if got := ThreeDigits(tt.in); got != tt.want {
			t.Errorf("threeDigits(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}
