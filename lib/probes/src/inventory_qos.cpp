// The lossless configuration of each RoCE port's netdev (model::RoceQos): trust mode, DSCP→priority
// map and receive buffers from MLNX_OFED's mlx5 `qos/` sysfs group, PFC enable bits from DCB netlink (the
// live host) or a recorded `mlnx_qos -i <if>` output (a tree under --sysfs-root), ECN enables from mlx5's
// `ecn/roce_np|roce_rp/enable/<prio>`. Missing files are unknown, each with the reason; nothing is guessed.
#include <fmt/format.h>
#include <linux/dcbnl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>
#include <unistd.h>

#include <charconv>
#include <cstring>
#include <sstream>

#include "fabcheck/core/ascii.hpp"
#include "fabcheck/parse/mlnx_qos.hpp"
#include "inventory_facts.hpp"
#include "sysfs_read.hpp"

namespace fabcheck::probes {

namespace fs = std::filesystem;

namespace {

using parse::kQosDscpValues;
using parse::kQosPriorities;
using parse::MlnxQosOutput;
using parse::parse_mlnx_qos_output;
using parse::parse_qos_pairs;

/// What DCB netlink said for one interface (DCB_CMD_IEEE_GET, include/uapi/linux/dcbnl.h).
struct DcbnlReply {
  std::optional<int> pfc_en;                  ///< struct ieee_pfc.pfc_en (DCB_ATTR_IEEE_PFC)
  std::vector<std::pair<int, int>> dscp_app;  ///< (dscp, priority) of the app table's selector-5 entries
  std::string error;                          ///< why there is no answer, "" when there is one
};

/// Walks the nested attributes of DCB_ATTR_IEEE: DCB_ATTR_IEEE_PFC and DCB_ATTR_IEEE_APP_TABLE's entries.
void qos_walk_ieee(const char* p, int len, DcbnlReply& out) {
  for (auto* a = reinterpret_cast<const nlattr*>(p);
       len >= static_cast<int>(sizeof(nlattr)) && a->nla_len >= sizeof(nlattr) && a->nla_len <= len;) {
    const char* data = reinterpret_cast<const char*>(a) + NLA_HDRLEN;
    const int dlen = a->nla_len - NLA_HDRLEN;
    const int type = a->nla_type & NLA_TYPE_MASK;
    if (type == DCB_ATTR_IEEE_PFC && dlen >= static_cast<int>(sizeof(ieee_pfc))) {
      ieee_pfc pfc{};
      std::memcpy(&pfc, data, sizeof(pfc));
      out.pfc_en = pfc.pfc_en;
    } else if (type == DCB_ATTR_IEEE_APP_TABLE) {
      int rest = dlen;
      for (auto* e = reinterpret_cast<const nlattr*>(data);
           rest >= static_cast<int>(sizeof(nlattr)) && e->nla_len >= sizeof(nlattr) && e->nla_len <= rest;) {
        if ((e->nla_type & NLA_TYPE_MASK) == DCB_ATTR_IEEE_APP &&
            e->nla_len >= NLA_HDRLEN + sizeof(dcb_app)) {
          dcb_app app{};
          std::memcpy(&app, reinterpret_cast<const char*>(e) + NLA_HDRLEN, sizeof(app));
          if (app.selector == IEEE_8021QAZ_APP_SEL_DSCP)
            out.dscp_app.emplace_back(app.protocol, app.priority);
        }
        const int step = NLA_ALIGN(e->nla_len);
        rest -= step;
        e = reinterpret_cast<const nlattr*>(reinterpret_cast<const char*>(e) + step);
      }
    }
    const int step = NLA_ALIGN(a->nla_len);
    len -= step;
    a = reinterpret_cast<const nlattr*>(reinterpret_cast<const char*>(a) + step);
  }
}

/// RTM_GETDCB / DCB_CMD_IEEE_GET for `ifname` on a NETLINK_ROUTE socket — what `dcb pfc show` (iproute2)
/// and mlnx_qos (dcbnetlink.py get_ieee_pfc_en, get_ieee_app_table) ask. Unprivileged reads are allowed.
DcbnlReply qos_query_dcbnl(const std::string& ifname) {
  DcbnlReply out;
  int fd = ::socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
  if (fd < 0) {
    out.error = fmt::format("netlink socket: {}", std::strerror(errno));
    return out;
  }
  struct {
    nlmsghdr nh;
    dcbmsg dcb;
    char attrs[64];
  } req{};
  const int name_len = static_cast<int>(ifname.size()) + 1;
  auto* ifattr = reinterpret_cast<nlattr*>(req.attrs);
  ifattr->nla_type = DCB_ATTR_IFNAME;
  ifattr->nla_len = static_cast<unsigned short>(NLA_HDRLEN + name_len);
  std::memcpy(req.attrs + NLA_HDRLEN, ifname.c_str(),
              std::min<std::size_t>(static_cast<std::size_t>(name_len), 64 - NLA_HDRLEN));
  req.nh.nlmsg_len = static_cast<__u32>(NLMSG_LENGTH(sizeof(dcbmsg)) + NLA_ALIGN(ifattr->nla_len));
  req.nh.nlmsg_type = RTM_GETDCB;
  req.nh.nlmsg_flags = NLM_F_REQUEST;
  req.dcb.dcb_family = AF_UNSPEC;
  req.dcb.cmd = DCB_CMD_IEEE_GET;
  timeval tv{1, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  std::vector<char> buf(16384);
  ssize_t n = -1;
  if (ifname.size() < 32 && ::send(fd, &req, req.nh.nlmsg_len, 0) >= 0)
    n = ::recv(fd, buf.data(), buf.size(), 0);
  if (n < 0) out.error = fmt::format("DCB netlink: {}", std::strerror(errno));
  ::close(fd);
  if (n < 0) return out;
  auto* nh = reinterpret_cast<nlmsghdr*>(buf.data());
  if (!NLMSG_OK(nh, static_cast<unsigned>(n)) || nh->nlmsg_type == NLMSG_ERROR) {
    int err = 0;
    if (NLMSG_OK(nh, static_cast<unsigned>(n)) && nh->nlmsg_len >= NLMSG_LENGTH(sizeof(nlmsgerr)))
      err = -static_cast<const nlmsgerr*>(NLMSG_DATA(nh))->error;
    out.error = fmt::format("DCB netlink: {}", err ? std::strerror(err) : "no answer");
    return out;
  }
  const char* p = static_cast<const char*>(NLMSG_DATA(nh)) + NLMSG_ALIGN(sizeof(dcbmsg));
  int len = static_cast<int>(nh->nlmsg_len) - static_cast<int>(NLMSG_LENGTH(NLMSG_ALIGN(sizeof(dcbmsg))));
  for (auto* a = reinterpret_cast<const nlattr*>(p);
       len >= static_cast<int>(sizeof(nlattr)) && a->nla_len >= sizeof(nlattr) && a->nla_len <= len;) {
    if ((a->nla_type & NLA_TYPE_MASK) == DCB_ATTR_IEEE)
      qos_walk_ieee(reinterpret_cast<const char*>(a) + NLA_HDRLEN, a->nla_len - NLA_HDRLEN, out);
    const int step = NLA_ALIGN(a->nla_len);
    len -= step;
    a = reinterpret_cast<const nlattr*>(reinterpret_cast<const char*>(a) + step);
  }
  if (!out.pfc_en) out.error = "DCB netlink: no IEEE PFC attribute (driver without DCB)";
  return out;
}

/// ecn/<proto>/enable/0..7 as a mask; nullopt (and `why`) when any of the 8 files is missing or not 0/1.
std::optional<int> qos_read_ecn_mask(const fs::path& dir, std::string& why) {
  int mask = 0;
  for (int p = 0; p < kQosPriorities; ++p) {
    auto v = detail::read_long(dir / std::to_string(p));
    if (!v || (*v != 0 && *v != 1)) {
      why = fmt::format("unknown: {} unreadable", (dir / std::to_string(p)).string());
      return std::nullopt;
    }
    if (*v == 1) mask |= 1 << p;
  }
  return mask;
}

/// Trust mode and DSCP map: qos/trust + qos/dscp2prio (MLNX_OFED), else the live DCB app table (upstream
/// mlx5 keeps trust as DSCP app entries: mlnx_qos reports "dscp" when any exists), else the capture.
void qos_trust_and_map(const fs::path& nd, const DcbnlReply* live, const MlnxQosOutput* capture,
                       model::RoceQos& q) {
  if (auto t = detail::read_attr(nd / "qos" / "trust")) {
    q.trust = std::string(core::trim_blanks(*t));
    q.trust_source = "sysfs qos/trust";
    if (auto m = detail::read_attr(nd / "qos" / "dscp2prio")) {
      q.dscp2prio = parse_qos_pairs(*m, kQosDscpValues);
      q.dscp2prio_source =
          q.dscp2prio.empty() ? "unknown: qos/dscp2prio has no entries" : "sysfs qos/dscp2prio";
    } else {
      q.dscp2prio_source = "unknown: no qos/dscp2prio";
    }
  } else if (live && live->error.empty()) {
    q.trust = live->dscp_app.empty() ? "pcp" : "dscp";
    q.trust_source = "dcbnl app table (no qos/trust)";
    if (!live->dscp_app.empty()) {
      q.dscp2prio.assign(kQosDscpValues, -1);
      for (auto [dscp, prio] : live->dscp_app)
        if (dscp >= 0 && dscp < kQosDscpValues) q.dscp2prio[dscp] = prio;
      q.dscp2prio_source = "dcbnl app table";
    }
  } else if (capture && !capture->trust.empty()) {
    q.trust = capture->trust;
    q.trust_source = "mlnx_qos capture";
    q.dscp2prio = capture->dscp2prio;
    q.dscp2prio_source =
        q.dscp2prio.empty() ? "unknown: no dscp2prio lines in the capture" : "mlnx_qos capture";
  } else {
    q.trust_source = live ? fmt::format("unknown: no qos/trust; {}", live->error)
                          : "unknown: no qos/trust and no mlnx_qos capture";
  }
  if (q.trust != "dscp" && q.trust != "pcp") {
    if (!q.trust.empty()) q.trust_source = fmt::format("unknown: trust '{}' ({})", q.trust, q.trust_source);
    q.trust.clear();
  }
  if (q.trust == "dscp" && q.dscp2prio_source.empty()) q.dscp2prio_source = "unknown: no DSCP map";
}

/// One RoCE netdev's RoceQos. `live`: the real /sys (DCB netlink is asked); else the recorded capture
/// `<root>/mlnx_qos/<if>` (not a kernel path: `mlnx_qos -i <if>` output saved beside the tree) is read.
model::RoceQos qos_of_netdev(const fs::path& root, bool live, const std::string& netdev) {
  model::RoceQos q;
  q.netdev = netdev;
  const fs::path nd = root / "class" / "net" / netdev;
  std::optional<DcbnlReply> dcb;
  std::optional<MlnxQosOutput> capture;
  if (live) {
    dcb = qos_query_dcbnl(netdev);
  } else if (auto text = detail::read_attr(root / "mlnx_qos" / netdev)) {
    capture = parse_mlnx_qos_output(*text);
  }
  qos_trust_and_map(nd, dcb ? &*dcb : nullptr, capture ? &*capture : nullptr, q);
  if (dcb && dcb->pfc_en) {
    q.pfc_enabled_mask = *dcb->pfc_en;
    q.pfc_source = "dcbnl ieee_pfc";
  } else if (capture && capture->pfc_enabled_mask) {
    q.pfc_enabled_mask = capture->pfc_enabled_mask;
    q.pfc_source = "mlnx_qos capture";
  } else {
    q.pfc_source =
        dcb ? "unknown: " + dcb->error
            : (capture ? "unknown: no 'enabled' row in the mlnx_qos capture"
                       : "unknown: PFC is in DCB netlink, not sysfs, and the tree has no mlnx_qos/" + netdev +
                             " capture");
  }
  if (auto b = detail::read_attr(nd / "qos" / "prio2buffer"))
    q.prio2buffer = parse_qos_pairs(*b, kQosPriorities);
  std::string np_why, rp_why;
  if (!detail::path_exists(nd / "ecn")) {
    q.ecn_source = "unknown: no ecn/ directory (not mlx5, or not MLNX_OFED/mlx5_core with ECN sysfs)";
  } else {
    q.ecn_np_mask = qos_read_ecn_mask(nd / "ecn" / "roce_np" / "enable", np_why);
    q.ecn_rp_mask = qos_read_ecn_mask(nd / "ecn" / "roce_rp" / "enable", rp_why);
    q.ecn_source = !np_why.empty() ? np_why : (!rp_why.empty() ? rp_why : "sysfs ecn/");
    if (!q.ecn_np_mask || !q.ecn_rp_mask) q.ecn_np_mask = q.ecn_rp_mask = std::nullopt;
  }
  return q;
}

}  // namespace

namespace detail {

void read_roce_qos(const fs::path& root, bool live, model::HostInventory& h) {
  for (auto& d : h.rdma_devices)
    for (auto& p : d.ports) {
      if (p.link_layer != "Ethernet") continue;
      const std::string nd = model::port_netdev(d, p);
      if (nd.empty()) continue;
      p.roce_qos = qos_of_netdev(root, live, nd);
    }
}

}  // namespace detail

}  // namespace fabcheck::probes
