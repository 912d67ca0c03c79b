// Did NCCL's traffic cross hosts (DESIGN §5 `inter_node`): nNodes, distinct machines,
// nccl-tests' header, NET connection lines, the MPI signature, then what one host's lines can show.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <set>

#include "transport_internal.hpp"

namespace fabcheck::report::detail {

using parse::NcclTransportKind;

namespace {

// A well-formed IPv4 dotted quad or an IPv6 text (hex digits, ':' and '%scope'): a mistyped address in a
// posted log ("10.10.10..2") must not count as a second machine.
bool valid_address(const std::string& a) {
  if (a.find(':') != std::string::npos) {
    for (char c : a.substr(0, a.find('%')))
      if (!std::isxdigit(static_cast<unsigned char>(c)) && c != ':' && c != '.') return false;
    return true;
  }
  int parts = 0, digits = 0;
  for (char c : a) {
    if (c == '.') {
      if (digits == 0) return false;
      ++parts;
      digits = 0;
    } else if (std::isdigit(static_cast<unsigned char>(c)) && digits < 3) {
      ++digits;
    } else {
      return false;
    }
  }
  return parts == 3 && digits > 0;
}

// What the logs and signatures say of hosts, in the terms the inter_node rules use.
struct InterNodeFacts {
  int max_nnodes = 0;
  int nranks = 0;
  bool nvls = false;
  std::size_t machines = 0;
  std::string split_note;
  std::set<std::string> test_hosts;
  std::size_t net_conns = 0;
  const parse::NcclConnection* net_example = nullptr;
  std::string net_example_host;
  std::size_t local_conns = 0;
  std::set<int> local_ranks;
  bool single_host = false;
  std::set<std::string> sig_hosts;
};

// Distinct machines: host names; one name whose processes show different addresses on the same interface
// counts as several machines (reporters often redact host names to one placeholder).
void count_machines(const std::vector<Proc>& procs, InterNodeFacts& f) {
  std::map<std::string, std::map<std::string, std::set<std::string>>> addrs;  // host → iface → addresses
  std::set<std::string> named;
  for (const auto& pr : procs) {
    if (pr.p->host.empty()) continue;
    named.insert(pr.p->host);
    for (const auto* list : {&pr.p->bootstrap_ifaces, &pr.p->socket_ifaces, &pr.p->oob_ifaces})
      for (const auto& ifc : *list)
        if (valid_address(ifc.address)) addrs[pr.p->host][ifc.name].insert(ifc.address);
  }
  for (const auto& h : named) {
    std::size_t n = 1;
    for (const auto& [iface, set] : addrs[h])
      if (set.size() > n) {
        n = set.size();
        f.split_note = fmt::format("host name '{}' shows {} different addresses on {}", h, set.size(), iface);
      }
    f.machines += n;
  }
}

InterNodeFacts inter_node_facts(const std::vector<Proc>& procs, const TransportInput& in) {
  InterNodeFacts f;
  for (const auto& pr : procs) {
    f.max_nnodes = std::max(f.max_nnodes, pr.p->nnodes.value_or(0));
    f.nranks = std::max(f.nranks, pr.p->nranks.value_or(0));
    f.nvls = f.nvls || pr.p->nvls_available.value_or(false);
  }
  count_machines(procs, f);
  for (const auto& log : in.nccl_logs)
    for (const auto& tr : log.tests_ranks) f.test_hosts.insert(tr.host);
  for (const auto& pr : procs)
    for (const auto& c : pr.p->connections)
      if (c.kind == NcclTransportKind::kNet || c.kind == NcclTransportKind::kCollNet) {
        ++f.net_conns;
        if (!f.net_example) {
          f.net_example = &c;
          f.net_example_host = host_label(pr.p->host);
        }
      }
  for (const auto& pr : procs)
    for (const auto& c : pr.p->connections)
      f.local_conns += c.kind == NcclTransportKind::kP2P || c.kind == NcclTransportKind::kShm;
  for (const auto& pr : procs) f.local_ranks.insert(pr.p->ranks.begin(), pr.p->ranks.end());
  f.single_host = f.machines <= 1 && f.test_hosts.size() <= 1;
  for (const auto& s : in.signatures)
    if (s.from_host != s.to_host) f.sig_hosts.insert(s.from_host);
  return f;
}

}  // namespace

void decide_inter_node(const std::vector<Proc>& procs, const TransportInput& in, bool forced,
                       TransportResult& r) {
  const InterNodeFacts f = inter_node_facts(procs, in);
  if (f.max_nnodes > 1) {
    r.inter_node = true;
    r.inter_node_basis = fmt::format("nNodes {}", f.max_nnodes);
  } else if (f.max_nnodes == 1) {
    r.inter_node = false;
    r.inter_node_basis = "nNodes 1";
  } else if (f.machines >= 2) {
    r.inter_node = true;
    r.inter_node_basis = f.split_note.empty() ? fmt::format("NCCL lines from {} hosts", f.machines)
                                              : fmt::format("{} machines ({})", f.machines, f.split_note);
  } else if (f.test_hosts.size() >= 2) {
    r.inter_node = true;
    r.inter_node_basis = fmt::format("nccl-tests header lists ranks on {} hosts", f.test_hosts.size());
  } else if (f.net_conns > 0 && !forced) {
    r.inter_node = true;
    r.inter_node_basis = fmt::format("{} NET connection line(s), e.g. line {} on {}: {} -> {} via {}",
                                     f.net_conns, f.net_example->line, f.net_example_host,
                                     f.net_example->from_rank, f.net_example->to_rank, f.net_example->via);
  } else if (!f.sig_hosts.empty()) {
    r.inter_node = true;
    r.inter_node_basis = "MPI signature measured between hosts";
  } else if (f.single_host && f.local_conns > 0 && f.net_conns == 0 && !forced) {
    // One host whose connection lines are all P2P/SHM (one process driving several GPUs, or several local
    // processes): a ring that left the host would show NET lines on this host too.
    r.inter_node = false;
    r.inter_node_basis =
        fmt::format("{} connection line(s) from one host, all P2P/SHM (no NET)", f.local_conns);
  } else if (f.test_hosts.size() == 1 && f.machines <= 1) {
    r.inter_node = false;
    r.inter_node_basis = "nccl-tests header lists every rank on " + *f.test_hosts.begin();
  } else if (f.single_host && f.nranks > 0 && static_cast<int>(f.local_ranks.size()) >= f.nranks &&
             *f.local_ranks.rbegin() == f.nranks - 1 && procs.size() > 0) {
    r.inter_node = false;
    r.inter_node_basis = fmt::format("all {} ranks of the communicator log from one host", f.nranks);
  } else if (f.single_host && f.nranks > 8) {
    r.inter_node = true;
    r.inter_node_basis =
        fmt::format("inferred: {} ranks exceed the 8 GPUs of a node (one host's lines shown)", f.nranks);
  } else if (f.single_host && !procs.empty() && forced) {
    r.inter_node = false;
    r.inter_node_basis =
        "inferred: one host, and env forces same-host peers onto NET (a single-node NET test)";
  } else if (f.single_host && !procs.empty() && f.nvls && f.nranks > 0 && f.nranks <= 8) {
    r.inter_node = false;
    r.inter_node_basis =
        fmt::format("inferred: one host, NVLS available and {} ranks fit one NVSwitch board", f.nranks);
  } else {
    r.inter_node_basis = procs.empty()
                             ? "no NCCL log and no MPI signature between hosts"
                             : "no nNodes line, no second host and no NET connection line in the log";
  }
  r.evidence.push_back({"nccl_log", "",
                        "inter_node " +
                            std::string(!r.inter_node   ? "null"
                                        : *r.inter_node ? "true"
                                                        : "false") +
                            ": " + r.inter_node_basis});
}

}  // namespace fabcheck::report::detail
