# RED, classic settings in packets (thresholds 10/30, max_p 0.1, w 0.002, wait,
# not gentle, buffer 100 packets), three CBR flows of 1000-B packets:
#   flow 0: 8 Mb/s, 0-30 s; flow 1: 2.5 Mb/s, 0-10 s; flow 2: 5 Mb/s, 20-30 s.
# Offered load 1.05 C (early drops), then 0.8 C (idle periods, the average
# decays), then 1.3 C (average at max_th: forced drops).
# ccsim: red_cbr.toml.
source [file join [file dirname [info script]] common.tcl]

classic_red

set q [dumbbell 3 RED]
$ns queue-limit $r1 $r2 100
trace_bottleneck
cbr 0 8Mb 1000 0.0 30.0
cbr 1 2.5Mb 1000 0.0 10.0
cbr 2 5Mb 1000 20.0 30.0
$ns at 0.0 "sampler $q 0.01 {ave_ curq_}"
$ns at 30.0 "finish"
$ns run
