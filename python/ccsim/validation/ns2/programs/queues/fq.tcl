# Fair queueing (ns-2 FQ link: per-flow DropTail queues of 50 packets and its
# finish-time approximation) with the flows of drr.tcl. Max-min shares of
# 10 Mb/s: 1, 3, 3, 3 Mb/s. ccsim runs DKS fair queueing with a shared buffer.
# ccsim: fq.toml.
source [file join [file dirname [info script]] common.tcl]

set q [dumbbell 4 FQ]
trace_bottleneck
four_unequal_cbr
$ns at 20.0 "finish"
$ns run
