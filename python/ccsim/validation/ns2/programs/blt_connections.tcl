# The BLT TCP comparison's network and connections in ns-2.35, after the lines
# ccsim/validation/ns2/blt_tcp.py writes before it (the simulator, the TCP defaults,
# the routers r1 and r2 and the bottleneck between them) and these variables:
#   npairs        host pairs, each a sender src(i) and a receiver dst(i)
#   dl(i)         sender i's access delay, ms
#   bw_n          the access links' rate, Mb/s
#   hop_ms        the receivers' access delay, ms
#   access_limit  the access links' queue limit_ toward the routers, packets
#   pkts          packets per connection
# Prints a D line per completed connection, S lines (the bottleneck's queue-monitor
# counters) at `snap`, and an E line (pairs found busy) at `finish`.
for {set i 0} {$i < $npairs} {incr i} {
  set src($i) [$ns node]
  set dst($i) [$ns node]
  $ns simplex-link $src($i) $r1 ${bw_n}Mb $dl($i)ms DropTail
  $ns simplex-link $r1 $src($i) ${bw_n}Mb $dl($i)ms DropTail
  $ns simplex-link $r2 $dst($i) ${bw_n}Mb ${hop_ms}ms DropTail
  $ns simplex-link $dst($i) $r2 ${bw_n}Mb ${hop_ms}ms DropTail
  $ns queue-limit $src($i) $r1 $access_limit
  $ns queue-limit $r2 $dst($i) $access_limit
  $ns queue-limit $r1 $src($i) 1000000
  $ns queue-limit $dst($i) $r2 1000000
  set live($i) 0
}
set qm [$ns monitor-queue $r1 $r2 [open /dev/null w] 0.1]
set null [new Agent/Null]
set busy 0
# A connection: a fresh agent pair on host pair p.
proc arrive {k p} {
  global ns src dst tcp sink pair start busy live pkts
  if {$live($p)} { incr busy }
  incr live($p)
  set t [new Agent/TCP/Reno]
  $t set fid_ $k
  $ns attach-agent $src($p) $t
  set s [new Agent/TCPSink]
  $ns attach-agent $dst($p) $s
  $ns connect $t $s
  set tcp($k) $t
  set sink($k) $s
  set pair($k) $p
  set start($k) [$ns now]
  $t proc done {} "conn_done $k"
  $t advanceby $pkts
}
# TcpAgent::finish() calls `done` when the ACK of the last packet arrives.
proc conn_done {k} {
  global ns tcp sink pair start done live null
  if {[info exists done($k)]} return
  set done($k) 1
  set t $tcp($k)
  puts "D $k $start($k) [$ns now] [$t set nrexmitpack_] [$t set nrexmit_] $pair($k)"
  incr live($pair($k)) -1
  # Both ends close, as in ccsim (whose closed connections discard what still
  # arrives): a finished agent would answer a late duplicate ACK with a fast
  # retransmit of packet $pkts, and its sink would acknowledge late data.
  $t target $null
  $sink($k) target $null
  # reset cancels the agent's timers (newack() re-armed the retransmission timer).
  $ns at [$ns now] "$t reset"
}
proc snap {} {
  global ns qm
  puts "S [$ns now] [$qm set parrivals_] [$qm set pdrops_] [$qm set bdepartures_]"
}
proc finish {} {
  global ns busy
  puts "E [$ns now] $busy"
  exit 0
}
