package permission

import (
	"sync/atomic"
	"time"
)

// shallow runs fn, a deep part of a request (reading, deciding, showing
// the card; applying and recording the answer), on a worker goroutine and
// waits for it. The request's goroutine then waits for the person's answer
// (minutes, thousands of cards at once) on a small stack: a stack grown
// while deciding stays grown while its goroutine waits, and the frames of
// the functions that decide (kilobytes each) would sit under the wait.
//
// The workers keep their grown stacks between requests: a goroutine made
// for each deep part grew its stack from the smallest size every time,
// and copying it was a tenth of an approval's CPU (docs/benchmarks.md,
// "Where the time goes"). A deep part takes an idle worker if one waits,
// else starts a new one, so deep parts never queue behind each other; a
// worker idle for deepIdle ends, returning its stack.
//
// A panic in fn is raised again in the caller, where the request's
// handler recovers it as before.
func shallow(fn func()) {
	j := deepJob{fn: fn, done: make(chan any, 1)}
	select {
	case deepJobs <- j:
	default:
		go deepWorker(j)
	}
	if p := <-j.done; p != nil {
		panic(p)
	}
}

// deepGo runs fn, a deep part, on a worker and returns without waiting for
// it: the completion of a request whose card was resolved, started by a
// callback that must not block. A panic in fn is fn's to recover (nobody
// waits to receive it; it is dropped).
func deepGo(fn func()) {
	j := deepJob{fn: fn}
	select {
	case deepJobs <- j:
	default:
		go deepWorker(j)
	}
}

// deepIdle is how long a worker waits for its next deep part; at most
// maxIdleDeep workers wait at once: a burst of a thousand cards starts a
// thousand workers, and each that found maxIdleDeep already waiting ends
// at once, returning its grown stack (it would otherwise sit under every
// pending card's memory for deepIdle).
const (
	deepIdle    = 10 * time.Second
	maxIdleDeep = 8
)

// idleDeep counts the workers waiting for a deep part.
var idleDeep atomic.Int32

type deepJob struct {
	fn   func()
	done chan any // the panic, or nil (nil for deepGo: nobody waits)
}

// deepJobs hands a deep part to an idle worker (unbuffered: only one
// waiting in its receive takes it).
var deepJobs = make(chan deepJob)

func deepWorker(j deepJob) {
	idle := time.NewTimer(deepIdle)
	defer idle.Stop()
	for {
		if p := runDeep(j.fn); j.done != nil {
			j.done <- p
		}
		if idleDeep.Add(1) > maxIdleDeep {
			idleDeep.Add(-1)
			return
		}
		idle.Reset(deepIdle)
		select {
		case j = <-deepJobs:
			idleDeep.Add(-1)
		case <-idle.C:
			idleDeep.Add(-1)
			return
		}
	}
}

func runDeep(fn func()) (p any) {
	defer func() { p = recover() }()
	fn()
	return nil
}
