// Package queues computes, from queueing theory, the farms of N
// processor-sharing or FCFS servers that the simulator (validate/sim)
// measures under round robin, the least-work-left oracle, least loaded
// (JSQ) and random dispatch, with exponential or balanced-means H2 job
// sizes (spec.H2Params), and finds where two policies' curves cross.
//
// Time is in mean service times and λ is the load per server.
package queues
