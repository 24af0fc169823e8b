# RED after idle periods: classic settings in packets (thresholds 10/30, max_p 0.1,
# w 0.002, wait, not gentle, buffer 100 packets). CBR of 1000-B packets at
# 12 Mb/s (1.2 C) for 0-10 s builds the average to max_th; the source is silent
# 10-12 s; then 3 Mb/s (0.3 C) for 12-20 s, with a second silence 15-17 s.
# At the first arrival after a silence RED ages the average as if
# floor(ptc * idle time) packets had found the queue empty (the queue is idle
# from the end of the last serialization); the average then starts near 0.
# ccsim: red_idle.toml.
source [file join [file dirname [info script]] common.tcl]

classic_red

set q [dumbbell 1 RED]
$ns queue-limit $r1 $r2 100
trace_bottleneck
cbr 0 12Mb 1000 0.0 10.0
cbr 0 3Mb 1000 12.0 15.0
cbr 0 3Mb 1000 17.0 20.0
$ns at 0.0 "sampler $q 0.01 {ave_ curq_}"
$ns at 20.0 "finish"
$ns run
