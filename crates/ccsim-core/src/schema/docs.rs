//! One line of documentation per scenario key (and per table), for the
//! schema's `description`s; the wording follows docs/user-guide.md and
//! docs/models/. An entry names a key by the end of its table path pattern:
//! `queue.limit` documents the `limit` of every queue, `flows[].cc` only the
//! flows' `cc`; the longest matching entry wins. A key without an entry is
//! described by what it accepts alone; the test `every_key_has_a_doc_line`
//! fails on any key the engine reads without an entry here.

pub const DOCS: &[(&str, &str)] = &[
    // top level
    (
        "seed",
        "seed of every random stream (one stream per link, flow, and the builder)",
    ),
    ("duration", "simulated time (positive)"),
    (
        "warmup",
        "start of the measurement window for the flow and queue tables (shorter than duration)",
    ),
    ("name", "a name"),
    ("description", "free text"),
    ("topology", "the network: kind = \"dumbbell\" or \"graph\""),
    (
        "flows",
        "[[flows]]: TCP flows and datagram sources (required unless workloads are given)",
    ),
    ("workloads", "[[workloads]]: open-loop connection arrivals"),
    (
        "components",
        "[[components]]: router components (token_gate, buc) placed on nodes",
    ),
    (
        "monitor",
        "[monitor]: time series sampled every interval (off by default)",
    ),
    (
        "capture",
        "[[capture]]: pcap captures of a link or of every link of a node",
    ),
    ("trace", "[trace]: per-packet event trace (off by default)"),
    // topology
    (
        "topology.kind",
        "\"dumbbell\" (pairs around a bottleneck R1->R2), \"graph\" (nodes and links) or \"leaf_spine\" (a two-tier data-centre fabric)",
    ),
    (
        "topology.ecmp",
        "equal-cost multipath: routers spread flows over equal-cost next hops by a per-flow hash (default: true on leaf_spine, false otherwise)",
    ),
    ("topology.leaves", "leaf_spine: number of leaf (top-of-rack) switches leaf<i>"),
    ("topology.spines", "leaf_spine: number of spine switches spine<j>, each linked to every leaf"),
    ("topology.hosts_per_leaf", "leaf_spine: hosts h<i>_<k> under each leaf"),
    (
        "topology.host_link",
        "leaf_spine: the host–leaf links {rate, delay, loss, jitter, queue (host to leaf), reverse_queue (leaf to host)}",
    ),
    (
        "topology.fabric_link",
        "leaf_spine: the leaf–spine links {rate, delay, loss, jitter, queue (leaf to spine), reverse_queue (spine to leaf)}",
    ),
    ("topology.pairs", "number of sender/receiver pairs of the dumbbell"),
    ("topology.bottleneck", "the R1–R2 link, both directions"),
    ("topology.access", "the senders' access links"),
    (
        "topology.receiver_access",
        "the receivers' access links (default: as access)",
    ),
    (
        "topology.bdp_rtt",
        "RTT used for \"bdp\" buffers (default: the two-way propagation delay)",
    ),
    (
        "topology.bdp_packet",
        "packet size used to express \"bdp\" buffers in packets (default: the largest TCP segment on the wire)",
    ),
    ("topology.nodes", "graph: the node names"),
    (
        "topology.links",
        "graph: the links {from, to, rate, delay, loss, jitter, duplex, queue, reverse_queue}",
    ),
    ("from", "graph link: first node"),
    ("to", "graph link: second node"),
    ("duplex", "graph link: both directions (true) or from → to only"),
    ("rate", "rate"),
    (
        "delay",
        "propagation delay: a time, a list (one per pair) or {uniform = [min, max]} (one draw per pair)",
    ),
    ("uniform", "[min, max]: one uniform draw per pair or flow"),
    ("loss", "Bernoulli loss probability per packet"),
    (
        "jitter",
        "each packet propagates a uniform random time in [0, jitter) longer, never overtaking the one ahead",
    ),
    (
        "queue",
        "the queue discipline of the link: {kind = \"droptail\", limit = \"100pkt\"} or another kind with its keys",
    ),
    ("reverse_queue", "queue of the reverse direction (default: as queue)"),
    (
        "queue.kind",
        "queue discipline: droptail, red, ared, fq, drr, prio_discard, bmcc, codel, fq_codel, pie (docs/models/), or python (a class of your own, docs/extending.md)",
    ),
    (
        "queue.class",
        "kind = \"python\": the discipline's class, \"module:Class\" (importable; any other key of the table is a parameter of its constructor)",
    ),
    (
        "reverse_queue.class",
        "kind = \"python\": the reverse direction's discipline class, \"module:Class\"",
    ),
    (
        "queue.limit",
        "buffer: packets waiting (not the one in service), bytes, a multiple of the BDP, or \"inf\"",
    ),
    (
        "reverse_queue.kind",
        "queue discipline of the reverse direction: droptail, red, ared, fq, drr, prio_discard, bmcc, codel, fq_codel, pie, python",
    ),
    (
        "reverse_queue.limit",
        "buffer of the reverse direction: packets waiting, bytes, a multiple of the BDP, or \"inf\"",
    ),
    ("inner", "bmcc router: the queue discipline it marks for"),
    (
        "min_th",
        "RED minimum threshold, packets (\"auto\" or 0: ns-2's automatic setting)",
    ),
    ("max_th", "RED maximum threshold, packets (\"auto\" or 0: 3 · min_th)"),
    ("max_p", "RED maximum drop probability at max_th"),
    (
        "q_weight",
        "RED averaging weight; 0: from the link rate; -1: ns-2's RTT-based rule",
    ),
    ("mean_pktsize", "RED mean packet size (idle-time decay, byte mode)"),
    ("target_delay", "Adaptive RED target queueing delay"),
    ("wait", "RED: wait between drops (ns-2 wait_)"),
    ("gentle", "RED gentle mode between max_th and 2 · max_th"),
    ("byte_mode", "RED: drop probability scaled by packet size"),
    ("queue_in_bytes", "RED: average queue in bytes"),
    ("use_mark_p", "RED: mark_p used for marking"),
    ("interval", "period"),
    ("top", "Adaptive RED: upper bound of max_p"),
    (
        "mark_p",
        "RED with use_mark_p: below this drop probability an ECN packet is marked, above it dropped (ns-2's mark_p_)",
    ),
    (
        "alpha",
        "Adaptive RED: additive increase of max_p per interval (Floyd, Gummadi & Shenker 2001); PIE: weight of the delay error, 1/s (default 0.125)",
    ),
    (
        "beta",
        "Adaptive RED: multiplicative decrease factor of max_p per interval, in (0, 1); PIE: weight of the delay trend, 1/s (default 1.25)",
    ),
    (
        "bottom",
        "Adaptive RED: lower bound of max_p (\"auto\": from the link rate)",
    ),
    ("quantum", "DRR / FQ-CoDel quantum: bytes a queue sends per round"),
    (
        "target",
        "CoDel / FQ-CoDel: acceptable standing queue delay (RFC 8289, default 5 ms, below interval); PIE: target queue delay (RFC 8033, default 15 ms)",
    ),
    (
        "queue.interval",
        "CoDel / FQ-CoDel: window the sojourn must stay above target before drops start (default 100 ms); Adaptive RED: period of the max_p adaptation",
    ),
    (
        "mtu",
        "CoDel / FQ-CoDel: no drop while the queue holds at most this many bytes; PIE: no early drop below twice this",
    ),
    (
        "queue.ecn",
        "CoDel / FQ-CoDel / PIE: mark ECN-capable packets instead of dropping them (FQ-CoDel: on by default)",
    ),
    (
        "queue.flows",
        "FQ-CoDel: number of flow queues (hash buckets), default 1024",
    ),
    (
        "reverse_queue.flows",
        "FQ-CoDel: number of flow queues (hash buckets), default 1024",
    ),
    (
        "drop_batch",
        "FQ-CoDel: most packets dropped from the fattest queue at one overflow (Linux: 64)",
    ),
    (
        "inv_sqrt",
        "CoDel: interval/sqrt(count) \"exact\" (RFC 8289) or by Linux's and ns-3's one Newton step per count (\"newton\")",
    ),
    (
        "mtu_backlog",
        "FQ-CoDel: whose backlog CoDel's one-MTU rule tests: \"total\" (Linux) or the flow's \"queue\" (ns-3)",
    ),
    (
        "derandomize",
        "PIE: de-randomized early drops (RFC 8033 §5.1, Linux; default true); false: with probability p alone (ns-3)",
    ),
    ("t_update", "PIE: period of the drop-probability update (default 15 ms)"),
    ("max_burst", "PIE: burst allowance before early drops (default 150 ms)"),
    (
        "burst",
        "PIE: when the burst allowance is restored: \"rfc8033\" (at every light update, Linux) or \"ns3\" (ns-3's burst periods)",
    ),
    (
        "drop",
        "fair queueing: drop from the tail or the head of the longest queue",
    ),
    (
        "variant",
        "priority discard: \"paper\" or \"fixed\" (docs/models/priority-discard.md)",
    ),
    (
        "overload",
        "bmcc router: on overload set CE (\"ce\") or run Adaptive RED (\"ared\")",
    ),
    (
        "ared",
        "bmcc router: the Adaptive RED table used with overload = \"ared\"",
    ),
    // flows
    (
        "flows[].kind",
        "transport: tcp (default), cbr, poisson, blt, bully-tyrant",
    ),
    ("flows[].name", "flow name (default f<index>)"),
    ("flows[].pairs", "dumbbell: \"all\" or a list of pair indices"),
    ("src", "sending node"),
    ("dst", "receiving node"),
    ("count", "copies of each flow"),
    ("start", "start time: a time, a list, or {uniform = [a, b]}"),
    ("stop", "end of the window (default: the end of the run)"),
    (
        "conventions",
        "defaults of several TCP keys: \"ccsim\", \"ns2\" for ns-2.35's one-way TCP, or \"ns3\" for ns-3.44's TCP (docs/models/tcp.md)",
    ),
    (
        "cc",
        "congestion control: a module name, or a table {kind = name, ...} with the module's keys",
    ),
    ("cc.kind", "congestion control module, or python (a class of your own, docs/extending.md)"),
    (
        "cc.class",
        "kind = \"python\": the class, \"module:Class\" (importable; any other key of the table is a parameter of its constructor)",
    ),
    ("mss", "payload bytes per segment"),
    ("header", "header bytes on the wire"),
    ("ack_size", "ACK size, bytes"),
    ("size", "bytes to transfer"),
    ("init_cwnd", "initial window, segments"),
    ("init_ssthresh", "initial slow-start threshold, bytes"),
    ("dupthresh", "duplicate ACKs for fast retransmit"),
    ("init_rto", "initial retransmission timeout"),
    ("min_rto", "lower bound of the retransmission timeout"),
    ("max_rto", "upper bound of the retransmission timeout"),
    (
        "rtt_estimator",
        "RFC 6298 in floating point, or ns-2's fixed-point estimator in clock ticks",
    ),
    ("rtt_tick", "clock tick of the RTT estimator"),
    ("clock_granularity", "G in RTO = SRTT + max(G, 4·RTTVAR)"),
    (
        "rtt_samples",
        "one timed segment per RTT (Karn), or a sample from every ACK's timestamp echo",
    ),
    ("rwnd", "receive buffer (advertised window)"),
    ("delayed_ack", "RFC 1122 delayed ACKs"),
    ("delack_timeout", "delayed-ACK timer"),
    ("ecn", "RFC 3168 ECN"),
    ("ecn_retransmissions", "retransmitted segments are ECT(0) too (ns-2)"),
    ("limited_transmit", "RFC 3042 limited transmit"),
    (
        "byte_counting",
        "congestion avoidance credits acknowledged bytes (RFC 3465)",
    ),
    (
        "loss_window",
        "what fast retransmit and ECN reduce: FlightSize, min(cwnd, rwnd), or RFC 6675's pipe (ns-3)",
    ),
    (
        "rto_ssthresh",
        "a timeout halves the window in use, or only once per window (Linux), or reduces as a fast retransmit does except during a timeout's recovery (ns-3)",
    ),
    ("full_ack", "the window on leaving fast recovery"),
    (
        "partial_ack_timer",
        "NewReno: restart the RTO timer on the first partial ACK only, or on every one",
    ),
    ("sack", "SACK loss recovery (RFC 6675)"),
    ("sack_blocks", "SACK blocks the receiver sends (0: no SACK)"),
    (
        "feedback",
        "a receiver-side mechanism filling the ACKs' feedback option: {kind = \"bmcc\"}",
    ),
    (
        "send_jitter",
        "ns-2's overhead_: each burst waits a uniform random time in [0, send_jitter)",
    ),
    (
        "pacing",
        "pace a module that sets no pacing rate at cwnd/srtt × 200 % (slow start) or 120 % (Linux); BBR always paces",
    ),
    (
        "cwr_hold",
        "no window growth for the round trip after an ECN reduction (Linux's and ns-3's CWR state)",
    ),
    (
        "send_limit",
        "what cwnd limits outside a recovery with SACK: \"flight\" (FlightSize, RFC 5681) or \"pipe\" (RFC 6675's pipe, as Linux and ns-3)",
    ),
    (
        "handshake",
        "SYN and SYN-ACK before data: data a round trip later, the SYN's RTT the first sample (ns-3, Linux)",
    ),
    (
        "rearm_rto",
        "a fast retransmit restarts the retransmission timer (ns-2, Linux); off: it runs on from the last new ACK (ns-3)",
    ),
    (
        "rtt_gains",
        "SRTT/RTTVAR gains with a sample per ACK: \"rfc6298\" (1/8, 1/4) or \"rfc7323\" (Appendix G: divided by FlightSize/(2·SMSS))",
    ),
    (
        "prr",
        "Proportional Rate Reduction (RFC 9937) in SACK recovery and after an ECN reduction (Linux, ns-3)",
    ),
    (
        "prr_bound",
        "when PRR lets one segment more out below ssthresh: \"safe-ack\" (RFC 9937, Linux), \"retransmitted\" (ns-3.44), \"slow-start\" (RFC 6937, every ACK)",
    ),
    ("cc.high_gain", "BBR STARTUP pacing and cwnd gain (> 0; 2/ln 2)"),
    ("cc.drain_gain", "BBR DRAIN pacing gain (> 0; ln 2 / 2)"),
    ("cc.cwnd_gain", "BBR PROBE_BW cwnd gain (> 0; 2)"),
    ("cc.probe_gain", "BBR PROBE_BW probing pacing gain (> 0; 1.25)"),
    ("cc.probe_drain_gain", "BBR PROBE_BW draining pacing gain (> 0; 0.75)"),
    ("cc.bw_window", "BBR BtlBw max-filter window, round trips (10)"),
    ("cc.min_rtt_window", "BBR RTprop min-filter window (10 s)"),
    ("cc.probe_rtt_time", "BBR PROBE_RTT minimum duration (200 ms)"),
    (
        "cc.pacing_margin",
        "BBR paces this fraction below gain × BtlBw (0.01, Linux bbr_pacing_margin_percent)",
    ),
    (
        "cc.full_bw_thresh",
        "BBR full pipe: BtlBw growth factor per round still counted as growth (1.25)",
    ),
    ("cc.full_bw_rounds", "BBR full pipe: rounds without that growth (3)"),
    ("packet_size", "packet size"),
    ("size_dist", "datagram sizes: fixed or exponential"),
    ("gamma", "BLT: growth factor of the priority classes"),
    ("md_rule", "BMCC multiplicative decrease rule"),
    ("kappa1", "BMCC router constant κ1"),
    ("kappa2", "BMCC constant κ2"),
    ("beta_max", "BMCC largest multiplicative decrease factor"),
    ("beta_min", "BMCC smallest multiplicative decrease factor"),
    ("sack_fallback", "BMCC: fall back to SACK recovery"),
    (
        "unflagged_overload",
        "BMCC: on overload without a flag, additive increase or hold",
    ),
    (
        "feedback.kind",
        "the receiver feedback mechanism (bmcc: the receiver estimate of the BMCC paper, docs/models/bmcc.md)",
    ),
    (
        "cc.rtt",
        "BMCC: the RTT that scales the MI/AI/MD updates: the smoothed RTT (srtt) or the minimum (min)",
    ),
    ("cc.c", "CUBIC: the constant C of W_cubic(t) = C(t − K)³ + W_max, segments/s³, > 0 (RFC 9438: 0.4)"),
    (
        "cc.beta",
        "CUBIC: β_cubic, the window kept at a reduction, in the open interval (0, 1) (RFC 9438: 0.7); Vegas: above this Diff (segments) cwnd shrinks by one segment per RTT",
    ),
    ("cc.fast_convergence", "CUBIC: fast convergence (RFC 9438 §4.7)"),
    (
        "cc.timeout_w_max",
        "CUBIC after a timeout: \"reset\" (K = 0, RFC 9438 §4.8, Linux) or \"keep\" the timeout's W_max (ns-3)",
    ),
    (
        "cc.variant",
        "CUBIC's arithmetic: \"rfc9438\" (real-valued window), \"linux\" (tcp_cubic.c: whole segments, one segment per cnt ACKs) or \"ns3\" (TcpCubic: Linux's, with ns-3's ACK count). DCTCP's growth: \"rfc8257\" (Reno's, as the sender counts) or \"ns3\" (TcpDctcp: TcpLinuxReno's count, kept through reductions)",
    ),
    (
        "cc.hystart",
        "CUBIC: slow start \"off\" (RFC 5681) or \"hystart++\" (RFC 9406) in the initial slow start",
    ),
    ("cc.g", "DCTCP: the gain g of the α estimate, in (0, 1] (RFC 8257: 1/16)"),
    ("cc.alpha_init", "DCTCP: the initial α, in [0, 1] (Linux and ns-3: 1)"),
    ("cc.alpha", "Vegas: below this Diff (segments) cwnd grows by one segment per RTT"),
    ("cc.gamma", "Vegas: above this Diff (segments) slow start ends"),
    (
        "cc.loss",
        "Vegas: the reduction at a loss, \"halve\" (Reno, Linux) or \"one_segment\" (ns-3's TcpVegas: ssthresh = cwnd - 1 segment)",
    ),
    (
        "queue.threshold",
        "step: mark ECN-capable arrivals finding at least this many packets waiting (DCTCP's K)",
    ),
    (
        "reverse_queue.threshold",
        "step: mark ECN-capable arrivals finding at least this many packets waiting (DCTCP's K)",
    ),
    ("queue.non_ect", "step: a Not-ECT arrival above the threshold is dropped or let in"),
    (
        "reverse_queue.non_ect",
        "step: a Not-ECT arrival above the threshold is dropped or let in",
    ),
    ("transport.kind", "the connections' transport: tcp, blt or bully-tyrant"),
    ("on_ce", "BMCC feedback: a CE mark sets the estimate or a flag"),
    ("hash", "ADPM hash of the IP id"),
    // workloads
    ("workloads[].name", "name in the result tables (default w<index>)"),
    (
        "workloads[].pairs",
        "dumbbell: \"all\" or a list of pair indices whose hosts open the connections",
    ),
    (
        "transport",
        "the connections' transport: a table of flow keys (kind = tcp, blt, bully-tyrant)",
    ),
    ("sources", "instead of pairs: source node names"),
    ("destinations", "instead of pairs: destination node names"),
    ("direction", "forward, reverse, or both (one process per direction)"),
    (
        "process",
        "one arrival process per direction (shared) or per pair and direction (per_pair)",
    ),
    ("arrival_rate", "connections per second of each process"),
    ("offered_load", "instead of arrival_rate: bit/s of each process"),
    (
        "workloads[].size",
        "file sizes: a size, or {dist = \"exponential\" | \"pareto\", mean, min, shape}",
    ),
    ("dist", "size distribution"),
    ("shape", "Pareto shape"),
    ("mean", "mean size"),
    ("min", "Pareto minimum size"),
    (
        "completions",
        "the run ends at this workload's K-th completed connection",
    ),
    (
        "complete_first",
        "the run ends once the first K connections have completed",
    ),
    (
        "max_alive",
        "the run ends when an arrival finds this many connections alive",
    ),
    ("pick", "which pair an arrival takes: uniform, or the idle longest"),
    // components
    ("components[].node", "the node hosting the component"),
    (
        "components[].kind",
        "component: token_gate or buc (docs/models/router-components.md)",
    ),
    ("forward", "token gate: the link it governs"),
    ("buffer", "token gate buffer"),
    ("packet_length", "token gate packet length"),
    ("threshold", "token gate threshold"),
    ("in_transit", "token gate: count packets in transit or not"),
    ("ports", "BUC: \"all\" or output link names"),
    ("tbu", "BUC: the buffer"),
    ("w_init", "BUC: initial window"),
    ("up", "BUC: window increase factor"),
    ("down", "BUC: window decrease factor"),
    ("idle", "BUC: idle time before a window is dropped"),
    ("rounding", "BUC: rounding of windows"),
    ("measure", "BUC: measure before or after the queue"),
    ("w_init_from_ack", "BUC: take the initial window from the ACK"),
    ("events", "keep an event log (timeseries component_events)"),
    // monitor, capture, trace
    ("monitor.interval", "sampling interval (0s: off)"),
    ("queues", "\"all\" or link direction names (\"R1->R2\")"),
    ("monitor.flows", "\"all\" or flow names"),
    ("trace.flows", "\"all\" or flow and workload names"),
    ("links", "\"all\" or link direction names"),
    (
        "ns2",
        "also write ns-2's trace-all text format (true, or a file name ending in .tr)",
    ),
    ("link", "capture the packets starting onto this link"),
    ("capture[].node", "capture every link leaving and reaching this node"),
    ("file", "output file name (.pcap or .pcapng)"),
    ("snaplen", "bytes kept of each packet"),
    (
        "capture[].handshake",
        "a synthetic SYN/SYN-ACK before each TCP flow without a handshake of its own",
    ),
];

/// The documentation of the key (or table) at `path`, a table pattern and key.
pub fn doc(path: &str) -> Option<&'static str> {
    DOCS.iter()
        .filter(|(k, _)| path == *k || path.ends_with(&format!(".{k}")) || path.ends_with(&format!(".{k}[]")))
        .max_by_key(|(k, _)| k.len())
        .map(|(_, d)| *d)
}
