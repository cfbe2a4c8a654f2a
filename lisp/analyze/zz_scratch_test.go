package analyze

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

func TestZZScratch(t *testing.T) {
	b, err := os.ReadFile("/tmp/progs.txt")
	if err != nil {
		t.Skip()
	}
	for _, src := range strings.Split(string(b), "\n----\n") {
		src = strings.TrimSpace(src)
		if src == "" {
			continue
		}
		p, err := analyzeSrc(t, src, testConfig())
		if err != nil {
			fmt.Printf("%s\n  ERR:", src)
			if l, ok := err.(ErrorList); ok {
				for _, e := range l {
					fmt.Printf(" [%s %s: %s]", e.Kind, e.Pos, e.Msg)
				}
				fmt.Println()
			} else {
				fmt.Println(err)
			}
			continue
		}
		fmt.Printf("%s\n  => %s  slots=%d globals=%v defs=%v\n", src, dump(p.Body), p.NumSlots, p.Globals, p.Defs)
	}
}
