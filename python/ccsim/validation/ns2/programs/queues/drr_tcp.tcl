# DRR (quantum 1500 B, shared buffer 50 000 B, head drop from the longest queue)
# with four NewReno flows whose access links have 1, 5, 10 and 20 ms delays
# (RTTs 24 to 100 ms): fair queueing makes their shares nearly equal although
# drop-tail would favour the short RTTs. Starts at 0, 0.5, 1, 1.5 s.
# ccsim: drr_tcp.toml.
source [file join [file dirname [info script]] common.tcl]

Queue/DRR set quantum_ 1500
Queue/DRR set blimit_ 50000
Queue/DRR set buckets_ 64

set q [dumbbell 4 DRR {1ms 5ms 10ms 20ms}]
trace_bottleneck
for {set i 0} {$i < 4} {incr i} {
    tcp $i [expr 0.5 * $i] 0
}
$ns at 60.0 "finish"
$ns run
