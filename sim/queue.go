package sim

// job is one job in a server's queue.
type job struct {
	arrival   float64 // arrival time (0 for the jobs of the start)
	size      float64 // service requirement
	finishTag float64 // PS: the server's virtual time at which the job completes
	flags     uint8   // flagObserved, flagBusy, flagRandom
}

// Flags of a job.
const (
	flagObserved uint8 = 1 << iota // observed: one observation in the job series when it leaves
	flagBusy                       // sent to a server holding at least one job
	flagRandom                     // JIQ: sent without a token
)

// server is one server's queue. The engine keeps its number of jobs n
// (engine.queueLen) and passes it in; the jobs are in jobs[:n] as a ring
// buffer in arrival order from head (FCFS) or as a binary min-heap on
// finish tags (PS). len(jobs) is 0 until the first job, then a power of
// two that doubles when full, so a queue allocates only when it reaches a
// record length.
type server struct {
	jobs []job
	head int // FCFS: position of the job in service

	serviceStart float64 // FCFS: when the job in service entered service

	// PS: virtual is the service every job present has received since the
	// server was last idle, as of time virtualAt; it grows at rate 1/n.
	virtual, virtualAt float64
}

// initialQueue is the storage a queue gets at its first job (a power of
// two); a server that never holds a job allocates none.
const initialQueue = 4

// enqueueFCFS appends j, arriving at now, to an FCFS queue of n jobs. It
// reports whether j entered service at once (the server was idle): the
// server's next completion is then now + j.size.
func (s *server) enqueueFCFS(n int, j job, now float64) (inService bool) {
	if n == len(s.jobs) {
		s.growRing()
	}
	s.jobs[(s.head+n)&(len(s.jobs)-1)] = j
	if n == 0 {
		s.serviceStart = now
	}
	return n == 0
}

// dequeueFCFS completes the job in service of an FCFS queue of n ≥ 1 jobs
// at now. It returns the job, the time it waited before its service, and,
// when n > 1, the completion time of the next job, which enters service.
func (s *server) dequeueFCFS(n int, now float64) (j job, wait, next float64) {
	j = s.jobs[s.head]
	wait = s.serviceStart - j.arrival
	s.head = (s.head + 1) & (len(s.jobs) - 1)
	if n > 1 {
		s.serviceStart = now
		next = now + s.jobs[s.head].size
	}
	return j, wait, next
}

// arrivePS prepares a processor-sharing queue of n jobs for an arrival at
// now: room for one more job, and the virtual time (the service each job
// present has attained, restarted at 0 when the server was idle) advanced
// to now. The general engine and the Markovian fast path share it.
func (s *server) arrivePS(n int, now float64) {
	if n == len(s.jobs) {
		s.growHeap()
	}
	if n == 0 {
		s.virtual = 0
	} else {
		s.virtual += (now - s.virtualAt) / float64(n)
	}
	s.virtualAt = now
}

// enqueuePS adds j, arriving at now, to a processor-sharing queue of n
// jobs: it advances the virtual time, tags j with the virtual time at
// which it will be done, and returns the server's next completion time.
func (s *server) enqueuePS(n int, j job, now float64) (next float64) {
	s.arrivePS(n, now)
	j.finishTag = s.virtual + j.size
	s.push(n, j)
	return now + (s.jobs[0].finishTag-s.virtual)*float64(n+1)
}

// dequeuePS completes the job of least finish tag of a processor-sharing
// queue of n ≥ 1 jobs at now: it pops the heap, advances the virtual time
// to the job's tag, and returns the job, its delay (its time in system less
// its size: a PS job is served from its arrival and never waits in a
// queue, it is slowed by sharing) and, when n > 1, the server's next
// completion time. (The pop is written out here rather than in a function
// of its own: departures are half the events.)
func (s *server) dequeuePS(n int, now float64) (j job, wait, next float64) {
	q := s.jobs
	j = q[0]
	n--
	q[0] = q[n]
	for k := 0; ; {
		l := 2*k + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && q[r].finishTag < q[l].finishTag {
			m = r
		}
		if q[k].finishTag <= q[m].finishTag {
			break
		}
		q[k], q[m] = q[m], q[k]
		k = m
	}
	s.virtual = j.finishTag
	s.virtualAt = now
	if n > 0 {
		next = now + (s.jobs[0].finishTag-s.virtual)*float64(n)
	}
	return j, now - j.arrival - j.size, next
}

// growRing doubles the storage of an FCFS ring, unwrapping it to start
// at 0 (amortised: a queue reaches its longest length once).
func (s *server) growRing() {
	n := len(s.jobs)
	q := make([]job, max(2*n, initialQueue))
	for k := range n {
		q[k] = s.jobs[(s.head+k)&(n-1)]
	}
	s.head = 0
	s.jobs = q
}

// growHeap doubles the storage of a PS heap.
func (s *server) growHeap() {
	q := make([]job, max(2*len(s.jobs), initialQueue))
	copy(q, s.jobs)
	s.jobs = q
}

// push adds j to the PS heap jobs[:n].
func (s *server) push(n int, j job) {
	q := s.jobs
	q[n] = j
	for k := n; k > 0; {
		p := (k - 1) / 2
		if q[p].finishTag <= q[k].finishTag {
			break
		}
		q[p], q[k] = q[k], q[p]
		k = p
	}
}
