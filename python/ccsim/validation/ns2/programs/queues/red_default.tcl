# RED with ns-2.35's defaults (byte mode, queue in bytes with mean_pktsize 500,
# automatic thresholds and q_weight, gentle, use_mark_p): on 10 Mb/s that is
# thresholds 6.25/18.75 packets of 500 B, w = 1 - exp(-1/2500). Buffer 100
# packets of 500 B (ns-2 counts 100 x 500 bytes). Two CBR flows with different
# packet sizes, 1.1 C in all: flow 0 500-B packets at 6 Mb/s, flow 1 1500-B
# packets at 5 Mb/s; byte mode drops the large packets 3 times as often.
# ccsim: red_default.toml.
source [file join [file dirname [info script]] common.tcl]

set q [dumbbell 2 RED]
$ns queue-limit $r1 $r2 100
trace_bottleneck
cbr 0 6Mb 500 0.0 30.0
cbr 1 5Mb 1500 0.0 30.0
$ns at 0.0 "sampler $q 0.01 {ave_ curq_}"
$ns at 30.0 "finish"
$ns run
