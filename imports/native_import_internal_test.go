package imports

import (
	"runtime"
	"testing"

	"github.com/google/uuid"
)

// An import made from a request holds none of it: a move-in's import lives until its records
// are stored, and one that pointed into its request kept the 44 MB export beside them.
func TestANativeImportLetsItsRequestGo(t *testing.T) {
	content := make([]byte, 1<<20)
	freed := make(chan struct{})
	runtime.AddCleanup(&content[0], func(ch chan struct{}) { close(ch) }, freed)
	im := newNativeImport(Request{UserID: uuid.New(), Upload: Upload{Content: content, Present: true}}, ActualImport)
	content = nil
	for range 20 {
		runtime.GC()
		select {
		case <-freed:
			runtime.KeepAlive(im)
			return
		default:
			runtime.Gosched()
		}
	}
	runtime.KeepAlive(im)
	t.Fatal("the import keeps its request's file from being freed")
}
