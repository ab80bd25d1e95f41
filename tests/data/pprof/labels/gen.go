// Records two labelled Go profiles for profkit's label tests:
//   cpu_labels.pb.gz   a CPU profile whose samples carry function=slow|fast
//                      (runtime/pprof labels set with pprof.Do)
//   heap_labels.pb.gz  a heap profile (every allocation sampled), whose
//                      samples carry the runtime's numeric label bytes
package main

import (
	"context"
	"os"
	"runtime"
	"runtime/pprof"
	"time"
)

var sink []byte
var keep [][]byte

//go:noinline
func spin(d time.Duration) uint64 {
	var x uint64
	end := time.Now().Add(d)
	for time.Now().Before(end) {
		for i := 0; i < 10000; i++ {
			x = x*6364136223846793005 + 1442695040888963407
		}
	}
	return x
}

//go:noinline
func slowWork() uint64 { return spin(1200 * time.Millisecond) }

//go:noinline
func fastWork() uint64 { return spin(300 * time.Millisecond) }

//go:noinline
func allocSmall() {
	for i := 0; i < 200; i++ {
		keep = append(keep, make([]byte, 64))
	}
}

//go:noinline
func allocLarge() {
	for i := 0; i < 20; i++ {
		keep = append(keep, make([]byte, 40000))
	}
}

//go:noinline
func allocMedium() {
	for i := 0; i < 50; i++ {
		keep = append(keep, make([]byte, 2048))
	}
}

func main() {
	runtime.MemProfileRate = 1
	f, _ := os.Create(os.Args[1])
	pprof.StartCPUProfile(f)
	ctx := context.Background()
	var r uint64
	for i := 0; i < 3; i++ {
		pprof.Do(ctx, pprof.Labels("function", "slow"), func(context.Context) { r += slowWork() })
		pprof.Do(ctx, pprof.Labels("function", "fast"), func(context.Context) { r += fastWork() })
	}
	r += spin(200 * time.Millisecond) // no label
	pprof.StopCPUProfile()
	f.Close()
	allocSmall()
	allocMedium()
	allocLarge()
	runtime.GC()
	h, _ := os.Create(os.Args[2])
	pprof.Lookup("heap").WriteTo(h, 0)
	h.Close()
	if r == 42 {
		println(r)
	}
}
