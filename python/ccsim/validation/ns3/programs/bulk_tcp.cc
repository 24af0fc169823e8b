// An ns-2 TCP case (ccsim.validation.ns2.tcp_scenario.Case) in ns-3: the shared
// dumbbell (dumbbell.h) with drop-tail device queues of `buffer` packets at the
// bottleneck, run by ccsim.validation.ns3.bulk_tcp for the westwood suite and the
// BBR bench. Prints the bottleneck's counters over the measurement window (Q) and each
// flow's retransmitted segments, timeouts and bytes received, over the whole run and up
// to the end of the warm-up, with its entries into loss and recovery (F).
#include "dumbbell.h"

#include <iostream>

struct Flow
{
    uint64_t retx = 0, timeouts = 0, lossEntries = 0, recoveries = 0;
    bool sent = false;
    SequenceNumber32 high{0};
    uint64_t warmRetx = 0, warmTimeouts = 0, warmRx = 0;
};

static Dumbbell g_net;
static std::vector<Flow> g_flows;
static double g_warmup = 0;
static uint64_t g_txPkts = 0, g_txBytes = 0, g_drops = 0, g_dropsAll = 0;

static void
TxTrace(uint32_t i, Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    if (p->GetSize() == 0)
    {
        return;
    }
    Flow& f = g_flows[i];
    SequenceNumber32 end = h.GetSequenceNumber() + p->GetSize();
    if (f.sent && h.GetSequenceNumber() < f.high)
    {
        f.retx++;
    }
    if (!f.sent || end > f.high)
    {
        f.high = end;
    }
    f.sent = true;
}

static void
RtoTrace(uint32_t i, Time oldV, Time newV)
{
    // TcpSocketBase::ReTxTimeout doubles m_rto (at most 60 s); the estimator
    // never doubles it exactly.
    if (newV > oldV && (newV == oldV + oldV || (newV == Seconds(60) && oldV > Seconds(30))))
    {
        g_flows[i].timeouts++;
    }
}

static void
CongStateTrace(uint32_t i, TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t newV)
{
    if (newV == TcpSocketState::CA_LOSS)
    {
        g_flows[i].lossEntries++;
    }
    else if (newV == TcpSocketState::CA_RECOVERY)
    {
        g_flows[i].recoveries++;
    }
}

static void
PhyTxBegin(Ptr<const Packet> p)
{
    if (Simulator::Now().GetSeconds() >= g_warmup)
    {
        g_txPkts++;
        g_txBytes += p->GetSize() - 2; // without the PPP header
    }
}

static void
Drop(Ptr<const Packet>)
{
    g_dropsAll++;
    if (Simulator::Now().GetSeconds() >= g_warmup)
    {
        g_drops++;
    }
}

static bool
HookSocket(uint32_t i, Ptr<Socket> s)
{
    bool ok = s->TraceConnectWithoutContext("Tx", MakeBoundCallback(&TxTrace, i));
    ok = ok && s->TraceConnectWithoutContext("RTO", MakeBoundCallback(&RtoTrace, i));
    return ok && s->TraceConnectWithoutContext("CongState", MakeBoundCallback(&CongStateTrace, i));
}

static void
Warm()
{
    for (uint32_t i = 0; i < g_flows.size(); i++)
    {
        g_flows[i].warmRetx = g_flows[i].retx;
        g_flows[i].warmTimeouts = g_flows[i].timeouts;
        g_flows[i].warmRx = g_net.sinks[i]->GetTotalRx();
    }
}

int
main(int argc, char* argv[])
{
    DumbbellOptions o; // (its defaults are this harness's)
    std::string recovery = "ns3::TcpPrrRecovery";
    uint32_t initCwnd = 2, accessBuffer = 1000;
    double minRtoMs = 200, granularityMs = 1;
    CommandLine cmd;
    o.AddTo(cmd);
    cmd.AddValue("recovery", "recovery TypeId", recovery);
    cmd.AddValue("initCwnd", "initial cwnd (segments)", initCwnd);
    cmd.AddValue("accessBuffer", "access buffers (packets)", accessBuffer);
    cmd.AddValue("minRto", "ms", minRtoMs);
    cmd.AddValue("granularity", "clock granularity G of the RTO, ms", granularityMs);
    cmd.Parse(argc, argv);
    g_warmup = o.warmup;
    const Draws d = ReadDraws(o);

    SetTcpDefaults(o.cc, o.sack, o.mss, initCwnd, minRtoMs);
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(TypeId::LookupByName(recovery)));
    Config::SetDefault("ns3::TcpSocketBase::ClockGranularity",
                       TimeValue(MicroSeconds(granularityMs * 1000)));
    Config::SetDefault("ns3::TcpSocketBase::LimitedTransmit", BooleanValue(true));

    BuildCore(g_net, o, o.buffer);
    BuildAccess(g_net, o, d, accessBuffer, 0);

    Ptr<NetDevice> bn = g_net.core.Get(0);
    bool ok = bn->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&PhyTxBegin));
    ok = ok && DynamicCast<PointToPointNetDevice>(bn)->GetQueue()->TraceConnectWithoutContext(
                   "Drop",
                   MakeCallback(&Drop));
    ok = ok && g_net.routers.Get(0)->GetObject<TrafficControlLayer>()->TraceConnectWithoutContext(
                   "TcDrop",
                   MakeCallback(&Drop));
    NS_ABORT_MSG_IF(!ok, "cannot connect the bottleneck's traces");

    g_flows.resize(o.pairs);
    InstallFlows(
        g_net,
        o,
        d,
        [](Ptr<Node>) { return std::string("ns3::TcpSocketFactory"); },
        &HookSocket);
    Simulator::Schedule(Seconds(o.warmup), &Warm);
    Simulator::Stop(Seconds(o.duration));
    Simulator::Run();

    std::cout << "Q " << g_txPkts << " " << g_txBytes << " " << g_drops << " " << g_dropsAll
              << std::endl;
    for (uint32_t i = 0; i < o.pairs; i++)
    {
        const Flow& f = g_flows[i];
        std::cout << "F " << i << " " << f.retx << " " << f.timeouts << " "
                  << g_net.sinks[i]->GetTotalRx() << " " << f.warmRetx << " " << f.warmTimeouts
                  << " " << f.warmRx << " " << f.lossEntries << " " << f.recoveries << std::endl;
    }
    Simulator::Destroy();
    return 0;
}
