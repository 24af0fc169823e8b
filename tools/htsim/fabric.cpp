// A fat-tree run of htsim's own TCP or DCTCP for ccsim's comparison (validation suite
// `ccsim validate htsim-fabric`, benches/fabric.py). Our program, built against htsim's
// library (Broadcom/csg-htsim) by tools/htsim/build.sh; it uses htsim's FatTreeTopology,
// TcpSrc/TcpSink (or DCTCPSrc), ECNQueue and TcpRtxTimerScanner unchanged.
//
//   fabric -k K -flows FILE -end_us T [-linkspeed_mbps C] [-latency_ns L] [-queue_pkts B]
//          [-cc tcp|dctcp|dctcp-rfc] [-seed S] [-sample_us P] [-scan_us R]
//          [-mark departure|arrival] [-ack_paths reverse|random] [-trace 0|1]
//
// FILE: one flow a line, "src dst bytes start_us [path [ack_path]]" (htsim's host
// numbers; bytes a whole number of 1500-byte packets; for explanatory runs, path: the
// index of the flow's path among FatTreeTopology::get_paths(src, dst) instead of a random
// one, ack_path: its ACKs' among get_paths(dst, src) instead of the same index). Every link is C Mb/s with latency L (htsim's one hop
// latency, no switching latency); every switch queue an ECNQueue of B packets with
// htsim's K = 15 packets (marks only matter to DCTCP: TcpSrc ignores ECN-Echo); host
// NICs htsim's FairPriorityQueue of 1 000 packets. A flow takes one of its paths at
// random (drawn from -seed), its ACKs one of the paths back drawn on its own (-ack_paths
// random, as ccsim hashes each direction) or the same path reversed (-ack_paths reverse,
// the default: get_paths(dst, src) at the same index). htsim's TcpRtxTimerScanner checks the senders' timers
// every R us (10 000, as htsim's TCP main). -cc dctcp-rfc: DCTCP as RFC 8257 cuts
// (RfcDctcpSrc below), and -mark arrival (ArrivalEcnQueue below), for explanatory runs
// only. Prints one line per flow
//   flow ID SRC DST BYTES START_US FCT_US SENT FR   (FCT -1: not completed by T; SENT the
//   data packets sent, retransmissions included; FR its fast retransmits)
// then "queue_drops NAME N" for each switch queue that dropped, then "drops N" (all switch queues), "delivered_pkts N" (data packets received in order), "queue_mean_bytes X" and "queue_max_bytes X"
// (the bytes waiting in the switch queues, the one in service not counted, sampled every
// P us: the mean over queues and samples, and the largest sample), and "timeouts N"
// (retransmission timeouts: the lines htsim's TcpSrc prints beginning "At ").
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <iostream>
#include <sstream>
#include <vector>

#include "config.h"
#include "network.h"
#include "eventlist.h"
#include "tcp.h"
#include "dctcp.h"
#include "ecnqueue.h"
#include "ecn.h"
#include "fat_tree_topology.h"

EventList the_events;

// With -trace 1: a line "trace drop T_US FLOW SEQ_PKT QUEUE" for each data packet a switch
// queue drops (FLOW the flow's line in FILE; SEQ_PKT its packet number, the SYN -1).
struct DropTrace : public TrafficLogger {
    std::map<flowid_t, size_t> index;
    void logTraffic(Packet& pkt, Logged& where, TrafficEvent ev) override {
        if (ev != PKT_DROP || pkt.type() != TCP) return;
        printf("trace drop %.3f %zu %lld %s\n", timeAsUs(EventList::now()), index[pkt.flow_id()],
               ((TcpPacket&)pkt).seqno() == 1 ? -1LL : (long long)(((TcpPacket&)pkt).seqno() - 2) / 1500,
               where.str().c_str());
    }
};
DropTrace* drop_trace = NULL;

// A TcpSrc/DCTCPSrc that records when its last byte is acknowledged.
template <class Base>
class TimedSrc : public Base {
public:
    TimedSrc(uint64_t bytes, simtime_picosec start)
        : Base(NULL, drop_trace, the_events), _bytes(bytes), _start(start) {
        // htsim's set_flowsize adds one MSS (the SYN's sequence number) and its sender
        // stops once _highest_sent > _flow_size + 1: with _flow_size = bytes - 1 it sends
        // exactly bytes / 1500 data packets, and the last one's ACK (seqno bytes + 1)
        // reaches _flow_size.
        this->_flow_size = bytes - 1;
    }
    void receivePacket(Packet& pkt) override {
        Base::receivePacket(pkt);
        if (_done < 0 && this->_last_acked >= this->_flow_size)
            _done = (double)(EventList::now() - _start) / 1e6;  // ps -> us
    }
    uint64_t _bytes;
    simtime_picosec _start;
    double _done = -1;
};

// The bytes waiting in a queue, the packet being serialized not counted (ccsim's
// backlog): htsim's Queue keeps that packet in _enqueued until its service completes.
struct Peek : public Queue {
    static mem_b waiting(BaseQueue* q) {
        Peek* p = static_cast<Peek*>(q);
        if (p->_enqueued.empty()) return 0;
        return p->_queuesize - p->_enqueued.next_to_pop()->size();
    }
};

// htsim's DCTCPSrc (dctcp.cpp) with one change, for the comparison's explanatory runs
// (-cc dctcp-rfc): the window is cut at the end of an observation window only if a mark
// was echoed in it (RFC 8257 §3.3), where DCTCPSrc cuts it whenever alpha > 0, alpha
// decaying but never reaching zero after a first mark.
class RfcDctcpSrc : public TcpSrc {
public:
    RfcDctcpSrc(TcpLogger* logger, TrafficLogger* pktlogger, EventList& events)
        : TcpSrc(logger, pktlogger, events) {
        _past_cwnd = 2 * Packet::data_packet_size();
        _rto = timeFromMs(10);
    }
    void deflate_window() override {
        _seen = _marked = 0;
        _ssthresh = max(_cwnd / 2, (uint32_t)(2 * _mss));
        _past_cwnd = _cwnd;
    }
    void receivePacket(Packet& pkt) override {
        _seen++;
        if (pkt.flags() & ECN_ECHO) {
            _marked++;
            if (_ssthresh > _cwnd) _ssthresh = _cwnd;
        }
        if (_seen * _mss >= _past_cwnd) {
            double f = (double)_marked / _seen;
            _alfa = 15.0 / 16.0 * _alfa + 1.0 / 16.0 * f;
            if (_marked > 0) {
                _cwnd = _cwnd * (1 - _alfa / 2);
                if (_cwnd < _mss) _cwnd = _mss;
                _ssthresh = _cwnd;
            }
            _seen = _marked = 0;
            _past_cwnd = _cwnd;
        }
        TcpSrc::receivePacket(pkt);
    }
    uint32_t _past_cwnd, _seen = 0, _marked = 0;
    double _alfa = 0;
};

// For explanatory runs (-mark arrival): a drop-tail queue marking CE on a packet that
// arrives to find at least 15 packets' bytes waiting (ccsim's step queue), where htsim's
// ECNQueue marks a departing packet when more than 15 packets' bytes, itself included,
// are queued.
class ArrivalEcnQueue : public Queue {
public:
    ArrivalEcnQueue(linkspeed_bps rate, mem_b size) : Queue(rate, size, the_events, NULL) {}
    void receivePacket(Packet& pkt) override {
        if (Peek::waiting(this) >= memFromPkt(15)) pkt.set_flags(pkt.flags() | ECN_CE);
        Queue::receivePacket(pkt);
    }
};

// Samples the switch queues' occupancy every period.
class Sampler : public EventSource {
public:
    Sampler(simtime_picosec period, std::vector<BaseQueue*> qs)
        : EventSource(the_events, "sampler"), _period(period), _qs(qs) {
        EventList::sourceIsPendingRel(*this, period);
    }
    void doNextEvent() override {
        for (auto q : _qs) {
            double b = (double)Peek::waiting(q);
            _sum += b;
            if (b > _max) _max = b;
        }
        _n += _qs.size();
        EventList::sourceIsPendingRel(*this, _period);
    }
    simtime_picosec _period;
    std::vector<BaseQueue*> _qs;
    double _sum = 0, _max = 0;
    uint64_t _n = 0;
};

static void usage() {
    std::cerr << "usage: fabric -k K -flows FILE -end_us T [-linkspeed_mbps C] [-latency_ns L]"
                 " [-queue_pkts B] [-cc tcp|dctcp] [-seed S] [-sample_us P]\n";
    exit(2);
}

int main(int argc, char** argv) {
    uint32_t k = 0;
    const char* flows = NULL;
    double end_us = 0, linkspeed_mbps = 10000, latency_ns = 1000, sample_us = 100, scan_us = 10000;
    uint32_t queue_pkts = 100;
    unsigned seed = 1;
    int cc = 0;  // 0 tcp, 1 dctcp, 2 dctcp-rfc
    bool mark_on_arrival = false, ack_random = false;
    for (int i = 1; i < argc; i++) {
        if (i + 1 >= argc) usage();
        const char* a = argv[i];
        const char* v = argv[++i];
        if (!strcmp(a, "-k")) k = atoi(v);
        else if (!strcmp(a, "-flows")) flows = v;
        else if (!strcmp(a, "-end_us")) end_us = atof(v);
        else if (!strcmp(a, "-linkspeed_mbps")) linkspeed_mbps = atof(v);
        else if (!strcmp(a, "-latency_ns")) latency_ns = atof(v);
        else if (!strcmp(a, "-queue_pkts")) queue_pkts = atoi(v);
        else if (!strcmp(a, "-seed")) seed = atoi(v);
        else if (!strcmp(a, "-sample_us")) sample_us = atof(v);
        else if (!strcmp(a, "-scan_us")) scan_us = atof(v);
        else if (!strcmp(a, "-trace")) {
            if (atoi(v)) drop_trace = new DropTrace();
        }
        else if (!strcmp(a, "-ack_paths")) {
            if (!strcmp(v, "random")) ack_random = true;
            else if (strcmp(v, "reverse")) usage();
        }
        else if (!strcmp(a, "-mark")) {
            if (!strcmp(v, "arrival")) mark_on_arrival = true;
            else if (strcmp(v, "departure")) usage();
        }
        else if (!strcmp(a, "-cc")) {
            if (!strcmp(v, "dctcp")) cc = 1;
            else if (!strcmp(v, "dctcp-rfc")) cc = 2;
            else if (strcmp(v, "tcp")) usage();
        } else usage();
    }
    if (!k || !flows || end_us <= 0) usage();
    srand(seed);
    EventList::setEndtime(timeFromUs(end_us));
    Packet::set_packet_size(1500);

    // std::cout is htsim's chatter; our lines go to stdout through printf after it.
    std::ostringstream chatter_text;
    std::streambuf* chatter = std::cout.rdbuf(chatter_text.rdbuf());

    FatTreeTopology* top = new FatTreeTopology(
        k * k * k / 4, speedFromMbps(linkspeed_mbps), memFromPkt(queue_pkts), NULL, &the_events,
        NULL, ECN, timeFromNs(latency_ns), 0, FAIR_PRIO);
    uint32_t n = top->no_of_nodes();

    std::vector<BaseQueue*> switch_queues;
    auto add = [&](std::vector<std::vector<std::vector<BaseQueue*>>>& qs) {
        for (auto& a : qs)
            for (auto& b : a)
                for (auto& q : b) {
                    if (!q) continue;
                    // Routes are made from these vectors when flows are connected, below.
                    if (mark_on_arrival)
                        q = new ArrivalEcnQueue(speedFromMbps(linkspeed_mbps),
                                                memFromPkt(queue_pkts));
                    switch_queues.push_back(q);
                }
    };
    add(top->queues_nlp_ns);
    add(top->queues_nup_nlp);
    add(top->queues_nc_nup);
    add(top->queues_nlp_nup);
    add(top->queues_nup_nc);
    Sampler sampler(timeFromUs(sample_us), switch_queues);

    TcpRtxTimerScanner scanner(timeFromUs(scan_us), the_events);
    std::vector<vector<const Route*>*> paths((size_t)n * n, NULL);
    auto paths_of = [&](uint32_t s, uint32_t d) {
        auto& p = paths[(size_t)s * n + d];
        if (!p) p = top->get_paths(s, d);
        return p;
    };

    struct Flow { uint32_t src, dst; uint64_t bytes; double start_us; TcpSrc* src_ep; TcpSink* sink; };
    std::vector<Flow> fl;
    std::ifstream in(flows);
    uint32_t s, d;
    uint64_t bytes;
    double start;
    for (std::string line; std::getline(in, line);) {
        std::istringstream w(line);
        if (!(w >> s >> d >> bytes >> start)) continue;
        // Optional fifth and sixth fields: the index of the path in get_paths(src, dst)
        // and of the ACKs' in get_paths(dst, src) (by default the same index: the reverse).
        long path = -1, ack_path = -1;
        w >> path >> ack_path;
        if (s >= n || d >= n || s == d) {
            std::cerr << "bad flow " << s << " " << d << " (hosts " << n << ")\n";
            return 2;
        }
        TcpSrc* src;
        simtime_picosec t0 = timeFromUs(start);
        if (cc == 1) src = new TimedSrc<DCTCPSrc>(bytes, t0);
        else if (cc == 2) src = new TimedSrc<RfcDctcpSrc>(bytes, t0);
        else src = new TimedSrc<TcpSrc>(bytes, t0);
        if (drop_trace) drop_trace->index[src->getFlowId()] = fl.size();
        TcpSink* sink = new TcpSink();
        scanner.registerTcp(*src);
        auto out = paths_of(s, d);
        size_t choice = rand() % out->size();
        if (path >= 0) {
            if ((size_t)path >= out->size()) {
                std::cerr << "bad path " << path << " (" << out->size() << " paths)\n";
                return 2;
            }
            choice = path;
        }
        Route* routeout = new Route(*out->at(choice));
        routeout->push_back(sink);
        size_t back = choice;
        if (ack_random) back = rand() % paths_of(d, s)->size();
        if (ack_path >= 0) {
            if ((size_t)ack_path >= paths_of(d, s)->size()) {
                std::cerr << "bad ACK path " << ack_path << "\n";
                return 2;
            }
            back = ack_path;
        }
        Route* routein = new Route(*paths_of(d, s)->at(back));
        routein->push_back(src);
        src->connect(*routeout, *routein, *sink, t0);
        fl.push_back({s, d, bytes, start, src, sink});
    }

    while (EventList::doNextEvent()) {
    }
    std::cout.rdbuf(chatter);

    uint64_t delivered = 0;  // data packets received in order (the SYN's byte not counted)
    for (auto& f : fl)
        if (f.sink->_cumulative_ack > 1) delivered += (f.sink->_cumulative_ack - 1) / 1500;
    uint64_t drops = 0;
    for (auto q : switch_queues) drops += ((Queue*)q)->num_drops();
    for (size_t i = 0; i < fl.size(); i++) {
        double done = cc == 1   ? ((TimedSrc<DCTCPSrc>*)fl[i].src_ep)->_done
                      : cc == 2 ? ((TimedSrc<RfcDctcpSrc>*)fl[i].src_ep)->_done
                                : ((TimedSrc<TcpSrc>*)fl[i].src_ep)->_done;
        printf("flow %zu %u %u %llu %.3f %.3f %llu %u\n", i, fl[i].src, fl[i].dst,
               (unsigned long long)fl[i].bytes, fl[i].start_us, done,
               (unsigned long long)(fl[i].src_ep->_packets_sent / 1500), fl[i].src_ep->_drops);
    }
    for (auto q : switch_queues)
        if (((Queue*)q)->num_drops())
            printf("queue_drops %s %llu\n", q->nodename().c_str(),
                   (unsigned long long)((Queue*)q)->num_drops());
    printf("drops %llu\n", (unsigned long long)drops);
    printf("delivered_pkts %llu\n", (unsigned long long)delivered);
    printf("queue_mean_bytes %.3f\n", sampler._n ? sampler._sum / sampler._n : 0.0);
    printf("queue_max_bytes %.0f\n", sampler._max);
    uint64_t timeouts = 0;
    std::istringstream lines(chatter_text.str());
    for (std::string line; std::getline(lines, line);)
        if (line.rfind("At ", 0) == 0) {
            timeouts++;
            if (drop_trace) printf("trace %s\n", line.c_str());
        }
    printf("timeouts %llu\n", (unsigned long long)timeouts);
    return 0;
}
