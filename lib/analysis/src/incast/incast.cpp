#include "fabcheck/report/incast.hpp"

#include <fmt/format.h>

#include "fabcheck/core/size.hpp"
#include "fabcheck/model/json_value.hpp"

namespace fabcheck::report {
namespace {

std::string fmt_opt(const std::optional<double>& v, const char* spec_fmt) {
  return v ? fmt::format(fmt::runtime(spec_fmt), *v) : std::string("-");
}

}  // namespace

void add_incast(Document& doc, const model::IncastResult& r) {
  auto arr = nlohmann::json::array();
  for (const auto& p : r.points) {
    nlohmann::json j = {
        {"receiver", p.receiver},
        {"fan_in", p.fan_in},
        {"size_bytes", p.size_bytes},
        {"rounds", p.rounds},
        {"senders", p.senders},
        {"goodput_gbps", p.fan_in > 0 ? nlohmann::json(p.goodput_gbps) : nlohmann::json(nullptr)},
        {"incast_efficiency", model::number_or_null(p.incast_efficiency)},
        {"fairness", p.fan_in > 0 ? nlohmann::json(p.fairness) : nlohmann::json(nullptr)},
        {"offered_load_gbps", model::number_or_null(p.offered_load_gbps)},
        {"congested", p.congested},
        {"completion_p50_us", p.completion_p50_us},
        {"completion_p99_us", p.completion_p99_us},
        {"burst_p50_us", p.burst_p50_us},
        {"release_skew_us", p.release_skew_us},
        {"release_skew_small", p.skew_small}};
    if (p.victim) {
      const auto& v = *p.victim;
      j["victim"] = {
          {"host", v.host},
          {"isolated_samples", v.isolated_samples},
          {"isolated_p50_us", v.isolated_p50_us},
          {"isolated_p99_us", v.isolated_p99_us},
          {"isolated_mean_us", v.isolated_mean_us},
          {"congested_samples", v.congested_samples},
          {"congested_p50_us", v.congested_samples ? nlohmann::json(v.congested_p50_us) : nullptr},
          {"congested_p99_us", v.congested_samples ? nlohmann::json(v.congested_p99_us) : nullptr},
          {"congested_mean_us", v.congested_samples ? nlohmann::json(v.congested_mean_us) : nullptr},
          {"overlap", v.congested_samples ? nlohmann::json(v.overlap) : nullptr}};
      j["congestion_impact"] = {{"mean", model::number_or_null(v.impact_mean)},
                                {"p50", model::number_or_null(v.impact_p50)},
                                {"p99", model::number_or_null(v.impact_p99)}};
    } else {
      j["victim"] = nullptr;
      j["victim_reason"] = r.victim_skip_reason;
      j["congestion_impact"] = nullptr;
    }
    arr.push_back(std::move(j));
  }
  doc.json()["incast"] = arr;
  doc.json()["incast_meta"] = {{"endpoints", r.endpoints.names},
                               {"fabric_crossed", r.endpoints.fabric_crossed},
                               {"clock_error_us", r.clock_error_us},
                               {"never_loaded", r.never_loaded},
                               {"notes", r.notes}};
  doc.set_section("incast", SectionStatus::kOk);

  if (!r.endpoints.fabric_crossed) {
    doc.add_finding({Severity::kInfo,
                     "INCAST_NOT_FABRIC",
                     "incast ran between local ranks of one host: the network fabric was not exercised",
                     {{"endpoints", r.endpoints.names}},
                     "run across hosts (mpirun with a hostfile) to stress the fabric"});
  }
  if (r.never_loaded) {
    doc.add_finding(
        {Severity::kInfo,
         "INCAST_NOT_LOADED",
         "no fan-in pushed the receiver link below 80% of the offered load: this run says nothing about "
         "incast behaviour",
         {{"points", r.points.size()}},
         "raise --fan-in (more sending hosts) or --sizes so that the senders can overload one link"});
  }
  // Between local ranks of one host the numbers describe shared memory and the scheduler, not the fabric:
  // context (info), not a likely fabric problem (DESIGN §5).
  const Severity fabric_sev = r.endpoints.fabric_crossed ? Severity::kWarn : Severity::kInfo;
  for (const auto& p : r.points) {
    if (p.incast_efficiency && *p.incast_efficiency < 0.5) {
      doc.add_finding(
          {fabric_sev,
           "INCAST_COLLAPSE",
           fmt::format("goodput into {} fell to {:.0f}% of one sender's at fan-in {} ({} per sender)",
                       p.receiver, 100 * *p.incast_efficiency, p.fan_in, core::format_size(p.size_bytes)),
           {{"receiver", p.receiver},
            {"senders", p.senders},
            {"fan_in", p.fan_in},
            {"size_bytes", p.size_bytes},
            {"goodput_gbps", p.goodput_gbps},
            {"incast_efficiency", *p.incast_efficiency}},
           "check switch buffers and congestion control (ECN/DCQCN for RoCE, PFC settings)"});
    }
    if (p.victim && p.victim->impact_p50 && *p.victim->impact_p50 >= 3.0) {
      // One sender is not an incast: the victim's slowdown beside a single flow is the baseline of a shared
      // link (context); from two senders on it is the congestion this probe exists to find.
      doc.add_finding(
          {p.fan_in >= 2 ? fabric_sev : Severity::kInfo,
           "VICTIM_CONGESTION",
           fmt::format("bystander latency {}<->{} rose {:.1f}x (median) during a fan-in {} incast",
                       p.victim->host, p.receiver, *p.victim->impact_p50, p.fan_in),
           {{"receiver", p.receiver},
            {"victim", p.victim->host},
            {"isolated_p50_us", p.victim->isolated_p50_us},
            {"congested_p50_us", p.victim->congested_p50_us},
            {"impact_p50", *p.victim->impact_p50}},
           "isolate traffic classes or enable congestion control so that incast does not queue others"});
    }
    if (p.fan_in > 1 && !p.skew_small) {
      doc.add_finding(
          {Severity::kInfo,
           "INCAST_RELEASE_SKEW",
           fmt::format("senders were released {:.0f} us apart, not small against the {:.0f} us burst",
                       p.release_skew_us, p.burst_p50_us),
           {{"receiver", p.receiver}, {"fan_in", p.fan_in}, {"size_bytes", p.size_bytes}},
           "use larger --sizes so that the burst outlasts the release skew"});
    }
  }
}

std::string render_incast(const model::IncastResult& r) {
  std::string out;
  std::string current;
  for (const auto& p : r.points) {
    if (p.receiver != current) {
      current = p.receiver;
      out += fmt::format("# incast into {}{}\n", p.receiver,
                         p.victim ? fmt::format(" (victim: {})", p.victim->host) : std::string());
      out += fmt::format("# {:>5} {:>8} {:>9} {:>6} {:>6} {:>10} {:>10} {:>10} {:>10} {:>7} {:>7}\n", "k",
                         "size", "goodput", "eff", "fair", "iso_p50", "iso_p99", "cong_p50", "cong_p99",
                         "imp_p50", "imp_p99");
      out += fmt::format("# {:>5} {:>8} {:>9} {:>6} {:>6} {:>10} {:>10} {:>10} {:>10} {:>7} {:>7}\n", "",
                         "(B)", "(GB/s)", "", "", "(us)", "(us)", "(us)", "(us)", "(x)", "(x)");
    }
    const auto& v = p.victim;
    out += fmt::format("  {:>5} {:>8} {:>9.3f} {:>6} {:>6.3f} {:>10} {:>10} {:>10} {:>10} {:>7} {:>7}{}\n",
                       p.fan_in, core::format_size(p.size_bytes), p.goodput_gbps,
                       fmt_opt(p.incast_efficiency, "{:.2f}"), p.fairness,
                       v ? fmt::format("{:.1f}", v->isolated_p50_us) : "-",
                       v ? fmt::format("{:.1f}", v->isolated_p99_us) : "-",
                       v && v->congested_samples ? fmt::format("{:.1f}", v->congested_p50_us) : "-",
                       v && v->congested_samples ? fmt::format("{:.1f}", v->congested_p99_us) : "-",
                       v ? fmt_opt(v->impact_p50, "{:.1f}") : "-", v ? fmt_opt(v->impact_p99, "{:.1f}") : "-",
                       p.fan_in > 1 && !p.congested ? "  (receiver link not loaded)" : "");
  }
  if (!r.victim_skip_reason.empty()) out += fmt::format("# victim skipped: {}\n", r.victim_skip_reason);
  for (const auto& n : r.notes) out += fmt::format("# note: {}\n", n);
  if (r.never_loaded) out += "# note: no fan-in loaded the receiver link: this says nothing about incast\n";
  return out;
}

}  // namespace fabcheck::report
