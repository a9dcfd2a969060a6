package ws

import "sync"

// Encoder is the coalescing writer of the Java MoonBridge's client mod (its
// ClientFrameEncoder, 2026-10-23; docs/design.md "Where this comes from"):
// Write only queues, and one goroutine writes what is queued. Packets
// queued while a write is in flight therefore share the next binary message
// (at most MaxBatchSize bytes), while a lone packet leaves at once: the
// writer is woken by the Write itself, there is no timer. Pongs
// and close frames do not pass through the queue; they take the connection's
// writer lock directly, between two batches.
//
// Memory is two batch buffers: the one being written and the one filling.
// Write blocks while both are full, which is the backpressure.
type Encoder struct {
	c *Conn

	mu       sync.Mutex
	wake     sync.Cond // the writer waits here for a queue
	progress sync.Cond // Write and Flush wait here for the writer
	// Signals cost a futex wake-up, so they go only to someone waiting.
	writerIdle bool
	waiters    int
	fill       []byte // headroom + queued payload
	spare      []byte // the other buffer, nil while the writer holds it
	queued     uint64 // payload bytes accepted by Write
	written    uint64 // payload bytes the writer has handled
	err        error  // first write error; sticky
	closed     bool
	done       chan struct{}
}

// NewEncoder starts the writer goroutine for c. Close stops it.
func NewEncoder(c *Conn) *Encoder {
	e := &Encoder{
		c:     c,
		fill:  make([]byte, MaxHeaderLen, MaxHeaderLen+MaxBatchSize),
		spare: make([]byte, MaxHeaderLen, MaxHeaderLen+MaxBatchSize),
		done:  make(chan struct{}),
	}
	e.wake.L, e.progress.L = &e.mu, &e.mu
	go e.run()
	return e
}

// Write queues a copy of p and returns; p may be reused at once. It blocks
// only while a full batch waits behind the one being written.
func (e *Encoder) Write(p []byte) (int, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	n := 0
	for n < len(p) {
		if e.err != nil {
			return n, e.err
		}
		if e.closed {
			return n, ErrClosed
		}
		room := cap(e.fill) - len(e.fill)
		if room == 0 {
			e.waitProgress()
			continue
		}
		k := min(room, len(p)-n)
		e.fill = append(e.fill, p[n:n+k]...)
		n += k
		e.queued += uint64(k)
		if e.writerIdle {
			e.wake.Signal()
		}
	}
	return n, nil
}

// Flush waits until everything queued before it has been written and
// returns the first write error.
func (e *Encoder) Flush() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	target := e.queued
	for e.written < target && e.err == nil {
		e.waitProgress()
	}
	return e.err
}

// waitProgress waits, with e.mu held, until the writer finishes a batch.
func (e *Encoder) waitProgress() {
	e.waiters++
	e.progress.Wait()
	e.waiters--
}

// Close writes what is queued, stops the writer and waits for it. It does
// not close the connection.
func (e *Encoder) Close() error {
	e.mu.Lock()
	e.closed = true
	e.wake.Signal()
	e.progress.Broadcast()
	e.mu.Unlock()
	<-e.done
	return e.err
}

// run is the writer: it takes the whole queue as one batch, writes it, and
// hands the buffer back for the next fill.
func (e *Encoder) run() {
	defer close(e.done)
	e.mu.Lock()
	defer e.mu.Unlock()
	for {
		for len(e.fill) == MaxHeaderLen && !e.closed {
			e.writerIdle = true
			e.wake.Wait()
			e.writerIdle = false
		}
		if len(e.fill) == MaxHeaderLen {
			return // closed and drained
		}
		batch := e.fill
		e.fill, e.spare = e.spare, nil
		// After a failed write the queue still drains, unwritten, so Flush
		// and Close return instead of waiting for bytes that never leave.
		err := e.err
		e.mu.Unlock()
		if err == nil {
			err = e.c.WriteBatch(batch)
		}
		e.mu.Lock()
		e.spare = batch[:MaxHeaderLen]
		e.written += uint64(len(batch) - MaxHeaderLen)
		if err != nil && e.err == nil {
			e.err = err
		}
		if e.waiters > 0 {
			e.progress.Broadcast()
		}
	}
}
