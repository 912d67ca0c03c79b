// HTML report: nics — every data NIC of every host, the rail x rail reachability matrix and per
// rail the host x host bandwidth matrix of its NICs, suspects (slow NICs) marked.
#include <fmt/format.h>

#include <set>

#include "html_internal.hpp"

namespace fabcheck::report::html {
namespace {

std::string span(std::string_view css_class, const std::string& s) {
  return fmt::format("<span class=\"{}\">{}</span>", css_class, s);
}

// The NICs of every host: name, address, rail, carrier, speed; management (not data) interfaces muted.
std::string nic_table(const json& n) {
  const auto& hosts = as_array(get(n, "hosts"));
  const auto& nics = as_array(get(n, "nics"));
  const auto& rails = as_array(get(n, "rails"));
  std::vector<std::vector<std::string>> rows;
  for (std::size_t h = 0; h < nics.size() && h < hosts.size(); ++h)
    for (const auto& x : nics[h]) {
      const bool data = flag_or(get(x, "data"), false);
      const bool carrier = flag_or(get(x, "carrier"), true);
      double rail = -1;
      std::string rail_text = "—";
      if (as_number(get(x, "rail"), rail) && rail >= 0 && static_cast<std::size_t>(rail) < rails.size())
        rail_text = fmt::format("{} ({})", static_cast<int>(rail),
                                text(get(rails[static_cast<std::size_t>(rail)], "subnet")));
      const std::string name = text(get(x, "name"));
      rows.push_back({text(&hosts[h]), data ? name : span("muted", name + " (not measured)"),
                      text(get(x, "addr")) + "/" + text(get(x, "prefix_len")), rail_text,
                      carrier ? span("good", "up") : span("bad", "NO-CARRIER"),
                      number(get(x, "speed_mbps"))});
    }
  return table({"host", "interface", "address", "rail", "carrier", "speed Mb/s"}, rows, "nics-table");
}

// Rail x rail: NIC pairs connected / tried; a row with nothing connected in red, a partial one amber.
std::string reach_table(const json& n) {
  const auto& reach = as_array(get(n, "reachability"));
  const auto& rails = as_array(get(n, "rails"));
  if (reach.size() < 2) return "";
  std::vector<std::string> header = {"from rail \\ to rail"};
  for (std::size_t b = 0; b < rails.size(); ++b)
    header.push_back(fmt::format("{} {}", b, text(get(rails[b], "subnet"))));
  std::vector<std::vector<std::string>> rows;
  for (std::size_t a = 0; a < reach.size(); ++a) {
    std::vector<std::string> row = {
        fmt::format("{} {}", a, a < rails.size() ? text(get(rails[a], "subnet")) : "")};
    for (const auto& c : as_array(&reach[a])) {
      const double tried = num_or(get(c, "attempted"), 0), ok = num_or(get(c, "reachable"), 0);
      const std::string cell = fmt::format("{}/{}", static_cast<long>(ok), static_cast<long>(tried));
      row.push_back(tried == 0   ? span("muted", cell)
                    : ok == 0    ? span("bad", cell)
                    : ok < tried ? span("warn", cell)
                                 : span("good", cell));
    }
    rows.push_back(std::move(row));
  }
  return "<h3>Reachability: NIC pairs connected / tried, rail to rail</h3>\n" +
         table(header, rows, "nics-reach");
}

// What a suspect's retest said: confirmed (true), refuted (false) or none (absent/null).
std::string retest_text(const json& suspect) {
  const json* c = get(suspect, "confirmed");
  if (!c || !c->is_boolean()) return "no retest";
  return c->get<bool>() ? "confirmed by retest" : "not confirmed";
}

// One rail's host x host bandwidth (row sends to column); a suspect host's row and column cells marked, its
// name red only when the retest confirmed it (amber otherwise: a suspect is not yet a fault).
std::string rail_matrix(const json& rail, std::size_t k, const std::vector<std::string>& hosts) {
  std::set<std::string> suspects, confirmed;
  for (const auto& s : as_array(get(rail, "suspects"))) {
    suspects.insert(text(get(s, "host")));
    if (flag_or(get(s, "confirmed"), false)) confirmed.insert(text(get(s, "host")));
  }
  const auto& m = as_array(get(rail, "bw_gbps"));
  std::vector<std::string> header = {"from \\ to"};
  for (const auto& h : hosts) header.push_back(h);
  std::vector<std::vector<std::string>> rows;
  for (std::size_t i = 0; i < m.size() && i < hosts.size(); ++i) {
    std::vector<std::string> row = {confirmed.count(hosts[i])  ? span("bad", hosts[i])
                                    : suspects.count(hosts[i]) ? span("warn", hosts[i])
                                                               : hosts[i]};
    const auto& r = as_array(&m[i]);
    for (std::size_t j = 0; j < r.size(); ++j) {
      double v = 0;
      if (i == j)
        row.push_back(span("muted", "—"));
      else if (!as_number(&r[j], v))
        row.push_back(span("bad", "unreachable"));
      else
        row.push_back(suspects.count(hosts[i]) || suspects.count(hosts[j]) ? span("warn", fmt_number(v))
                                                                           : fmt_number(v));
    }
    rows.push_back(std::move(row));
  }
  std::string out = fmt::format("<h3>Rail {} ({}): bandwidth GB/s, row sends to column; median {}</h3>\n", k,
                                text(get(rail, "subnet")), number(get(rail, "bw_median_gbps")));
  out += table(header, rows, "nics-rail");
  if (!suspects.empty()) {
    std::vector<std::string> named;
    for (const auto& s : as_array(get(rail, "suspects")))
      named.push_back(fmt::format("{} {} ({})", text(get(s, "host")), text(get(s, "iface")), retest_text(s)));
    out += notice("warn", "slow NIC suspects on this rail: " + fmt::format("{}", fmt::join(named, "; ")));
  }
  return out;
}

// The RDMA verbs part: `skipped: <reason>` as a notice, else one row per directed port pair (unreachable in
// red).
std::string verbs_part(const json& n) {
  const json* v = get(n, "verbs");
  if (!v || !v->is_object()) return "";
  if (const json* why = get(*v, "skipped"); why && why->is_string())
    if (as_array(get(*v, "links")).empty()) return notice("note", "RDMA verbs: skipped: " + as_string(why));
  auto end = [](const json* e) {
    const std::string netdev = as_string(get(*e, "netdev"));
    return text(get(*e, "host")) + " " + text(get(*e, "device")) + "/" + text(get(*e, "port")) +
           (netdev.empty() ? "" : " (" + text(get(*e, "netdev")) + ")");
  };
  std::vector<std::vector<std::string>> rows;
  for (const auto& l : as_array(get(*v, "links"))) {
    const bool ok = flag_or(get(l, "reachable"), false);
    rows.push_back({end(get(l, "from")), end(get(l, "to")), text(get_path(l, {"from", "gid_index"})),
                    number(get(l, "path_mtu_bytes")), number(get(l, "bw_gbps")), number(get(l, "lat_p50_us")),
                    number(get(l, "lat_p99_us")),
                    ok ? text(get(l, "error")) : span("bad", "unreachable: " + text(get(l, "error")))});
  }
  return table({"from", "to", "GID index", "path MTU B", "RDMA WRITE GB/s", "p50 µs", "p99 µs", "error"},
               rows, "nics-verbs-table") +
         notice("note", "RDMA verbs: " + as_string(get(*v, "method")));
}

}  // namespace

std::string render_nics(const json& r) {
  std::string out = section_open(r, "nics", "NICs: every NIC pair, rail by rail", {"nics"});
  const json* n = get(r, "nics");
  if (!n || !n->is_object() || as_array(get(*n, "hosts")).empty()) {
    return out +
           notice("note",
                  "no NIC measurement in this report (fabcheck nics, or fabcheck run with "
                  "configs/extended.json)") +
           section_close();
  }
  std::vector<std::string> hosts;
  for (const auto& h : as_array(get(*n, "hosts"))) hosts.push_back(text(&h));
  out += nic_table(*n);
  out += reach_table(*n);
  const auto& rails = as_array(get(*n, "rails"));
  for (std::size_t k = 0; k < rails.size(); ++k) out += rail_matrix(rails[k], k, hosts);
  out += verbs_part(*n);
  out += notice("note", fmt::format("{} hosts, {} rails, {} NIC pairs in {} s. Method: {}. Definitions: "
                                    "docs/DESIGN.md §5 \"NICs\".",
                                    hosts.size(), rails.size(), as_array(get(*n, "links")).size(),
                                    number(get(*n, "duration_s"), 3), as_string(get(*n, "method"), "")));
  return out + section_close();
}

}  // namespace fabcheck::report::html
