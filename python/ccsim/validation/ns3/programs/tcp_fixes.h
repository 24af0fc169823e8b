// ns-3.44's TCP brought to Linux's and the RFCs' behaviour where the modern suite's
// notes (ccsim.validation.ns3.modern_cc_aqm) show it differs, for modern_cc_aqm.cc:
// PrrOnce (PRR with DeliveredData counted once, the ECN reduction's first ACK counted
// once, the forced segment in loss recovery only), VegasLastRtt (TcpVegas fed each
// ACK's RTT sample instead of SRTT), RatePerAck (Linux's per-ACK rate sample) and
// SocketFix with its factory (the senders' sockets: an ECN echo ignored in loss
// recovery and after a timeout, a loss found during an ECN reduction recovered under
// PRR, the duplicate-ACK count cleared when the reduction ends, a SACKed retransmission
// taken out of the bytes in flight; every timeout counted).
#ifndef CCSIM_TCP_FIXES_H
#define CCSIM_TCP_FIXES_H

#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"

#include <algorithm>
#include <iostream>
#include <map>

using namespace ns3;

// RFC 6937 Proportional Rate Reduction with DeliveredData counted once. ns-3 3.44's
// TcpPrrRecovery adds a segment for every duplicate ACK on top of the SACK-derived
// DeliveredData its caller passes (ns-3 issue #1350, fixed upstream in July 2026), so with
// SACK it sends about 2·ssthresh/RecoverFS segments per ACK in recovery (1.4 for CUBIC):
// the queue that overflowed keeps overflowing, and a second reduction follows.
// The ACK that begins an ECN reduction (CA_CWR) is counted once too: TcpSocketBase passes
// it to DoRecovery twice, from EnterCwr through EnterRecovery and again in ProcessAck's
// CA_CWR branch (3.44 and master), which lets one more segment out per reduction. And
// the segment PRR forces out at the start is the fast retransmit: it is forced in a loss
// recovery only (Linux forces it only when a segment is newly lost), not in CWR.
class PrrOnce : public TcpRecoveryOps
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::CcsimPrrOnce")
                                .SetParent<TcpRecoveryOps>()
                                .SetGroupName("Internet")
                                .AddConstructor<PrrOnce>();
        return tid;
    }
    std::string GetName() const override { return "PrrOnce"; }
    void EnterRecovery(Ptr<TcpSocketState> tcb, uint32_t, uint32_t unAck, uint32_t delivered) override
    {
        m_undo = m_now;
        if (m_fromCwr && m_now.inCwr) {
            // A loss found during an ECN reduction (SocketFix): Linux's
            // tcp_enter_recovery in CWR keeps the reduction going, with its ssthresh and
            // PRR counts; ns-3's EnterRecovery has just computed a second ssthresh.
            tcb->m_ssThresh = m_now.ssthresh;
            m_now.cwr = false;
            DoRecovery(tcb, delivered, true);
            return;
        }
        m_now.out = 0;
        m_now.delivered = 0;
        m_now.recoverFs = std::max<uint32_t>(unAck, 1); // RecoverFS = snd.nxt - snd.una
        m_now.cwr = m_now.inCwr = tcb->m_congState == TcpSocketState::CA_CWR;
        m_now.ssthresh = tcb->m_ssThresh;
        if (!m_now.cwr) DoRecovery(tcb, delivered, true); // (in CWR ProcessAck counts this ACK)
    }
    void DoRecovery(Ptr<TcpSocketState> tcb, uint32_t delivered, bool isDupAck) override
    {
        // without SACK a duplicate ACK stands for one delivered segment (RFC 6937 §3)
        if (isDupAck && !s_sack && m_now.delivered < m_now.recoverFs) delivered += tcb->m_segmentSize;
        if (delivered == 0) return;
        m_now.delivered += delivered;
        const int64_t mss = tcb->m_segmentSize, pipe = tcb->m_bytesInFlight;
        const int64_t ssthresh = tcb->m_ssThresh;
        int64_t send;
        if (pipe > ssthresh) {
            send = (m_now.delivered * ssthresh + m_now.recoverFs - 1) / m_now.recoverFs - m_now.out;
        } else { // slow-start reduction bound, as 3.44
            int64_t limit = std::max<int64_t>(m_now.delivered - m_now.out, delivered);
            if (tcb->m_isRetransDataAcked) limit += mss;
            send = std::min<int64_t>(limit, ssthresh - pipe);
        }
        if (!m_now.cwr) send = std::max<int64_t>(send, m_now.out > 0 ? 0 : mss); // the fast retransmit
        tcb->m_cWnd = static_cast<uint32_t>(std::max<int64_t>(pipe + send, 0));
        tcb->m_cWndInfl = tcb->m_cWnd;
    }
    void ExitRecovery(Ptr<TcpSocketState> tcb) override
    {
        tcb->m_cWndInfl = tcb->m_cWnd;
        m_now.inCwr = false;
    }
    void UpdateBytesSent(uint32_t n) override { m_now.out += n; }
    Ptr<TcpRecoveryOps> Fork() override { return CopyObject<PrrOnce>(this); }

    // SocketFix's two hooks: the next EnterRecovery continues an ECN reduction;
    // forget the last EnterRecovery (an ECN echo ns-3 took in CA_LOSS or CA_RECOVERY).
    void SetFromCwr(bool on) { m_fromCwr = on; }
    void Undo() { m_now = m_undo; }

    static bool s_sack; // the program's SACK setting, which PRR's count depends on

  private:
    struct State
    {
        int64_t out{0}, delivered{0}, recoverFs{1};
        bool cwr{false};   // this reduction is an ECN one (CA_CWR), not a loss recovery
        bool inCwr{false}; // an ECN reduction began and has not ended
        uint32_t ssthresh{0};
    };
    State m_now, m_undo;
    bool m_fromCwr{false};
};
inline bool PrrOnce::s_sack = true;

// TcpVegas fed the last RTT sample. TcpSocketBase hands every congestion control the
// smoothed RTT as PktsAcked's `rtt` (3.44 and master; the API documents it as the last
// RTT), so stock TcpVegas takes its BaseRTT and each round's minimum RTT from SRTT,
// which starts at the SYN exchange's RTT. Brakmo & Peterson and Linux take them from
// the samples. With s_last false it passes SRTT on (stock TcpVegas); either way it
// keeps the BaseRTT TcpVegas computes (m_base), for a harness's report.
class VegasLastRtt : public TcpVegas
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::CcsimVegasLastRtt")
                                .SetParent<TcpVegas>()
                                .SetGroupName("Internet")
                                .AddConstructor<VegasLastRtt>();
        return tid;
    }
    void PktsAcked(Ptr<TcpSocketState> tcb, uint32_t segments, const Time& srtt) override
    {
        const Time rtt = s_last ? tcb->m_lastRtt.Get() : srtt;
        if (!rtt.IsZero()) m_base = std::min(m_base, rtt); // TcpVegas's BaseRTT
        if (s_debug)
            std::cout << "D P " << Simulator::Now().GetSeconds() << " " << segments << " "
                      << rtt.GetSeconds() << " cwnd " << tcb->m_cWnd / tcb->m_segmentSize
                      << " una " << tcb->m_lastAckedSeq << " nxt " << tcb->m_nextTxSequence
                      << "\n";
        TcpVegas::PktsAcked(tcb, segments, rtt);
    }
    void IncreaseWindow(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked) override
    {
        const uint32_t before = tcb->m_cWnd;
        TcpVegas::IncreaseWindow(tcb, segmentsAcked);
        if (s_debug)
            std::cout << "D I " << Simulator::Now().GetSeconds() << " " << segmentsAcked
                      << " cwnd " << before / tcb->m_segmentSize << " -> "
                      << tcb->m_cWnd / tcb->m_segmentSize << " ssth "
                      << tcb->m_ssThresh / tcb->m_segmentSize << "\n";
    }
    Ptr<TcpCongestionOps> Fork() override { return CopyObject<VegasLastRtt>(this); }
    Time m_base{Time::Max()};
    static bool s_last;  // the sample (true) or 3.44's SRTT, as stock TcpVegas (false)
    static bool s_debug; // print every sample fed and every window change (D rows)
};
inline bool VegasLastRtt::s_last = true;
inline bool VegasLastRtt::s_debug = false;

// TcpRateOps with Linux's per-ACK rate sample (tcp_rate.c). ns-3.44's TcpRateLinux keeps
// one sample across ACKs and takes a delivered segment's send and ACK times into it only
// if the segment's delivered count is above the sample's: when two segments left with no
// ACK between them (same delivered count), the second one's ACK keeps the first one's
// interval and counts one segment more over it (3.44 and master). Linux starts every
// ACK's sample afresh (`struct rate_sample rs` in tcp_ack), so its first delivered
// segment always sets the interval. At 10 Mb/s with a 100-ms RTT such samples run ~1 %
// above the bottleneck's rate, TcpBbr's max filter keeps them, and its pacing rate (with
// its 1 % margin) stays above the link's: a standing queue the gain cycle never drains.
// Otherwise TcpRateLinux's computation; only congestion controls that read the sample
// (BBR) see a difference.
class RatePerAck : public TcpRateOps
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::CcsimRatePerAck")
                                .SetParent<TcpRateOps>()
                                .SetGroupName("Internet")
                                .AddConstructor<RatePerAck>();
        return tid;
    }
    void SkbSent(TcpTxItem* skb, bool isStartOfTransmission) override
    {
        TcpTxItem::RateInformation& info = skb->GetRateInformation();
        if (isStartOfTransmission) { // nothing in flight: the interval starts now
            m_rate.m_firstSentTime = Simulator::Now();
            m_rate.m_deliveredTime = Simulator::Now();
        }
        info.m_firstSent = m_rate.m_firstSentTime;
        info.m_deliveredTime = m_rate.m_deliveredTime;
        info.m_isAppLimited = m_rate.m_appLimited != 0;
        info.m_delivered = m_rate.m_delivered;
    }
    void SkbDelivered(TcpTxItem* skb) override
    {
        TcpTxItem::RateInformation& info = skb->GetRateInformation();
        if (info.m_deliveredTime == Time::Max()) return; // counted when SACKed
        if (m_newAck) { // the first segment this ACK delivers: a fresh sample
            m_sample.m_priorDelivered = 0;
            m_sample.m_priorTime = Seconds(0);
            m_newAck = false;
        }
        m_rate.m_delivered += skb->GetSeqSize();
        m_rate.m_deliveredTime = Simulator::Now();
        if (m_sample.m_priorDelivered == 0 || info.m_delivered > m_sample.m_priorDelivered) {
            m_sample.m_ackElapsed = Simulator::Now() - info.m_deliveredTime;
            m_sample.m_priorDelivered = info.m_delivered;
            m_sample.m_priorTime = info.m_deliveredTime;
            m_sample.m_isAppLimited = info.m_isAppLimited;
            m_sample.m_sendElapsed = skb->GetLastSent() - info.m_firstSent;
            m_rate.m_firstSentTime = skb->GetLastSent();
        }
        info.m_deliveredTime = Time::Max();
        m_rate.m_txItemDelivered = info.m_delivered;
    }
    void CalculateAppLimited(uint32_t cWnd, uint32_t inFlight, uint32_t segmentSize,
                             const SequenceNumber32& tailSeq, const SequenceNumber32& nextTx,
                             const uint32_t lostOut, const uint32_t retransOut) override
    {
        // less than a segment left to send, room in cwnd, every lost segment resent
        if (tailSeq - nextTx < static_cast<int32_t>(segmentSize) && inFlight < cWnd &&
            lostOut <= retransOut) {
            m_rate.m_appLimited = std::max<uint32_t>(m_rate.m_delivered + inFlight, 1);
        }
    }
    const TcpRateSample& GenerateSample(uint32_t delivered, uint32_t lost, bool isSackReneg,
                                        uint32_t priorInFlight, const Time& minRtt) override
    {
        if (m_newAck) { // this ACK delivered nothing: no timing, an invalid sample
            m_sample.m_priorDelivered = 0;
            m_sample.m_priorTime = Seconds(0);
        }
        m_newAck = true;
        if (m_rate.m_appLimited != 0 && m_rate.m_delivered > m_rate.m_appLimited) {
            m_rate.m_appLimited = 0;
        }
        m_sample.m_ackedSacked = delivered;
        m_sample.m_bytesLoss = lost;
        m_sample.m_priorInFlight = priorInFlight;
        if (m_sample.m_priorTime.IsZero() || isSackReneg) {
            m_sample.m_delivered = -1;
            m_sample.m_interval = Seconds(0);
            return m_sample;
        }
        // sending and ACKing as two pipeline phases: the longer one
        m_sample.m_interval = std::max(m_sample.m_sendElapsed, m_sample.m_ackElapsed);
        m_sample.m_delivered = m_rate.m_delivered - m_sample.m_priorDelivered;
        if (m_sample.m_interval < minRtt) {
            m_sample.m_interval = Seconds(0);
            m_sample.m_priorTime = Seconds(0);
            return m_sample;
        }
        if (!m_sample.m_isAppLimited ||
            m_sample.m_delivered * m_rate.m_rateInterval >= m_rate.m_rateDelivered * m_sample.m_interval) {
            m_rate.m_rateDelivered = m_sample.m_delivered;
            m_rate.m_rateInterval = m_sample.m_interval;
            m_rate.m_rateAppLimited = m_sample.m_isAppLimited;
            m_sample.m_deliveryRate =
                DataRate(m_sample.m_delivered * 8.0 / m_sample.m_interval.GetSeconds());
        }
        return m_sample;
    }
    const TcpRateConnection& GetConnectionRate() override { return m_rate; }

  private:
    TcpRateConnection m_rate;
    TcpRateSample m_sample;
    bool m_newAck{true}; // the next delivered segment begins a new ACK's sample
};

// TcpSocketBase with RatePerAck as its rate estimator (with --rateFix) and, with
// --ecnFix, ns-3's ECN state machine brought to Linux's (tcp_fastretrans_alert,
// tcp_enter_cwr, tcp_enter_recovery) and RFC 3168 §6.1.2, in three places (3.44 and
// master all three):
// - An ECN echo is taken in CA_LOSS and CA_RECOVERY too: ReceivedAck calls EnterCwr in
//   any state but CA_CWR, which recomputes ssthresh from the flight left (after a timeout
//   one segment: ssthresh 2) and abandons the recovery. Linux enters CWR only from Open
//   and Disorder, and RFC 3168 reduces once per window of data. The fix undoes what
//   EnterCwr did when the ACK began in CA_LOSS or CA_RECOVERY.
// - A loss found during an ECN reduction does not start a recovery: in CA_CWR DupAck
//   only counts, and SendPendingData retransmits every segment the scoreboard marks lost
//   at once, unpaced by PRR (DoRecovery runs on new ACKs only): a burst of tens of
//   retransmissions into the queue that just marked, then a timeout. Linux's
//   tcp_enter_recovery continues the reduction under PRR, without a second ssthresh. The
//   fix lets such an ACK take CA_DISORDER's path into EnterRecovery, and PrrOnce keeps
//   the reduction's ssthresh and counts (with SACK and PrrOnce only).
// - The duplicate-ACK count is not cleared when CWR ends; when the ACK that ends it
//   carries new SACK information, ProcessAck calls DupAck in CA_OPEN with the count at 2
//   and the NS_ASSERT "From OPEN->DISORDER but with 2 dup ACKs" aborts the run. In
//   CA_OPEN the count is zero by DupAck's own invariant, so ProcessAck starts from zero.
// Runs without ECN never enter CA_CWR nor see an echo, and are unchanged.
// And with --sackFix, bytes in flight as Linux counts them (tcp_packets_in_flight): 3.44's
// TcpTxBuffer::Update marks a retransmitted segment SACKed but leaves it in m_retrans
// (ns-3 issue #1190, fixed in ns-3-dev in 2026), so BytesInFlight counts it in flight
// until the cumulative ACK passes it. When a retransmission below is lost, each SACKed
// retransmission above it adds a segment to the count for the rest of the recovery, and
// cwnd (in flight + PRR's send count) climbs with it: one Vegas flow at 0.5 BDP went from
// 167 to 241 segments in 0.1 s of duplicate ACKs, and its timeout's ssthresh came from
// that. Linux's tcp_sacktag_one takes a SACKed retransmission out of retrans_out. The
// fix keeps the retransmissions the socket sent and subtracts those SACKed until the
// buffer drops them (cumulative ACK) or a timeout clears its own count (before the
// timeout's own sends: see ReTxTimeout).
class SocketFix : public TcpSocketBase
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::CcsimSocketFix")
                                .SetParent<TcpSocketBase>()
                                .SetGroupName("Internet")
                                .AddConstructor<SocketFix>();
        return tid;
    }
    TypeId GetInstanceTypeId() const override { return GetTypeId(); }
    SocketFix()
    {
        if (s_rateFix) m_rateOps = CreateObject<RatePerAck>();
    }
    static bool s_ecnFix, s_rateFix, s_sackFix;
    uint64_t m_timeouts = 0; // retransmission timeouts of data (ReTxTimeout)
    Ptr<TcpCongestionOps> Cc() const { return m_congestionControl; }

  protected:
    uint32_t SendDataPacket(SequenceNumber32 seq, uint32_t maxSize, bool withAck) override
    {
        const bool rtx = s_sackFix && seq < m_tcb->m_highTxMark.Get();
        const uint32_t sz = TcpSocketBase::SendDataPacket(seq, maxSize, withAck);
        if (rtx && sz > 0 && m_rtx.find(seq.GetValue()) == m_rtx.end()) {
            m_rtx[seq.GetValue()] = {sz, false};
        }
        return sz;
    }
    void ReTxTimeout() override
    {
        // SetSentListLost zeroes m_retrans, and ReTxTimeout sends at once: the count of
        // SACKed retransmissions must be gone by then, or BytesInFlight (the raw count
        // less the stale one) stays at zero and the timeout sends a burst of that many
        // segments at cwnd = 1. The flight before the timeout (ReTxTimeout's first
        // BytesInFlight call, for GetSsThresh) is still the corrected one.
        // Every timeout of outstanding data, also one that fires in CA_LOSS (the
        // CongState trace sees only the first: its value does not change).
        if (m_state != CLOSED && m_state != TIME_WAIT && m_state != SYN_SENT &&
            m_txBuffer->HeadSequence() < m_tcb->m_highTxMark) {
            m_timeouts++;
        }
        m_rtoFlight = BytesInFlight();
        m_rtx.clear();
        m_sackedRtx = 0;
        m_atRto = true;
        TcpSocketBase::ReTxTimeout();
        m_atRto = false;
    }
    // Drops what the buffer no longer holds (below its head sequence).
    void Prune() const
    {
        const uint32_t head = m_txBuffer->HeadSequence().GetValue();
        while (!m_rtx.empty() && m_rtx.begin()->first + m_rtx.begin()->second.len <= head) {
            if (m_rtx.begin()->second.sacked) m_sackedRtx -= m_rtx.begin()->second.len;
            m_rtx.erase(m_rtx.begin());
        }
    }
    uint32_t BytesInFlight() const override
    {
        const uint32_t raw = TcpSocketBase::BytesInFlight();
        if (!s_sackFix) return raw;
        if (m_atRto) {
            m_atRto = false;
            return m_rtoFlight;
        }
        Prune();
        const uint32_t fixed = raw - std::min(raw, m_sackedRtx);
        if (m_tcb->m_bytesInFlight != fixed) {
            const_cast<SocketFix*>(this)->m_tcb->m_bytesInFlight = fixed;
        }
        return fixed;
    }
    void ReceivedAck(Ptr<Packet> p, const TcpHeader& h) override
    {
        if (s_sackFix && h.HasOption(TcpOption::SACK)) {
            Prune();
            auto sack = DynamicCast<const TcpOptionSack>(h.GetOption(TcpOption::SACK));
            for (const auto& b : sack->GetSackList()) {
                const uint32_t lo = b.first.GetValue(), hi = b.second.GetValue();
                for (auto it = m_rtx.lower_bound(lo); it != m_rtx.end() && it->first < hi; ++it) {
                    if (!it->second.sacked && it->first + it->second.len <= hi) {
                        it->second.sacked = true;
                        m_sackedRtx += it->second.len;
                    }
                }
            }
        }
        if (!s_ecnFix) return TcpSocketBase::ReceivedAck(p, h);
        const auto st = m_tcb->m_congState.Get();
        m_guard = (h.GetFlags() & TcpHeader::ECE) &&
                  (st == TcpSocketState::CA_LOSS || st == TcpSocketState::CA_RECOVERY);
        if (m_guard) {
            m_saved = {st, m_tcb->m_ssThresh.Get(), m_tcb->m_cWnd.Get(),
                       m_tcb->m_cWndInfl.Get(), m_recover};
        }
        TcpSocketBase::ReceivedAck(p, h);
        m_guard = false;
    }
    void ProcessAck(const SequenceNumber32& ack, bool sacked, uint32_t delivered,
                    const SequenceNumber32& oldHead, bool data) override
    {
        if (!s_ecnFix) return TcpSocketBase::ProcessAck(ack, sacked, delivered, oldHead, data);
        Ptr<PrrOnce> prr = DynamicCast<PrrOnce>(m_recoveryOps);
        if (m_guard && m_tcb->m_congState == TcpSocketState::CA_CWR) {
            // EnterCwr ran in CA_LOSS or CA_RECOVERY: put the state back (unseen by the
            // program's CongState counters: no new recovery or timeout)
            s_restoring = true;
            m_tcb->m_congState = m_saved.state;
            s_restoring = false;
            m_tcb->m_ssThresh = m_saved.ssthresh;
            m_tcb->m_cWnd = m_saved.cwnd;
            m_tcb->m_cWndInfl = m_saved.cwndInfl;
            m_recover = m_saved.recover;
            if (prr) prr->Undo();
        }
        m_guard = false;
        if (m_tcb->m_congState == TcpSocketState::CA_OPEN) m_dupAckCount = 0;
        const bool cwrLoss = prr && m_sackEnabled && sacked &&
                             m_tcb->m_congState == TcpSocketState::CA_CWR &&
                             (m_dupAckCount + 1 >= m_retxThresh ||
                              m_txBuffer->IsLost(m_highRxAckMark));
        if (cwrLoss) {
            m_tcb->m_congState = TcpSocketState::CA_DISORDER;
            prr->SetFromCwr(true);
        }
        TcpSocketBase::ProcessAck(ack, sacked, delivered, oldHead, data);
        if (cwrLoss) {
            prr->SetFromCwr(false);
            if (m_tcb->m_congState == TcpSocketState::CA_DISORDER) {
                m_tcb->m_congState = TcpSocketState::CA_CWR; // no recovery after all
            }
        }
    }
    Ptr<TcpSocketBase> Fork() override { return CopyObject<SocketFix>(this); }

  public:
    static bool s_restoring; // a state change that undoes EnterCwr, not a new state

  private:
    struct Saved
    {
        TcpSocketState::TcpCongState_t state;
        uint32_t ssthresh, cwnd, cwndInfl;
        SequenceNumber32 recover;
    };
    Saved m_saved{};
    bool m_guard{false};
    struct Rtx
    {
        uint32_t len;
        bool sacked;
    };
    mutable std::map<uint32_t, Rtx> m_rtx; // retransmitted segments by first byte
    mutable uint32_t m_sackedRtx{0};       // bytes of those SACKed, still in m_retrans
    mutable bool m_atRto{false};           // ReTxTimeout's first BytesInFlight call to come
    uint32_t m_rtoFlight{0};               // what it returns: the flight before the timeout
};
inline bool SocketFix::s_restoring = false;
inline bool SocketFix::s_ecnFix = true;
inline bool SocketFix::s_rateFix = true;
inline bool SocketFix::s_sackFix = true;

// The senders' socket factory: TcpL4Protocol::CreateSocket with SocketFix in place
// of TcpSocketBase (the congestion control, recovery and RTT estimator as configured).
class SocketFixFactory : public SocketFactory
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::CcsimSocketFixFactory").SetParent<SocketFactory>();
        return tid;
    }
    Ptr<Socket> CreateSocket() override
    {
        Ptr<TcpL4Protocol> tcp = GetObject<TcpL4Protocol>();
        TypeIdValue cc, rec, rtt;
        tcp->GetAttribute("SocketType", cc);
        tcp->GetAttribute("RecoveryType", rec);
        tcp->GetAttribute("RttEstimatorType", rtt);
        ObjectFactory f;
        Ptr<SocketFix> s = CreateObject<SocketFix>();
        s->SetNode(GetObject<Node>());
        s->SetTcp(tcp);
        f.SetTypeId(rtt.Get());
        s->SetRtt(f.Create<RttEstimator>());
        f.SetTypeId(cc.Get());
        s->SetCongestionControlAlgorithm(f.Create<TcpCongestionOps>());
        f.SetTypeId(rec.Get());
        s->SetRecoveryAlgorithm(f.Create<TcpRecoveryOps>());
        tcp->AddSocket(s);
        return s;
    }
};

#endif
