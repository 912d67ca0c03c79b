// Transport health (DESIGN §5): error classes, their decoded meaning, the console headline and the findings.
// Decodings: NCCL's error messages as its maintainers read them (report/transport_health.hpp); `enum
// ibv_wc_status` (rdma-core libibverbs/verbs.h); ncclResult_t (nccl.h: 1 unhandled CUDA error, 2 system
// error, 3 internal error, 6 remote error).
#include "fabcheck/report/transport_health.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <iterator>
#include <set>

#include "fabcheck/core/ascii.hpp"
#include "transport_internal.hpp"

namespace fabcheck::report {

namespace {

using detail::host_label;
using detail::lower;

bool has(std::string_view hay, std::string_view needle) {
  return lower(hay).find(lower(needle)) != std::string::npos;
}

// What a failed job's own warning says (ncclGetErrorString texts, CUDA/nccl-tests failures, NCCL's abort and
// watchdog lines): classify_issue makes a WARN with one of them a system_error, detail_of names the first.
constexpr const char* kJobErrorPhrases[] = {"unhandled system error",
                                            "unhandled cuda error",
                                            "internal error",
                                            "remote process exited",
                                            "Cuda failure",
                                            "does not loop back",
                                            "Test NCCL failure",
                                            "NCCL failure",
                                            "communicator was aborted",
                                            "watchdog",
                                            "timeout",
                                            "timed out",
                                            "abort"};

// What a broken TCP connection says (misc/socket.cc and the bootstrap): the first one found names the detail.
constexpr const char* kSocketPhrases[] = {"Connection closed by remote peer",
                                          "Connection reset by peer",
                                          "Connection refused",
                                          "Connection timed out",
                                          "no socket interface found",
                                          "Socket recv failed",
                                          "Socket creation failed",
                                          "wrong type",
                                          "Timeout",
                                          "timed out",
                                          "No route to host",
                                          "Network is unreachable"};

// The first phrase of `list` that `message` contains, lowercased; "" when none.
template <std::size_t N>
std::string first_phrase(const std::string& message, const char* const (&list)[N]) {
  for (const char* k : list)
    if (has(message, k)) return lower(k);
  return {};
}

bool is_resource_call(const std::string& fn) {
  return fn.rfind("ibv_reg", 0) == 0 || fn == "ibv_alloc_pd" || fn == "ibv_create_cq" ||
         fn == "ibv_create_srq" || fn == "ibv_dereg_mr" || fn == "ibv_create_comp_channel" ||
         fn == "ibv_alloc_mw" || fn == "ibv_fork_init";
}

// Device/feature probes NCCL skips past (`continue` in net_ib.cc's device loop; ECE is optional): a warning,
// not a failure — the run goes on with the other HCAs.
bool is_probe_call(const std::string& fn) {
  return fn == "ibv_open_device" || fn == "ibv_query_device" || fn == "ibv_query_port" ||
         fn == "ibv_get_device_list" || fn == "ibv_query_gid" || fn == "ibv_set_ece" ||
         fn == "ibv_query_ece" || fn == "ibv_get_async_event";
}

// WARN lines NCCL prints on healthy runs (nvml queries a GPU does not support, topology paths it cannot
// resolve, non-fatal asynchronous events of the HCA).
bool benign_warn(const std::string& m) {
  for (const char* k :
       {"Not Supported", "Could not find real path", "async non-fatal event", "GID table change",
        "port active", "PORT_ACTIVE", "LID change", "client rereg", "SM change"})
    if (m.find(k) != std::string::npos) return true;
  return false;
}

// The HCA's fatal asynchronous events (net_ib.cc's async thread: `async fatal event`, 2.19+ also `... on QP`,
// `... on CQ`; older `Got async event : port error`).
bool device_event(const std::string& m) {
  return m.find("async fatal event") != std::string::npos ||
         m.find("local catastrophic error") != std::string::npos ||
         (m.find("async event") != std::string::npos && m.find("port error") != std::string::npos) ||
         m.find("device fatal") != std::string::npos;
}

// aws-ofi-nccl's data-path failures (a request completed with an error, the CQ could not be read).
bool ofi_completion(const std::string& m) {
  return m.rfind("NET/OFI", 0) == 0 &&
         (m.find("completed with error") != std::string::npos ||
          m.find("completion event") != std::string::npos || m.find("fi_cq_read") != std::string::npos ||
          m.find("Completion error") != std::string::npos);
}

// Source file of an error-trace line (`misc/socket.cc:567 -> 2`): "socket.cc".
std::string trace_file(const std::string& msg) {
  std::string loc = msg.substr(0, msg.find(" -> "));
  loc = loc.substr(0, loc.rfind(':'));
  std::size_t slash = loc.rfind('/');
  return slash == std::string::npos ? loc : loc.substr(slash + 1);
}

// `bootstrap.cc -> ncclSystemError`: where an error trace was and what it propagated.
std::string trace_detail(const parse::NcclIssue& is) {
  return fmt::format("{} -> {}", trace_file(is.message), is.status_name.empty() ? "error" : is.status_name);
}

// The decoded key of one issue of a class (what `details` counts).
std::string detail_of(NcclErrorClass cls, const parse::NcclIssue& is) {
  switch (cls) {
    case NcclErrorClass::kIbConnect:
    case NcclErrorClass::kIbResource:
      if (is.ibv_function.empty()) {  // a socket warning inside the IB transport's connect
        const std::string k = first_phrase(is.message, kSocketPhrases);
        return k.empty() ? "IB out-of-band connect failed" : "IB out-of-band connect: " + k;
      }
      return is.error_text.empty() ? is.ibv_function : is.ibv_function + ": " + is.error_text;
    case NcclErrorClass::kIbDevice: {
      for (const char* k :
           {"local catastrophic error", "port error", "work queue error", "CQ error", "access violation"})
        if (is.message.find(k) != std::string::npos) return std::string("async event: ") + k;
      return "async fatal event";
    }
    case NcclErrorClass::kIbCompletion:
      if (is.kind == parse::NcclIssueKind::kPlugin) return "NET/OFI completion error";
      if (is.status < 0) return "completion error";
      return fmt::format("{} ({})", is.status_name.empty() ? "status" : is.status_name, is.status);
    case NcclErrorClass::kSocket:
    case NcclErrorClass::kBootstrap: {
      if (is.kind == parse::NcclIssueKind::kErrorTrace) return trace_detail(is);
      const std::string k = first_phrase(is.message, kSocketPhrases);
      if (!k.empty()) return k;
      return cls == NcclErrorClass::kSocket ? "socket error" : "bootstrap error";
    }
    case NcclErrorClass::kSystemError: {
      if (is.kind == parse::NcclIssueKind::kErrorTrace) return trace_detail(is);
      if (is.kind == parse::NcclIssueKind::kProxy) return "proxy operation failed";
      const std::string k = first_phrase(is.message, kJobErrorPhrases);
      return k.empty() ? "job error" : k;
    }
    case NcclErrorClass::kLibibverbs:
      return "Failed to open libibverbs.so";
    case NcclErrorClass::kPlugin:
    case NcclErrorClass::kOtherWarn:
      return is.message.substr(0, 96);
  }
  return {};
}

std::string meaning_of(NcclErrorClass cls, const std::string& detail, const parse::NcclIssue* example) {
  switch (cls) {
    case NcclErrorClass::kIbConnect:
    case NcclErrorClass::kIbResource:
      return example ? ibv_call_meaning(example->ibv_function, example->error_text) : std::string();
    case NcclErrorClass::kIbCompletion:
      if (example && example->kind == parse::NcclIssueKind::kPlugin)
        return "a libfabric request completed with an error: the data transfer over the OFI network (EFA) "
               "failed";
      return completion_meaning(example ? example->status : -1);
    case NcclErrorClass::kIbDevice:
      return "the HCA reported a fatal asynchronous event (" + detail +
             "): the device, its port or its link failed under the job";
    case NcclErrorClass::kBootstrap:
      return "the ranks could not reach each other or the bootstrap root (NCCL_COMM_ID / rank 0's address): "
             "a "
             "firewall, an interface without a route between the hosts (NCCL_SOCKET_IFNAME), or a peer that "
             "never started";
    case NcclErrorClass::kSocket:
      return "a TCP control or proxy connection between ranks broke: a peer process died or the network "
             "between the hosts dropped it; the first error on the other host is the cause";
    case NcclErrorClass::kSystemError:
      return "the job failed with NCCL's " + detail + "; the cause is in the warning lines before it";
    case NcclErrorClass::kPlugin:
      return "a net plugin failed to load or initialise; NCCL used another network or none";
    case NcclErrorClass::kLibibverbs:
      return "libibverbs (rdma-core) could not be loaded: NCCL could not look for RDMA hardware, so IB/RoCE "
             "is unusable whatever the host has";
    case NcclErrorClass::kOtherWarn:
      return "an NCCL warning";
  }
  return {};
}

std::string remedy_of(NcclErrorClass cls, const parse::NcclIssue* example) {
  switch (cls) {
    case NcclErrorClass::kIbConnect:
      return "On both hosts compare `show_gids` / `ibv_devinfo -v`: ports ACTIVE, NCCL_IB_GID_INDEX naming a "
             "RoCE v2 IPv4 GID present on both, `ip route get <peer address>` leaving through that GID's "
             "netdev; then rerun `fabcheck inspect` and the pairs step";
    case NcclErrorClass::kIbResource:
      return "Raise the locked-memory limit for the job (ulimit -l unlimited; Slurm PropagateResourceLimits; "
             "docker --ulimit memlock=-1), load nvidia_peermem or set NCCL_DMABUF_ENABLE=1 (kernel >= 5.12), "
             "and check dmesg for mlx5 errors";
    case NcclErrorClass::kIbCompletion:
      switch (example ? example->status : -1) {
        case 4:
        case 10:
          return "Check the GPUDirect path, not the fabric: disable PCIe ACS on the switches between GPU and "
                 "NIC or set the IOMMU to passthrough, check nvidia_peermem / DMA-BUF; "
                 "NCCL_NET_GDR_LEVEL=LOC "
                 "(GDR off) confirms it if the error goes away";
        case 13:
          return "Look at the peer host first: its process stalled or died before this error (its log's "
                 "first "
                 "warning)";
        case 5:
          return "Find the first error of the job: a flushed work request follows it";
        default:
          return "Check the links and the RoCE lossless settings (PFC/ECN on hosts and switches, `ethtool "
                 "-S` "
                 "pause and discard counters), NCCL_IB_GID_INDEX and the peer's port state; rerun pairs to "
                 "find the link";
      }
    case NcclErrorClass::kIbDevice:
      return "Check that host's HCA and link: dmesg (mlx5_core), `ibv_devinfo` port state, port error "
             "counters, cable/transceiver; reseat or replace, then rerun pairs";
    case NcclErrorClass::kBootstrap:
      return "Set NCCL_SOCKET_IFNAME to an interface that routes between the hosts, open the ports between "
             "them (firewall, security groups), and check that every rank started";
    case NcclErrorClass::kSocket:
      return "Find the host whose process failed first (its first warning line) and fix that error; check "
             "the control network between the hosts (NCCL_SOCKET_IFNAME)";
    case NcclErrorClass::kSystemError:
      return "Read the first warning line of the first host that failed; rerun with "
             "NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET,BOOTSTRAP";
    case NcclErrorClass::kPlugin:
      return "Check NCCL_NET_PLUGIN and that the plugin library and its dependencies (libfabric, rdma-core, "
             "HPC-X) load in the container (ldd); NCCL_NET names a network that exists";
    case NcclErrorClass::kLibibverbs:
      return "Install rdma-core (libibverbs and the provider, e.g. libmlx5) in the image and pass "
             "/dev/infiniband into the container; then NCCL lists the HCAs (`NET/IB : Using ...`)";
    case NcclErrorClass::kOtherWarn:
      return "Read the warning line";
  }
  return {};
}

// The words of each class: its name in the report, its finding's code (none for plain warnings) and what a
// fatal one did, for the headline and the finding's message.
struct ClassWords {
  NcclErrorClass cls;
  std::string_view name, code, what_failed;
};
constexpr ClassWords kClassWords[] = {
    {NcclErrorClass::kIbConnect, "ib_connect", "NCCL_IB_CONNECT_FAILED", "connection setup FAILED"},
    {NcclErrorClass::kIbResource, "ib_resource", "NCCL_IB_RESOURCE_FAILED", "RDMA resource setup FAILED"},
    {NcclErrorClass::kIbCompletion, "ib_completion", "NCCL_IB_COMPLETION_ERROR", "data transfer FAILED"},
    {NcclErrorClass::kIbDevice, "ib_device", "NCCL_IB_DEVICE_ERROR", "RDMA device FAILED"},
    {NcclErrorClass::kBootstrap, "bootstrap", "NCCL_BOOTSTRAP_FAILED", "bootstrap FAILED"},
    {NcclErrorClass::kSocket, "socket", "NCCL_PEER_CONNECTION_LOST", "control connection FAILED"},
    {NcclErrorClass::kSystemError, "system_error", "NCCL_JOB_ERROR", "job FAILED"},
    {NcclErrorClass::kPlugin, "plugin", "NCCL_NET_PLUGIN_FAILED", "net plugin FAILED"},
    {NcclErrorClass::kLibibverbs, "libibverbs", "RDMA_SOFTWARE_MISSING", "libibverbs missing"},
    {NcclErrorClass::kOtherWarn, "other_warn", "", "warnings"},
};

// The row of `cls`; kOtherWarn's for a value outside the enum.
const ClassWords& words_of(NcclErrorClass cls) {
  for (const auto& w : kClassWords)
    if (w.cls == cls) return w;
  return kClassWords[std::size(kClassWords) - 1];
}

// "RNR_RETRY_EXC_ERR (13) ×1, +2 other (WR_FLUSH_ERR (5) ×2)": the top detail with its own count, then the
// rest.
std::string detail_text(const ErrorGroup& g) {
  if (g.top_detail.empty()) return fmt::format("{} \u00d7{}", name(g.cls), g.count);
  auto it = g.details.find(g.top_detail);
  std::size_t top = it == g.details.end() ? g.count : it->second;
  std::string s = fmt::format("{} \u00d7{}", g.top_detail, top);
  std::vector<std::string> rest;
  for (const auto& [d, n] : g.details)
    if (d != g.top_detail && rest.size() < 2) rest.push_back(fmt::format("{} \u00d7{}", d, n));
  if (!rest.empty()) s += fmt::format("; also {}", fmt::join(rest, ", "));
  if (g.details.size() > 3) s += fmt::format(" and {} more", g.details.size() - 3);
  return s;
}

std::string hosts_text(const std::vector<std::string>& hosts) {
  if (hosts.empty()) return "?";
  std::string s;
  for (std::size_t i = 0; i < hosts.size() && i < 3; ++i) s += (i ? ", " : "") + hosts[i];
  if (hosts.size() > 3) s += fmt::format(" and {} more", hosts.size() - 3);
  return s;
}

struct Acc {
  ErrorGroup g;
  const parse::NcclIssue* example = nullptr;  // first issue of the top detail
  std::map<std::string, const parse::NcclIssue*> first_of;
};

TransportHealth assess(const std::vector<const parse::NcclProcessLog*>& procs,
                       const std::vector<parse::NcclIssue>* app) {
  std::map<NcclErrorClass, Acc> acc;
  TransportHealth h;
  auto add = [&](NcclErrorClass cls, bool fatal, const parse::NcclProcessLog& p, const parse::NcclIssue& is,
                 std::size_t lines) {
    Acc& a = acc[cls];
    a.g.cls = cls;
    a.g.fatal = a.g.fatal || fatal;
    a.g.count += lines;
    std::string host = host_label(p.host);
    if (std::find(a.g.hosts.begin(), a.g.hosts.end(), host) == a.g.hosts.end()) a.g.hosts.push_back(host);
    if (a.g.first_line == 0 || (host == a.g.first_host && is.line < a.g.first_line)) {
      if (a.g.first_line == 0) a.g.first_host = host;
      if (host == a.g.first_host) {
        a.g.first_line = is.line;
        a.g.first_message = is.message;
      }
    }
    std::string d = detail_of(cls, is);
    a.g.details[d] += lines;
    a.first_of.emplace(d, &is);
  };
  for (const auto* p : procs) {
    h.retries += p->ib_retries + p->socket_retries;
    std::set<std::string> counted;  // signatures whose lines beyond the reader's cap were added once
    for (std::size_t i = 0; i < p->issues.size(); ++i) {
      const parse::NcclIssue& is = p->issues[i];
      NcclErrorClass cls;
      bool fatal = false;
      if (!classify_issue(is, cls, fatal)) continue;
      if (is.kind == parse::NcclIssueKind::kSocket || is.kind == parse::NcclIssueKind::kWarn) {
        // A socket/other warning is read by the trace that follows it in the same process (checks.h prints
        // the frames the error passed through): inside the bootstrap it is a bootstrap failure; first inside
        // the IB transport (its out-of-band connect) it is an IB connection-setup failure.
        bool bootstrap = false, ib_first = false;
        for (std::size_t k = i + 1; k < p->issues.size() && k < i + 12; ++k) {
          const auto& t = p->issues[k];
          if (t.kind != parse::NcclIssueKind::kErrorTrace) break;
          std::string f = trace_file(t.message);
          if (t.message.find("net_ib") != std::string::npos) ib_first = true;
          if (f.rfind("bootstrap.c", 0) == 0) bootstrap = true;
        }
        // (A socket error inside the bootstrap keeps its class; the bootstrap frames add the bootstrap
        // class.)
        if (bootstrap && is.kind == parse::NcclIssueKind::kWarn)
          cls = NcclErrorClass::kBootstrap;
        else if (ib_first && fatal && !bootstrap)
          cls = NcclErrorClass::kIbConnect;
      }
      std::size_t lines = 1;
      if (!p->issues_beyond_cap.empty()) {
        const std::string sig = parse::issue_signature(is);
        auto it = p->issues_beyond_cap.find(sig);
        if (it != p->issues_beyond_cap.end() && counted.insert(sig).second) lines += it->second;
      }
      add(cls, fatal, *p, is, lines);
    }
  }
  // Application-level summaries (PyTorch, nccl-tests) count only when NCCL's own lines show no failure.
  const bool nccl_fatal =
      std::any_of(acc.begin(), acc.end(), [](const auto& kv) { return kv.second.g.fatal; });
  if (!nccl_fatal && app) {
    static const parse::NcclProcessLog kApp = [] {
      parse::NcclProcessLog p;
      p.host = "(application output)";
      return p;
    }();
    for (const auto& is : *app) {
      NcclErrorClass cls;
      bool fatal = false;
      if (classify_issue(is, cls, fatal) && fatal) add(cls, fatal, kApp, is, 1);
    }
  }
  for (auto& [cls, a] : acc) {
    // The most frequent detail; a flushed work request (status 5) only when nothing else is there.
    std::size_t best = 0;
    for (const auto& [d, n] : a.g.details) {
      bool flush = cls == NcclErrorClass::kIbCompletion && d.find("(5)") != std::string::npos;
      bool best_flush =
          cls == NcclErrorClass::kIbCompletion && a.g.top_detail.find("(5)") != std::string::npos;
      if (a.g.top_detail.empty() || (best_flush && !flush) || (flush == best_flush && n > best)) {
        a.g.top_detail = d;
        best = n;
      }
    }
    a.example = a.first_of[a.g.top_detail];
    a.g.meaning = meaning_of(cls, a.g.top_detail, a.example);
    a.g.remedy = remedy_of(cls, a.example);
    h.errors += a.g.count;
    h.groups.push_back(a.g);
  }
  std::stable_sort(h.groups.begin(), h.groups.end(),
                   [](const ErrorGroup& x, const ErrorGroup& y) { return x.fatal && !y.fatal; });
  // `unhandled system error` chains restate a more specific fatal class when there is one: folded.
  const bool specific = std::any_of(h.groups.begin(), h.groups.end(), [](const ErrorGroup& g) {
    return g.fatal && g.cls != NcclErrorClass::kSystemError;
  });
  if (specific) {
    for (auto it = h.groups.begin(); it != h.groups.end();) {
      if (it->cls == NcclErrorClass::kSystemError) {
        h.errors -= it->count;
        h.folded.push_back(std::move(*it));
        it = h.groups.erase(it);
      } else {
        ++it;
      }
    }
  }
  bool fatal = std::any_of(h.groups.begin(), h.groups.end(), [](const ErrorGroup& g) { return g.fatal; });
  h.status = fatal ? "failed" : h.groups.empty() ? "ok" : "degraded";
  return h;
}

}  // namespace

std::string_view name(NcclErrorClass c) {
  return words_of(c).name;
}

bool classify_issue(const parse::NcclIssue& is, NcclErrorClass& cls, bool& fatal) {
  using K = parse::NcclIssueKind;
  fatal = true;
  if (benign_warn(is.message)) return false;
  if (device_event(is.message)) {
    cls = NcclErrorClass::kIbDevice;
    return true;
  }
  switch (is.kind) {
    case K::kIbvCall:
      if (is_probe_call(is.ibv_function)) {
        cls = NcclErrorClass::kOtherWarn;
        fatal = false;
        return true;
      }
      cls = is.ibv_function == "ibv_poll_cq"    ? NcclErrorClass::kIbCompletion
            : is_resource_call(is.ibv_function) ? NcclErrorClass::kIbResource
                                                : NcclErrorClass::kIbConnect;
      return true;
    case K::kCompletion:
      cls = NcclErrorClass::kIbCompletion;
      return true;
    case K::kSocket:
      cls = has(is.message, "bootstrap") || has(is.message, "Connection refused") ||
                    has(is.message, "no socket interface") || has(is.message, "socketPollConnect") ||
                    has(is.message, "socketStartConnect") || has(is.message, "Connect to ")
                ? NcclErrorClass::kBootstrap
                : NcclErrorClass::kSocket;
      return true;
    case K::kProxy:
      cls = NcclErrorClass::kSystemError;
      return true;
    case K::kNetworkNotFound:
      cls = NcclErrorClass::kPlugin;  // `Error: network X not found.`: init cannot complete
      return true;
    case K::kPlugin:
      // 2.27+ prints `Failed to initialize NET plugin IB` at INFO on every host without an HCA, right after
      // `NET/IB : No device found.`: NCCL's own probe, not a degradation. Only WARN-level plugin lines count.
      if (!is.warn_level) return false;
      if (ofi_completion(is.message)) {
        cls = NcclErrorClass::kIbCompletion;
        return true;
      }
      cls = NcclErrorClass::kPlugin;
      fatal = false;
      return true;
    case K::kLibibverbs:
      cls = NcclErrorClass::kLibibverbs;
      fatal = false;
      return true;
    case K::kErrorTrace: {
      // A trace only propagates an error (checks.h); it counts when it shows where the job failed: in the
      // bootstrap, or at the API level (init, group launch, enqueue, proxy). Plugin probes (net.cc -> 3) and
      // transport-internal frames are not errors by themselves.
      if (is.status <= 0 || is.status == 7) return false;
      std::string f = trace_file(is.message);
      if (f.rfind("bootstrap.c", 0) == 0) {
        cls = NcclErrorClass::kBootstrap;
        return true;
      }
      if (f.rfind("init.c", 0) == 0 || f.rfind("group.c", 0) == 0 || f.rfind("enqueue.c", 0) == 0 ||
          f.rfind("proxy.c", 0) == 0) {
        cls = NcclErrorClass::kSystemError;
        return true;
      }
      return false;
    }
    case K::kWarn:
      if (!is.warn_level) return false;
      if ((has(is.message, "bootstrap") &&
           (has(is.message, "fail") || has(is.message, "error") || has(is.message, "timeout"))) ||
          has(is.message, "no socket interface found") ||
          (has(is.message, "Connect to ") && has(is.message, "failed"))) {
        cls = NcclErrorClass::kBootstrap;
        return true;
      }
      if (!first_phrase(is.message, kJobErrorPhrases).empty()) {
        cls = NcclErrorClass::kSystemError;
        return true;
      }
      if (has(is.message, "message truncated")) {  // NET/Socket: a peer sent more than was posted
        cls = NcclErrorClass::kSocket;
        return true;
      }
      cls = NcclErrorClass::kOtherWarn;
      fatal = false;
      return true;
  }
  return false;
}

std::string completion_meaning(int status) {
  switch (status) {
    case 1:
      return "local length error (LOC_LEN_ERR): a message longer than the posted receive";
    case 2:
      return "local QP operation error (LOC_QP_OP_ERR): an internal QP consistency error";
    case 4:
      return "local protection error (LOC_PROT_ERR): the HCA could not access the registered buffer — the "
             "GPUDirect path (PCIe ACS or the IOMMU redirecting peer DMA, the peer-memory module), not the "
             "fabric";
    case 5:
      return "work request flushed (WR_FLUSH_ERR): the QP was already in error — a consequence of an earlier "
             "error";
    case 9:
      return "remote invalid request (REM_INV_REQ_ERR): the peer rejected the request";
    case 10:
      return "remote access error (REM_ACCESS_ERR): the peer's registered buffer was not accessible (its "
             "GPUDirect path or memory registration)";
    case 11:
      return "remote operation error (REM_OP_ERR): the peer could not complete the operation";
    case 12:
      return "transport retry counter exceeded (RETRY_EXC_ERR): the peer did not acknowledge — peer "
             "unreachable, lossy RoCE (PFC/ECN), a flapping link or a wrong GID";
    case 13:
      return "receiver-not-ready retries exceeded (RNR_RETRY_EXC_ERR): the peer did not post receives in "
             "time "
             "(its process stalled or died)";
    default:
      return status < 0 ? "a completion error"
                        : fmt::format("completion status {} ({})", status, parse::ibv_wc_status_name(status));
  }
}

std::string ibv_call_meaning(const std::string& function, const std::string& error_text) {
  const std::string& e = error_text;
  if (function == "ibv_modify_qp" || function == "ibv_create_qp") {
    if (has(e, "timed out"))
      return "the QP could not reach RTR/RTS: the peer's GID did not answer (RoCE: no ARP/neighbour reply "
             "over the GID's netdev — a wrong NCCL_IB_GID_INDEX or RoCE v1/v2 type; IB: no path to the LID)";
    if (has(e, "unreachable"))
      return "no route from the GID's netdev to the peer's address: the GID index names an address whose "
             "interface has no route to the peer (RoCE GID index, subnet or routing)";
    if (has(e, "No such device"))
      return "the GID index names an empty GID slot: no address on that index of this port";
    if (has(e, "Invalid argument"))
      return "the port rejected the QP attributes: port not ACTIVE, a GID type it does not support, or a "
             "path MTU above the port's";
    if (has(e, "Cannot allocate memory")) return "the HCA ran out of QP resources or locked memory";
    return "the queue pair could not be set up" + (e.empty() ? std::string() : " (" + e + ")");
  }
  if (function.rfind("ibv_reg", 0) == 0)
    return "memory registration failed: the locked-memory limit (ulimit -l) is too low, or GPU memory "
           "cannot be registered (no nvidia_peermem / DMA-BUF)" +
           (e.empty() ? std::string() : " (" + e + ")");
  return "the HCA refused a verbs resource (" + function + (e.empty() ? "" : ": " + e) + ")";
}

TransportHealth assess_health(const std::vector<parse::NcclLog>& logs) {
  std::vector<const parse::NcclProcessLog*> procs;
  std::vector<parse::NcclIssue> app;
  std::size_t nccl_lines = 0;
  for (const auto& l : logs) {
    for (const auto& p : l.processes) procs.push_back(&p);
    app.insert(app.end(), l.app_errors.begin(), l.app_errors.end());
    nccl_lines += l.stats.nccl_lines + l.stats.message_only_lines;
  }
  TransportHealth h = assess(procs, &app);
  // Nothing to judge is not "ok" (an empty file, a binary, the wrong file).
  if (!logs.empty() && nccl_lines == 0 && h.groups.empty()) h.status = "unknown";
  return h;
}

TransportHealth assess_health(const std::vector<const parse::NcclProcessLog*>& procs) {
  return assess(procs, nullptr);
}

std::string health_headline(const TransportHealth& h) {
  if (h.status == "unknown") return "health unknown: no NCCL line in the input";
  if (h.groups.empty()) return {};
  const ErrorGroup& g = h.groups.front();
  std::string what(g.fatal ? words_of(g.cls).what_failed : "degraded");
  std::string detail = detail_text(g);
  if (!g.fatal) detail = std::string(name(g.cls)) + ": " + detail;
  return fmt::format("{} on {} ({})", what, hosts_text(g.hosts), detail);
}

std::vector<Finding> health_findings(const TransportHealth& h, bool plugin_is_cause) {
  std::vector<Finding> out;
  auto present = [&](NcclErrorClass c) {
    return std::any_of(h.groups.begin(), h.groups.end(), [&](const ErrorGroup& g) { return g.cls == c; });
  };
  // A broken control connection is a consequence when an IB error or a failed bootstrap explains it.
  const bool ib = present(NcclErrorClass::kIbConnect) || present(NcclErrorClass::kIbResource) ||
                  present(NcclErrorClass::kIbCompletion) || present(NcclErrorClass::kIbDevice) ||
                  present(NcclErrorClass::kBootstrap);
  bool consequences_given = false;  // the restating classes go to the first (top) root finding only
  std::vector<const ErrorGroup*> consequences;
  for (const auto& g : h.groups)
    if (g.cls == NcclErrorClass::kSocket && ib) consequences.push_back(&g);
  for (const auto& g : h.folded) consequences.push_back(&g);
  for (const auto& g : h.groups) {
    if (std::find(consequences.begin(), consequences.end(), &g) != consequences.end()) continue;
    if (g.cls == NcclErrorClass::kOtherWarn) continue;
    if (!g.fatal && plugin_is_cause &&
        (g.cls == NcclErrorClass::kPlugin || g.cls == NcclErrorClass::kLibibverbs))
      continue;
    Finding f;
    f.severity = g.fatal ? Severity::kFail : Severity::kWarn;
    f.code = words_of(g.cls).code;
    f.message = g.fatal ? fmt::format("NCCL {} on {} ({}): {}", words_of(g.cls).what_failed,
                                      hosts_text(g.hosts), detail_text(g), g.meaning)
                        : fmt::format("NCCL on {}: {} ({} line(s))", hosts_text(g.hosts), g.meaning, g.count);
    nlohmann::json ev = {
        {"class", std::string(name(g.cls))},
        {"hosts", g.hosts},
        {"count", g.count},
        {"first", {{"host", g.first_host}, {"line", g.first_line}, {"message", g.first_message}}},
        {"details", g.details},
        {"meaning", g.meaning}};
    if (g.hosts.size() == 1 && g.hosts.front() != "(no prefix)") ev["host"] = g.hosts.front();
    if (g.fatal && !consequences.empty() && !consequences_given) {
      consequences_given = true;
      nlohmann::json c = nlohmann::json::array();
      for (const ErrorGroup* k : consequences)
        c.push_back(
            {{"class", std::string(name(k->cls))}, {"count", k->count}, {"first_message", k->first_message}});
      ev["consequences"] = std::move(c);
    }
    f.evidence = std::move(ev);
    f.remedy = g.remedy;
    out.push_back(std::move(f));
  }
  return out;
}

nlohmann::json health_json(const TransportHealth& h) {
  nlohmann::json classes = nlohmann::json::array();
  for (const auto& g : h.groups)
    classes.push_back(
        {{"class", std::string(name(g.cls))},
         {"fatal", g.fatal},
         {"count", g.count},
         {"hosts", g.hosts},
         {"first", {{"host", g.first_host}, {"line", g.first_line}, {"message", g.first_message}}},
         {"details", g.details},
         {"meaning", g.meaning},
         {"remedy", g.remedy}});
  nlohmann::json folded = nlohmann::json::array();
  for (const auto& g : h.folded)
    folded.push_back(
        {{"class", std::string(name(g.cls))}, {"count", g.count}, {"first_message", g.first_message}});
  nlohmann::json j = {{"status", h.status},
                      {"errors", h.errors},
                      {"retries", h.retries},
                      {"classes", classes},
                      {"folded", folded}};
  std::string head = health_headline(h);
  j["headline"] = head.empty() ? nlohmann::json(nullptr) : nlohmann::json(head);
  return j;
}

}  // namespace fabcheck::report
