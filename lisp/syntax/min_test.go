package syntax
import ("testing";"os";"time")
func TestMinTime(t *testing.T){
 b,_ := os.ReadFile("../../../shared/bench/w6.ptc")
 src := string(b)
 best := time.Hour
 for i:=0;i<5000;i++ { s:=time.Now(); Read(src); if d:=time.Since(s); d<best {best=d} }
 t.Logf("min Read %v", best)
}
