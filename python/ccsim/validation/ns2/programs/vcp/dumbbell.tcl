# dumbbell.tcl -- scenario (a): single bottleneck, N long-lived VCP flows.
# Paper setting (SIGCOMM'05 sec. 6.1, as recalled; check before quoting): bw=150 rtt=80 n=50
# nrev=50 bufbdp=1 pkt=1000; capacity/RTT/N sweeps vary one of them.
#   $CCSIM_NS2_VCP dumbbell.tcl bw=10 rtt=80 n=10 dur=60 seed=1
# Keys (defaults below): bw Mb/s; rtt ms (list ok); n forward flows; nrev reverse flows;
#   start s (list ok); stop s (list, default dur); jitter ms (uniform start offset);
#   buf pkts (overrides bufbdp); bufbdp x C x mean RTT / 1000 B; dur s; warmup s (default dur/5);
#   seed; tick s (flow/link time series, 0 = off); qdt s (queue sampling); qts 1 = print q lines;
#   lftrace 1 = print lf lines; access (access bw / bottleneck bw); bdelay ms (bottleneck one-way,
#   default 0.4 x min rtt); pkt payload bytes; scheme vcp|reno; tcp229 1 = ns-2.29 TCP defaults;
#   ackprio 0 = the VCP routers in one FIFO (default 1: ACKs served first, DropTail2 two_queue_);
#   alpha = the senders' AI constant alpha_ (default 1.0).
source [file join [file dirname [info script]] vcp-lib.tcl]
vcp_args {bw 10 rtt 80 n 10 nrev 0 start 0 stop "" jitter 0 buf "" bufbdp 1.0 dur 60 warmup ""
          seed 1 tick 1.0 qdt 0.01 qts 0 lftrace 0 access 10 bdelay "" pkt 1000 scheme vcp tcp229 0 ackprio 1 alpha 1.0}
vcp_run
