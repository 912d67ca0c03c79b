// The nics probe's RDMA verbs part (nics_verbs.hpp): RC queue pairs between every active RDMA port of the two
// hosts of each scheduled host pair, RDMA WRITE bandwidth with a window (ib_write_bw) and an 8 B RDMA WRITE
// ping-pong (ib_write_lat). Compiled only when FABCHECK_HAVE_IBVERBS; the pure parts (attributes, GID choice,
// wire format, maths) live in nics_verbs_qp/_wire/_math.cpp and model/gid_choice.cpp.
#include <infiniband/verbs.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>

#include <net/if.h>

#include "fabcheck/comm/phase.hpp"
#include "fabcheck/core/error.hpp"
#include "fabcheck/model/gid_choice.hpp"
#include "fabcheck/model/json_value.hpp"
#include "fabcheck/probes/nics_verbs_math.hpp"
#include "fabcheck/probes/nics_verbs_qp.hpp"
#include "fabcheck/probes/nics_verbs_wire.hpp"
#include "nics_verbs.hpp"
#include "verbs_mtu.hpp"

namespace fabcheck::probes::detail {

namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr int kVerbsTagQp = 22201;      // QpInfo exchange
constexpr int kVerbsTagStatus = 22202;  // phase outcome exchange
constexpr double kVerbsStallS = 10.0;   // a poll loop without progress for this long gives up
constexpr std::size_t kStatusBytes = 192;
constexpr std::size_t kLatSlotBytes = 64;  // buffer: [8 B receive slot, 8 B send slot, pad][bandwidth region]

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

std::string errno_text(const char* call, int err) {
  return fmt::format("{}: {}", call, std::strerror(err != 0 ? err : EIO));
}

// One opened port with what the queue pairs need.
struct OpenPort {
  std::size_t device = 0;  // index into VerbsState::contexts
  model::VerbsNicPort info;
  rdma::Gid gid{};
  bool gid_present = false;  // the chosen slot holds a GID
};

// This host's opened devices (host leader only). Closes them on destruction.
class VerbsState {
 public:
  VerbsState(const std::map<std::string, std::string>& env) { open(env); }
  ~VerbsState() {
    for (auto* pd : pds_)
      if (pd) ibv_dealloc_pd(pd);
    for (auto* c : contexts_)
      if (c) ibv_close_device(c);
  }
  VerbsState(const VerbsState&) = delete;
  VerbsState& operator=(const VerbsState&) = delete;

  std::vector<OpenPort> ports;
  std::string skipped;
  ibv_context* context(std::size_t d) const { return contexts_[d]; }
  ibv_pd* pd(std::size_t d) const { return pds_[d]; }

 private:
  void open(const std::map<std::string, std::string>& env) {
    int num = 0;
    errno = 0;
    ibv_device** list = ibv_get_device_list(&num);
    if (!list) {
      skipped =
          fmt::format("no RDMA device (ibv_get_device_list: {})", std::strerror(errno ? errno : ENOSYS));
      return;
    }
    if (num == 0) {
      ibv_free_device_list(list);
      skipped = "no RDMA device (ibv_get_device_list returned 0)";
      return;
    }
    std::vector<std::string> not_active;
    for (int i = 0; i < num; ++i) {
      const std::string name = ibv_get_device_name(list[i]);
      ibv_context* ctx = ibv_open_device(list[i]);
      if (!ctx) {
        not_active.push_back(fmt::format("{}: {}", name, errno_text("ibv_open_device", errno)));
        continue;
      }
      ibv_device_attr dattr{};
      ibv_pd* pd = ibv_query_device(ctx, &dattr) == 0 ? ibv_alloc_pd(ctx) : nullptr;
      if (!pd) {
        not_active.push_back(fmt::format("{}: {}", name, errno_text("ibv_alloc_pd", errno)));
        ibv_close_device(ctx);
        continue;
      }
      const std::size_t d = contexts_.size();
      contexts_.push_back(ctx);
      pds_.push_back(pd);
      for (int p = 1; p <= dattr.phys_port_cnt; ++p) {
        ibv_port_attr pa{};
        if (ibv_query_port(ctx, static_cast<std::uint8_t>(p), &pa) != 0) continue;
        if (pa.state != IBV_PORT_ACTIVE) {
          not_active.push_back(fmt::format("{} port {} {}", name, p, ibv_port_state_str(pa.state)));
          continue;
        }
        ports.push_back(open_port(ctx, d, name, p, pa, env));
      }
    }
    ibv_free_device_list(list);
    if (ports.empty()) {
      std::string why;
      for (const auto& s : not_active) why += (why.empty() ? "" : ", ") + s;
      skipped = fmt::format("no active RDMA port ({})", why);
    }
  }

  static OpenPort open_port(ibv_context* ctx, std::size_t d, const std::string& name, int p,
                            const ibv_port_attr& pa, const std::map<std::string, std::string>& env) {
    OpenPort op;
    op.device = d;
    auto& info = op.info;
    info.device = name;
    info.port = p;
    const bool eth = pa.link_layer == IBV_LINK_LAYER_ETHERNET;
    info.link_layer = eth ? "Ethernet" : "InfiniBand";
    info.lid = pa.lid;
    info.active_mtu_bytes = detail::verbs_mtu_to_bytes(pa.active_mtu);
    // The GID table as model::RdmaPort holds it, so that the choice is NCCL's (model::nccl_gid_index).
    model::RdmaPort rp;
    rp.port = p;
    rp.link_layer = info.link_layer;
    rp.gid_tbl_len = pa.gid_tbl_len;
    std::map<int, rdma::Gid> raw_of;
    for (int i = 0; i < pa.gid_tbl_len; ++i) {
      ibv_gid_entry e{};
      if (ibv_query_gid_ex(ctx, static_cast<std::uint32_t>(p), static_cast<std::uint32_t>(i), &e, 0) != 0)
        continue;  // empty slot (ENODATA) or unreadable
      rdma::Gid raw{};
      std::memcpy(raw.data(), e.gid.raw, raw.size());
      bool zero = true;
      for (auto b : raw) zero = zero && b == 0;
      if (zero) continue;
      std::string type = e.gid_type == IBV_GID_TYPE_ROCE_V2   ? "RoCE v2"
                         : e.gid_type == IBV_GID_TYPE_ROCE_V1 ? (eth ? "RoCE v1" : "IB")
                                                              : "IB";
      char ifname[IF_NAMESIZE] = {};
      std::string netdev = e.ndev_ifindex != 0 && if_indextoname(e.ndev_ifindex, ifname) ? ifname : "";
      rp.gids.push_back(model::gid_entry_of(i, raw, std::move(type), std::move(netdev)));
      raw_of[i] = raw;
    }
    const auto choice = model::nccl_gid_index(rp, env);
    info.gid_index = choice.index;
    info.gid_index_source = choice.source;
    for (const auto& g : rp.gids)
      if (g.index == choice.index) {
        info.gid = g.gid;
        info.netdev = g.netdev;
        op.gid = raw_of[g.index];
        op.gid_present = true;
      }
    return op;
  }

  std::vector<ibv_context*> contexts_;
  std::vector<ibv_pd*> pds_;
};

// Every host leader's ports (or skip reason) on every rank.
std::vector<model::VerbsHost> exchange_verbs_hosts(const comm::Communicator& comm, const VerbsState* mine) {
  std::string text;
  if (mine) {
    json j = {{"skipped", mine->skipped}, {"ports", json::array()}};
    for (const auto& p : mine->ports) j["ports"].push_back(model::verbs_port_json(p.info));
    text = j.dump();
  }
  auto got = comm.gather(text, 0);
  std::string all;
  if (comm.rank() == 0) {
    json hosts = json::array();
    for (std::size_t h = 0; h < comm.hosts().size(); ++h) hosts.push_back(json());
    for (std::size_t r = 0; r < got.size(); ++r)
      if (!got[r].empty())
        hosts[static_cast<std::size_t>(comm.host_index(static_cast<int>(r)))] = json::parse(got[r]);
    all = hosts.dump();
  }
  comm.bcast(all, 0);
  std::vector<model::VerbsHost> out;
  for (const auto& h : json::parse(all)) {
    model::VerbsHost vh;
    if (h.is_null()) {
      vh.skipped = "no host leader answered";
    } else {
      vh.skipped = h.at("skipped").get<std::string>();
      for (const auto& p : h.at("ports")) vh.ports.push_back(model::verbs_port_from_json(p));
    }
    out.push_back(std::move(vh));
  }
  return out;
}

// Exchanges a short status text with the peer leader (both sides call it at the same point).
std::string exchange_status(const comm::Communicator& comm, int peer, const std::string& mine) {
  std::array<char, kStatusBytes> s{}, r{};
  std::memcpy(s.data(), mine.data(), std::min(mine.size(), kStatusBytes - 1));
  comm.sendrecv(s.data(), s.size(), peer, r.data(), r.size(), peer, kVerbsTagStatus);
  r.back() = '\0';
  return std::string(r.data());
}

// One side of one port pair: the queue pair, its CQ and the registered buffer.
class PairSide {
 public:
  PairSide(const VerbsState& st, const OpenPort& port, const model::NicsOptions& o) : port_(port) {
    const std::size_t bytes = kLatSlotBytes + o.verbs_size_bytes;
    buf_.reset(static_cast<std::uint8_t*>(std::aligned_alloc(4096, (bytes + 4095) / 4096 * 4096)));
    if (!buf_) {
      error = "out of memory for the buffer";
      return;
    }
    std::memset(buf_.get(), 0, bytes);
    bytes_ = bytes;
    ibv_context* ctx = st.context(port.device);
    mr_ = ibv_reg_mr(st.pd(port.device), buf_.get(), bytes, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
    if (!mr_) {
      error = errno_text("ibv_reg_mr", errno);
      return;
    }
    cq_ = ibv_create_cq(ctx, o.verbs_tx_depth + 8, nullptr, nullptr, 0);
    if (!cq_) {
      error = errno_text("ibv_create_cq", errno);
      return;
    }
    for (std::uint32_t inl : {64u, 0u}) {  // inline 8 B pings where the device allows it
      ibv_qp_init_attr ia{};
      ia.send_cq = cq_;
      ia.recv_cq = cq_;
      ia.qp_type = IBV_QPT_RC;
      ia.cap.max_send_wr = static_cast<std::uint32_t>(o.verbs_tx_depth);
      ia.cap.max_recv_wr = 1;
      ia.cap.max_send_sge = 1;
      ia.cap.max_recv_sge = 1;
      ia.cap.max_inline_data = inl;
      qp_ = ibv_create_qp(st.pd(port.device), &ia);
      if (qp_) {
        inline_ = ia.cap.max_inline_data >= 8;
        break;
      }
    }
    if (!qp_) {
      error = errno_text("ibv_create_qp", errno);
      return;
    }
    ibv_qp_attr a{};
    a.qp_state = IBV_QPS_INIT;
    a.pkey_index = 0;
    a.port_num = static_cast<std::uint8_t>(port.info.port);
    a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
    if (int rc =
            ibv_modify_qp(qp_, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS)) {
      error = errno_text("ibv_modify_qp INIT", rc);
      return;
    }
    if (port.info.link_layer == "Ethernet" && !port.gid_present) {
      error = fmt::format("{} port {}: GID index {} ({}) is empty", port.info.device, port.info.port,
                          port.info.gid_index, port.info.gid_index_source);
      return;
    }
    std::random_device rd;
    psn_ = rd() & 0xffffff;
  }
  ~PairSide() {
    if (qp_) ibv_destroy_qp(qp_);
    if (cq_) ibv_destroy_cq(cq_);
    if (mr_) ibv_dereg_mr(mr_);
  }
  PairSide(const PairSide&) = delete;
  PairSide& operator=(const PairSide&) = delete;

  std::string error;  // set-up failure

  rdma::QpInfo info() const {
    rdma::QpInfo q;
    if (!error.empty()) {
      q.error = error;
      return q;
    }
    q.qpn = qp_->qp_num;
    q.psn = psn_;
    q.lid = static_cast<std::uint16_t>(port_.info.lid);
    q.gid = port_.gid;
    q.gid_index = port_.info.gid_index;
    q.mtu_bytes = port_.info.active_mtu_bytes;
    q.ethernet = port_.info.link_layer == "Ethernet";
    q.rkey = mr_->rkey;
    q.addr = reinterpret_cast<std::uintptr_t>(buf_.get());
    q.buffer_bytes = bytes_;
    return q;
  }

  // INIT → RTR → RTS against the peer's QpInfo. Returns "" or why not.
  std::string connect(const rdma::QpInfo& remote, const rdma::QpClass& cls, int& path_mtu) {
    rdma::LocalPort lp;
    lp.port_num = port_.info.port;
    lp.ethernet = port_.info.link_layer == "Ethernet";
    lp.mtu_bytes = port_.info.active_mtu_bytes;
    lp.gid_index = port_.info.gid_index;
    lp.gid = port_.gid;
    lp.grh_required = false;  // rdma-core 44 has no IBV_QPF_GRH_REQUIRED: a GRH on IB only across subnets
    std::string why;
    const auto rtr = rdma::rtr_attr(lp, remote, cls, why);
    if (!rtr) return why;
    path_mtu = rtr->path_mtu_bytes;
    remote_ = remote;
    ibv_qp_attr a{};
    a.qp_state = IBV_QPS_RTR;
    a.path_mtu = detail::verbs_mtu_of_bytes(rtr->path_mtu_bytes);
    a.dest_qp_num = rtr->dest_qpn;
    a.rq_psn = rtr->rq_psn;
    a.max_dest_rd_atomic = static_cast<std::uint8_t>(rtr->max_dest_rd_atomic);
    a.min_rnr_timer = static_cast<std::uint8_t>(rtr->min_rnr_timer);
    a.ah_attr.is_global = rtr->is_global ? 1 : 0;
    if (rtr->is_global) {
      std::memcpy(a.ah_attr.grh.dgid.raw, rtr->dgid.data(), rtr->dgid.size());
      a.ah_attr.grh.sgid_index = static_cast<std::uint8_t>(rtr->sgid_index);
      a.ah_attr.grh.hop_limit = static_cast<std::uint8_t>(rtr->hop_limit);
      a.ah_attr.grh.traffic_class = static_cast<std::uint8_t>(rtr->traffic_class);
    }
    a.ah_attr.dlid = rtr->dlid;
    a.ah_attr.sl = static_cast<std::uint8_t>(rtr->sl);
    a.ah_attr.port_num = static_cast<std::uint8_t>(rtr->port_num);
    if (int rc = ibv_modify_qp(qp_, &a,
                               IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                                   IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
      return fmt::format("{} (sgid_index {}, path MTU {})", errno_text("ibv_modify_qp RTR", rc),
                         rtr->sgid_index, rtr->path_mtu_bytes);
    const auto rts = rdma::rts_attr(psn_);
    ibv_qp_attr b{};
    b.qp_state = IBV_QPS_RTS;
    b.timeout = static_cast<std::uint8_t>(rts.timeout);
    b.retry_cnt = static_cast<std::uint8_t>(rts.retry_cnt);
    b.rnr_retry = static_cast<std::uint8_t>(rts.rnr_retry);
    b.sq_psn = rts.sq_psn;
    b.max_rd_atomic = static_cast<std::uint8_t>(rts.max_rd_atomic);
    if (int rc = ibv_modify_qp(qp_, &b,
                               IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
                                   IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC))
      return errno_text("ibv_modify_qp RTS", rc);
    return {};
  }

  // ib_write_bw: `iters` WRITEs of `size` bytes, at most `depth` in flight, each signaled; seconds from the
  // first post to the last completion. Returns "" or why not.
  std::string write_bw(std::uint64_t size, int iters, int depth, double& seconds) {
    rdma::WriteWindow w;
    w.iters = static_cast<std::uint64_t>(iters);
    w.depth = static_cast<std::uint64_t>(depth);
    ibv_sge sge{};
    sge.addr = reinterpret_cast<std::uintptr_t>(buf_.get()) + kLatSlotBytes;
    sge.length = static_cast<std::uint32_t>(size);
    sge.lkey = mr_->lkey;
    ibv_send_wr wr{};
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = IBV_WR_RDMA_WRITE;
    wr.send_flags = IBV_SEND_SIGNALED;
    wr.wr.rdma.remote_addr = remote_.addr + kLatSlotBytes;
    wr.wr.rdma.rkey = remote_.rkey;
    std::array<ibv_wc, 32> wcs{};
    const auto t0 = Clock::now();
    auto progress = t0;
    auto t_last = t0;
    while (!w.done()) {
      for (std::uint64_t n = w.can_post(); n > 0; --n) {
        ibv_send_wr* bad = nullptr;
        wr.wr_id = w.posted;
        if (int rc = ibv_post_send(qp_, &wr, &bad)) return errno_text("ibv_post_send", rc);
        w.post(1);
      }
      const int ne = ibv_poll_cq(cq_, static_cast<int>(wcs.size()), wcs.data());
      if (ne < 0) return "ibv_poll_cq failed";
      for (int i = 0; i < ne; ++i)
        if (wcs[static_cast<std::size_t>(i)].status != IBV_WC_SUCCESS)
          return wc_error(wcs[static_cast<std::size_t>(i)], w.completed + static_cast<std::uint64_t>(i));
      if (ne > 0) {
        w.complete(static_cast<std::uint64_t>(ne));
        progress = t_last = Clock::now();
      } else if (seconds_since(progress) > kVerbsStallS) {
        return fmt::format("no completion within {:.0f} s ({} of {} WRITEs completed)", kVerbsStallS,
                           w.completed, w.iters);
      }
    }
    seconds = std::chrono::duration<double>(t_last - t0).count();
    return {};
  }

  // ib_write_lat, initiator: per iteration write seq into the peer's receive slot, wait for the same value in
  // ours; round trip in ns. Returns "" or why not.
  std::string ping(std::uint64_t first_seq, int warmup, int iters, std::vector<double>& rtt_ns) {
    for (int k = 0; k < warmup + iters; ++k) {
      const std::uint64_t seq = first_seq + static_cast<std::uint64_t>(k);
      const auto t0 = Clock::now();
      if (auto e = post_seq(seq); !e.empty()) return e;
      if (auto e = wait_seq(seq); !e.empty()) return e;
      const double ns = std::chrono::duration<double, std::nano>(Clock::now() - t0).count();
      if (k >= warmup) rtt_ns.push_back(ns);
    }
    return {};
  }

  // ib_write_lat, responder: wait for each seq and write it back.
  std::string pong(std::uint64_t first_seq, int count) {
    for (int k = 0; k < count; ++k) {
      const std::uint64_t seq = first_seq + static_cast<std::uint64_t>(k);
      if (auto e = wait_seq(seq); !e.empty()) return e;
      if (auto e = post_seq(seq); !e.empty()) return e;
    }
    return {};
  }

 private:
  static std::string wc_error(const ibv_wc& wc, std::uint64_t nth) {
    return fmt::format("work completion {}: {} (status {}, vendor_err 0x{:x})", nth,
                       ibv_wc_status_str(wc.status), static_cast<int>(wc.status), wc.vendor_err);
  }

  std::uint64_t* slot(std::size_t at) const { return reinterpret_cast<std::uint64_t*>(buf_.get() + at); }

  // One signaled 8 B WRITE of seq from our send slot into the peer's receive slot, completion polled.
  std::string post_seq(std::uint64_t seq) {
    std::atomic_ref<std::uint64_t>(*slot(8)).store(seq, std::memory_order_release);
    ibv_sge sge{};
    sge.addr = reinterpret_cast<std::uintptr_t>(slot(8));
    sge.length = 8;
    sge.lkey = mr_->lkey;
    ibv_send_wr wr{};
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = IBV_WR_RDMA_WRITE;
    wr.send_flags = IBV_SEND_SIGNALED | (inline_ ? static_cast<unsigned>(IBV_SEND_INLINE) : 0u);
    wr.wr.rdma.remote_addr = remote_.addr;
    wr.wr.rdma.rkey = remote_.rkey;
    ibv_send_wr* bad = nullptr;
    if (int rc = ibv_post_send(qp_, &wr, &bad)) return errno_text("ibv_post_send", rc);
    ibv_wc wc{};
    const auto t0 = Clock::now();
    for (;;) {
      const int ne = ibv_poll_cq(cq_, 1, &wc);
      if (ne < 0) return "ibv_poll_cq failed";
      if (ne == 1) return wc.status == IBV_WC_SUCCESS ? std::string() : wc_error(wc, seq);
      if (seconds_since(t0) > kVerbsStallS) return fmt::format("no completion within {:.0f} s", kVerbsStallS);
    }
  }

  std::string wait_seq(std::uint64_t seq) {
    std::atomic_ref<std::uint64_t> r(*slot(0));
    const auto t0 = Clock::now();
    for (std::uint32_t spins = 0; r.load(std::memory_order_acquire) != seq; ++spins)
      if ((spins & 0xfff) == 0 && seconds_since(t0) > kVerbsStallS)
        return fmt::format("no ping-pong reply {} within {:.0f} s", seq, kVerbsStallS);
    return {};
  }

  struct FreeDeleter {
    void operator()(std::uint8_t* p) const { std::free(p); }
  };
  const OpenPort& port_;
  std::unique_ptr<std::uint8_t, FreeDeleter> buf_;
  std::size_t bytes_ = 0;
  ibv_mr* mr_ = nullptr;
  ibv_cq* cq_ = nullptr;
  ibv_qp* qp_ = nullptr;
  bool inline_ = false;
  std::uint32_t psn_ = 0;
  rdma::QpInfo remote_;
};

json link_json(const model::VerbsLink& l) {
  return {{"from_host", l.from_host},
          {"from_port", l.from_port},
          {"to_host", l.to_host},
          {"to_port", l.to_port},
          {"reachable", l.reachable},
          {"error", l.error},
          {"path_mtu_bytes", l.path_mtu_bytes},
          {"bw_gbps", model::number_or_null(l.bw_gbps)},
          {"lat_p50_us", model::number_or_null(l.lat_p50_us)},
          {"lat_p99_us", model::number_or_null(l.lat_p99_us)}};
}

model::VerbsLink link_from(const json& j) {
  model::VerbsLink l;
  l.from_host = j.at("from_host").get<int>();
  l.from_port = j.at("from_port").get<int>();
  l.to_host = j.at("to_host").get<int>();
  l.to_port = j.at("to_port").get<int>();
  l.reachable = j.at("reachable").get<bool>();
  l.error = j.at("error").get<std::string>();
  l.path_mtu_bytes = j.at("path_mtu_bytes").get<int>();
  if (j.at("bw_gbps").is_number()) l.bw_gbps = j.at("bw_gbps").get<double>();
  if (j.at("lat_p50_us").is_number()) l.lat_p50_us = j.at("lat_p50_us").get<double>();
  if (j.at("lat_p99_us").is_number()) l.lat_p99_us = j.at("lat_p99_us").get<double>();
  return l;
}

// Both leaders of a host pair run this for the same port pair at the same time: `i_am_a` on host a (port
// index pa), the other on host b (pb). Appends the link this side initiated (a → b on a, b → a on b).
void run_port_pair(const comm::Communicator& comm, int peer, bool i_am_a, int host_a, int pa, int host_b,
                   int pb, const VerbsState& st, const OpenPort& port, const model::NicsOptions& o,
                   const rdma::QpClass& cls, json& links) {
  model::VerbsLink mine;
  mine.from_host = i_am_a ? host_a : host_b;
  mine.from_port = i_am_a ? pa : pb;
  mine.to_host = i_am_a ? host_b : host_a;
  mine.to_port = i_am_a ? pb : pa;
  auto finish = [&](std::string error) {
    mine.error = std::move(error);
    links.push_back(link_json(mine));
  };
  PairSide side(st, port, o);
  const auto wire = rdma::serialize_qp_info(side.info());
  std::array<char, rdma::kQpWireBytes> theirs{};
  comm.sendrecv(wire.data(), wire.size(), peer, theirs.data(), theirs.size(), peer, kVerbsTagQp);
  std::string why;
  auto remote = rdma::parse_qp_info(std::string_view(theirs.data(), theirs.size()), why);
  std::string err = !side.error.empty() ? side.error : !remote ? "peer's queue pair info: " + why : "";
  if (err.empty()) err = side.connect(*remote, cls, mine.path_mtu_bytes);
  // Both sides in RTS (or both know why not) before any WRITE.
  const std::string peer_err = exchange_status(comm, peer, err);
  if (!err.empty()) return finish(err);
  if (!peer_err.empty()) return finish("peer: " + peer_err);

  const std::uint64_t lat_count = static_cast<std::uint64_t>(o.lat_warmup + o.lat_iters);
  // The first failure on either side ends the pair (its queue pairs are then in the error state); both sides
  // learn it from the status exchanges, so they stay in step.
  std::string failed;
  for (int dir = 0; dir < 2; ++dir) {
    const bool initiator = (dir == 0) == i_am_a;
    if (!failed.empty()) {
      if (initiator) mine.error = "not measured: the queue pair failed the other way: " + failed;
      continue;
    }
    std::string e;
    if (initiator) {
      double seconds = 0;
      e = side.write_bw(o.verbs_size_bytes, o.verbs_iters, o.verbs_tx_depth, seconds);
      if (e.empty()) {
        mine.reachable = true;
        mine.bw_gbps =
            rdma::write_bw_gbps(o.verbs_size_bytes, static_cast<std::uint64_t>(o.verbs_iters), seconds);
      } else {
        mine.error = e;
      }
    }
    std::string other = exchange_status(comm, peer, e);
    failed = !e.empty() ? e : other;
    if (!failed.empty()) continue;
    const std::uint64_t first = 1 + static_cast<std::uint64_t>(dir) * lat_count;
    if (initiator) {
      std::vector<double> rtt;
      e = side.ping(first, o.lat_warmup, o.lat_iters, rtt);
      if (const auto s = rdma::write_lat_half_us(rtt); e.empty() && s.samples > 0) {
        mine.lat_p50_us = s.p50;
        mine.lat_p99_us = s.p99;
      }
    } else {
      e = side.pong(first, static_cast<int>(lat_count));
    }
    other = exchange_status(comm, peer, e);
    failed = !e.empty() ? e : (other.empty() ? "" : "peer: " + other);
    if (initiator && !failed.empty()) mine.error = "latency: " + failed;
  }
  links.push_back(link_json(mine));
}

}  // namespace

std::optional<std::string> verbs_build_skip_reason() {
  return std::nullopt;
}

model::NicsVerbs run_nics_verbs(const comm::Communicator& comm, const model::NicsOptions& o,
                                const std::vector<core::PairRound>& schedule,
                                const std::map<std::string, std::string>& env) {
  model::NicsVerbs res;
  res.msg_size_bytes = o.verbs_size_bytes;
  res.iters = o.verbs_iters;
  res.tx_depth = o.verbs_tx_depth;
  res.lat_iters = o.lat_iters;
  const bool leader = comm.local_rank() == 0;
  const int my_host = comm.host_index(comm.rank());
  comm::enter_phase("nics verbs exchange");
  std::unique_ptr<VerbsState> st;
  if (leader) st = std::make_unique<VerbsState>(env);
  res.hosts = exchange_verbs_hosts(comm, st.get());
  std::vector<std::string> reasons;
  int usable = 0;
  for (std::size_t h = 0; h < res.hosts.size(); ++h) {
    if (res.hosts[h].skipped.empty())
      ++usable;
    else
      reasons.push_back(fmt::format("{}: {}", comm.hosts()[h], res.hosts[h].skipped));
  }
  if (o.verbs == "on" && !reasons.empty())
    throw RuntimeFailure(fmt::format("nics --verbs on: {}", reasons.front()));
  if (usable < 2) {
    // Every host the same reason (the usual case: no RDMA hardware anywhere): the reason alone.
    bool same = true;
    for (const auto& h : res.hosts) same = same && h.skipped == res.hosts.front().skipped;
    res.skipped = same && !res.hosts.empty()
                      ? res.hosts.front().skipped
                      : fmt::format("fewer than two hosts with an active RDMA port ({})",
                                    reasons.empty() ? "" : reasons.front());
    return res;
  }
  const auto cls = rdma::qp_class_from_env(env);
  json links = json::array();
  for (std::size_t ri = 0; ri < schedule.size(); ++ri) {
    comm::enter_phase(fmt::format("nics verbs round {}/{}", ri + 1, schedule.size()));
    if (leader)
      for (auto [a, b] : schedule[ri]) {
        if (my_host != a && my_host != b) continue;
        const auto& ha = res.hosts[static_cast<std::size_t>(a)];
        const auto& hb = res.hosts[static_cast<std::size_t>(b)];
        if (!ha.skipped.empty() || !hb.skipped.empty()) continue;  // both sides see the same
        const bool i_am_a = my_host == a;
        const int peer = comm.ranks_by_host()[static_cast<std::size_t>(i_am_a ? b : a)].front();
        for (std::size_t i = 0; i < ha.ports.size(); ++i)
          for (std::size_t j = 0; j < hb.ports.size(); ++j)
            run_port_pair(comm, peer, i_am_a, a, static_cast<int>(i), b, static_cast<int>(j), *st,
                          st->ports[i_am_a ? i : j], o, cls, links);
      }
    comm.lazy_barrier();
  }
  auto got = comm.gather(links.dump(), 0);
  if (comm.rank() == 0) {
    for (const auto& text : got)
      if (!text.empty())
        for (const auto& l : json::parse(text)) res.links.push_back(link_from(l));
    std::sort(res.links.begin(), res.links.end(), [](const auto& x, const auto& y) {
      return std::tie(x.from_host, x.from_port, x.to_host, x.to_port) <
             std::tie(y.from_host, y.from_port, y.to_host, y.to_port);
    });
  }
  return res;
}

}  // namespace fabcheck::probes::detail
