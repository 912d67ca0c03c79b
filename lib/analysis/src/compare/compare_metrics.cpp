// extract_metrics: the comparable numbers of a report (the table in compare.hpp), one extractor per section;
// every direction comes from the metric catalogue (model/metrics.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>
#include <utility>

#include "fabcheck/core/size.hpp"
#include "fabcheck/report/compare.hpp"
#include "fabcheck/report/load.hpp"

namespace fabcheck::report {
namespace {

using json = nlohmann::json;

// A finite number at `j[field]` (a dotted path), or nullopt.
std::optional<double> number_at(const json& j, std::string_view path) {
  const json* cur = &j;
  std::size_t start = 0;
  while (true) {
    const auto dot = path.find('.', start);
    const std::string part(
        path.substr(start, dot == std::string_view::npos ? path.size() - start : dot - start));
    if (!cur->is_object() || !cur->contains(part)) return std::nullopt;
    cur = &(*cur)[part];
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  if (!cur->is_number()) return std::nullopt;
  return cur->get<double>();
}

// `o[k]` by reference, or a null (json::value() returns a copy: of a 2048-host matrix, 4 million cells).
const json& member(const json& o, const char* k) {
  static const json null_value;
  if (!o.is_object()) return null_value;
  const auto it = o.find(k);
  return it == o.end() ? null_value : *it;
}

// An entry's identity in the comparison: its `fields` (null where absent), on which A's and B's entries meet.
json key_of(const json& entry, std::initializer_list<const char*> fields) {
  json key = json::object();
  for (const char* f : fields) key[f] = entry.value(f, json());
  return key;
}

std::string text_of(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_null()) return "-";
  return v.dump();
}

std::string size_label(const json& v) {
  if (!v.is_number_unsigned() && !v.is_number_integer()) return text_of(v);
  const auto b = v.get<std::int64_t>();
  if (b < 0) return std::to_string(b);
  const std::string s = core::format_size(static_cast<std::uint64_t>(b));  // "64K", "1M", "100"
  return s + (s.back() >= '0' && s.back() <= '9' ? "B" : "iB");
}

// The samples (µs) of a histogram [[lower_ns, upper_ns, count], ...]: each bucket's lower edge with its
// count, so that values inside one bucket are ties (buckets are at most 6.25 % wide, DESIGN §4), never
// expanded (a 2048-host report holds a histogram per pair). Empty when malformed.
SampleSet histogram_samples(const json& h) {
  SampleSet out{{}, {}, "histogram"};
  if (!h.is_array()) return out;
  out.values.reserve(h.size());
  out.counts.reserve(h.size());
  // At most 2^40 samples (fabcheck's histograms hold one per timed iteration): the rank sums stay exact in
  // doubles and the counts cannot overflow when pooled.
  constexpr std::uint64_t kMaxHistogramSamples = std::uint64_t{1} << 40;
  std::uint64_t total = 0;
  for (const auto& b : h) {
    if (!b.is_array() || b.size() != 3 || !b[0].is_number() || !b[2].is_number_integer() ||
        b[2].get<std::int64_t>() < 0)
      return {{}, {}, "histogram"};
    out.values.push_back(b[0].get<double>() / 1000.0);
    out.counts.push_back(static_cast<std::uint64_t>(b[2].get<std::int64_t>()));
    total += out.counts.back();
    if (total > kMaxHistogramSamples) return {{}, {}, "histogram"};  // not a histogram this tool wrote
  }
  return out;
}

std::vector<double> sample_values(const json& arr) {
  std::vector<double> out;
  if (!arr.is_array()) return out;
  out.reserve(arr.size());
  for (const auto& x : arr) {
    if (!x.is_number()) return {};
    out.push_back(x.get<double>());
  }
  return out;
}

// The direction of a compared metric: its catalogue entry's (model/metrics.hpp). @throws std::logic_error
// when the catalogue has no compared entry with a direction: a programming error, caught by
// test_model_metrics.cpp over the real reports.
BetterIs compared_direction(std::string_view section, std::string_view metric) {
  const model::Metric& m = model::metric(section, metric);
  if (!m.compared || m.better == BetterIs::kNone) {
    throw std::logic_error(fmt::format(
        "metric {}.{}: the catalogue does not mark it compared with a direction", section, metric));
  }
  return m.better;
}

class Extractor {
 public:
  explicit Extractor(MetricSet& out) : out_(out) {}

  // Adds one metric when `value` holds a number, its direction from the catalogue (compared_direction: a
  // metric the catalogue lacks throws, whether or not this report holds a value for it). `key` must identify
  // the row within its section.
  void add(const std::string& section, const json& key, const std::string& item, const std::string& metric,
           std::optional<double> value, const std::string& samples_id = {}, bool per_place = false) {
    const BetterIs better = compared_direction(section, metric);
    if (!value) return;
    CompareMetric m;
    m.per_place = per_place;
    m.section = section;
    m.key = key;
    m.item = item;
    m.metric = metric;
    m.better = better;
    m.value = *value;
    m.id = fmt::format("{}|{}|{}", section, key.dump(), metric);
    if (!ids_.insert(m.id).second) return;  // a repeated key: the first one counts
    if (!samples_id.empty() && out_.samples.count(samples_id)) m.samples_id = samples_id;
    out_.metrics.push_back(std::move(m));
  }

  // Adds one per-link matrix (the first of an id counts).
  void link(LinkValues lv) {
    if (!ids_.insert(lv.id).second) return;
    out_.links.push_back(std::move(lv));
  }

  // Registers a sample set under `id` when non-empty; returns the id or "".
  std::string samples(const std::string& id, SampleSet set) {
    const bool none = set.counts.empty() ? set.values.empty()
                                         : std::all_of(set.counts.begin(), set.counts.end(),
                                                       [](std::uint64_t c) { return c == 0; });
    if (none) return {};
    out_.samples[id] = std::move(set);
    return id;
  }

 private:
  MetricSet& out_;
  std::set<std::string> ids_;
};

void sweeps(const json& doc, Extractor& x) {
  if (!doc.contains("sweeps") || !doc["sweeps"].is_array()) return;
  const auto base_key = [](const json& s) { return key_of(s, {"collective", "dtype", "redop", "root"}); };
  // Series that differ only in their rank count (IMB-MPI1 prints one table per #processes) keep
  // apart by nranks; a report with one rank count per series keys as before, so runs at different scales
  // still line up.
  std::map<std::string, std::set<std::string>> nranks_of;
  for (const auto& s : doc["sweeps"]) {
    if (s.is_object()) nranks_of[base_key(s).dump()].insert(s.value("nranks", json()).dump());
  }
  for (const auto& s : doc["sweeps"]) {
    if (!s.is_object()) continue;
    json block_key = base_key(s);
    const bool by_nranks = nranks_of[block_key.dump()].size() > 1;
    std::string block_item = fmt::format("{} {} {}", text_of(block_key["collective"]),
                                         text_of(block_key["dtype"]), text_of(block_key["redop"]));
    if (!block_key["root"].is_null()) block_item += fmt::format(" root={}", text_of(block_key["root"]));
    if (by_nranks) {
      block_key["nranks"] = s.value("nranks", json());
      block_item += fmt::format(" np={}", text_of(block_key["nranks"]));
    }
    if (s.contains("points") && s["points"].is_array()) {
      for (const auto& p : s["points"]) {
        if (!p.is_object()) continue;
        json key = block_key;
        key["placement"] = p.value("placement", json());
        key["size_bytes"] = p.value("size_bytes", json());
        std::string item =
            fmt::format("{} {} {}", block_item, size_label(key["size_bytes"]), text_of(key["placement"]));
        if (p.contains("cycle") && p["cycle"].is_number() && p["cycle"].get<double>() > 0) {
          key["cycle"] = p["cycle"];
          item += fmt::format(" cycle {}", text_of(p["cycle"]));
        }
        const json empty = json::object();
        const json& pi = p.contains("per_iter") && p["per_iter"].is_object() ? p["per_iter"] : empty;
        const std::string sid =
            x.samples("sweeps|" + key.dump(), {sample_values(member(pi, "samples_us")), {}, "samples_us"});
        x.add("sweeps", key, item, "time_us", number_at(p, "time_us"), sid);
        x.add("sweeps", key, item, "algbw_gbps", number_at(p, "algbw_gbps"), sid);
        x.add("sweeps", key, item, "busbw_gbps", number_at(p, "busbw_gbps"), sid);
        x.add("sweeps", key, item, "per_iter.p50_us", number_at(pi, "p50_us"), sid);
        x.add("sweeps", key, item, "per_iter.p99_us", number_at(pi, "p99_us"), sid);
      }
    }
    x.add("sweeps", block_key, block_item, "avg_busbw_gbps", number_at(s, "avg_busbw_gbps"));
  }
}

void latency(const json& doc, Extractor& x) {
  if (!doc.contains("latency") || !doc["latency"].is_array()) return;
  for (const auto& l : doc["latency"]) {
    if (!l.is_object()) continue;
    const json key = key_of(l, {"kind", "pattern", "size_bytes"});
    const std::string item =
        fmt::format("{} {} {}", text_of(key["kind"]), text_of(key["pattern"]), size_label(key["size_bytes"]));
    const std::string sid = x.samples("latency|" + key.dump(), histogram_samples(member(l, "histogram")));
    for (const char* f : {"p50_us", "p90_us", "p99_us", "p999_us", "mean_us"})
      x.add("latency", key, item, f, number_at(l, f), sid);
    if (!l.contains("per_pair") || !l["per_pair"].is_array()) continue;
    for (const auto& pp : l["per_pair"]) {
      if (!pp.is_object() || !pp.contains("hosts")) continue;
      json pkey = key;
      pkey["pair"] = pp["hosts"];
      std::string hosts;
      if (pp["hosts"].is_array()) {
        for (const auto& h : pp["hosts"]) hosts += (hosts.empty() ? "" : "<->") + text_of(h);
      }
      const std::string pitem = fmt::format("{} pair {}", item, hosts);
      const std::string psid =
          x.samples("latency|" + pkey.dump(), histogram_samples(member(pp, "histogram")));
      x.add("latency", pkey, pitem, "per_pair.p50_us", number_at(pp, "p50_us"), psid, true);
      x.add("latency", pkey, pitem, "per_pair.p99_us", number_at(pp, "p99_us"), psid, true);
    }
  }
}

void incast(const json& doc, Extractor& x) {
  if (!doc.contains("incast") || !doc["incast"].is_array()) return;
  for (const auto& p : doc["incast"]) {
    if (!p.is_object()) continue;
    const json key = key_of(p, {"receiver", "fan_in", "size_bytes"});
    const std::string item = fmt::format("receiver {} fan_in {} {}", text_of(key["receiver"]),
                                         text_of(key["fan_in"]), size_label(key["size_bytes"]));
    for (const char* f :
         {"goodput_gbps", "incast_efficiency", "fairness", "congestion_impact.mean", "congestion_impact.p99"})
      x.add("incast", key, item, f, number_at(p, f));
  }
}

// Off-diagonal numbers of a square matrix (either form report::dense_matrix reads): (min, max), nullopt when
// none.
std::optional<std::pair<double, double>> off_diagonal_range(const json& v) {
  const auto m = report::dense_matrix(v);
  if (!m) return std::nullopt;
  std::optional<std::pair<double, double>> r;
  for (std::size_t i = 0; i < m->rows; ++i) {
    for (std::size_t j = 0; j < m->cols; ++j) {
      const double d = m->at(i, j);
      if (i == j || std::isnan(d)) continue;
      if (!r) r = std::pair{d, d};
      r->first = std::min(r->first, d);
      r->second = std::max(r->second, d);
    }
  }
  return r;
}

void pairs(const json& doc, Extractor& x) {
  if (!doc.contains("pairs") || !doc["pairs"].is_object()) return;
  const json& p = doc["pairs"];
  const json key = key_of(p, {"size_bytes"});
  const std::string item = fmt::format("all links {}", size_label(key["size_bytes"]));
  x.add("pairs", key, item, "bw_median_gbps", number_at(p, "bw_median_gbps"));
  const auto bw = off_diagonal_range(member(p, "bw_gbps"));
  x.add("pairs", key, item, "bw_min_gbps", bw ? std::optional(bw->first) : std::nullopt);
  x.add("pairs", key, item, "lat_median_us", number_at(p, "lat_median_us"));
  const auto l99 = off_diagonal_range(member(p, "lat_p99_us"));
  x.add("pairs", key, item, "lat_p99_max_us", l99 ? std::optional(l99->second) : std::nullopt);
  if (!p.contains("hosts") || !p["hosts"].is_array()) return;
  std::vector<std::string> hosts;
  for (const auto& h : p["hosts"]) hosts.push_back(text_of(h));
  for (const auto& [metric, symmetric] : {std::pair{"bw_gbps", false}, std::pair{"lat_p50_us", true}}) {
    const auto m = report::dense_matrix(member(p, metric));
    if (!m) continue;
    LinkValues lv;
    lv.id = fmt::format("pairs|{}|{}", key.dump(), metric);
    lv.item = fmt::format("links {}", size_label(key["size_bytes"]));
    lv.key = key;
    lv.metric = metric;
    lv.better = compared_direction("pairs", metric);
    lv.symmetric = symmetric;
    lv.hosts = hosts;
    const std::size_t n = hosts.size();
    lv.values.assign(n * n, std::numeric_limits<double>::quiet_NaN());
    bool any = false;
    for (std::size_t i = 0; i < n && i < m->rows; ++i) {
      for (std::size_t j = 0; j < n && j < m->cols; ++j) {
        if (i == j || std::isnan(m->at(i, j))) continue;
        lv.values[i * n + j] = m->at(i, j);
        any = true;
      }
    }
    if (any) x.link(std::move(lv));
  }
}

void scaling(const json& doc, Extractor& x) {
  if (doc.contains("scaling") && doc["scaling"].is_object()) {
    const json& s = doc["scaling"];
    if (s.contains("groups") && s["groups"].is_array()) {
      for (const auto& g : s["groups"]) {
        if (!g.is_object()) continue;
        const json key = {{"hosts", g.value("hosts", json())}, {"collective", s.value("collective", json())}};
        const std::string item =
            fmt::format("{} group of {} hosts", text_of(key["collective"]), text_of(key["hosts"]));
        x.add("scaling", key, item, "busbw_gbps", number_at(g, "busbw_gbps"));
        x.add("scaling", key, item, "time_us", number_at(g, "time_us"));
        x.add("scaling", key, item, "vs_2host", number_at(g, "vs_2host"));
      }
    }
    if (s.contains("workloads") && s["workloads"].is_array()) {
      for (const auto& w : s["workloads"]) {
        if (!w.is_object()) continue;
        const json key = key_of(w, {"workload"});
        const std::string item = fmt::format("workload {}", text_of(key["workload"]));
        x.add("scaling", key, item, "efficiency", number_at(w, "efficiency"));
        x.add("scaling", key, item, "exposed_s", number_at(w, "exposed_s"));
      }
    }
    if (s.contains("model") && s["model"].is_object()) {
      for (const auto& [coll, m] : s["model"].items()) {
        const json key = {{"model", coll}};
        const std::string item = fmt::format("{} alpha-beta fit", coll);
        x.add("scaling", key, item, "alpha_us", number_at(m, "alpha_us"));
        x.add("scaling", key, item, "beta_gbps", number_at(m, "beta_gbps"));
      }
    }
  }
  if (doc.contains("score") && doc["score"].is_object()) {
    const json& sc = doc["score"];
    const json key = key_of(sc, {"workload"});
    x.add("score", key, fmt::format("workload {}", text_of(key["workload"])), "scaling_efficiency",
          number_at(sc, "scaling_efficiency"));
  }
}

// The hosts' loss counters of each step: the step's totals, one row per step. A report written
// before totals existed has none, and its steps are left out.
void counters(const json& doc, Extractor& x) {
  const json& sections = member(member(doc, "run"), "sections");
  if (!sections.is_object()) return;
  for (const auto& [step, sec] : sections.items()) {
    const json& totals = member(member(sec, "counters"), "totals");
    if (!totals.is_object()) continue;
    const json key = {{"step", step}};
    const std::string item = fmt::format("counters during {}", step);
    for (const char* m : {"tcp_lost_segs", "tcp_lost_share", "rdma_link_events", "rdma_link_errors",
                          "rdma_xmit_discards", "roce_seq_errors", "netdev_errors", "netdev_drops"})
      x.add("counters", key, item, m, number_at(totals, m));
  }
}

}  // namespace

MetricSet extract_metrics(const json& report) {
  MetricSet out;
  if (!report.is_object()) return out;
  Extractor x(out);
  sweeps(report, x);
  latency(report, x);
  incast(report, x);
  pairs(report, x);
  scaling(report, x);
  counters(report, x);
  return out;
}

}  // namespace fabcheck::report
