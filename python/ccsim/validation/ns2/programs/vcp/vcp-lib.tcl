# vcp-lib.tcl -- shared code for the VCP (Xia et al., SIGCOMM 2005) scenario programs.
# Run with the VCP-enabled ns-2.35 binary that tools/ns2-vcp/build.sh builds, named by
# $CCSIM_NS2_VCP (the stock ns-2.35 has no VCP).
#
# Arguments are key=value words (order free), e.g.
#     $CCSIM_NS2_VCP dumbbell.tcl bw=10 rtt=80 n=10 dur=60 seed=1
# Lists are comma-separated: rtt=40,60,80   start=0,50,100
# A list shorter than the number of flows is extended with its last element.
#
# Every output line is one record: the first word says what it is.
#   param <key> <value>                      the parameters actually used
#   flow <id> <t> <bytes> <rate_bps> <cwnd>  per-flow time series every tick seconds:
#                                            bytes = payload delivered in order (cumulative,
#                                            from the sender's highest cumulative ACK), rate over
#                                            the last tick, cwnd in packets
#   link <t> <util> <qpkts> <qbytes> <drops> bottleneck per tick: utilization over the last tick,
#                                            instantaneous queue, cumulative drops
#   q <t> <pkts> <bytes>                     bottleneck queue every qdt seconds (only with qts=1)
#   lf <t> <util> <lf_real_%> <load_factor_%> <code> <gamma> <steady_q_B> <load_B> <meanq_B> <nsamples>
#                                            one line per router measurement interval t_rho
#                                            (only with lftrace=1); code: 1 low, 2 high, 3 overload
#   sum <key> <value>                        summary over [warmup, dur]
#   flowsum <id> key value ...               per-flow summary
#   wall_s <seconds>                         wall-clock run time of the simulation

# ---------------------------------------------------------------- arguments
proc vcp_args {defaults} {
    global vopt argv
    array set vopt $defaults
    foreach a $argv {
        if {![regexp {^([A-Za-z_0-9]+)=(.*)$} $a -> k v]} {
            puts stderr "bad argument '$a' (expected key=value)"; exit 2
        }
        if {![info exists vopt($k)]} {
            puts stderr "unknown key '$k'; known: [lsort [array names vopt]]"; exit 2
        }
        set vopt($k) $v
    }
}

# list value -> exactly n elements (extend with last)
proc vcp_list {s n} {
    set l [split $s ,]
    if {[llength $l] == 0} { error "empty list" }
    set out {}
    for {set i 0} {$i < $n} {incr i} {
        if {$i < [llength $l]} { lappend out [lindex $l $i] } else { lappend out [lindex $l end] }
    }
    return $out
}

proc vcp_print_params {} {
    global vopt
    foreach k [lsort [array names vopt]] { puts "param $k $vopt($k)" }
}

# ---------------------------------------------------------------- defaults
# ns-2.29 (the ns version VCP 0.1 was released for) Agent/TCP defaults that differ from
# ns-2.35's; tcp229=1 applies them (docs/validation.md, "VCP against its authors' ns-2 code").
proc vcp_tcp229 {} {
    Agent/TCP set numdupacksFrac_ 100
    Agent/TCP set maxrto_ 100000
    Agent/TCP set rtxcur_init_ 6.0
    Agent/TCP set precisionReduce_ false
    Agent/TCP set bugfix_ss_ 0
    Agent/TCP set SetCWRonRetransmit_ false
}

# ---------------------------------------------------------------- topology
# Dumbbell: s_i -- r0 ==bottleneck== r1 -- d_i.  The bottleneck is simplex in each direction
# (r0->r1 forward data, r1->r0 ACKs and reverse-flow data), both VcpQueue (scheme=vcp) with
# set-link-capacity called, as in VCP's own sample scripts.  Flow i's two access links each get
# one-way delay (rtt_i/2 - bdelay)/2, so its round-trip propagation delay is exactly rtt_i.
proc vcp_build {} {
    global vopt ns r0 r1 SRC SINK QUEUE flows btnk_buf qmon rtts starts stops pktwire
    set n    $vopt(n)
    set nrev $vopt(nrev)
    set C    [expr {$vopt(bw) * 1e6}]

    if {$vopt(scheme) == "vcp"} {
        set SRC TCP/Reno/VcpSrc; set SINK VcpSink; set QUEUE DropTail2/VcpQueue
        # DropTail2 serves ACKs from a second FIFO ahead of data (two_queue_, read when
        # the queue is created); ackprio=0 makes it one FIFO
        Queue/DropTail2 set two_queue_ [expr {$vopt(ackprio) ? "true" : "false"}]
        # AI's alpha_ (bound: the class default reaches every agent)
        Agent/TCP/Reno/VcpSrc set alpha_ $vopt(alpha)
    } elseif {$vopt(scheme) == "reno"} {
        set SRC TCP/Reno; set SINK TCPSink; set QUEUE DropTail
    } else { puts stderr "scheme must be vcp or reno"; exit 2 }

    set rtts   [vcp_list $vopt(rtt) [expr {$n + $nrev}]]
    set starts [vcp_list $vopt(start) [expr {$n + $nrev}]]
    if {$vopt(jitter) > 0} {
        # start offsets uniform in [0, jitter] ms (VCP's one-bottleneck script used 1..300 ms)
        set u [new RandomVariable/Uniform]
        $u set min_ 0.0
        $u set max_ [expr {$vopt(jitter) / 1000.0}]
        set js {}
        foreach st $starts { lappend js [expr {$st + [$u value]}] }
        set starts $js
    }
    set stops  [vcp_list [expr {$vopt(stop) == "" ? $vopt(dur) : $vopt(stop)}] [expr {$n + $nrev}]]
    set minrtt [lindex [lsort -real $rtts] 0]
    set sumrtt 0.0
    foreach x $rtts { set sumrtt [expr {$sumrtt + $x}] }
    set avgrtt [expr {$sumrtt / [llength $rtts]}]
    if {$vopt(bdelay) == ""} { set vopt(bdelay) [expr {0.4 * $minrtt}] }
    if {[expr {$minrtt / 2.0 - $vopt(bdelay)}] < 0} {
        puts stderr "bdelay=$vopt(bdelay) ms exceeds half the smallest rtt ($minrtt ms)"; exit 2
    }

    # buffer: packets, or bufbdp x C x mean RTT in 1000-byte packets, at least 2 per flow
    # (the rule of VCP's sample scripts)
    if {$vopt(buf) != ""} {
        set btnk_buf $vopt(buf)
    } else {
        set btnk_buf [expr {int($vopt(bufbdp) * $C * $avgrtt / 1000.0 / 8000.0 + 0.5)}]
        set minbuf [expr {2 * ($n + $nrev)}]
        if {$btnk_buf < $minbuf} { set btnk_buf $minbuf }
    }
    set vopt(buf_used) $btnk_buf
    set vopt(bdelay_used) $vopt(bdelay)

    Agent/TCP set packetSize_ $vopt(pkt)
    set pktwire [expr {$vopt(pkt) + [Agent/TCP set tcpip_base_hdr_size_]}]

    set r0 [$ns node]
    set r1 [$ns node]
    $ns simplex-link $r0 $r1 $vopt(bw)Mb $vopt(bdelay)ms $QUEUE
    $ns simplex-link $r1 $r0 $vopt(bw)Mb $vopt(bdelay)ms $QUEUE
    $ns queue-limit $r0 $r1 $btnk_buf
    $ns queue-limit $r1 $r0 $btnk_buf
    if {$vopt(scheme) == "vcp"} {
        foreach {a b} [list $r0 $r1 $r1 $r0] {
            set l [$ns link $a $b]
            [$l queue] set-link-capacity [[$l set link_] set bandwidth_]
        }
    }
    set accbw [expr {$vopt(bw) * $vopt(access)}]
    set accbuf [expr {$btnk_buf * 10 > 10000 ? $btnk_buf * 10 : 10000}]

    set flows {}
    for {set i 0} {$i < $n + $nrev} {incr i} {
        set rev [expr {$i >= $n}]
        set rtt [lindex $rtts $i]
        set ad  [expr {($rtt / 2.0 - $vopt(bdelay)) / 2.0}]
        set s [$ns node]
        set d [$ns node]
        if {$rev} { set rs $r1; set rd $r0; set fid [expr {1000 + $i - $n}] } else { set rs $r0; set rd $r1; set fid $i }
        $ns duplex-link $s $rs ${accbw}Mb ${ad}ms DropTail
        $ns duplex-link $rd $d ${accbw}Mb ${ad}ms DropTail
        foreach {a b} [list $s $rs $rs $s $rd $d $d $rd] { $ns queue-limit $a $b $accbuf }
        set tcp [$ns create-connection $SRC $s $SINK $d $fid]
        set ftp [$tcp attach-source FTP]
        $ns at [lindex $starts $i] "$ftp start"
        $ns at [lindex $stops $i] "$ftp stop"
        lappend flows [list $fid $tcp $rtt [lindex $starts $i] [lindex $stops $i] $rev]
    }

    set qmon [$ns monitor-queue $r0 $r1 0]
    if {$vopt(lftrace) && $vopt(scheme) == "vcp"} {
        [[$ns link $r0 $r1] queue] set lf_trace_ 1
    }
}

# the router calls this every t_rho when lf_trace_ is 1 (instrumentation, vcp-queue.cc)
Queue/DropTail2/VcpQueue instproc lf-trace {t len util lfd lf code gamma steadyq load meanq nsamp} {
    puts [format "lf %.3f %.4f %.2f %d %d %.4f %d %d %d %d" $t $util $lfd $lf $code $gamma $steadyq $load $meanq $nsamp]
}

# ---------------------------------------------------------------- measurement
proc vcp_delivered {tcp} {
    global vopt
    set a [$tcp set ack_]
    if {$a < 0} { return 0 }
    return [expr {wide($a + 1) * $vopt(pkt)}]
}

proc vcp_qsample {} {
    global ns qmon vopt qmax qsum qcnt qts_on
    set now [$ns now]
    set p [$qmon set pkts_]
    if {$now >= $vopt(warmup)} {
        if {$p > $qmax} { set qmax $p }
        set qsum [expr {$qsum + $p}]
        incr qcnt
    }
    if {$vopt(qts)} { puts [format "q %.3f %d %d" $now $p [$qmon set size_]] }
    $ns at [expr {$now + $vopt(qdt)}] "vcp_qsample"
}

proc vcp_tick {} {
    global ns qmon vopt flows lastbytes lastdep
    set now [$ns now]
    set C [expr {$vopt(bw) * 1e6}]
    foreach f $flows {
        lassign $f fid tcp
        set b [vcp_delivered $tcp]
        set rate [expr {($b - $lastbytes($fid)) * 8.0 / $vopt(tick)}]
        set lastbytes($fid) $b
        puts [format "flow %d %.3f %d %.0f %.3f" $fid $now $b $rate [$tcp set cwnd_]]
    }
    set dep [$qmon set bdepartures_]
    puts [format "link %.3f %.4f %d %d %d" $now [expr {($dep - $lastdep) * 8.0 / ($C * $vopt(tick))}] \
              [$qmon set pkts_] [$qmon set size_] [$qmon set pdrops_]]
    set lastdep $dep
    $ns at [expr {$now + $vopt(tick)}] "vcp_tick"
}

proc vcp_mark_warmup {} {
    global ns qmon w0 flows wbytes
    set now [$ns now]
    set pint [$qmon get-pkts-integrator]
    set bint [$qmon get-bytes-integrator]
    $pint newpoint $now [$qmon set pkts_]
    $bint newpoint $now [$qmon set size_]
    array set w0 [list t $now dep [$qmon set bdepartures_] parr [$qmon set parrivals_] \
        pdrops [$qmon set pdrops_] psum [$pint set sum_] bsum [$bint set sum_]]
    foreach f $flows {
        lassign $f fid tcp
        set wbytes($fid) [vcp_delivered $tcp]
    }
}

proc vcp_finish {} {
    global ns qmon vopt w0 flows wbytes qmax qsum qcnt t_wall0 pktwire
    set now [$ns now]
    set T [expr {$now - $w0(t)}]
    set C [expr {$vopt(bw) * 1e6}]
    set pint [$qmon get-pkts-integrator]
    set bint [$qmon get-bytes-integrator]
    $pint newpoint $now [$qmon set pkts_]
    $bint newpoint $now [$qmon set size_]
    set dep   [expr {[$qmon set bdepartures_] - $w0(dep)}]
    set parr  [expr {[$qmon set parrivals_] - $w0(parr)}]
    set drops [expr {[$qmon set pdrops_] - $w0(pdrops)}]
    puts [format "sum window_s %.3f %.3f" $w0(t) $now]
    puts [format "sum util %.5f" [expr {$dep * 8.0 / ($C * $T)}]]
    puts [format "sum queue_mean_pkts %.3f" [expr {([$pint set sum_] - $w0(psum)) / $T}]]
    puts [format "sum queue_mean_bytes %.1f" [expr {([$bint set sum_] - $w0(bsum)) / $T}]]
    puts [format "sum queue_max_pkts %d" $qmax]
    puts [format "sum queue_mean_pkts_sampled %.3f" [expr {$qcnt > 0 ? double($qsum) / $qcnt : 0}]]
    puts [format "sum drops_pkts %d" $drops]
    puts [format "sum arrivals_pkts %d" $parr]
    puts [format "sum drops_total_pkts %d" [$qmon set pdrops_]]
    puts [format "sum loss_rate %.6f" [expr {$parr > 0 ? double($drops) / $parr : 0}]]
    puts [format "sum buffer_pkts %s" $vopt(buf_used)]
    puts [format "sum pkt_wire_bytes %d" $pktwire]
    set tot(0) 0.0; set tot(1) 0.0
    foreach f $flows {
        lassign $f fid tcp rtt st sp rev
        set b [vcp_delivered $tcp]
        set wb [expr {$b - $wbytes($fid)}]
        set tot($rev) [expr {$tot($rev) + $wb}]
        set act [expr {min($now, $sp) - max($w0(t), $st)}]
        set gp_act [expr {$act > 0 ? $wb * 8.0 / $act : 0}]
        set extra ""
        if {$vopt(scheme) == "vcp"} {
            set extra [format " md_timer_expiries %d" [$tcp set md_wait_timer_counter_]]
        }
        puts [format "flowsum %d rtt_ms %s start %.6f stop %s rev %d goodput_bps %.0f goodput_active_bps %.0f bytes_window %d bytes_total %d cwnd %.3f retx_pkts %d timeouts %d cwnd_cuts %d%s" \
                  $fid $rtt $st $sp $rev [expr {$wb * 8.0 / $T}] $gp_act $wb $b [$tcp set cwnd_] \
                  [$tcp set nrexmitpack_] [$tcp set nrexmit_] [$tcp set ncwndcuts_] $extra]
    }
    puts [format "sum goodput_fwd_bps %.0f" [expr {$tot(0) * 8.0 / $T}]]
    if {$vopt(nrev) > 0} { puts [format "sum goodput_rev_bps %.0f" [expr {$tot(1) * 8.0 / $T}]] }
    # Jain's fairness index over forward flows' window goodput
    set s 0.0; set s2 0.0; set k 0
    foreach f $flows {
        lassign $f fid tcp rtt st sp rev
        if {$rev} continue
        set x [expr {[vcp_delivered $tcp] - $wbytes($fid)}]
        set s [expr {$s + $x}]; set s2 [expr {$s2 + double($x) * $x}]; incr k
    }
    if {$k > 0 && $s2 > 0} { puts [format "sum jain_fwd %.4f" [expr {$s * $s / ($k * $s2)}]] }
    puts [format "wall_s %.2f" [expr {([clock milliseconds] - $t_wall0) / 1000.0}]]
    exit 0
}

# common run: build, schedule measurement, run
proc vcp_run {} {
    global vopt ns flows lastbytes lastdep qmax qsum qcnt t_wall0
    set t_wall0 [clock milliseconds]
    if {$vopt(tcp229)} { vcp_tcp229 }
    set ns [new Simulator]
    $ns use-scheduler Heap
    global defaultRNG
    $defaultRNG seed $vopt(seed)
    if {$vopt(warmup) == ""} { set vopt(warmup) [expr {$vopt(dur) / 5.0}] }
    vcp_build
    vcp_print_params
    foreach f $flows { set lastbytes([lindex $f 0]) 0 }
    set lastdep 0
    set qmax 0; set qsum 0; set qcnt 0
    $ns at 0.0 "vcp_qsample"
    if {$vopt(tick) > 0} { $ns at $vopt(tick) "vcp_tick" }
    $ns at $vopt(warmup) "vcp_mark_warmup"
    $ns at $vopt(dur) "vcp_finish"
    $ns run
}
