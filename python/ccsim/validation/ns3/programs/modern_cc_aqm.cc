// Today's congestion controls over a chosen bottleneck queue disc in ns-3, for the
// modern suite (ccsim.validation.ns3.modern_cc_aqm): the shared dumbbell (dumbbell.h)
// with a one-packet device queue under the disc (FIFO drop-tail, CoDel, FQ-CoDel, PIE,
// or RED as a step marker at K packets), a deep drop-tail disc for the ACKs' direction,
// optionally jittered access links, and the senders' TCP as tcp_fixes.h corrects it.
// Prints the bottleneck's counters and queueing delay over the measurement window (Q),
// each flow's bytes received, recoveries and timeouts (F), flow 0's recovery times (R)
// and its cwnd and pacing rate every `sample` ms (W). Diagnostics: --traceAll prints
// every flow's cwnd each sample (C) and each Vegas flow's BaseRTT at the end (V);
// --vegasDebug every RTT sample TcpVegas is fed and every window change (D).
#include "dumbbell.h"
#include "tcp_fixes.h"

#include <algorithm>
#include <iostream>

static Dumbbell g_net;
static double g_warmup = 0;
static uint64_t g_txBytes = 0, g_drops = 0, g_marks = 0;
static std::vector<double> g_sojourn;

// The time a packet entered the bottleneck's disc, carried as a packet tag (segments
// of one bulk flow share their packet uid: TCP cuts them from one buffer).
class EnqTag : public Tag
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::CcsimEnqTag").SetParent<Tag>().AddConstructor<EnqTag>();
        return tid;
    }
    TypeId GetInstanceTypeId() const override { return GetTypeId(); }
    uint32_t GetSerializedSize() const override { return 8; }
    void Serialize(TagBuffer b) const override { b.WriteDouble(t); }
    void Deserialize(TagBuffer b) override { t = b.ReadDouble(); }
    void Print(std::ostream& os) const override { os << t; }
    double t = 0;
};
static std::vector<uint64_t> g_recov, g_loss, g_warmRx;
static std::vector<double> g_recovTimes;
static uint32_t g_cwnd0 = 0;
static std::vector<uint32_t> g_cwnd; // every flow's cwnd (--traceAll)
static bool g_traceAll = false;
static DataRate g_pacing0;

static bool Warm() { return Simulator::Now().GetSeconds() >= g_warmup; }

// Queueing delay as ccsim measures it: from entering the disc to the start of transmission,
// the wait in the one-packet device queue included (the disc's own SojournTime leaves it out).
static void PhyTxBegin(Ptr<const Packet> p)
{
    EnqTag tag;
    if (p->PeekPacketTag(tag) && Warm()) g_sojourn.push_back(Simulator::Now().GetSeconds() - tag.t);
    if (Warm()) g_txBytes += p->GetSize() - 2;
}
static void Enqueue(Ptr<const QueueDiscItem> i)
{
    EnqTag tag;
    tag.t = Simulator::Now().GetSeconds();
    i->GetPacket()->AddPacketTag(tag);
}
static void Drop(Ptr<const QueueDiscItem>) { if (Warm()) g_drops++; }
static void Mark(Ptr<const QueueDiscItem>, const char*) { if (Warm()) g_marks++; }
static void DevDrop(Ptr<const Packet>) { if (Warm()) g_drops++; }

static void CongState(uint32_t i, TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t n)
{
    if (SocketFix::s_restoring) return;
    if (n == TcpSocketState::CA_RECOVERY) {
        g_recov[i]++;
        if (i == 0) g_recovTimes.push_back(Simulator::Now().GetSeconds());
    } else if (n == TcpSocketState::CA_LOSS) {
        g_loss[i]++;
    }
}
static void Cwnd0(uint32_t, uint32_t n) { g_cwnd0 = n; }
static void CwndI(uint32_t i, uint32_t, uint32_t n) { g_cwnd[i] = n; }
static void Pacing0(DataRate, DataRate n) { g_pacing0 = n; }

static bool Hook(uint32_t i, Ptr<Socket> s)
{
    bool ok = s->TraceConnectWithoutContext("CongState", MakeBoundCallback(&CongState, i));
    if (g_traceAll)
        ok = ok && s->TraceConnectWithoutContext("CongestionWindow", MakeBoundCallback(&CwndI, i));
    if (i == 0) {
        ok = ok && s->TraceConnectWithoutContext("CongestionWindow", MakeCallback(&Cwnd0));
        ok = ok && s->TraceConnectWithoutContext("PacingRate", MakeCallback(&Pacing0));
    }
    return ok;
}

static void Sample(double every)
{
    std::cout << "W " << Simulator::Now().GetSeconds() << " " << g_cwnd0 << " "
              << g_pacing0.GetBitRate() << "\n";
    if (g_traceAll) {
        std::cout << "C " << Simulator::Now().GetSeconds();
        for (uint32_t c : g_cwnd) std::cout << " " << c;
        std::cout << "\n";
    }
    Simulator::Schedule(Seconds(every), &Sample, every);
}

static void WarmUp()
{
    for (uint32_t i = 0; i < g_net.sinks.size(); i++) g_warmRx[i] = g_net.sinks[i]->GetTotalRx();
}

// The settings of the bottleneck's queue disc.
struct DiscOptions
{
    std::string queue = "fifo";
    bool ecn = false;
    uint32_t stepK = 20;
    double codelTargetMs = 5, codelIntervalMs = 100, pieTargetMs = 15;
};

// The disc under test on the bottleneck (a limit of `buffer` - 1 packets: the device
// queue holds one more), and the ACKs' deep drop-tail disc the other way.
static Ptr<QueueDisc> InstallDiscs(const DiscOptions& q, uint32_t buffer, uint32_t mss)
{
    const std::string& queue = q.queue;
    const bool ecn = q.ecn;
    TrafficControlHelper tch;
    std::string limit = std::to_string(buffer > 1 ? buffer - 1 : 1) + "p";
    if (queue == "fifo") {
        tch.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", QueueSizeValue(QueueSize(limit)));
    } else if (queue == "codel") {
        tch.SetRootQueueDisc("ns3::CoDelQueueDisc", "MaxSize", QueueSizeValue(QueueSize(limit)),
                             "Target", TimeValue(MilliSeconds(q.codelTargetMs)),
                             "Interval", TimeValue(MilliSeconds(q.codelIntervalMs)),
                             "UseEcn", BooleanValue(ecn));
    } else if (queue == "fqcodel") {
        tch.SetRootQueueDisc("ns3::FqCoDelQueueDisc", "MaxSize", QueueSizeValue(QueueSize(limit)),
                             "Target", StringValue(std::to_string(q.codelTargetMs) + "ms"),
                             "Interval", StringValue(std::to_string(q.codelIntervalMs) + "ms"),
                             "UseEcn", BooleanValue(ecn));
    } else if (queue == "pie") {
        tch.SetRootQueueDisc("ns3::PieQueueDisc", "MaxSize", QueueSizeValue(QueueSize(limit)),
                             "QueueDelayReference", TimeValue(MilliSeconds(q.pieTargetMs)),
                             "UseEcn", BooleanValue(ecn));
    } else if (queue == "step") {
        tch.SetRootQueueDisc("ns3::RedQueueDisc", "MaxSize", QueueSizeValue(QueueSize(limit)),
                             "MinTh", DoubleValue(q.stepK), "MaxTh", DoubleValue(q.stepK),
                             "QW", DoubleValue(1.0), "UseEcn", BooleanValue(true),
                             // a step: with Gentle (the default) RED lets the first arrival
                             // at or above MaxTh through (m_old) and forces marks at 2·MaxTh
                             "Gentle", BooleanValue(false),
                             "UseHardDrop", BooleanValue(false), "LInterm", DoubleValue(1.0),
                             "MeanPktSize", UintegerValue(mss + 40));
    } else {
        NS_ABORT_MSG("unknown queue " << queue);
    }
    QueueDiscContainer qd = tch.Install(g_net.core.Get(0));
    // The reverse direction carries the ACKs: a drop-tail disc as deep as an access link's
    // queue (the scenario's `reverse_queue`). Over the 1-packet device queue alone, ACKs
    // that the jitter bunched were dropped (one jittered BBR flow lost 4 % of its ACKs).
    TrafficControlHelper reverse;
    reverse.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", QueueSizeValue(QueueSize("1000p")));
    reverse.Install(g_net.core.Get(1));
    return qd.Get(0);
}

// The senders' congestion control, recovery, ECN, delayed ACKs (DelAckCount `delAck`)
// and timestamps option (tcp_fixes.h).
static void SetSenderDefaults(std::string cc, const std::string& recovery,
                              const std::string& vegasRtt, bool ecn, uint32_t mss,
                              uint32_t delAck, bool timestamps)
{
    NS_ABORT_MSG_IF(vegasRtt != "last" && vegasRtt != "srtt", "vegasRtt: last or srtt");
    VegasLastRtt::s_last = vegasRtt == "last";
    // (with srtt VegasLastRtt passes SRTT on as TcpSocketBase gives it: stock TcpVegas)
    if (cc == "ns3::TcpVegas") cc = VegasLastRtt::GetTypeId().GetName();
    SetTcpDefaults(cc, PrrOnce::s_sack, mss, 10, 200);
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(delAck));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(timestamps));
    NS_ABORT_MSG_IF(recovery != "prr" && recovery != "prr-once" && recovery != "classic",
                    "recovery: prr, prr-once or classic");
    if (recovery == "classic") {
        Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                           TypeIdValue(TcpClassicRecovery::GetTypeId()));
    } else if (recovery == "prr-once") {
        Config::SetDefault("ns3::TcpL4Protocol::RecoveryType", TypeIdValue(PrrOnce::GetTypeId()));
    }
    Config::SetDefault("ns3::TcpSocketBase::UseEcn",
                       EnumValue(ecn ? TcpSocketState::On : TcpSocketState::Off));
}

// SocketFix's factory on every sender when a fix is on, ns-3's own otherwise.
static std::string SenderFactory(Ptr<Node> sender)
{
    const bool fix = SocketFix::s_ecnFix || SocketFix::s_rateFix || SocketFix::s_sackFix;
    if (fix && !sender->GetObject<SocketFixFactory>())
        sender->AggregateObject(CreateObject<SocketFixFactory>());
    return fix ? "ns3::CcsimSocketFixFactory" : "ns3::TcpSocketFactory";
}

static void Report(uint32_t pairs)
{
    std::sort(g_sojourn.begin(), g_sojourn.end());
    double mean = 0;
    for (double x : g_sojourn) mean += x;
    size_t n = g_sojourn.size();
    std::cout << "Q " << g_txBytes << " " << g_drops << " " << g_marks << " " << n << " "
              << (n ? mean / n : 0) << " " << (n ? g_sojourn[size_t(0.95 * (n - 1))] : 0) << "\n";
    for (uint32_t i = 0; i < pairs; i++) {
        // timeouts: SocketFix counts each one; without it, the entries into CA_LOSS
        Ptr<SocketFix> fixed = DynamicCast<SocketFix>(g_net.apps[i]->GetSocket());
        std::cout << "F " << i << " " << g_net.sinks[i]->GetTotalRx() << " " << g_warmRx[i] << " "
                  << g_recov[i] << " " << (fixed ? fixed->m_timeouts : g_loss[i]) << "\n";
    }
    for (double t : g_recovTimes) std::cout << "R " << t << "\n";
    for (uint32_t i = 0; i < pairs; i++) {
        // Vegas's BaseRTT per flow (what TcpVegas min-filtered), seconds
        Ptr<SocketFix> sock = DynamicCast<SocketFix>(g_net.apps[i]->GetSocket());
        Ptr<VegasLastRtt> v = sock ? DynamicCast<VegasLastRtt>(sock->Cc()) : nullptr;
        if (v) std::cout << "V " << i << " " << v->m_base.GetSeconds() << "\n";
    }
}

int main(int argc, char* argv[])
{
    DumbbellOptions o;
    o.sack = true;
    o.mss = 1448;
    o.accessMbps = 1000;
    o.duration = 30;
    o.warmup = 5;
    DiscOptions q;
    std::string recovery = "prr-once", vegasRtt = "last";
    double sampleMs = 10, jitter = 0;
    uint32_t delAck = 1;
    bool timestamps = false;
    CommandLine cmd;
    o.AddTo(cmd);
    cmd.AddValue("queue", "fifo|codel|fqcodel|pie|step", q.queue);
    cmd.AddValue("ecn", "ECN", q.ecn);
    cmd.AddValue("k", "step marking threshold, packets", q.stepK);
    cmd.AddValue("sample", "ms between cwnd samples of flow 0", sampleMs);
    cmd.AddValue("codelTarget", "ms", q.codelTargetMs);
    cmd.AddValue("codelInterval", "ms", q.codelIntervalMs);
    cmd.AddValue("pieTarget", "ms", q.pieTargetMs);
    cmd.AddValue("recovery",
                 "prr (3.44's own) | prr-once (DeliveredData counted once) | classic (RFC 6582)",
                 recovery);
    cmd.AddValue("jitter", "s: packets propagate U[0, jitter) longer on every access link",
                 jitter);
    cmd.AddValue("vegasRtt", "TcpVegas's RTT: last (the sample) | srtt (3.44's own)", vegasRtt);
    cmd.AddValue("ecnFix", "senders' ECN states as Linux's (SocketFix)", SocketFix::s_ecnFix);
    cmd.AddValue("rateFix", "senders' rate samples per ACK as Linux's (RatePerAck)",
                 SocketFix::s_rateFix);
    cmd.AddValue("sackFix", "a SACKed retransmission out of bytes in flight, as Linux",
                 SocketFix::s_sackFix);
    cmd.AddValue("delAck", "DelAckCount: 1 (an ACK per segment) or 2 (ns-3's default)", delAck);
    cmd.AddValue("timestamps", "the timestamps option (ns-3's default: on)", timestamps);
    cmd.AddValue("vegasDebug", "print TcpVegas's samples and window changes (D rows)",
                 VegasLastRtt::s_debug);
    cmd.AddValue("traceAll", "print every flow's cwnd each sample (C rows)", g_traceAll);
    cmd.Parse(argc, argv);
    PrrOnce::s_sack = o.sack; // (without SACK PRR counts a duplicate ACK as a segment)
    g_warmup = o.warmup;
    const Draws d = ReadDraws(o);
    SetSenderDefaults(o.cc, recovery, vegasRtt, q.ecn, o.mss, delAck, timestamps);

    BuildCore(g_net, o, 1);
    Ptr<QueueDisc> disc = InstallDiscs(q, o.buffer, o.mss);
    BuildAccess(g_net, o, d, 1000, jitter);

    Ptr<NetDevice> bn = g_net.core.Get(0);
    bool ok = bn->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&PhyTxBegin));
    ok = ok && disc->TraceConnectWithoutContext("Drop", MakeCallback(&Drop));
    ok = ok && disc->TraceConnectWithoutContext("Mark", MakeCallback(&Mark));
    ok = ok && disc->TraceConnectWithoutContext("Enqueue", MakeCallback(&Enqueue));
    ok = ok && DynamicCast<PointToPointNetDevice>(bn)->GetQueue()->TraceConnectWithoutContext(
                   "Drop", MakeCallback(&DevDrop));
    NS_ABORT_MSG_IF(!ok, "cannot connect the bottleneck's traces");

    g_recov.assign(o.pairs, 0);
    g_cwnd.assign(o.pairs, 0);
    g_loss.assign(o.pairs, 0);
    g_warmRx.assign(o.pairs, 0);
    InstallFlows(g_net, o, d, &SenderFactory, &Hook);
    Simulator::Schedule(Seconds(o.warmup), &WarmUp);
    // (with --traceAll from the first start, else from flow 0's)
    const double first =
        g_traceAll ? *std::min_element(d.starts.begin(), d.starts.end()) : d.starts[0];
    Simulator::Schedule(Seconds(first) + MilliSeconds(1), &Sample, sampleMs / 1000);
    Simulator::Stop(Seconds(o.duration));
    Simulator::Run();
    Report(o.pairs);
    Simulator::Destroy();
    return 0;
}
