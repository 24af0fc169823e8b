# RED with ECN (setbit_) and four NewReno flows with ECN, 1000-B segments; gentle,
# thresholds 5/15 packets, max_p 0.1, w 0.002, packet mode, use_mark_p off (ns-2's
# behaviour before use_mark_p_: forced drops above 2 max_th even for ECT,
# docs/models/red.md),
# buffer 100. Starts at 0, 0.5, 1, 1.5 s.
# ccsim: red_ecn_tcp.toml.
source [file join [file dirname [info script]] common.tcl]

Queue/RED set thresh_ 5
Queue/RED set maxthresh_ 15
Queue/RED set linterm_ 10
Queue/RED set q_weight_ 0.002
Queue/RED set mean_pktsize_ 1000
Queue/RED set gentle_ true
Queue/RED set bytes_ false
Queue/RED set queue_in_bytes_ false
Queue/RED set use_mark_p_ false
Queue/RED set setbit_ true

set q [dumbbell 4 RED]
$ns queue-limit $r1 $r2 100
trace_bottleneck
for {set i 0} {$i < 4} {incr i} {
    tcp $i [expr 0.5 * $i] 1
}
$ns at 0.0 "sampler $q 0.01 {ave_ curq_}"
$ns at 60.0 "finish"
$ns run
