# Shared pieces of the queue-discipline comparisons with ccsim (see README.md).
#
# Topology (the same as ccsim's dumbbell in scenarios/*.toml): senders s_i -> r1 ->
# r2 -> receivers d_i; access links 100 Mb / 1 ms (or per-pair delays) with
# 1000-packet DropTail queues;
# bottleneck r1 -> r2 10 Mb / 10 ms with the discipline under test, DropTail 1000
# packets back. Each flow i has fid i and its own sender and receiver nodes.
#
# Output: the sampler's "sample <t> <name> <value>" lines go to the file named by
# the first argument, the bottleneck's event trace to the second (read by
# ccsim/validation/ns2/queue_disciplines.py).

set ns [new Simulator]
set out [open [lindex $argv 0] w]

proc dumbbell {n qtype {delays {}}} {
    global ns s d r1 r2
    set r1 [$ns node]
    set r2 [$ns node]
    for {set i 0} {$i < $n} {incr i} {
        set s($i) [$ns node]
        set d($i) [$ns node]
        set delay [expr {[llength $delays] > $i ? [lindex $delays $i] : "1ms"}]
        $ns duplex-link $s($i) $r1 100Mb $delay DropTail
        $ns duplex-link $r2 $d($i) 100Mb $delay DropTail
        $ns queue-limit $s($i) $r1 1000
        $ns queue-limit $r1 $s($i) 1000
        $ns queue-limit $r2 $d($i) 1000
        $ns queue-limit $d($i) $r2 1000
    }
    $ns simplex-link $r1 $r2 10Mb 10ms $qtype
    $ns simplex-link $r2 $r1 10Mb 10ms DropTail
    $ns queue-limit $r2 $r1 1000
    return [[$ns link $r1 $r2] queue]
}

# RED's classic settings in packets, as class defaults (before the link exists):
# thresholds 10/30, max_p 0.1, w 0.002, wait, not gentle, no ECN (red_cbr, red_idle).
proc classic_red {} {
    Queue/RED set thresh_ 10
    Queue/RED set maxthresh_ 30
    Queue/RED set linterm_ 10
    Queue/RED set q_weight_ 0.002
    Queue/RED set mean_pktsize_ 1000
    Queue/RED set wait_ true
    Queue/RED set gentle_ false
    Queue/RED set bytes_ false
    Queue/RED set queue_in_bytes_ false
    Queue/RED set use_mark_p_ false
    Queue/RED set setbit_ false
}

# A constant-bit-rate UDP flow i (packets of `size` bytes on the wire).
proc cbr {i rate size start stop} {
    global ns s d
    set udp [new Agent/UDP]
    $udp set fid_ $i
    $udp set packetSize_ $size ;# else UDP splits messages larger than 1000 B
    $ns attach-agent $s($i) $udp
    set sink [new Agent/Null]
    $ns attach-agent $d($i) $sink
    $ns connect $udp $sink
    set app [new Application/Traffic/CBR]
    $app attach-agent $udp
    $app set packetSize_ $size
    $app set rate_ $rate
    $app set random_ 0
    $ns at $start "$app start"
    $ns at $stop "$app stop"
}

# The four CBR flows of drr.tcl and fq.tcl: 1 Mb/s of 1000-B packets, 4 Mb/s
# of 500-B, 6 Mb/s of 1500-B, 8 Mb/s of 1000-B, 0-20 s (max-min: 1, 3, 3, 3).
proc four_unequal_cbr {} {
    cbr 0 1Mb 1000 0.0 20.0
    cbr 1 4Mb 500 0.0 20.0
    cbr 2 6Mb 1500 0.0 20.0
    cbr 3 8Mb 1000 0.0 20.0
}

# A bulk NewReno flow i (1000-byte segments + 40 bytes of headers), optionally ECN,
# with the settings the TCP comparison matches to ccsim's `conventions = "ns2"`
# (ccsim/validation/ns2/tcp_scenario.py): no SYN and no growth delay for it, limited transmit,
# NewReno's Impatient timer, an unlimited receiver window.
proc tcp {i start ecn} {
    global ns s d tcpsrc
    set tcpsrc($i) [new Agent/TCP/Newreno]
    $tcpsrc($i) set fid_ $i
    $tcpsrc($i) set window_ 1000000
    $tcpsrc($i) set packetSize_ 1000
    $tcpsrc($i) set syn_ false
    $tcpsrc($i) set delay_growth_ false
    $tcpsrc($i) set singledup_ 1
    $tcpsrc($i) set newreno_changes1_ 1
    $tcpsrc($i) set ecn_ $ecn
    $ns attach-agent $s($i) $tcpsrc($i)
    set snk [new Agent/TCPSink]
    $ns attach-agent $d($i) $snk
    $ns connect $tcpsrc($i) $snk
    set ftp [new Application/FTP]
    $ftp attach-agent $tcpsrc($i)
    $ns at $start "$ftp start"
}

# Samples variables of queue q every `iv` seconds: "sample t name value".
proc sampler {q iv names} {
    global ns out
    set t [$ns now]
    foreach v $names {
        puts $out "sample $t $v [$q set $v]"
    }
    $ns at [expr $t + $iv] "sampler $q $iv {$names}"
}

# Every event of the bottleneck queue r1 -> r2 (ns-2 trace format: + - d r, with
# the flow id and the flags, CE being "E") goes to the file named by argument 2.
proc trace_bottleneck {} {
    global ns r1 r2 argv tracefile
    set tracefile [open [lindex $argv 1] w]
    $ns trace-queue $r1 $r2 $tracefile
}

proc finish {} {
    global ns out tracefile
    $ns flush-trace
    close $tracefile
    close $out
    exit 0
}
