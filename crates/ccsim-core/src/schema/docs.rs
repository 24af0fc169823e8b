//! One line of documentation per scenario key common to the whole format,
//! for the schema's `description`s: the top level, the topology and its
//! links, the `kind`, `class` and `limit` of a queue (and the `kind` of the
//! other tables), a flow's TCP keys (tcp/params.rs), workloads, the token
//! gate, monitor, capture and trace. A model's own keys are not here: each
//! reader documents its keys next to their reads (`const DOCS` and
//! `t.docs(DOCS)` in the module's file, [`crate::cfg::Tab::docs`]), and a
//! reader's line wins over this table's. The wording follows
//! docs/user-guide.md and docs/models/. An entry names a key by the end of its
//! table path pattern: `queue.limit` documents the `limit` of every queue,
//! `flows[].cc` only the flows' `cc`; the longest matching entry wins. A key
//! without a line is described by what it accepts alone; the test
//! `every_key_has_a_doc_line` fails on any key the engine reads without a
//! line in its reader or here.

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
    (
        "topology",
        "the network: kind = \"dumbbell\", \"graph\", \"leaf_spine\" or \"fat_tree\"",
    ),
    (
        "switches",
        "[switches]: a buffer shared by each switch's output queues with dynamic thresholds, and PFC (crate::mmu)",
    ),
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
        "\"dumbbell\" (pairs around a bottleneck R1->R2), \"graph\" (nodes and links), \"leaf_spine\" (a two-tier data-centre fabric) or \"fat_tree\" (a three-tier k-ary fat-tree)",
    ),
    (
        "topology.ecmp",
        "equal-cost multipath: routers spread flows over equal-cost next hops by a per-flow hash (default: true on leaf_spine and fat_tree, false otherwise)",
    ),
    ("topology.leaves", "leaf_spine: number of leaf (top-of-rack) switches leaf<i>"),
    ("topology.spines", "leaf_spine: number of spine switches spine<j>, each linked to every leaf"),
    ("topology.hosts_per_leaf", "leaf_spine: hosts h<i>_<k> under each leaf"),
    (
        "topology.host_link",
        "leaf_spine, fat_tree: the host–leaf (host–edge) links {rate, delay, loss, jitter, queue (host to switch), reverse_queue (switch to host)}",
    ),
    (
        "topology.fabric_link",
        "leaf_spine: the leaf–spine links; fat_tree: the edge–aggregation links {rate, delay, loss, jitter, queue (up: leaf to spine, edge to aggregation), reverse_queue (down)}",
    ),
    (
        "topology.k",
        "fat_tree: ports per switch (even): k pods of k/2 edge and k/2 aggregation switches, (k/2)² core switches, k³/4 hosts",
    ),
    (
        "topology.oversubscription",
        "fat_tree: r·k/2 hosts under each edge switch over its k/2 uplinks (r ≥ 1; default 1, full bisection)",
    ),
    (
        "topology.core_link",
        "fat_tree: the aggregation–core links {rate, delay, loss, jitter, queue (aggregation to core), reverse_queue (core to aggregation)} (default: as fabric_link)",
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
        "queue discipline: one of the engine's (docs/models/), or python (a class of your own, docs/extending.md)",
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
        "queue discipline of the reverse direction (docs/models/), or python",
    ),
    (
        "reverse_queue.limit",
        "buffer of the reverse direction: packets waiting, bytes, a multiple of the BDP, or \"inf\"",
    ),
    // flows
    (
        "flows[].kind",
        "transport: tcp (default), cbr, poisson, blt, bully-tyrant",
    ),
    ("flows[].name", "flow name (default f<index>)"),
    (
        "flows[].after",
        "names of flows (or of flow tables) that must complete before these start; start is then the delay after the last",
    ),
    (
        "collectives[].kind",
        "the transport of the collective's flows: tcp (default), blt, bully-tyrant",
    ),
    (
        "collectives",
        "[[collectives]]: all-reduces over hosts, expanded into flows whose steps wait for the transfers they depend on",
    ),
    ("flows[].pairs", "dumbbell: \"all\" or a list of pair indices"),
    (
        "flows[].matrix",
        "instead of src and dst: a connection matrix {kind = \"permutation\" | \"incast\" | \"outcast\" | \"all_to_all\", hosts, …} whose every pair gets the table's flows",
    ),
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
    (
        "quickack",
        "with delayed ACKs, the first this many data segments are acknowledged at once (ns-3: 1)",
    ),
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
    (
        "feedback.kind",
        "the receiver feedback mechanism (bmcc: the receiver estimate of the BMCC paper, docs/models/bmcc.md)",
    ),
    ("transport.kind", "the connections' transport: tcp, blt or bully-tyrant"),
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
        "load",
        "instead of arrival_rate: a fraction of the sources' link capacity (one shared forward process), as data-centre studies set their load",
    ),
    (
        "workloads[].size",
        "file sizes: a size, or {dist = \"exponential\" | \"pareto\" | \"empirical\", mean, min, shape, cdf}",
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
    (
        "components[].flows",
        "token gate: \"all\" or the names of the flows whose ACKs it governs",
    ),
    ("in_transit", "token gate: count packets in transit or not"),
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
