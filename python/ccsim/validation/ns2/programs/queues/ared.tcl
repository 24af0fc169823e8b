# Adaptive RED (adaptive_ 1) with automatic thresholds for 1000-B packets on
# 10 Mb/s (5/15 packets), q_weight 0 (1 - exp(-1/C)), gentle, packet mode,
# buffer 100. CBR load 1.05 C for 0-15 s, 1.4 C for 15-30 s, 1.02 C for 30-45 s:
# max_p climbs, then falls back.
# ccsim: ared.toml.
source [file join [file dirname [info script]] common.tcl]

Queue/RED set adaptive_ 1
Queue/RED set thresh_ 0
Queue/RED set maxthresh_ 0
Queue/RED set q_weight_ 0
Queue/RED set mean_pktsize_ 1000
Queue/RED set gentle_ true
Queue/RED set bytes_ false
Queue/RED set queue_in_bytes_ false
Queue/RED set use_mark_p_ false
Queue/RED set setbit_ false

set q [dumbbell 4 RED]
$ns queue-limit $r1 $r2 100
trace_bottleneck
cbr 0 10Mb 1000 0.0 45.0
cbr 1 0.5Mb 1000 0.0 15.0
cbr 2 4Mb 1000 15.0 30.0
cbr 3 0.2Mb 1000 30.0 45.0
$ns at 0.0 "sampler $q 0.1 {ave_ cur_max_p_}"
$ns at 45.0 "finish"
$ns run
