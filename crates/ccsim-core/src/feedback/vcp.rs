//! VCP's receiver: the 2-bit load code of the data packets echoed in the ACKs
//! (Y. Xia, L. Subramanian, I. Stoica, S. Kalyanaraman, "One more bit is
//! enough", ACM SIGCOMM 2005: the receiver echoes the code to the sender in
//! its ACKs; ns-2 `vcp/vcp-sink.cc`, `VcpSink::ack`: `nf->lf() =
//! of->lf()`, "the only change over the tcpsink code"). Model page:
//! docs/models/vcp.md ("Receiver").
//!
//! The code is the data packet's ECN field as it arrived (`01` low load, `10`
//! high load, `11` overload: the largest any VCP router on the path wrote).
//! VCP's sink acknowledges every packet and echoes that packet's code; an ACK
//! that covers several packets (delayed ACKs) echoes the largest code among
//! them, so no overload signal is lost (the same as the sink's with one ACK
//! per packet). Not-ECT packets carry no code.

use super::{FeedbackSpec, ReceiverFeedback};
use crate::cfg::{Res, Tab};
use crate::packet::{Feedback, Packet};

/// `feedback = {kind = "vcp"}` (no keys).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct Params;

impl Params {
    pub fn read(t: &mut Tab) -> Res<Params> {
        t.docs(&[]);
        Ok(Params)
    }
}

impl FeedbackSpec for Params {
    fn kind(&self) -> &'static str {
        "vcp"
    }
    fn build(&self) -> Box<dyn ReceiverFeedback> {
        Box::new(Echo::default())
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// The codes seen since the last ACK.
#[derive(Default)]
pub struct Echo {
    /// The largest code since the last ACK (0: none).
    pending: u8,
    /// The last code echoed, for tracing.
    last: u8,
}

impl ReceiverFeedback for Echo {
    fn name(&self) -> &'static str {
        "vcp"
    }
    fn on_data(&mut self, pkt: &Packet) {
        self.pending = self.pending.max(pkt.ecn.bits());
    }
    fn fill(&mut self, fb: &mut Feedback) {
        fb.code = self.pending;
        self.last = self.pending;
        self.pending = 0;
    }
    fn trace(&self) -> Option<(&'static str, f64)> {
        Some(("load_code", self.last as f64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{Ecn, FlowId, Kind, NodeId};
    use crate::units::Time;

    fn data(ecn: Ecn) -> Packet {
        let mut p = Packet::new(0, FlowId(0), NodeId(0), NodeId(1), 1040, Kind::Data, Time::ZERO);
        p.ecn = ecn;
        p
    }

    /// `VcpSink::ack`: each ACK carries its packet's code; an ACK covering
    /// several packets the largest; an ACK after Not-ECT data none.
    #[test]
    fn acks_echo_the_data_packets_code() {
        let mut e = Echo::default();
        let mut fb = Feedback::default();
        for (ecn, want) in [(Ecn::Ect1, 0b01), (Ecn::Ect0, 0b10), (Ecn::Ce, 0b11), (Ecn::Ect1, 0b01)] {
            e.on_data(&data(ecn));
            e.fill(&mut fb);
            assert_eq!(fb.code, want, "{ecn:?}");
        }
        e.on_data(&data(Ecn::Ce));
        e.on_data(&data(Ecn::Ect1));
        e.fill(&mut fb);
        assert_eq!(fb.code, 0b11, "delayed ACK: the larger of two codes");
        e.on_data(&data(Ecn::NotEct));
        e.fill(&mut fb);
        assert_eq!(fb.code, 0);
        assert_eq!((fb.load, fb.ce_seen), (None, false), "nothing else written");
    }
}
