// A Go program of known shape for pscope's Go views: 20 goroutines parked
// on a channel receive in parked(), 5 blocked on a sync.Mutex that main
// holds, one spinning in spinLeaf() <- spinner(), and main asleep. Lines
// the tests check carry a "LINE:name" marker. Prints "ready" once every
// goroutine has started.
package main

import (
	"fmt"
	"os"
	"sync"
	"time"
)

var sink int

//go:noinline
func spinLeaf(n int) int {
	s := 0
	for i := 0; i < n; i++ {
		s += i * i // LINE:spinLeaf
	}
	return s
}

//go:noinline
func spinner(started *sync.WaitGroup) {
	started.Done()
	for {
		sink += spinLeaf(1000000)
	}
}

//go:noinline
func parked(ch chan int, started *sync.WaitGroup) {
	started.Done()
	<-ch // LINE:parked
}

//go:noinline
func locker(mu *sync.Mutex, started *sync.WaitGroup) {
	started.Done()
	mu.Lock() // LINE:locker
}

func main() {
	var mu sync.Mutex
	var started sync.WaitGroup
	ch := make(chan int)
	mu.Lock()
	started.Add(26)
	for i := 0; i < 20; i++ {
		go parked(ch, &started)
	}
	for i := 0; i < 5; i++ {
		go locker(&mu, &started)
	}
	go spinner(&started)
	started.Wait()
	fmt.Println("ready")
	os.Stdout.Sync()
	for {
		time.Sleep(time.Hour) // LINE:main
	}
}
