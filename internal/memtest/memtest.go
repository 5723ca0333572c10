// Package memtest measures how much heap a piece of code holds, for the tests and benchmarks
// that bound what a reader may cost on large or hostile input.
package memtest

import (
	"runtime"
	"runtime/metrics"
	"sync"
	"time"
)

// Usage is what a run held above the heap that was live before it, in bytes.
type Usage struct {
	// Peak is the most heap in use at once, the garbage the collector had yet to reclaim
	// included: what the process's memory follows. With GOGC=100 it runs up to about twice
	// Live.
	Peak uint64
	// Live is the most heap found reachable at a collection during the run, or at its end with
	// its result.
	Live uint64
}

// MB returns the usage in megabytes, for messages and benchmark metrics.
func (u Usage) MB() (peak, live float64) { return MB(u.Peak), MB(u.Live) }

// MB is n bytes in megabytes.
func MB(n uint64) float64 { return float64(n) / (1 << 20) }

// Measure runs f and returns what it held. A sampler reads the heap every 200µs while f runs;
// after f returns a collection finds what is still reachable, so f's result counts as long as
// f stores it outside itself. Tests that measure must not run in parallel with others in their
// package.
func Measure(f func()) Usage {
	samples := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/gc/heap/live:bytes"}}
	read := func(s []metrics.Sample) (heap, live uint64) {
		metrics.Read(s)
		return s[0].Value.Uint64(), s[1].Value.Uint64()
	}
	runtime.GC()
	baseHeap, baseLive := read(samples)
	var (
		mu         sync.Mutex
		heap, live = baseHeap, baseLive
		done       = make(chan struct{})
		wg         sync.WaitGroup
	)
	note := func(h, l uint64) {
		mu.Lock()
		heap, live = max(heap, h), max(live, l)
		mu.Unlock()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		s := []metrics.Sample{{Name: samples[0].Name}, {Name: samples[1].Name}}
		t := time.NewTicker(200 * time.Microsecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				note(read(s))
			}
		}
	}()
	f()
	note(read(samples))
	close(done)
	wg.Wait()
	runtime.GC()
	note(read(samples))
	return Usage{Peak: heap - baseHeap, Live: live - baseLive}
}
