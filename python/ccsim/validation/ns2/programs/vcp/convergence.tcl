# convergence.tcl -- scenario (b): fairness convergence, flows with different RTTs joining one
# by one (and optionally leaving).  Default: 5 flows with RTTs 40,60,80,120,150 ms on a 45 Mb/s
# bottleneck, flow i starts at i*gap s (gap=100), throughput sampled every tick (1 s).
#   $CCSIM_NS2_VCP convergence.tcl bw=45 n=5 gap=100 dur=600 tick=0.5
# Keys: as dumbbell.tcl, plus gap (s between starts when start is not given explicitly) and
#   leave (1: after the last join, flows leave last-in-first-out, one every gap s; needs
#   dur >= (2n-1)*gap to see them all leave).
source [file join [file dirname [info script]] vcp-lib.tcl]
vcp_args {bw 45 rtt 40,60,80,120,150 n 5 nrev 0 start "" gap 100 leave 0 stop "" jitter 0 buf ""
          bufbdp 1.0 dur 600 warmup 0 seed 1 tick 1.0 qdt 0.01 qts 0 lftrace 0 access 10 bdelay ""
          pkt 1000 scheme vcp tcp229 0 ackprio 1 alpha 1.0}
if {$vopt(start) == ""} {
    set l {}
    for {set i 0} {$i < $vopt(n)} {incr i} { lappend l [expr {$i * $vopt(gap)}] }
    set vopt(start) [join $l ,]
}
if {$vopt(leave) && $vopt(stop) == ""} {
    # flows leave last-in-first-out after all have joined: flow n-1 stops first
    set l {}
    set tjoin [expr {($vopt(n) - 1) * $vopt(gap)}]
    for {set i 0} {$i < $vopt(n)} {incr i} {
        lappend l [expr {$tjoin + ($vopt(n) - $i) * $vopt(gap)}]
    }
    set vopt(stop) [join $l ,]
}
vcp_run
