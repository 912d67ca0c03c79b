#pragma once
/// @file The RC queue-pair attributes of the nics probe's verbs part, as plain structs: what each
/// side tells the other (QpInfo, exchanged over MPI between the two host leaders, nics_verbs_wire.hpp) and
/// the RTR/RTS attribute sets both sides derive from it. No verbs headers: src/nics_verbs.cpp copies these
/// into `struct ibv_qp_attr`. The values follow NCCL's net_ib transport (NVIDIA/nccl v2.30.7-1
/// src/transport/net_ib/connect.cc, ncclIbQpRtr:398 and ncclIbQpRts:455), except the ACK timeout (see
/// RtsAttr::timeout).
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace fabcheck::probes::rdma {

/// A raw GID (`union ibv_gid.raw`, network order).
using Gid = std::array<std::uint8_t, 16>;

/// One side's queue pair and buffer, as the peer needs them to connect and to write into it.
struct QpInfo {
  std::uint32_t qpn = 0;           ///< queue pair number (24 bits)
  std::uint32_t psn = 0;           ///< first packet sequence number (24 bits): the peer's rq_psn
  std::uint16_t lid = 0;           ///< port LID (IB; 0 on RoCE)
  Gid gid{};                       ///< the GID at gid_index
  int gid_index = 0;               ///< the sender's source GID index
  int mtu_bytes = 0;               ///< the sender's port active MTU (256 … 4096)
  bool ethernet = false;           ///< link layer Ethernet (RoCE); false: InfiniBand
  std::uint32_t rkey = 0;          ///< remote key of the buffer
  std::uint64_t addr = 0;          ///< virtual address of the buffer
  std::uint64_t buffer_bytes = 0;  ///< length of the buffer
  std::string error;               ///< non-empty: the sender could not set up its side (the rest is unset)
};

/// The local port as the RTR transition needs it.
struct LocalPort {
  int port_num = 1;           ///< ibv port number
  bool ethernet = false;      ///< link layer Ethernet (RoCE)
  int mtu_bytes = 0;          ///< active MTU
  int gid_index = 0;          ///< source GID index (model::nccl_gid_index)
  Gid gid{};                  ///< that GID (IB: its subnet prefix decides between LID and GRH addressing)
  bool grh_required = false;  ///< IBV_QPF_GRH_REQUIRED in ibv_port_attr.flags
};

/// Service level and traffic class as NCCL sets them: NCCL_IB_SL and NCCL_IB_TC when set (≥ 0), else 0
/// (connect.cc NCCL_IB_SL_DEFAULT / NCCL_IB_TC_DEFAULT), so that probe traffic takes the class NCCL's does.
struct QpClass {
  int sl = 0;
  int traffic_class = 0;
};
/// QpClass from NCCL_IB_SL / NCCL_IB_TC in `env` (unset, empty, negative or not a number: 0).
QpClass qp_class_from_env(const std::map<std::string, std::string>& env);

/// The INIT → RTR attributes (ibv_modify_qp mask IBV_QP_STATE | AV | PATH_MTU | DEST_QPN | RQ_PSN |
/// MAX_DEST_RD_ATOMIC | MIN_RNR_TIMER).
struct RtrAttr {
  int path_mtu_bytes = 0;      ///< min(local active MTU, remote active MTU) (ncclIbConnect: std::min of both)
  std::uint32_t dest_qpn = 0;  ///< remote QpInfo::qpn
  std::uint32_t rq_psn = 0;    ///< remote QpInfo::psn
  int max_dest_rd_atomic = 1;  ///< NCCL: 1 (RC)
  int min_rnr_timer = 12;      ///< NCCL: 12 (0.64 ms)
  bool is_global = false;      ///< GRH present: always on RoCE; on IB when the subnets differ or GRH required
  Gid dgid{};                  ///< GRH destination: the remote GID
  int sgid_index = 0;          ///< GRH source GID index: the local gid_index
  int hop_limit = 255;         ///< GRH hop limit (NCCL: 255)
  int traffic_class = 0;       ///< GRH traffic class (QpClass)
  std::uint16_t dlid = 0;      ///< IB destination LID (remote LID, or its FLID across subnets); 0 on RoCE
  int sl = 0;                  ///< service level (QpClass)
  int port_num = 1;            ///< local port
};

/// The RTR → RTS attributes (mask IBV_QP_STATE | SQ_PSN | TIMEOUT | RETRY_CNT | RNR_RETRY |
/// MAX_QP_RD_ATOMIC).
struct RtsAttr {
  /// Local ACK timeout exponent: 4.096 µs · 2^timeout per try. 14 (67 ms) as perftest's DEF_QP_TIME, not
  /// NCCL_IB_TIMEOUT's default 20 (4.3 s): an unreachable port pair then fails in (retry_cnt + 1) · 67 ms ≈
  /// 0.5 s instead of 34 s.
  int timeout = 14;
  int retry_cnt = 7;         ///< NCCL_IB_RETRY_CNT default 7 (perftest DEF_RETRY_COUNT 7)
  int rnr_retry = 7;         ///< NCCL: 7 (infinite)
  int max_rd_atomic = 1;     ///< NCCL: 1
  std::uint32_t sq_psn = 0;  ///< the local QpInfo::psn
};

/// Whether `bytes` is an InfiniBand MTU (256, 512, 1024, 2048, 4096).
bool valid_ib_mtu(int bytes);

/// Time of one ACK timeout try in µs: 4.096 µs · 2^timeout (IBA 1.3 §9.7.6.1.3, ibv_modify_qp(3)).
double ack_timeout_us(int timeout);

/// The RTR attributes to connect `local` to `remote` (NCCL's ncclIbQpRtr): path MTU = the smaller active MTU;
/// RoCE: GRH with dgid = the remote GID, sgid_index = the local GID index, hop limit 255 and the traffic
/// class; IB: dlid = the remote LID, and a GRH as on RoCE only when the two GIDs' local subnet prefixes
/// (bytes 6-7, ncclIbExtractLocalSubnetPrefix) differ — then dlid = the remote GID's FLID (bytes 4-5) when
/// non-zero — or the port requires one. nullopt with `why` when the two sides cannot connect (link layers
/// differ, an MTU is not an IB MTU, the remote side reported an error).
std::optional<RtrAttr> rtr_attr(const LocalPort& local, const QpInfo& remote, const QpClass& cls,
                                std::string& why);

/// The RTS attributes for a local queue pair whose first PSN is `local_psn`.
RtsAttr rts_attr(std::uint32_t local_psn);

}  // namespace fabcheck::probes::rdma
