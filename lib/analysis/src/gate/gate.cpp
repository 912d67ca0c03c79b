#include "fabcheck/report/gate.hpp"
#include "fabcheck/core/ascii.hpp"

#include "fabcheck/report/reconcile.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "fabcheck/core/error.hpp"
#include "fabcheck/core/size.hpp"
#include "fabcheck/model/metrics.hpp"

namespace fabcheck::report {

using nlohmann::json;

std::optional<GateOp> parse_gate_op(std::string_view s) {
  if (s == ">=") return GateOp::kGe;
  if (s == "<=") return GateOp::kLe;
  if (s == "==") return GateOp::kEq;
  if (s == "!=") return GateOp::kNe;
  return std::nullopt;
}

std::string_view name(GateOp op) {
  switch (op) {
    case GateOp::kGe:
      return ">=";
    case GateOp::kLe:
      return "<=";
    case GateOp::kEq:
      return "==";
    case GateOp::kNe:
      return "!=";
  }
  return "?";
}

MetricPath parse_metric_path(std::string_view text) {
  auto fail = [&](std::string_view why) {
    return UsageError(
        fmt::format("metric \"{}\": {} (see the path syntax in fabcheck gate --help)", text, why));
  };
  MetricPath mp;
  std::string_view body = text;
  const auto hash = body.find('#');
  if (hash != std::string_view::npos) {
    if (body.substr(hash) != "#count")
      throw fail(fmt::format("unknown function \"{}\" (only #count)", body.substr(hash)));
    mp.count = true;
    body = body.substr(0, hash);
  }
  if (body.empty()) throw fail("empty path");
  std::size_t pos = 0;
  while (pos <= body.size()) {
    std::size_t dot = body.find('.', pos);
    // A '.' inside "@SIZE" never occurs (sizes are integers); a '.' in a filter value would split it: not
    // allowed.
    std::string_view seg =
        body.substr(pos, dot == std::string_view::npos ? std::string_view::npos : dot - pos);
    if (seg.empty()) throw fail("empty segment (two dots, or a dot at either end)");
    PathSegment ps;
    std::string_view head = seg;
    const auto at = seg.find('@');
    if (at != std::string_view::npos) {
      head = seg.substr(0, at);
      std::string_view sz = seg.substr(at + 1);
      const auto colon = sz.find(':');
      if (colon != std::string_view::npos) {
        ps.placement = std::string(sz.substr(colon + 1));
        if (ps.placement != "in_place" && ps.placement != "out_of_place") {
          throw fail(fmt::format("placement \"{}\" is not in_place or out_of_place", ps.placement));
        }
        sz = sz.substr(0, colon);
      }
      if (sz == "max") {
        ps.size_bytes = kLargestSize;
      } else {
        try {
          ps.size_bytes = core::parse_size(sz, "@SIZE");
        } catch (const UsageError&) {
          throw fail(fmt::format("\"{}\" after @ is not a size (e.g. @8, @4K, @1G, @max)", sz));
        }
        if (*ps.size_bytes == kLargestSize) throw fail(fmt::format("size \"{}\" is too large", sz));
      }
      if (head.empty()) throw fail("a field name must come before @SIZE");
    }
    const auto eq = head.find('=');
    if (head == "*") {
      ps.kind = PathSegment::Kind::kAll;
    } else if (!head.empty() && head.front() == '[') {
      if (head.back() != ']' || head.size() < 3) throw fail(fmt::format("bad index \"{}\" (use [0])", head));
      std::size_t idx = 0;
      auto inner = head.substr(1, head.size() - 2);
      auto [p, ec] = std::from_chars(inner.data(), inner.data() + inner.size(), idx);
      if (ec != std::errc() || p != inner.data() + inner.size())
        throw fail(fmt::format("bad index \"{}\"", head));
      ps.kind = PathSegment::Kind::kIndex;
      ps.index = idx;
    } else if (eq != std::string_view::npos) {
      ps.kind = PathSegment::Kind::kFilter;
      ps.name = std::string(head.substr(0, eq));
      ps.value = std::string(head.substr(eq + 1));
      if (ps.name.empty() || ps.value.empty())
        throw fail(fmt::format("bad filter \"{}\" (use KEY=VALUE)", head));
    } else {
      ps.kind = PathSegment::Kind::kName;
      ps.name = std::string(head);
    }
    for (char c : ps.name) {
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-')) {
        throw fail(fmt::format("bad character '{}' in \"{}\"", c, ps.name));
      }
    }
    if (ps.size_bytes && ps.kind != PathSegment::Kind::kName) throw fail("@SIZE follows a field name only");
    mp.segments.push_back(std::move(ps));
    if (dot == std::string_view::npos) break;
    pos = dot + 1;
  }
  return mp;
}

namespace {

struct Node {
  const json* j;
  std::string path;
  std::string host;
};

constexpr const char* kSelectors[] = {"collective", "kind", "pattern", "host", "receiver", "name", "code"};

std::string host_of(const json& obj, const std::string& inherited) {
  if (obj.is_object() && obj.contains("host") && obj["host"].is_string())
    return obj["host"].get<std::string>();
  return inherited;
}

bool value_matches_text(const json& v, const std::string& text) {
  if (v.is_string()) return v.get<std::string>() == text;
  if (v.is_boolean()) return (v.get<bool>() ? "true" : "false") == text;
  if (v.is_number_integer() || v.is_number_unsigned()) return v.dump() == text;
  if (v.is_number_float()) {
    double d = 0;
    auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), d);
    return ec == std::errc() && p == text.data() + text.size() && d == v.get<double>();
  }
  return false;
}

// Selects by size: see the header. Returns the nodes to read the field from.
std::vector<Node> select_size(const Node& n, const PathSegment& seg) {
  std::vector<Node> out;
  const json& o = *n.j;
  if (!o.is_object()) return out;
  const bool largest = *seg.size_bytes == kLargestSize;
  if (o.contains("points") && o["points"].is_array()) {
    const auto& pts = o["points"];
    auto eligible = [&](const json& p) {
      if (!p.is_object() || !p.contains("size_bytes") || !p["size_bytes"].is_number()) return false;
      if (p.contains("placement") && p["placement"].is_string()) {
        const std::string place = seg.placement.empty() ? "out_of_place" : seg.placement;
        if (p["placement"].get<std::string>() != place) return false;
      }
      return true;
    };
    double want = static_cast<double>(*seg.size_bytes);
    if (largest) {  // "@max": the largest size among the eligible points
      bool any = false;
      for (const auto& p : pts) {
        if (!eligible(p)) continue;
        const double s = p["size_bytes"].get<double>();
        want = any ? std::max(want, s) : s;
        any = true;
      }
      if (!any) return out;
    }
    for (std::size_t i = 0; i < pts.size(); ++i) {
      const auto& p = pts[i];
      if (!eligible(p) || p["size_bytes"].get<double>() != want) continue;
      out.push_back({&p, fmt::format("{}.points[{}]", n.path, i), host_of(p, n.host)});
    }
    // No row of that size: the row measured for it, rounded by the geometry to the ranks (2M of allgather on
    // 3 ranks is 2097144 B, as nccl-tests rounds it).
    const bool found = !out.empty();
    for (std::size_t i = 0; !found && !largest && i < pts.size(); ++i) {
      const auto& p = pts[i];
      if (!eligible(p) || !p.contains("requested_bytes") || !p["requested_bytes"].is_number() ||
          p["requested_bytes"].get<double>() != want) {
        continue;
      }
      out.push_back({&p, fmt::format("{}.points[{}]", n.path, i), host_of(p, n.host)});
    }
    return out;
  }
  const double want = static_cast<double>(*seg.size_bytes);
  if (o.contains("size_bytes") && o["size_bytes"].is_number() && !largest &&
      o["size_bytes"].get<double>() == want) {
    out.push_back(n);
  }
  return out;
}

// Applies one segment to one node. Sets `missing` to a reason when the structure does not have what was
// asked.
void step(const Node& n, const PathSegment& seg, std::vector<Node>& out, std::string& missing) {
  const json& j = *n.j;
  switch (seg.kind) {
    case PathSegment::Kind::kAll:
      if (j.is_array()) {
        for (std::size_t i = 0; i < j.size(); ++i) {
          out.push_back({&j[i], fmt::format("{}[{}]", n.path, i), host_of(j[i], n.host)});
        }
      } else if (j.is_object()) {
        for (const auto& [k, v] : j.items())
          out.push_back({&v, fmt::format("{}.{}", n.path, k), host_of(v, n.host)});
      } else if (missing.empty()) {
        missing = fmt::format("{} is not an array or object", n.path);
      }
      return;
    case PathSegment::Kind::kIndex:
      if (j.is_array() && seg.index < j.size()) {
        out.push_back(
            {&j[seg.index], fmt::format("{}[{}]", n.path, seg.index), host_of(j[seg.index], n.host)});
      } else if (missing.empty()) {
        missing = fmt::format("{} has no element [{}]", n.path, seg.index);
      }
      return;
    case PathSegment::Kind::kFilter:
      if (!j.is_array()) {
        if (missing.empty())
          missing = fmt::format("{} is not an array (a KEY=VALUE filter needs one)", n.path);
        return;
      }
      for (std::size_t i = 0; i < j.size(); ++i) {
        const auto& e = j[i];
        if (e.is_object() && e.contains(seg.name) && value_matches_text(e[seg.name], seg.value)) {
          out.push_back({&e, fmt::format("{}[{}]", n.path, i), host_of(e, n.host)});
        }
      }
      return;
    case PathSegment::Kind::kName:
      break;
  }
  // kName
  std::vector<Node> bases;
  if (j.is_object()) {
    if (seg.size_bytes) {
      bases = select_size(n, seg);
      if (bases.empty()) {
        if (missing.empty()) {
          missing = fmt::format(
              "{} has no entry at size {}{}", n.path,
              *seg.size_bytes == kLargestSize ? std::string("max") : core::format_size(*seg.size_bytes),
              seg.placement.empty() ? "" : " " + seg.placement);
        }
        return;
      }
      for (const auto& b : bases) {
        if (b.j->is_object() && b.j->contains(seg.name)) {
          out.push_back({&(*b.j)[seg.name], fmt::format("{}.{}", b.path, seg.name), b.host});
        } else if (missing.empty()) {
          missing = fmt::format("{} has no field \"{}\"", b.path, seg.name);
        }
      }
      return;
    }
    if (j.contains(seg.name)) {
      const auto& c = j[seg.name];
      out.push_back(
          {&c, fmt::format("{}{}{}", n.path, n.path.empty() ? "" : ".", seg.name), host_of(c, n.host)});
    } else if (missing.empty()) {
      missing = fmt::format("{} has no \"{}\"", n.path.empty() ? "the report" : n.path, seg.name);
    }
    return;
  }
  if (j.is_array()) {
    if (seg.size_bytes) {
      if (missing.empty()) missing = fmt::format("{} is an array: select an entry before @SIZE", n.path);
      return;
    }
    for (std::size_t i = 0; i < j.size(); ++i) {
      const auto& e = j[i];
      if (!e.is_object()) continue;
      for (const char* sel : kSelectors) {
        if (e.contains(sel)) {
          if (e[sel].is_string() && e[sel].get<std::string>() == seg.name) {
            out.push_back({&e, fmt::format("{}[{}]", n.path, i), host_of(e, n.host)});
          }
          break;
        }
      }
    }
    return;
  }
  if (missing.empty()) {
    missing = j.is_null() ? fmt::format("{} is null", n.path) : fmt::format("{} is not an object", n.path);
  }
}

std::string vtext(const json& v) {
  if (v.is_number_float()) return fmt::format("{:.6g}", v.get<double>());
  return v.dump(-1, ' ', false, json::error_handler_t::replace);
}

bool compare(const json& v, GateOp op, const json& t, std::string& type_err) {
  if (v.is_number() && t.is_number()) {
    const double a = v.get<double>(), b = t.get<double>();
    switch (op) {
      case GateOp::kGe:
        return a >= b;
      case GateOp::kLe:
        return a <= b;
      case GateOp::kEq:
        return a == b;
      case GateOp::kNe:
        return a != b;
    }
  }
  if (op == GateOp::kGe || op == GateOp::kLe) {
    type_err = fmt::format("value {} is not a number", vtext(v));
    return false;
  }
  if (v.type() != t.type() && !(v.is_number() && t.is_number())) {
    type_err = fmt::format("value {} and threshold {} differ in type", vtext(v), vtext(t));
    return false;
  }
  const bool eq = v == t;
  return op == GateOp::kEq ? eq : !eq;
}

// The one unit of the values' locations (model::unit_at), "" when unknown or they differ. Values of one shape
// are looked up once (a matrix of 4 million cells is one shape).
std::string unit_of(const std::vector<GateValue>& values) {
  std::optional<std::string_view> unit;
  std::string last_shape;
  for (const auto& v : values) {
    std::string shape = model::location_shape(v.path);
    if (unit && shape == last_shape) continue;
    const std::string_view u = model::unit_at(shape);
    if (unit && *unit != u) return "";
    unit = u;
    last_shape = std::move(shape);
  }
  return unit ? std::string(*unit) : std::string();
}

// "170 GB/s", "rdma", "-" (null).
std::string value_text(const GateCheckResult& c) {
  if (c.value.is_null()) return "-";
  return c.unit.empty() ? vtext(c.value) : fmt::format("{} {}", vtext(c.value), c.unit);
}

void add_unique(std::vector<std::string>& v, const std::string& s) {
  if (!s.empty() && std::find(v.begin(), v.end(), s) == v.end()) v.push_back(s);
}

/// `findings`, when not null, stands for report.findings (a re-gated report without its earlier gate
/// findings): the report itself is never copied (a 2048-host report is 170 MB).
GateCheckResult evaluate_one(const json& report, const json& check, const json* findings) {
  GateCheckResult r;
  r.metric = check.at("metric").get<std::string>();
  r.op = check.at("op").get<std::string>();
  r.threshold = check.at("threshold");
  r.why = check.value("why", "");
  r.value = nullptr;
  const MetricPath mp = parse_metric_path(r.metric);
  const auto op = parse_gate_op(r.op);
  if (!op)
    throw UsageError(fmt::format("gate check \"{}\": op \"{}\" is not >=, <=, == or !=", r.metric, r.op));

  std::vector<Node> cur = {{&report, "", ""}};
  std::size_t first = 0;
  if (findings && !mp.segments.empty() && mp.segments[0].kind == PathSegment::Kind::kName &&
      mp.segments[0].name == "findings" && !mp.segments[0].size_bytes) {
    cur = {{findings, ".findings", ""}};
    first = 1;
  }
  std::string missing;
  for (std::size_t si = first; si < mp.segments.size(); ++si) {
    const auto& seg = mp.segments[si];
    std::vector<Node> next;
    for (const auto& n : cur) step(n, seg, next, missing);
    cur = std::move(next);
    if (cur.empty()) break;
  }
  if (mp.count) {
    if (cur.empty() && !missing.empty()) {
      r.reason = fmt::format("missing: {}", missing);
      return r;
    }
    GateValue gv;
    std::size_t count = 0;
    for (const auto& n : cur) {
      if (n.j->is_array()) {
        count += n.j->size();
        for (const auto& e : *n.j) add_unique(gv.implicated_hosts, host_of(e, ""));
      } else if (n.j->is_null()) {
        r.reason = fmt::format("missing: {} is null", n.path);
        return r;
      } else {
        count += 1;
        add_unique(gv.implicated_hosts, n.host);
      }
    }
    gv.path = r.metric;
    gv.value = count;
    std::string type_err;
    gv.passed = compare(gv.value, *op, r.threshold, type_err);
    r.values.push_back(gv);
    r.unit = model::kUnitCount;
    r.value = gv.value;
    r.passed = gv.passed;
    if (!gv.passed) {
      r.reason = type_err.empty() ? fmt::format("failed: {} {} {} is false", count, r.op, vtext(r.threshold))
                                  : "type: " + type_err;
      r.failed_hosts = gv.implicated_hosts;
      r.per_host = !gv.implicated_hosts.empty();
    }
    return r;
  }
  if (cur.empty()) {
    r.reason = fmt::format("missing: {}", missing.empty() ? "the path matched nothing" : missing);
    return r;
  }
  bool all = true;
  std::string first_fail;
  for (const auto& n : cur) {
    GateValue gv;
    gv.path = n.path;
    gv.host = n.host;
    gv.value = *n.j;
    if (!gv.host.empty()) r.per_host = true;
    if (n.j->is_null() || n.j->is_object() || n.j->is_array()) {
      gv.passed = false;
      if (first_fail.empty()) {
        first_fail = n.j->is_null() ? fmt::format("missing: {} is null", n.path)
                                    : fmt::format("type: {} is an {}, not a value", n.path,
                                                  n.j->is_object() ? "object" : "array");
        r.value = nullptr;
      }
    } else {
      std::string type_err;
      gv.passed = compare(gv.value, *op, r.threshold, type_err);
      if (!gv.passed && first_fail.empty()) {
        first_fail = type_err.empty() ? fmt::format("failed: {} = {}{}, not {} {}", n.path, vtext(gv.value),
                                                    gv.host.empty() ? "" : " (host " + gv.host + ")", r.op,
                                                    vtext(r.threshold))
                                      : fmt::format("type: {}", type_err);
        r.value = gv.value;
      }
    }
    if (!gv.passed) {
      all = false;
      add_unique(r.failed_hosts, gv.host);
    }
    r.values.push_back(std::move(gv));
  }
  r.passed = all;
  r.unit = unit_of(r.values);
  if (all) {
    r.value = r.values.front().value;
  } else {
    r.reason = first_fail;
    if (r.values.size() > 1) {
      std::size_t nfail = 0;
      for (const auto& v : r.values) nfail += v.passed ? 0 : 1;
      r.reason += fmt::format(" ({} of {} values failed)", nfail, r.values.size());
    }
  }
  return r;
}

}  // namespace

GateResult evaluate_gate(const json& report_in, const json& checks, std::string_view criteria_source) {
  // A report gated before holds that gate's own GATE_CHECK_FAILED findings: they are not faults of the
  // fabric, and counting them (findings.severity=fail#count) made a second gate fail on the first one's
  // verdict.
  const bool regated =
      report_in.contains("findings") && report_in["findings"].is_array() &&
      std::any_of(report_in["findings"].begin(), report_in["findings"].end(),
                  [](const json& f) { return f.is_object() && f.value("code", "") == "GATE_CHECK_FAILED"; });
  json kept = json::array();  // the findings without the earlier gate's (the report is not copied)
  if (regated) {
    for (const auto& f : report_in["findings"])
      if (!(f.is_object() && f.value("code", "") == "GATE_CHECK_FAILED")) kept.push_back(f);
  }
  const json& report = report_in;
  const json* findings = regated ? &kept : nullptr;
  GateResult g;
  g.criteria_source = std::string(criteria_source);
  if (report.contains("topology") && report["topology"].is_object() && report["topology"].contains("hosts") &&
      report["topology"]["hosts"].is_array()) {
    for (const auto& h : report["topology"]["hosts"]) {
      if (h.is_object() && h.contains("host") && h["host"].is_string())
        add_unique(g.hosts, h["host"].get<std::string>());
      if (h.is_string()) add_unique(g.hosts, h.get<std::string>());
    }
  }
  for (const auto& c : checks) {
    g.checks.push_back(evaluate_one(report, c, findings));
    const auto& r = g.checks.back();
    if (!r.passed) g.passed = false;
    for (const auto& v : r.values) add_unique(g.hosts, v.host);
    for (const auto& h : r.failed_hosts) add_unique(g.hosts_failed, h);
  }
  // A host named by a `fail` finding (evidence.host) is not fit for the job whatever the criteria check:
  // it never reaches the good-hosts file.
  if (const json* fs = findings ? findings : (report.contains("findings") ? &report["findings"] : nullptr);
      fs && fs->is_array()) {
    for (const auto& f : *fs) {
      if (!f.is_object() || f.value("severity", "") != "fail" || !f.contains("evidence")) continue;
      const auto& ev = f["evidence"];
      if (ev.is_object() && ev.contains("host") && ev["host"].is_string() &&
          !ev["host"].get<std::string>().empty())
        add_unique(g.hosts_failed, ev["host"].get<std::string>());
    }
  }
  for (const auto& h : g.hosts) {
    if (!core::is_host_name(h))
      g.hosts_invalid.push_back(h);  // never a hostfile line: "a\nslots=64" would inject one
    else if (std::find(g.hosts_failed.begin(), g.hosts_failed.end(), h) == g.hosts_failed.end())
      g.hosts_passed.push_back(h);
  }
  return g;
}

void add_gate(Document& doc, const GateResult& g) {
  json checks = json::array();
  json criteria = json::array();
  for (const auto& c : g.checks) {
    json jc = {{"metric", c.metric}, {"op", c.op}, {"threshold", c.threshold}};
    if (!c.why.empty()) jc["why"] = c.why;
    criteria.push_back(jc);
    jc["value"] = c.value;
    jc["passed"] = c.passed;
    jc["reason"] = c.reason.empty() ? json(nullptr) : json(c.reason);
    if (c.per_host) {
      json per = json::array();
      for (const auto& v : c.values) {
        if (!v.host.empty()) per.push_back({{"host", v.host}, {"value", v.value}, {"passed", v.passed}});
      }
      jc["per_host"] = per;
      jc["failed_hosts"] = c.failed_hosts;
    }
    if (c.values.size() > 1) jc["values_checked"] = c.values.size();
    checks.push_back(jc);
  }
  auto& d = doc.json();
  d["gate"] = {{"criteria", {{"source", g.criteria_source}, {"checks", criteria}}},
               {"passed", g.passed},
               {"checks", checks},
               {"hosts", {{"passed", g.hosts_passed}, {"failed", g.hosts_failed}}}};
  // Replace earlier gate findings (a report gated again offline).
  json kept = json::array();
  for (const auto& f : d["findings"]) {
    if (!(f.is_object() && f.value("code", "") == "GATE_CHECK_FAILED")) kept.push_back(f);
  }
  d["findings"] = kept;
  for (const auto& c : g.checks) {
    if (c.passed) continue;
    Finding f;
    f.severity = Severity::kFail;
    f.code = "GATE_CHECK_FAILED";
    f.message = fmt::format("gate check {} {} {}: {}", c.metric, c.op, vtext(c.threshold),
                            c.reason);  // reason starts with "failed"/"missing"/"type"
    f.evidence = {{"metric", c.metric}, {"op", c.op}, {"threshold", c.threshold}, {"value", c.value}};
    if (!c.failed_hosts.empty()) f.evidence["hosts"] = c.failed_hosts;
    if (!c.why.empty()) f.evidence["why"] = c.why;
    f.remedy =
        c.reason.rfind("missing", 0) == 0
            ? "the metric is not in the report: run the section that produces it, or fix the metric path"
            : "investigate the measured value against the threshold (see the section and its findings)";
    doc.add_finding(f);
  }
  if (!g.hosts_invalid.empty()) {
    Finding f;
    f.severity = Severity::kWarn;
    f.code = "HOST_NAME_INVALID";
    f.message = fmt::format(
        "{} host name(s) of the report are not host names (RFC 1123: letters, digits, '-', '.', '_'; at most "
        "253 characters) and were left out of the good-hosts file",
        g.hosts_invalid.size());
    f.evidence = {{"hosts", g.hosts_invalid}, {"count", g.hosts_invalid.size()}};
    f.remedy =
        "look at where the report came from: fabcheck records each rank's gethostname(); a name with blanks, "
        "control characters or '=' was edited in or set on the host";
    doc.add_finding(f);
  }
  doc.set_section("gate", SectionStatus::kOk);
  // The gate's failed checks restate the faults it found: fold them into their headline.
  reconcile_findings(d);
}

std::string render_gate(const GateResult& g) {
  std::string out = fmt::format("# gate ({} check(s) from {})\n", g.checks.size(), g.criteria_source);
  for (const auto& c : g.checks) {
    out += fmt::format("  {}  {} {} {}  value {}{}\n", c.passed ? "PASS" : "FAIL", c.metric, c.op,
                       vtext(c.threshold), value_text(c), c.passed ? "" : "  (" + c.reason + ")");
  }
  std::size_t nfail = 0;
  for (const auto& c : g.checks) nfail += c.passed ? 0 : 1;
  out += fmt::format("# gate {}: {} of {} checks passed", g.passed ? "PASSED" : "FAILED",
                     g.checks.size() - nfail, g.checks.size());
  if (!g.hosts_failed.empty()) {
    std::string hs;
    for (const auto& h : g.hosts_failed) hs += (hs.empty() ? "" : ", ") + h;
    out += fmt::format("; failing hosts: {}", hs);
  }
  out += "\n";
  return out;
}

std::string xml_escape(std::string_view s) {
  std::string o;
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (ch) {
      case '&':
        o += "&amp;";
        break;
      case '<':
        o += "&lt;";
        break;
      case '>':
        o += "&gt;";
        break;
      case '"':
        o += "&quot;";
        break;
      case '\'':
        o += "&apos;";
        break;
      default:
        if (c < 0x20 && ch != '\n' && ch != '\t') break;  // not allowed in XML 1.0
        o += ch;
    }
  }
  return o;
}

std::string junit_xml(const GateResult& g) {
  std::size_t nfail = 0;
  for (const auto& c : g.checks) nfail += c.passed ? 0 : 1;
  std::string o = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  o += fmt::format("<testsuites name=\"fabcheck\" tests=\"{}\" failures=\"{}\" errors=\"0\">\n",
                   g.checks.size(), nfail);
  o += fmt::format(
      "  <testsuite name=\"fabcheck.gate\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"0\">\n",
      g.checks.size(), nfail);
  for (const auto& c : g.checks) {
    const std::string tc = fmt::format("{} {} {}", c.metric, c.op, vtext(c.threshold));
    o += fmt::format("    <testcase classname=\"fabcheck.gate\" name=\"{}\"", xml_escape(tc));
    if (c.passed) {
      o += fmt::format(">\n      <system-out>{}</system-out>\n    </testcase>\n",
                       xml_escape(fmt::format("value {}", value_text(c))));
      continue;
    }
    std::string body = c.reason;
    if (!c.failed_hosts.empty()) {
      body += "\nhosts:";
      for (const auto& h : c.failed_hosts) body += " " + h;
    }
    if (!c.why.empty()) body += "\nwhy: " + c.why;
    if (!c.value.is_null()) body += "\nvalue " + value_text(c);
    const std::string type = c.reason.rfind("missing", 0) == 0 ? "missing"
                             : c.reason.rfind("type", 0) == 0  ? "type"
                                                               : "threshold";
    o += fmt::format(">\n      <failure message=\"{}\" type=\"{}\">{}</failure>\n    </testcase>\n",
                     xml_escape(c.reason), type, xml_escape(body));
  }
  o += "  </testsuite>\n</testsuites>\n";
  return o;
}

std::string exclude_hostfile_text(const GateResult& g) {
  return good_hosts_text("# fabcheck gate: hosts that passed every per-host check", g.hosts_passed,
                         g.hosts_failed);
}

std::string good_hosts_text(std::string_view title, const std::vector<std::string>& passed,
                            const std::vector<std::string>& excluded) {
  std::size_t refused = 0;
  auto written = [&refused](const std::vector<std::string>& hosts, const char* before, const char* after) {
    std::string out;
    for (const auto& h : hosts) {
      if (core::is_host_name(h))
        out += before + h + after;
      else
        ++refused;
    }
    return out;
  };
  const std::string names = written(excluded, " ", ""), lines = written(passed, "", "\n");
  std::string o(title);
  if (!names.empty()) o += "; excluded:" + names;
  if (refused > 0)
    o += fmt::format("{}{} name(s) that are not host names left out", o.empty() ? "# " : "; ", refused);
  return o.empty() ? lines : o + "\n" + lines;
}

}  // namespace fabcheck::report
