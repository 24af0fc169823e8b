# DRR (ns-2 Queue/DRR): quantum 1500 B, shared buffer 25 000 B (blimit_), the
# longest queue loses its head. Four CBR flows from four hosts: 1 Mb/s of
# 1000-B packets, 4 Mb/s of 500-B, 6 Mb/s of 1500-B, 8 Mb/s of 1000-B.
# Max-min shares of 10 Mb/s: 1, 3, 3, 3 Mb/s.
# ccsim: drr.toml.
source [file join [file dirname [info script]] common.tcl]

Queue/DRR set quantum_ 1500
Queue/DRR set blimit_ 25000
Queue/DRR set buckets_ 64

set q [dumbbell 4 DRR]
trace_bottleneck
four_unequal_cbr
$ns at 20.0 "finish"
$ns run
