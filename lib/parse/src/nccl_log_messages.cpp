// NCCL message catalogue: the message forms NCCL prints, with the releases that print them.
#include "nccl_log_messages.hpp"

#include <algorithm>
#include <cstdlib>
#include <string>

#include "fabcheck/core/ascii.hpp"
#include "fabcheck/core/redact.hpp"
#include "nccl_log_util.hpp"

namespace fabcheck::parse::detail {

namespace {

constexpr NcclVersionCode V(int major, int minor, int patch) {
  return major * 10000 + minor * 100 + patch;
}

// Narrows the process' inferred version range to [lo, hi] (inclusive). An empty intersection keeps the widest
// evidence (it means several NCCL builds share a host:pid label, e.g. redacted logs) — the mismatch check in
// lib/analysis compares hosts, not single lines.
void narrow(NcclProcessLog& p, NcclVersionCode lo, NcclVersionCode hi) {
  NcclVersionCode nlo = p.version_min == 0 ? lo : std::max(p.version_min, lo);
  NcclVersionCode nhi = p.version_max == 0 ? hi : std::min(p.version_max, hi);
  if (nlo > nhi) return;
  p.version_min = nlo;
  p.version_max = nhi;
}

void add_rank(NcclProcessLog& p, int r) {
  if (r < 0 || p.ranks.size() >= 4096) return;
  if (std::find(p.ranks.begin(), p.ranks.end(), r) == p.ranks.end()) p.ranks.push_back(r);
}

// Beyond kMaxIssues an issue is written into this slot and settled when the line is done
// (settle_overflow): stored when its signature is new, else counted in issues_beyond_cap.
thread_local NcclIssue overflow_slot;
thread_local bool overflow_used = false;

NcclIssue& add_issue(NcclProcessLog& p, NcclIssueKind kind, bool warn, std::string_view msg,
                     std::size_t lineno) {
  ++p.issues_total;
  if (p.issues.size() >= kMaxIssues) {
    overflow_slot = NcclIssue{};
    overflow_slot.line = lineno;
    overflow_slot.kind = kind;
    overflow_slot.warn_level = warn;
    overflow_slot.message = core::redact_text(msg.substr(0, 1024));
    overflow_used = true;
    return overflow_slot;
  }
  NcclIssue is;
  is.line = lineno;
  is.kind = kind;
  is.warn_level = warn;
  is.message = core::redact_text(msg.substr(0, 1024));
  p.issues.push_back(std::move(is));
  return p.issues.back();
}

// `eth0:192.0.2.1<0>` → {eth0, 192.0.2.1}. Accepts `[n]` prefixes.
bool parse_iface(std::string_view tok, NcclIface& out) {
  if (!tok.empty() && tok.front() == '[') {
    std::size_t rb = tok.find(']');
    if (rb == std::string_view::npos) return false;
    tok.remove_prefix(rb + 1);
  }
  std::size_t colon = tok.find(':');
  if (colon == 0 || colon == std::string_view::npos) return false;
  std::string_view addr = tok.substr(colon + 1);
  std::size_t lt = addr.rfind('<');
  if (lt != std::string_view::npos) addr = addr.substr(0, lt);
  out.name = std::string(tok.substr(0, colon));
  out.address = std::string(addr);
  return true;
}

std::vector<NcclIface> parse_iface_list(std::string_view s) {
  std::vector<NcclIface> out;
  s = core::trim_blanks(s);
  while (!s.empty() && out.size() < 64) {
    std::size_t e = 0;
    while (e < s.size() && !is_space(s[e])) ++e;
    NcclIface f;
    if (parse_iface(s.substr(0, e), f)) out.push_back(std::move(f));
    s = core::trim_blanks(s.substr(e));
  }
  return out;
}

std::string link_layer_word(std::string_view w) {
  if (w == "IB" || w == "InfiniBand") return "InfiniBand";
  if (w == "RoCE" || w == "ETH" || w == "Ethernet") return "RoCE";
  return {};
}

// `[0]mlx5_0:1/IB[/SHARP]` device token.
bool parse_ib_device(std::string_view tok, NcclNetDevice& d) {
  if (tok.size() < 4 || tok.front() != '[') return false;
  std::size_t p = 1;
  auto idx = read_uint(tok, p);
  if (!idx || p >= tok.size() || tok[p] != ']') return false;
  std::string_view rest = tok.substr(p + 1);
  std::size_t colon = rest.rfind(':');
  if (colon == 0 || colon == std::string_view::npos) return false;
  std::size_t q = colon + 1;
  auto port = read_uint(rest, q);
  if (!port) return false;
  d.index = clamp_int(*idx);
  d.name = std::string(rest.substr(0, colon));
  d.port = clamp_int(*port);
  std::string_view ll = q < rest.size() && rest[q] == '/' ? rest.substr(q + 1) : std::string_view{};
  std::size_t slash = ll.find('/');
  std::string_view word = slash == std::string_view::npos ? ll : ll.substr(0, slash);
  d.link_layer = link_layer_word(word);
  d.sharp = contains(ll, "SHARP");
  return true;
}

// A merged (virtual) NIC of NCCL 2.19+ (`[0]={[0] mlx5_2:1/RoCE, [1] mlx5_3:1/RoCE}`): one NCCL
// net device `[0]` made of several ports. `group` is the text between the braces. The device is named by
// its members joined with '+', with the first member's port and the members' link layer.
bool parse_merged_device(int index, std::string_view group, NcclNetDevice& d) {
  d.index = index;
  bool any = false;
  while (!group.empty()) {
    std::size_t comma = group.find(',');
    std::string_view member = core::trim_blanks(group.substr(0, comma));
    group = comma == std::string_view::npos ? std::string_view{} : group.substr(comma + 1);
    // `[0] mlx5_2:1/RoCE` → `[0]mlx5_2:1/RoCE`
    std::string tok(member);
    std::size_t rb = tok.find(']');
    if (rb != std::string::npos)
      while (rb + 1 < tok.size() && is_space(tok[rb + 1])) tok.erase(rb + 1, 1);
    NcclNetDevice m;
    if (!parse_ib_device(tok, m)) continue;
    d.name += (any ? "+" : "") + m.name;
    if (!any) d.port = m.port;
    if (d.link_layer.empty()) d.link_layer = m.link_layer;
    d.sharp = d.sharp || m.sharp;
    any = true;
  }
  return any;
}

// `NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/RoCE [RO]; OOB eth0:192.0.2.1<0>`, also with merged devices.
void handle_ib_using(NcclProcessLog& p, std::string_view rest) {
  std::size_t semi = rest.find(';');
  std::string_view devs = semi == std::string_view::npos ? rest : rest.substr(0, semi);
  std::vector<NcclNetDevice> list;
  std::string_view s = core::trim_blanks(devs);
  while (!s.empty() && list.size() < 64) {
    std::size_t e = 0;
    while (e < s.size() && !is_space(s[e])) ++e;
    std::string_view tok = s.substr(0, e);
    if (std::size_t open = tok.find("={"); open != std::string_view::npos && tok.front() == '[') {
      std::size_t close = s.find('}');
      std::size_t q = 1;
      auto idx = read_uint(tok, q);
      NcclNetDevice d;
      if (idx && close != std::string_view::npos &&
          parse_merged_device(clamp_int(*idx), s.substr(open + 2, close - open - 2), d)) {
        narrow(p, V(2, 19, 0), V(2, 99, 99));
        list.push_back(std::move(d));
      }
      s = core::trim_blanks(close == std::string_view::npos ? std::string_view{} : s.substr(close + 1));
      continue;
    }
    if (tok == "[RO]") narrow(p, V(2, 12, 0), V(2, 99, 99));
    NcclNetDevice d;
    if (parse_ib_device(tok, d)) list.push_back(std::move(d));
    s = core::trim_blanks(s.substr(e));
  }
  if (list.empty()) {
    p.ib_using_empty = true;
    narrow(p, V(2, 24, 0), V(2, 99, 99));
  } else {
    p.ib_devices = std::move(list);
  }
  if (semi != std::string_view::npos) {
    std::string_view oob = core::trim_blanks(rest.substr(semi + 1));
    if (starts_with(oob, "OOB ")) p.oob_ifaces = parse_iface_list(oob.substr(4));
  }
}

// `GPU Direct RDMA Enabled|Disabled for ...` in any of its forms.
void handle_gdr(NcclProcessLog& p, std::string_view msg) {
  std::size_t at = msg.find("GPU Direct RDMA ");
  std::string_view rest = msg.substr(at + 16);
  bool enabled = starts_with(rest, "Enabled");
  if (!enabled && !starts_with(rest, "Disabled")) return;
  std::size_t for_at = rest.find(" for ");
  if (for_at == std::string_view::npos) return;
  std::string_view what = rest.substr(for_at + 5);
  std::string net;
  if (starts_with(msg, "NET/")) {
    std::size_t sp = msg.find(' ');
    std::string_view head = msg.substr(4, sp == std::string_view::npos ? 0 : sp - 4);
    net = std::string(head);
  }
  if (starts_with(what, "HCA ")) {
    NcclGdrHca h;
    h.net = net;
    h.enabled = enabled;
    std::size_t q = 4;
    h.hca = clamp_int(read_uint(what, q).value_or(-1));
    std::size_t a = what.find('\'');
    if (a != std::string_view::npos) {
      std::size_t b = what.find('\'', a + 1);
      if (b != std::string_view::npos) h.name = std::string(what.substr(a + 1, b - a - 1));
    }
    std::size_t paren = what.find(" (");
    if (paren != std::string_view::npos) {
      h.reason = std::string(core::trim_blanks(what.substr(paren + 1)));
      if (contains(what, "(no module)")) narrow(p, V(2, 5, 0), V(2, 12, 99));
    } else {
      narrow(p, V(2, 13, 0), V(2, 99, 99));
    }
    auto it = std::find_if(p.gdr_hca.begin(), p.gdr_hca.end(),
                           [&](const NcclGdrHca& x) { return x.hca == h.hca && x.net == h.net; });
    if (it != p.gdr_hca.end()) {
      *it = std::move(h);
    } else if (p.gdr_hca.size() < 256) {
      p.gdr_hca.push_back(std::move(h));
    }
    return;
  }
  if (!starts_with(what, "GPU ")) return;
  NcclGdrPair g;
  g.enabled = enabled;
  g.text = core::redact_text(msg.substr(0, 512));
  std::string_view gw = what.substr(4);
  std::size_t slash = gw.find(" / HCA ");
  g.gpu = std::string(core::trim_blanks(gw.substr(0, slash)));
  if (slash != std::string_view::npos) {
    std::string_view hw = gw.substr(slash + 7);
    std::size_t e = 0;
    while (e < hw.size() && !is_space(hw[e])) ++e;
    g.hca = std::string(hw.substr(0, e));
  }
  std::size_t d = what.find("(distance ");
  if (d != std::string_view::npos) {
    std::size_t q = d + 10;
    g.distance = clamp_int(read_uint(what, q).value_or(-1));
    while (q < what.size() && (is_space(what[q]) || what[q] == '<' || what[q] == '>' || what[q] == '=')) ++q;
    g.limit = clamp_int(read_uint(what, q).value_or(-1));
    if (contains(what, ">= ")) narrow(p, V(2, 4, 0), V(2, 5, 99));
  }
  if (p.gdr_pairs.size() < 64) p.gdr_pairs.push_back(std::move(g));
}

bool busid_like(std::string_view v) {
  bool hex_letter = false;
  for (char c : v) {
    if (!is_hex(c)) return false;
    if (!is_digit(c)) hex_letter = true;
  }
  return hex_letter || v.size() >= 4;
}

// `rank[dev]` or `rank`: returns rank; `bracket` gets the bracket text.
std::optional<long long> read_rank(std::string_view s, std::size_t& p, std::string_view& bracket) {
  while (p < s.size() && is_space(s[p])) ++p;
  auto r = read_int(s, p);
  if (!r) return std::nullopt;
  if (p < s.size() && s[p] == '[') {
    std::size_t e = s.find(']', p);
    if (e != std::string_view::npos) {
      bracket = s.substr(p + 1, e - p - 1);
      p = e + 1;
    }
  }
  return r;
}

// Connection lines. Returns false when `msg` is not one.
bool handle_connection(NcclProcessLog& p, std::string_view msg, std::size_t lineno) {
  std::size_t via_at = msg.find(" via ");
  std::size_t colon = msg.find(" : ");
  if (via_at == std::string_view::npos || colon == std::string_view::npos || colon > via_at) return false;
  std::string_view head = msg.substr(0, colon);
  std::string word;
  std::size_t sp = head.find(' ');
  if (sp == std::string_view::npos) return false;
  word = std::string(head.substr(0, sp));
  if (word != "Channel" && word != "Ring" && word != "CollNet" && word != "Coll") return false;
  NcclConnection c;
  c.line = lineno;
  std::size_t q = sp + 1;
  auto ch = read_uint(head, q);
  if (!ch) return false;
  c.channel = clamp_int(*ch);
  bool has_conn_index = false;
  if (q < head.size() && head[q] == '/') {
    ++q;
    c.conn_index = clamp_int(read_uint(head, q).value_or(-1));
    has_conn_index = true;
  }
  std::string_view body = msg.substr(colon + 3, via_at - colon - 3);
  std::size_t b = 0;
  std::string_view from_br, to_br;
  auto from = read_rank(body, b, from_br);
  if (!from) return false;
  c.from_rank = clamp_int(*from);
  std::size_t arrow = body.find("->", b);
  if (arrow != std::string_view::npos) {
    std::size_t a = arrow + 2;
    auto to = read_rank(body, a, to_br);
    if (!to) return false;
    c.to_rank = clamp_int(*to);
    if (body.find("->", a) != std::string_view::npos) return false;  // `Ring 00 : 1 -> 0 -> 1` order line
  }
  if (contains(body, "[send]")) c.direction = "send";
  if (contains(body, "[receive]")) c.direction = "receive";
  std::string_view via = core::trim_blanks(msg.substr(via_at + 5));
  c.via = std::string(via.substr(0, 256));
  bool net_like = starts_with(via, "NET/") || starts_with(via, "COLLNET/");
  if (net_like) {
    c.kind = starts_with(via, "NET/") ? NcclTransportKind::kNet : NcclTransportKind::kCollNet;
    std::string_view rest = via.substr(c.kind == NcclTransportKind::kNet ? 4 : 8);
    std::size_t cut = std::string_view::npos;
    for (std::size_t i = 0; i + 1 < rest.size(); ++i) {
      if (rest[i] == '/' && is_digit(rest[i + 1])) {
        cut = i;
        break;
      }
    }
    if (cut == std::string_view::npos) {
      c.net = std::string(rest);
    } else {
      c.net = std::string(rest.substr(0, cut));
      std::size_t d = cut + 1;
      c.net_dev = clamp_int(read_uint(rest, d).value_or(-1));
    }
    c.gdr = contains(via, "/GDRDMA");
    if (contains(via, "(PCI)")) narrow(p, V(2, 26, 0), V(2, 99, 99));
    if (contains(via, "/Shared")) narrow(p, V(2, 12, 0), V(2, 99, 99));
    // Format-based version hints on NET lines.
    if (word == "Ring" && from_br.empty() && c.kind == NcclTransportKind::kNet && !c.direction.empty()) {
      narrow(p, V(2, 4, 0), V(2, 4, 99));
    } else if (word == "Ring" && busid_like(from_br)) {
      narrow(p, V(2, 5, 0), V(2, 6, 99));
    } else if (word == "Channel" && !has_conn_index && busid_like(from_br)) {
      narrow(p, V(2, 7, 0), V(2, 11, 99));
    } else if (word == "Channel" && has_conn_index && !from_br.empty() && c.kind == NcclTransportKind::kNet) {
      if (busid_like(from_br))
        narrow(p, V(2, 12, 0), V(2, 18, 1));
      else
        narrow(p, V(2, 18, 3), V(2, 99, 99));
    }
  } else if (starts_with(via, "P2P/")) {
    c.kind = NcclTransportKind::kP2P;
    if (starts_with(via, "P2P/CUMEM")) narrow(p, V(2, 18, 1), V(2, 99, 99));
  } else if (starts_with(via, "SHM/")) {
    c.kind = NcclTransportKind::kShm;
    narrow(p, V(2, 13, 0), V(2, 99, 99));
  } else if (starts_with(via, "direct shared memory")) {
    c.kind = NcclTransportKind::kShm;
    narrow(p, V(2, 3, 0), V(2, 12, 99));
  } else {
    return false;
  }
  // The process logging the line holds the sender ([send] and P2P/SHM lines) or the receiver ([receive]).
  if (c.direction == "receive")
    add_rank(p, c.to_rank);
  else
    add_rank(p, c.from_rank);
  ++p.connections_total;
  if (p.connections.size() < kMaxConnections) p.connections.push_back(std::move(c));
  return true;
}

// The error of `Call to ibv_<fn> failed with error <strerror>` (<= 2.18), `... with error <strerror> errno
// <n>` (2.19+), `... failed with <n> <strerror>, curr state INIT, next state RTR, ...` (2.27+), or
// `... failed with error <n>`: the strerror text, without errno numbers ("Network is unreachable").
std::string ibv_error_text(std::string_view msg) {
  std::size_t fw = msg.find("failed with ");
  if (fw == std::string_view::npos) return {};
  std::string_view e = msg.substr(fw + 12);
  if (starts_with(e, "error ")) e.remove_prefix(6);
  if (starts_with(e, "errno ")) e.remove_prefix(6);
  e = e.substr(0, e.find(','));
  e = e.substr(0, e.find('['));  // a glued next line (`...unreachable[1,0]<stdout>:...`)
  std::size_t errno_at = e.find(" errno ");
  if (errno_at != std::string_view::npos) e = e.substr(0, errno_at);
  e = core::trim_blanks(e);
  std::size_t q = 0;
  while (q < e.size() && is_digit(e[q])) ++q;
  if (q > 0 && q < e.size() && is_space(e[q])) e = core::trim_blanks(e.substr(q));
  return std::string(e.substr(0, 128));
}

void handle_completion(NcclProcessLog& p, std::string_view msg, bool warn, std::size_t lineno) {
  NcclIssue& is = add_issue(p, NcclIssueKind::kCompletion, warn, msg, lineno);
  // status=NAME(n) (2.30), status=n (2.21+), "with error n" (<= 2.20).
  std::size_t st = msg.find("status=");
  if (st != std::string_view::npos) {
    std::size_t q = st + 7;
    if (auto v = read_uint(msg, q)) {
      is.status = clamp_int(*v);
    } else {
      std::size_t open = msg.find('(', q);
      std::size_t e = q;
      while (e < msg.size() && !is_space(msg[e]) && msg[e] != '(') ++e;
      std::string_view nm = msg.substr(q, e - q);
      if (starts_with(nm, "IBV_WC_")) nm.remove_prefix(7);
      is.status_name = std::string(nm);
      if (open != std::string_view::npos && open == e) {
        std::size_t r = open + 1;
        if (auto v2 = read_uint(msg, r)) is.status = clamp_int(*v2);
      }
    }
  } else if (auto v = int_after(msg, "with error")) {
    is.status = clamp_int(*v);
  }
  if (is.status_name.empty()) is.status_name = std::string(ibv_wc_status_name(is.status));
  if (contains(msg, "::ffff:")) p.roce_gid_in_error = true;
  if (contains(msg, "fe80::") && contains(msg, "%ib")) p.ib_peer_in_error = true;
  if (contains(msg, "with error ")) {
    if (contains(msg, "from peer"))
      narrow(p, V(2, 12, 0), V(2, 20, 99));
    else
      narrow(p, V(2, 4, 0), V(2, 11, 99));
  }
}

// Error trace `misc/socket.cc:567 -> 2`.
bool handle_error_trace(NcclProcessLog& p, std::string_view msg, std::size_t lineno) {
  std::size_t arrow = msg.find(" -> ");
  if (arrow == std::string_view::npos || arrow == 0) return false;
  std::string_view loc = msg.substr(0, arrow);
  std::size_t colon = loc.rfind(':');
  if (colon == std::string_view::npos || colon + 1 >= loc.size() || contains(loc, " ")) return false;
  for (char c : loc.substr(colon + 1))
    if (!is_digit(c)) return false;
  std::size_t q = arrow + 4;
  auto code = read_uint(msg, q);
  if (!code) return false;
  NcclIssue& is = add_issue(p, NcclIssueKind::kErrorTrace, false, msg, lineno);
  static constexpr const char* kResult[] = {"ncclSuccess",       "ncclUnhandledCudaError", "ncclSystemError",
                                            "ncclInternalError", "ncclInvalidArgument",    "ncclInvalidUsage",
                                            "ncclRemoteError",   "ncclInProgress"};
  is.status = clamp_int(*code);
  if (*code < static_cast<long long>(std::size(kResult))) is.status_name = kResult[*code];
  return true;
}

// Strong NCCL-only message starts that carry no fact for the transport verdict.
constexpr std::string_view kKnownIgnored[] = {
    "Trees [",
    "Tree ",
    "Pattern ",
    "Setting affinity for GPU",
    "Threads per block",
    "threadThresholds",
    "Comm config",
    "PROFILER/Plugin",
    "ENV/Plugin",
    "TUNER/Plugin",
    "RAS client",
    "Bootstrap timings",
    "MNNVL busId",
    "NCCL git version",
    "cudaDriverVersion",
    "DMA-BUF is available",
    "Connected all trees",
    "Connected NVLS",
    "NVLS Head",
    "NVLS Trees",
    "P2P Chunksize",
    "Enabled NCCL Func",
    "CC Off",
    "Allocated ",
    "Channel ",
    "Ring ",
    "NCCL_",
    "ncclCommInit",
    "comm 0x",
    "Check P2P Type",
    "Launch mode",
    "rank ",
    "CUDA Dev ",
    "Using non-device net plugin",
    "init.cc",
    "Could not get speed",
    "Symmetric",
    "Init timings",
    "NET/",
    "Connected all rings",
    "Connected collnet",
    "Graph ",
    "Retrieving state",
    "Assigned NET plugin",
    "Initialized NET plugin",
    "Using network",
    "NCCL version",
    "group.cc",
    "Failed to initialize",
    "Plugin Path",
    "P2P plugin",
    "Bootstrap",
    "NVLS multicast",
    "GPU Direct RDMA",
    "Call to ibv_",
    "Failed to open libibverbs",
};

}  // namespace

void settle_overflow(NcclProcessLog& p) {
  if (!overflow_used) return;
  overflow_used = false;
  const std::string sig = issue_signature(overflow_slot);
  const bool seen = std::any_of(p.issues.begin(), p.issues.end(),
                                [&](const NcclIssue& x) { return issue_signature(x) == sig; });
  if (!seen && p.issues.size() < 2 * kMaxIssues) {
    p.issues.push_back(std::move(overflow_slot));
  } else if (p.issues_beyond_cap.count(sig) || p.issues_beyond_cap.size() < 256) {
    ++p.issues_beyond_cap[sig];
  }
}

bool handle_message_impl(NcclProcessLog& p, std::string_view msg, bool warn, std::size_t lineno, bool strict);

bool handle_message(NcclProcessLog& p, std::string_view msg, bool warn, std::size_t lineno, bool strict) {
  const bool r = handle_message_impl(p, msg, warn, lineno, strict);
  settle_overflow(p);
  return r;
}

namespace {

/// One NCCL message as the line handlers see it: trimmed, at most 2048 bytes.
struct NcclLine {
  std::string_view msg;
  bool warn = false;
  std::size_t lineno = 0;
  bool strict = false;
};

/// A family of message forms. Returns true when the line is one of them (the line is then known and no
/// later family is tried); sets `issue_recorded` when it stored the line as an issue.
using NcclLineHandler = bool (*)(NcclProcessLog& p, const NcclLine& line, bool& issue_recorded);

/// Which network NCCL chose, or why it found none.
bool handle_network_choice_line(NcclProcessLog& p, const NcclLine& line, bool& issue_recorded) {
  const std::string_view msg = line.msg;
  if (starts_with(msg, "Using network ")) {
    std::string v(core::trim_blanks(msg.substr(14)));
    if (!v.empty() && v.back() == '.') v.pop_back();
    p.network = v;
    p.network_line = line.lineno;
  } else if (starts_with(msg, "Using internal Network ")) {
    p.network = std::string(core::trim_blanks(msg.substr(23)));
    p.network_line = line.lineno;
    narrow(p, V(2, 0, 0), V(2, 3, 99));
  } else if (starts_with(msg, "Assigned NET plugin ")) {
    std::string_view r = msg.substr(20);
    std::size_t to = r.find(" to comm");
    p.network = std::string(core::trim_blanks(r.substr(0, to)));
    p.network_line = line.lineno;
    narrow(p, V(2, 27, 0), V(2, 99, 99));
  } else if (starts_with(msg, "Initialized NET plugin ")) {
    narrow(p, V(2, 27, 0), V(2, 99, 99));
  } else if (starts_with(msg, "Failed to initialize NET plugin ")) {
    std::string_view which = first_token(msg.substr(32));
    if (which == "IB") p.ib_init_failed = true;
    narrow(p, V(2, 27, 0), V(2, 99, 99));
    add_issue(p, NcclIssueKind::kPlugin, line.warn, msg, line.lineno);
    issue_recorded = true;
  } else if (starts_with(msg, "Failed to initialize any NET plugin") ||
             (starts_with(msg, "Error: network ") && contains(msg, "not found"))) {
    add_issue(p, NcclIssueKind::kNetworkNotFound, line.warn, msg, line.lineno);
    issue_recorded = true;
  } else {
    return false;
  }
  return true;
}

/// `NET/IB` lines of the IB verbs transport: its devices, GPUDirect RDMA, queue pairs, completions.
bool handle_ib_line(NcclProcessLog& p, const NcclLine& line, bool& issue_recorded) {
  const std::string_view msg = line.msg;
  if (!starts_with(msg, "NET/IB")) return false;
  std::string_view r = msg.substr(6);
  std::string_view after = core::trim_blanks(r);
  if (!after.empty() && after.front() == ':') after = core::trim_blanks(after.substr(1));
  if (contains(msg, "GPU Direct RDMA ")) {
    handle_gdr(p, msg);
  } else if (starts_with(after, "No device found")) {
    p.ib_no_device = true;
  } else if (starts_with(after, "Using interface ")) {
    // 2.0 - 2.3 `NET/IB : Using interface enp3s0 for sideband communication`: NCCL's IB transport started
    // and looked for HCAs.
    p.ib_sideband = true;
    narrow(p, V(2, 0, 0), V(2, 3, 99));
  } else if (starts_with(after, "Using")) {
    handle_ib_using(p, after.substr(5));
  } else if (!after.empty() && after.front() == '[') {
    // 2.3: one device per line `NET/IB: [0] mlx5_1:1/IB`.
    std::string tok;
    std::size_t rb = after.find(']');
    if (rb != std::string_view::npos) {
      tok = std::string(after.substr(0, rb + 1)) + std::string(first_token(after.substr(rb + 1)));
      NcclNetDevice d;
      if (parse_ib_device(tok, d) && p.ib_devices.size() < 64) {
        auto it = std::find_if(p.ib_devices.begin(), p.ib_devices.end(),
                               [&](const NcclNetDevice& x) { return x.index == d.index; });
        if (it == p.ib_devices.end()) p.ib_devices.push_back(std::move(d));
        narrow(p, V(2, 3, 0), V(2, 3, 99));
      }
    }
  } else if (contains(msg, " qpn ")) {
    if (contains(msg, " LID ")) p.qp_lid = true;
    if (contains(msg, " GID ")) p.qp_gid = true;
    if (contains(msg, "fifoRkey")) narrow(p, V(2, 20, 0), V(2, 26, 99));
  } else if (contains(msg, "Got completion")) {
    handle_completion(p, msg, line.warn, line.lineno);
    issue_recorded = true;
  } else if (line.warn) {
    add_issue(p, NcclIssueKind::kWarn, line.warn, msg, line.lineno);
    issue_recorded = true;
  }
  return true;
}

/// The socket transport's and the bootstrap's interfaces.
bool handle_socket_line(NcclProcessLog& p, const NcclLine& line, bool& /*issue_recorded*/) {
  const std::string_view msg = line.msg;
  if (starts_with(msg, "NET/Socket")) {
    std::string_view after = core::trim_blanks(msg.substr(10));
    if (!after.empty() && after.front() == ':') after = core::trim_blanks(after.substr(1));
    if (contains(msg, "GPU Direct RDMA ")) {
      handle_gdr(p, msg);
    } else if (starts_with(after, "Using ")) {
      p.socket_ifaces = parse_iface_list(after.substr(6));
    } else if (contains(after, "interfaces found")) {
      // Printed by 2.0.5 (horovod/horovod#57), 2.2.13 (NVIDIA/nccl-tests#15) and 2.3.
      narrow(p, V(2, 0, 0), V(2, 3, 99));
    }
  } else if (starts_with(msg, "NET : Using interface ")) {
    // 2.0 - 2.3: one line per interface of the socket transport, which then also carried the bootstrap.
    auto l = parse_iface_list(msg.substr(22));
    if (!l.empty() && p.bootstrap_ifaces.empty()) p.bootstrap_ifaces = l;
    for (auto& f : l) {
      bool dup = std::any_of(p.socket_ifaces.begin(), p.socket_ifaces.end(),
                             [&](const NcclIface& x) { return x.name == f.name && x.address == f.address; });
      if (!dup && p.socket_ifaces.size() < 64) p.socket_ifaces.push_back(std::move(f));
    }
    narrow(p, V(2, 0, 0), V(2, 3, 99));
  } else if (starts_with(msg, "Bootstrap : Using ") || starts_with(msg, "Bootstrap: Using ")) {
    bool spaced = msg[9] == ' ';
    std::string_view list = msg.substr(spaced ? 18 : 17);
    p.bootstrap_ifaces = parse_iface_list(list);
    if (!spaced)
      narrow(p, V(2, 24, 0), V(2, 99, 99));
    else if (!core::trim_blanks(list).empty() && core::trim_blanks(list).front() == '[')
      narrow(p, V(2, 4, 8), V(2, 7, 99));
    else
      narrow(p, V(2, 8, 0), V(2, 23, 99));
  } else {
    return false;
  }
  return true;
}

/// A "no net plugin" wording and the NCCL versions that print it, first match wins.
struct PluginAbsentNote {
  std::string_view text;
  NcclVersionCode lo;
  NcclVersionCode hi;
};

const PluginAbsentNote* plugin_absent_note(std::string_view msg) {
  static constexpr PluginAbsentNote kNotes[] = {
      {"dlerror=", V(2, 19, 0), V(2, 20, 99)},
      {"Plugin load (libnccl-net.so) returned", V(2, 17, 0), V(2, 18, 99)},
      {"No plugin found, using internal implementation", V(2, 17, 0), V(2, 18, 99)},
      {"No plugin found (libnccl-net.so), using internal implementation", V(2, 5, 0), V(2, 16, 99)},
      // 2.4 and 2.5.6 (NVIDIA/nccl#333, tests/data/nccl-logs/real/r42).
      {"No plugin found (libnccl-net.so).", V(2, 4, 0), V(2, 5, 99)}};
  for (const PluginAbsentNote& n : kNotes) {
    if (contains(msg, n.text)) return &n;
  }
  return nullptr;
}

/// `NET/Plugin` lines: which net/collnet plugin loaded, or why none did.
void handle_net_plugin_line(NcclProcessLog& p, const NcclLine& line, bool& issue_recorded) {
  const std::string_view msg = line.msg;
  if (contains(msg, "Loaded net plugin ")) {
    std::string_view n = msg.substr(msg.find("Loaded net plugin ") + 18);
    std::size_t paren = n.rfind(" (v");
    p.net_plugin = std::string(core::trim_blanks(n.substr(0, paren)));
    narrow(p, V(2, 13, 0), V(2, 99, 99));
  } else if (contains(msg, "Loaded collnet plugin ") || contains(msg, "Loaded coll plugin ")) {
    std::size_t at = msg.find("plugin ") + 7;
    std::string_view n = msg.substr(at);
    std::size_t paren = n.rfind(" (v");
    p.collnet_plugin = std::string(core::trim_blanks(n.substr(0, paren)));
  } else if (contains(msg, "Failed to find ") && contains(msg, "symbol")) {
    // API probing: normal.
  } else if (contains(msg, "Could not find: libnccl-net")) {
    p.plugin_absent = true;
    if (contains(msg, "Using internal network plugin"))
      narrow(p, V(2, 22, 0), V(2, 26, 99));
    else
      narrow(p, V(2, 27, 0), V(2, 99, 99));
  } else if (const PluginAbsentNote* note = plugin_absent_note(msg)) {
    p.plugin_absent = true;
    narrow(p, note->lo, note->hi);
  } else if (contains(msg, "No plugin found") || contains(msg, "Using internal network plugin")) {
    p.plugin_absent = true;
    if (starts_with(msg, "NET/Plugin: ")) narrow(p, V(2, 21, 0), V(2, 21, 99));
  } else if (contains(msg, "Plugin load returned")) {
    if (contains(msg, "returned 2 ")) {
      p.plugin_absent = true;
    } else {
      add_issue(p, NcclIssueKind::kPlugin, line.warn, msg, line.lineno);
      issue_recorded = true;
    }
  }
}

/// Net plugins: `NET/Plugin`, the plugin path, a P2P plugin, the OFI plugin.
bool handle_plugin_line(NcclProcessLog& p, const NcclLine& line, bool& issue_recorded) {
  const std::string_view msg = line.msg;
  if (starts_with(msg, "NET/Plugin")) {
    handle_net_plugin_line(p, line, issue_recorded);
  } else if (starts_with(msg, "Plugin Path : ")) {
    p.net_plugin_path = std::string(core::trim_blanks(msg.substr(14)));
  } else if (starts_with(msg, "P2P plugin ")) {
    std::string_view n = core::trim_blanks(msg.substr(11));
    std::size_t last = n.rfind(' ');
    p.net_plugin = std::string(last == std::string_view::npos ? n : n.substr(last + 1));
  } else if (starts_with(msg, "NET/OFI")) {
    p.ofi = true;
    std::size_t sp = msg.find("Selected Provider is ");
    if (sp != std::string_view::npos) p.ofi_provider = std::string(first_token(msg.substr(sp + 21)));
    if (line.warn) {
      add_issue(p, NcclIssueKind::kPlugin, line.warn, msg, line.lineno);
      issue_recorded = true;
    }
  } else {
    return false;
  }
  return true;
}

/// Environment echoes `NCCL_X set by environment to V.` / `NCCL_X set to V`.
bool handle_env_line(NcclProcessLog& p, const NcclLine& line, bool& /*issue_recorded*/) {
  const std::string_view msg = line.msg;
  if (!starts_with(msg, "NCCL_") || !(contains(msg, " set by environment to ") || contains(msg, " set to ")))
    return false;
  std::size_t sp = msg.find(' ');
  std::string key(msg.substr(0, sp));
  std::size_t v = msg.find(" set by environment to ");
  std::string_view val =
      v != std::string_view::npos ? msg.substr(v + 23) : msg.substr(msg.find(" set to ") + 8);
  // `NCCL_IB_DISABLE set by environment to 1.` may be followed by other text on the same line (a joined
  // line, a wrapper's suffix): the value is the first word, without the sentence's full stop.
  std::string value(first_token(core::trim_blanks(val)));
  if (!value.empty() && value.back() == '.') value.pop_back();
  if (p.env.size() < 256 || p.env.count(key)) p.env[key] = core::redact_value(key, value.substr(0, 256));
  return true;
}

/// GPUDirect RDMA lines and the communicator's summaries (rings' GDR, NVLS, channel counts).
bool handle_summary_line(NcclProcessLog& p, const NcclLine& line, bool& /*issue_recorded*/) {
  const std::string_view msg = line.msg;
  if (contains(msg, "GPU Direct RDMA ")) {
    handle_gdr(p, msg);
  } else if (starts_with(msg, "Connected all rings")) {
    if (auto g = int_after(msg, "GDR")) {
      p.rings_gdr = clamp_int(*g);
      narrow(p, V(2, 24, 0), V(2, 99, 99));
    }
  } else if (starts_with(msg, "NVLS multicast support is ")) {
    p.nvls_available = !contains(msg, "is not available");
  } else if (contains(msg, " coll channels, ")) {
    if (auto n = int_after(msg, "channels,")) (void)n;
    std::size_t nv = msg.find(" nvls channels");
    if (nv != std::string_view::npos) {
      std::size_t s = nv;
      while (s > 0 && is_digit(msg[s - 1])) --s;
      std::size_t q = s;
      p.nvls_channels = std::max(p.nvls_channels, clamp_int(read_uint(msg, q).value_or(0)));
      if (contains(msg, "collnet channels"))
        narrow(p, V(2, 21, 0), V(2, 99, 99));
      else
        narrow(p, V(2, 17, 0), V(2, 20, 99));
    } else {
      narrow(p, V(2, 7, 0), V(2, 16, 99));
    }
  } else if (starts_with(msg, "Using non-device net plugin version")) {
    narrow(p, V(2, 19, 0), V(2, 21, 99));
  } else {
    return false;
  }
  return true;
}

/// Topology dump `+ NET[1.2] - NET/0 (0/0/1.250000)` (src/graph/topo.cc ncclTopoPrintRec: NET nodes print
/// `(asic/port/bw)`, bw in GB/s).
bool handle_topo_net_line(NcclProcessLog& p, const NcclLine& line, bool& /*issue_recorded*/) {
  const std::string_view msg = line.msg;
  if (!starts_with(msg, "+ NET[") || !contains(msg, "- NET/")) return false;
  std::size_t at = msg.find("- NET/") + 6;
  std::size_t q = at;
  auto idx = read_uint(msg, q);
  std::size_t open = msg.find('(', q), close = msg.find(')', q);
  if (idx && open != std::string_view::npos && close != std::string_view::npos && close > open) {
    std::string_view fields = msg.substr(open + 1, close - open - 1);
    std::size_t slash = fields.rfind('/');
    std::string bw(slash == std::string_view::npos ? std::string_view{} : fields.substr(slash + 1));
    char* end = nullptr;
    double v = bw.empty() ? 0.0 : std::strtod(bw.c_str(), &end);
    if (end && *end == '\0' && v > 0 && v < 1e6 && p.topo_net_gbps.size() < 64)
      p.topo_net_gbps[clamp_int(*idx)] = v;
  }
  return true;
}

/// Connection lines (`Channel 00/0 : 0[0] -> 1[1] via NET/IB/0`).
bool handle_connection_line(NcclProcessLog& p, const NcclLine& line, bool& /*issue_recorded*/) {
  const std::string_view msg = line.msg;
  return (starts_with(msg, "Channel ") || starts_with(msg, "Ring ") || starts_with(msg, "CollNet ") ||
          starts_with(msg, "Coll ")) &&
         handle_connection(p, msg, line.lineno);
}

/// Errors: failed verbs calls, completions, a missing libibverbs, socket and proxy failures, error traces.
bool handle_error_line(NcclProcessLog& p, const NcclLine& line, bool& issue_recorded) {
  const std::string_view msg = line.msg;
  const bool warn = line.warn;
  const std::size_t lineno = line.lineno;
  if (starts_with(msg, "Call to ibv_") || contains(msg, "Call to ibv_")) {
    if (!warn && contains(msg, "retrying")) {
      // 2.27+ INFO `Call to ibv_modify_qp failed with 110 ..., retrying 1/5 after 100 msec of sleep`: NCCL
      // retries; only the WARN after the last retry is an error.
      ++p.ib_retries;
    } else {
      NcclIssue& is = add_issue(p, NcclIssueKind::kIbvCall, warn, msg, lineno);
      std::size_t at = msg.find("Call to ") + 8;
      is.ibv_function = std::string(first_token(msg.substr(at)));
      is.error_text = ibv_error_text(msg);
    }
    if (contains(msg, "::ffff:")) p.roce_gid_in_error = true;
    issue_recorded = true;
  } else if (contains(msg, "Got completion")) {
    handle_completion(p, msg, warn, lineno);
    issue_recorded = true;
  } else if (contains(msg, "Failed to open libibverbs")) {
    p.libibverbs_missing = true;
    add_issue(p, NcclIssueKind::kLibibverbs, warn, msg, lineno);
    issue_recorded = true;
  } else if (!warn && contains(msg, "retrying") &&
             (contains(msg, "connect") || contains(msg, "Connection"))) {
    // INFO `Call to connect returned Connection refused, retrying` (misc/socket.cc): the peer was not
    // listening yet; NCCL retries. Only a WARN after the retries is an error.
    ++p.socket_retries;
  } else if (contains(msg, "socketProgress") || contains(msg, "Socket recv failed") ||
             contains(msg, "Call to connect") || contains(msg, "Call to recv") ||
             contains(msg, "Call to send") || contains(msg, "Socket creation failed") ||
             contains(msg, "socketPollConnect") || contains(msg, "socketStartConnect") ||
             contains(msg, "message truncated") ||
             (contains(msg, "Connect to ") && contains(msg, "failed")) ||
             contains(msg, "socketFinalizeAccept") || contains(msg, "Connection closed by remote peer") ||
             contains(msg, "Connection refused") || contains(msg, "Connection reset by peer")) {
    add_issue(p, NcclIssueKind::kSocket, warn, msg, lineno);
    issue_recorded = true;
  } else if (starts_with(msg, "[Proxy Service") || starts_with(msg, "[Service thread]") ||
             starts_with(msg, "[Proxy Thread]") || contains(msg, "Proxy Call to rank")) {
    // `[Proxy Service] Device 1 CPU core 142` (2.19+) and `[Proxy Service UDS] ...` are INFO: only failure
    // forms (`Failed to execute operation`, `Error encountered progressing`) are issues.
    if (warn || contains(msg, "Failed") || contains(msg, "Error") || contains(msg, "failed")) {
      add_issue(p, NcclIssueKind::kProxy, warn, msg, lineno);
      issue_recorded = true;
    }
  } else if (!line.strict && handle_error_trace(p, msg, lineno)) {
    issue_recorded = true;
  } else {
    return false;
  }
  return true;
}

/// The message families in the order they are tried: the first that recognises a line takes it.
constexpr NcclLineHandler kNcclLineHandlers[] = {
    handle_network_choice_line, handle_ib_line,         handle_socket_line,
    handle_plugin_line,         handle_env_line,        handle_summary_line,
    handle_topo_net_line,       handle_connection_line, handle_error_line,
};

/// Communicator identity (rank / nranks / nNodes) of a line that carries it. Returns true when it did.
bool handle_identity(NcclProcessLog& p, std::string_view msg) {
  std::optional<long long> nr = int_after(msg, "nranks");
  if (!nr) nr = int_after(msg, "nRanks");
  if (!nr || !(starts_with(msg, "comm ") || starts_with(msg, "rank ") || starts_with(msg, "nccl") ||
               contains(msg, " comm 0x")))
    return false;
  if (*nr > 0) p.nranks = std::max(p.nranks.value_or(0), clamp_int(*nr));
  if (auto r = int_after(msg, "rank")) add_rank(p, clamp_int(*r));
  if (auto nn = int_after(msg, "nNodes"); nn && *nn > 0)
    p.nnodes = std::max(p.nnodes.value_or(0), clamp_int(*nn));
  if (contains(msg, "Init START")) narrow(p, V(2, 18, 3), V(2, 99, 99));
  return true;
}

/// Whether `msg` starts like an NCCL message that carries no fact (kKnownIgnored).
bool known_ignored(std::string_view msg, bool strict) {
  for (std::string_view k : kKnownIgnored) {
    // Prefix-less lines: only strong, NCCL-specific starts count.
    if (strict &&
        (k == "Channel " || k == "Ring " || k == "rank " || k == "NCCL_" || k == "Tree " || k == "Pattern " ||
         k == "Allocated " || k == "Graph " || k == "Symmetric" || k == "init.cc" || k == "group.cc"))
      continue;
    if (starts_with(msg, k)) return true;
  }
  return false;
}

}  // namespace

bool handle_message_impl(NcclProcessLog& p, std::string_view msg, bool warn, std::size_t lineno,
                         bool strict) {
  msg = core::trim_blanks(msg);
  if (msg.empty()) return false;
  if (msg.size() > 2048)
    msg = msg.substr(0, 2048);  // NCCL formats into 1024 bytes; longer text is not NCCL's
  const NcclLine line{msg, warn, lineno, strict};
  bool known = false;
  bool issue_recorded = false;
  for (NcclLineHandler handler : kNcclLineHandlers) {
    if (handler(p, line, issue_recorded)) {
      known = true;
      break;
    }
  }

  // --- communicator identity: rank / nranks / nNodes (any line that carries them) ---
  if ((!known || starts_with(msg, "comm ") || contains(msg, "Init START") ||
       contains(msg, "Init COMPLETE")) &&
      handle_identity(p, msg))
    known = true;
  if (!known && starts_with(msg, "CUDA Dev ") && contains(msg, "NIC distance")) {
    narrow(p, V(2, 4, 0), V(2, 4, 99));
    known = true;
  }
  if (!known) known = known_ignored(msg, strict);
  if (warn && !issue_recorded) add_issue(p, NcclIssueKind::kWarn, true, msg, lineno);
  return known || warn;
}

}  // namespace fabcheck::parse::detail
