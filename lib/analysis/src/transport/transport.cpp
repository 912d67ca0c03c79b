// Transport verdict (DESIGN §5) from NCCL logs, inventory evidence, env and the MPI signature: the pipeline
// (processes → environment → inter_node → the run's and each host's assessment → findings) and the section.
// Its steps: transport_process.cpp (each process's network), transport_assess.cpp
// (one scope's verdict), transport_inter_node.cpp, transport_findings.cpp, socket_ifname.cpp,
// transport_checks.cpp and transport_health.cpp.
#include "fabcheck/report/transport.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <set>
#include <tuple>

#include "fabcheck/core/redact.hpp"
#include "socket_ifname.hpp"
#include "transport_checks.hpp"
#include "transport_internal.hpp"

namespace fabcheck::report {

using parse::NcclProcessLog;
using parse::NcclTransportKind;

std::string detail::env_value(const std::map<std::string, std::string>& env, const std::string& k) {
  auto it = env.find(k);
  return it == env.end() ? std::string() : it->second;
}

namespace {

using detail::Ctx;
using detail::env_value;
using detail::host_label;
using detail::lower;
using detail::Proc;
using detail::Scope;
using detail::starts;

std::string version_text(parse::NcclVersionCode v) {
  return fmt::format("{}.{}.{}", v / 10000, (v / 100) % 100, v % 100);
}

// NCCL reads its integer parameters with strtoll (src/misc/param.cc) and echoes the number: any non-zero
// value disables (NCCL_IB_DISABLE=10 and -1 do; "true" reads as 0 and does not).
bool truthy(const std::string& v) {
  if (v.empty()) return false;
  char* end = nullptr;
  const long long n = std::strtoll(v.c_str(), &end, 0);
  return end != v.c_str() && n != 0;
}

// One summary per input log: its line accounting, processes and hosts.
std::vector<LogSummary> log_summaries(const TransportInput& in) {
  std::vector<LogSummary> out;
  for (const auto& log : in.nccl_logs) {
    LogSummary ls;
    ls.source = log.source;
    ls.stats = log.stats;
    ls.processes = static_cast<int>(log.processes.size());
    std::set<std::string> hs;
    for (const auto& p : log.processes) hs.insert(p.host);
    ls.hosts = static_cast<int>(hs.size());
    out.push_back(std::move(ls));
  }
  return out;
}

// Effective environment: launcher env < inventory env < command lines in the log < NCCL's own `X set by
// environment to Y` echoes (what the process really saw).
std::map<std::string, std::string> effective_env(const TransportInput& in, const std::vector<Proc>& procs) {
  std::map<std::string, std::string> env = in.env;
  for (const auto& e : in.hosts)
    for (const auto& [k, v] : e.env) env.emplace(k, v);
  for (const auto& log : in.nccl_logs)
    for (const auto& [k, v] : log.command_env) env[k] = v;
  for (const auto& pr : procs)
    for (const auto& [k, v] : pr.p->env) env[k] = v;
  return env;
}

// What every scope shares: the judged signatures and the env's choices (same-host peers forced onto NET,
// sockets chosen by the operator); records net_forced_local and its evidence line in `r`.
Ctx make_ctx(const TransportInput& in, const std::map<std::string, std::string>& env, TransportResult& r) {
  Ctx ctx;
  {
    // Link rate of a pair: the slower end's fastest ACTIVE RDMA port (unknown when either end has none).
    std::map<std::string, double> rate;
    for (const auto& e : in.hosts)
      if (e.link_rate_gbit) rate[e.host] = *e.link_rate_gbit;
    for (const auto& sg : in.signatures) {
      std::optional<double> link;
      auto a = rate.find(sg.from_host), b = rate.find(sg.to_host);
      if (a != rate.end() && b != rate.end()) link = std::min(a->second, b->second);
      ctx.judged[&sg] = classify_signature(sg, link);
    }
  }
  std::string p2p_level = lower(env_value(env, "NCCL_P2P_LEVEL"));
  bool p2p_off = truthy(env_value(env, "NCCL_P2P_DISABLE")) || p2p_level == "loc" || p2p_level == "0";
  bool shm_off = truthy(env_value(env, "NCCL_SHM_DISABLE"));
  ctx.forced = p2p_off && shm_off;
  r.net_forced_local = ctx.forced;
  if (ctx.forced)
    r.evidence.push_back(
        {"env", "", "P2P and SHM disabled by env: same-host peers go through NET (not a fault)"});
  if (truthy(env_value(env, "NCCL_IB_DISABLE"))) {
    ctx.configured = true;
    ctx.configured_by =
        "NCCL_IB_DISABLE=" + env_value(env, "NCCL_IB_DISABLE") + " (sockets chosen by the operator)";
  }
  if (lower(env_value(env, "NCCL_NET")) == "socket") {
    ctx.configured = true;
    ctx.configured_by = "NCCL_NET=" + env_value(env, "NCCL_NET") + " (sockets chosen by the operator)";
  }
  return ctx;
}

// One line per distinct (source, host, message), in first-seen order.
void dedupe_evidence(std::vector<EvidenceLine>& evidence) {
  std::set<std::tuple<std::string, std::string, std::string>> seen;
  std::vector<EvidenceLine> uniq;
  for (auto& e : evidence)
    if (seen.insert({e.source, e.host, e.message}).second) uniq.push_back(std::move(e));
  evidence = std::move(uniq);
}

// The view of one host: its processes' versions, plugin, connections, devices, interfaces and errors, its
// health, and the assessment of its own evidence.
HostTransport host_transport(const std::string& h, const std::vector<Proc>& procs, const TransportInput& in,
                             const Ctx& ctx) {
  Scope sc;
  sc.host = host_label(h);
  HostTransport ht;
  ht.host = host_label(h);
  std::set<std::string> versions;
  parse::NcclVersionCode lo = 0, hi = 0;
  std::vector<const NcclProcessLog*> host_procs;
  for (const auto& pr : procs) {
    if (pr.p->host != h) continue;
    sc.procs.push_back(&pr);
    const auto& p = *pr.p;
    ++ht.processes;
    if (!p.version.empty()) versions.insert(p.version);
    if (p.version_min) {
      lo = lo ? std::max(lo, p.version_min) : p.version_min;
      hi = hi ? std::min(hi, p.version_max) : p.version_max;
    }
    if (ht.net_plugin.empty() && !p.net_plugin.empty())
      ht.net_plugin = p.net_plugin + (detail::plugin_failed(p) ? " (did not come up)" : "");
    for (const auto& c : p.connections) {
      ++ht.connections[std::string(parse::name(c.kind))];
      if (c.kind == NcclTransportKind::kNet && c.gdr) ++ht.connections["net_gdr"];
    }
    ht.nvls_channels = std::max(ht.nvls_channels, p.nvls_channels);
    for (const auto& d : p.ib_devices) {
      std::string s = fmt::format("{}:{}/{}", d.name, d.port, d.link_layer.empty() ? "?" : d.link_layer);
      if (std::find(ht.net_devices.begin(), ht.net_devices.end(), s) == ht.net_devices.end())
        ht.net_devices.push_back(s);
    }
    for (const auto& f : p.socket_ifaces)
      if (std::find(ht.socket_ifaces.begin(), ht.socket_ifaces.end(), f.name) == ht.socket_ifaces.end())
        ht.socket_ifaces.push_back(f.name);
    for (const auto& is : p.issues) {
      NcclErrorClass cls;
      bool fatal = false;
      if (ht.errors.size() < 20 && classify_issue(is, cls, fatal)) ht.errors.push_back(is);
    }
    host_procs.push_back(&p);
  }
  {
    // Errors are what the health counts: INFO chatter and propagation traces are not.
    TransportHealth hh = assess_health(host_procs);
    ht.health = hh.status;
    ht.errors_total = hh.errors;
  }
  for (const auto& e : in.hosts)
    if (e.host == h) sc.hw.push_back(&e);
  for (const auto& s : in.signatures)
    if (s.from_host == h || s.to_host == h) sc.sigs.push_back(&s);
  if (!versions.empty()) {
    ht.nccl_version = *versions.begin();
    for (auto it = std::next(versions.begin()); it != versions.end(); ++it) ht.nccl_version += ", " + *it;
  } else if (lo && lo <= hi) {
    ht.nccl_version = fmt::format("{}-{} (inferred)", version_text(lo), version_text(hi));
  }
  ht.assessment = detail::assess(sc, ctx, nullptr);
  return ht;
}

// Bare `NCCL version` lines (2.3-2.21 print it from rank 0 only): give them to the only host, if one.
std::set<std::string> bare_versions(const TransportInput& in, std::vector<HostTransport>& per_host) {
  std::set<std::string> bare;
  for (const auto& log : in.nccl_logs)
    for (const auto& v : log.bare_versions) bare.insert(v);
  if (!bare.empty() && per_host.size() == 1 && per_host[0].nccl_version.find('(') != std::string::npos)
    per_host[0].nccl_version = *bare.begin();
  else if (!bare.empty() && per_host.size() == 1 && per_host[0].nccl_version.empty())
    per_host[0].nccl_version = *bare.begin();
  return bare;
}

}  // namespace

TransportResult analyze_transport(const TransportInput& in) {
  TransportResult r;
  // Processes and hosts.
  std::vector<Proc> procs;
  for (const auto& log : in.nccl_logs)
    for (const auto& p : log.processes) procs.push_back(detail::classify_process(p));
  std::vector<std::string> host_order;
  auto note_host = [&](const std::string& h) {
    if (std::find(host_order.begin(), host_order.end(), h) == host_order.end()) host_order.push_back(h);
  };
  for (const auto& pr : procs) note_host(pr.p->host);
  for (const auto& e : in.hosts) note_host(e.host);
  r.logs = log_summaries(in);
  const std::map<std::string, std::string> env = effective_env(in, procs);
  for (const auto& [k, v] : env)
    if (starts(k, "NCCL_") || starts(k, "UCX_") || starts(k, "OMPI_MCA_")) r.env[k] = v;
  Ctx ctx = make_ctx(in, env, r);
  detail::decide_inter_node(procs, in, ctx.forced, r);
  ctx.inter_node = r.inter_node;

  // --- run-level assessment, then per host ---
  Scope all;
  for (const auto& pr : procs) all.procs.push_back(&pr);
  for (const auto& e : in.hosts) all.hw.push_back(&e);
  for (const auto& s : in.signatures) all.sigs.push_back(&s);
  r.run = detail::assess(all, ctx, &r.evidence);
  dedupe_evidence(r.evidence);
  for (const auto& h : host_order) r.per_host.push_back(host_transport(h, procs, in, ctx));
  const std::set<std::string> bare = bare_versions(in, r.per_host);

  // --- findings: the verdict's, the interfaces', then health (did the attempted transport work?) and the
  // socket-path checks ---
  if (auto f = detail::fallback_finding(r)) r.findings.push_back(std::move(*f));
  if (auto f = detail::gdr_disabled_finding(r.run)) r.findings.push_back(std::move(*f));
  if (auto f = detail::version_mismatch_finding(r.per_host, bare)) r.findings.push_back(std::move(*f));
  std::vector<const NcclProcessLog*> all_procs, socket_procs;
  for (const auto& pr : procs) {
    all_procs.push_back(pr.p);
    if (pr.net_class == "socket") socket_procs.push_back(pr.p);
  }
  if (auto f = detail::socket_ifname_from_env(env, socket_procs)) r.findings.push_back(std::move(*f));
  r.health = assess_health(in.nccl_logs);
  for (auto& f : health_findings(r.health, r.run.verdict == "socket_fallback"))
    r.findings.push_back(std::move(f));
  if (auto f = detail::socket_single_nic(all_procs)) r.findings.push_back(std::move(*f));
  if (auto f = detail::bootstrap_addr_not_routable(all_procs, r.inter_node))
    r.findings.push_back(std::move(*f));
  return r;
}

namespace {

nlohmann::json assessment_json(const TransportAssessment& a) {
  nlohmann::json j;
  j["network"] = a.network;
  j["network_name"] = a.network_name.empty() ? nlohmann::json(nullptr) : nlohmann::json(a.network_name);
  j["network_source"] = a.network_source.empty() ? nlohmann::json(nullptr) : nlohmann::json(a.network_source);
  j["link_layer"] = a.link_layer ? nlohmann::json(*a.link_layer) : nlohmann::json(nullptr);
  if (!a.link_layer) j["link_layer_reason"] = a.link_layer_reason;
  j["gdr"] = a.gdr;
  j["gdr_basis"] = a.gdr_basis;
  j["verdict"] = a.verdict;
  j["cause"] = a.cause.empty() ? nlohmann::json(nullptr) : nlohmann::json(a.cause);
  return j;
}

}  // namespace

void add_transport(Document& doc, const TransportResult& r) {
  nlohmann::json t = assessment_json(r.run);
  t["inter_node"] = r.inter_node ? nlohmann::json(*r.inter_node) : nlohmann::json(nullptr);
  t["inter_node_basis"] = r.inter_node_basis;
  t["net_forced_local"] = r.net_forced_local;
  t["health"] = health_json(r.health);
  t["env"] = r.env;
  t["env_redacted"] = core::redacted_names(r.env);
  t["evidence"] = nlohmann::json::array();
  for (const auto& e : r.evidence)
    t["evidence"].push_back({{"source", e.source}, {"host", e.host}, {"message", e.message}});
  t["per_host"] = nlohmann::json::array();
  for (const auto& h : r.per_host) {
    nlohmann::json j = assessment_json(h.assessment);
    j["host"] = h.host;
    j["nccl_version"] = h.nccl_version.empty() ? nlohmann::json(nullptr) : nlohmann::json(h.nccl_version);
    j["net_plugin"] = h.net_plugin.empty() ? nlohmann::json(nullptr) : nlohmann::json(h.net_plugin);
    j["processes"] = h.processes;
    j["connections"] = h.connections;
    j["nvls_channels"] = h.nvls_channels;
    j["net_devices"] = h.net_devices;
    j["socket_ifaces"] = h.socket_ifaces;
    j["errors_total"] = h.errors_total;
    j["health"] = h.health;
    j["errors"] = nlohmann::json::array();
    for (const auto& is : h.errors) {
      nlohmann::json e = {
          {"line", is.line}, {"kind", std::string(parse::name(is.kind))}, {"message", is.message}};
      if (!is.ibv_function.empty()) e["ibv_function"] = is.ibv_function;
      if (!is.error_text.empty()) e["error_text"] = is.error_text;
      if (is.kind == parse::NcclIssueKind::kCompletion) {
        e["status"] = is.status >= 0 ? nlohmann::json(is.status) : nlohmann::json(nullptr);
        e["status_name"] = is.status_name.empty() ? nlohmann::json(nullptr) : nlohmann::json(is.status_name);
      }
      j["errors"].push_back(std::move(e));
    }
    t["per_host"].push_back(std::move(j));
  }
  t["logs"] = nlohmann::json::array();
  for (const auto& l : r.logs) {
    const auto& s = l.stats;
    t["logs"].push_back({{"file", l.source},
                         {"bytes", s.bytes},
                         {"lines", s.lines},
                         {"nccl_lines", s.nccl_lines},
                         {"message_only_lines", s.message_only_lines},
                         {"foreign_lines", s.foreign_lines},
                         {"blank_lines", s.blank_lines},
                         {"skipped_lines", s.skipped_overlong + s.skipped_binary},
                         {"skipped_overlong", s.skipped_overlong},
                         {"skipped_binary", s.skipped_binary},
                         {"unparsed_lines", s.unparsed},
                         {"truncated", s.truncated},
                         {"processes", l.processes},
                         {"hosts", l.hosts}});
  }
  doc.json()["transport"] = std::move(t);
  for (const auto& f : r.findings) doc.add_finding(f);
  doc.set_section("transport", SectionStatus::kOk);
}

void update_transport(Document& doc, const TransportResult& previous, const TransportResult& r) {
  auto& fs = doc.json()["findings"];
  if (fs.is_array()) {
    for (const auto& f : previous.findings) {
      const nlohmann::json old = {{"severity", std::string(name(f.severity))},
                                  {"code", f.code},
                                  {"message", f.message},
                                  {"evidence", f.evidence},
                                  {"remedy", f.remedy}};
      for (auto it = fs.begin(); it != fs.end(); ++it)
        if (*it == old) {
          fs.erase(it);
          break;
        }
    }
  }
  add_transport(doc, r);
}

std::string render_transport(const TransportResult& r) {
  std::string out;
  const auto& a = r.run;
  // First line: what was attempted, and whether it worked (a failed job is never "healthy").
  const std::string head = health_headline(r.health);
  out += fmt::format("transport verdict: {}{}\n", a.verdict,
                     head.empty() ? std::string(" (health ok)") : " \u2014 " + head);
  out += fmt::format("  network {}{}, link_layer {}, gdr {}, inter_node {}\n", a.network,
                     a.network_name.empty() ? "" : " (" + a.network_name + ")", a.link_layer.value_or("-"),
                     a.gdr,
                     !r.inter_node   ? "unknown"
                     : *r.inter_node ? "yes"
                                     : "no");
  out += "evidence:\n";
  for (const auto& e : r.evidence)
    out += fmt::format("  [{}]{} {}\n", e.source, e.host.empty() ? "" : " " + e.host + ":", e.message);
  out += fmt::format("\n{:<24} {:<9} {:<11} {:<8} {:<18} {:<22} {:>5} {:>5} {:>5} {:>6}\n", "host", "network",
                     "link_layer", "gdr", "verdict", "nccl", "p2p", "shm", "net", "errors");
  for (const auto& h : r.per_host) {
    auto cnt = [&](const char* k) {
      auto it = h.connections.find(k);
      return it == h.connections.end() ? 0 : it->second;
    };
    out +=
        fmt::format("{:<24} {:<9} {:<11} {:<8} {:<18} {:<22} {:>5} {:>5} {:>5} {:>6}\n", h.host.substr(0, 24),
                    h.assessment.network, h.assessment.link_layer.value_or("-"), h.assessment.gdr,
                    h.assessment.verdict, h.nccl_version.empty() ? "-" : h.nccl_version.substr(0, 22),
                    cnt("p2p"), cnt("shm"), cnt("net"), h.errors_total);
  }
  for (const auto& l : r.logs) {
    const auto& s = l.stats;
    out += fmt::format("log {}: {} lines, {} NCCL, {} prefix-less, {} foreign, {} skipped, {} unparsed{}\n",
                       l.source, s.lines, s.nccl_lines, s.message_only_lines, s.foreign_lines,
                       s.skipped_overlong + s.skipped_binary, s.unparsed, s.truncated ? ", truncated" : "");
  }
  if (!r.findings.empty()) {
    out += "findings:\n";
    for (const auto& f : r.findings)
      out += fmt::format("  {} {}: {}\n    remedy: {}\n", name(f.severity), f.code, f.message, f.remedy);
  }
  return out;
}

}  // namespace fabcheck::report
