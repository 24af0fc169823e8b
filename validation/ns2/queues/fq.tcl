# Fair queueing (ns-2 FQ link: per-flow DropTail queues of 50 packets and its
# finish-time approximation) with the flows of drr.tcl. Max-min shares of
# 10 Mb/s: 1, 3, 3, 3 Mb/s. ccsim runs DKS fair queueing with a shared buffer.
# ccsim: scenarios/fq.toml.
source [file join [file dirname [info script]] common.tcl]

set q [dumbbell 4 FQ]
trace_bottleneck
cbr 0 1Mb 1000 0.0 20.0
cbr 1 4Mb 500 0.0 20.0
cbr 2 6Mb 1500 0.0 20.0
cbr 3 8Mb 1000 0.0 20.0
$ns at 20.0 "finish"
$ns run
