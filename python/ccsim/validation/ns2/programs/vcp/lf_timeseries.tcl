# lf_timeseries.tcl -- scenario (c): router load factor, code and queue over time, with a sudden
# change of demand: n flows from t=0 (plus jitter), njoin more join at tjoin and leave at tleave.
# Prints one "lf" line per t_rho (router measurement), "q" lines every qdt, "link"/"flow" lines
# every tick, then the summaries (see vcp-lib.tcl for the record formats).
#   $CCSIM_NS2_VCP lf_timeseries.tcl bw=45 rtt=80 n=10 njoin=10 tjoin=20 tleave=40 dur=60
# Keys: as dumbbell.tcl, plus njoin, tjoin, tleave (s).  rtt may be a list over all n+njoin flows.
source [file join [file dirname [info script]] vcp-lib.tcl]
vcp_args {bw 45 rtt 80 n 10 njoin 10 tjoin 20 tleave 40 nrev 0 start "" stop "" jitter 100 buf ""
          bufbdp 1.0 dur 60 warmup 0 seed 1 tick 0.1 qdt 0.01 qts 1 lftrace 1 access 10 bdelay ""
          pkt 1000 scheme vcp tcp229 0 ackprio 1 alpha 1.0}
if {$vopt(nrev) > 0} { puts stderr "lf_timeseries.tcl: nrev is not supported here (use dumbbell.tcl)"; exit 2 }
if {$vopt(start) == "" && $vopt(stop) == ""} {
    set st {}; set sp {}
    for {set i 0} {$i < $vopt(n)} {incr i} { lappend st 0; lappend sp $vopt(dur) }
    for {set i 0} {$i < $vopt(njoin)} {incr i} { lappend st $vopt(tjoin); lappend sp $vopt(tleave) }
    set vopt(start) [join $st ,]
    set vopt(stop) [join $sp ,]
}
set vopt(n) [expr {$vopt(n) + $vopt(njoin)}]
vcp_run
