// Pause frames and pause storms from the NIC drivers' statistics (counters_pause.hpp).
#include "counters_pause.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <regex>

#include "fabcheck/report/counters.hpp"

namespace fabcheck::report::detail {
namespace {

using nlohmann::json;
using StatDeltas = std::map<std::string, std::int64_t>;

std::int64_t stat_of(const StatDeltas& m, const std::string& name) {
  const auto it = m.find(name);
  return it == m.end() ? 0 : it->second;
}

/// The longest pause of one direction ("rx": the network paused this port; "tx": this port paused the
/// network) over the step: per priority (`<dir>_prio<p>_pause_duration`) and global pause
/// (`<dir>_global_pause_duration`), both in µs (Linux mlx5/counters.rst: "The duration of pause received (in
/// microSec) on priority p"). Priorities are not summed: several can be paused at once.
struct PauseShare {
  std::string where;  ///< "priority 3", "global pause"; "" when nothing moved
  std::int64_t us = 0;
  double share = 0;  ///< us / the step's µs
};

PauseShare longest_pause(const StatDeltas& m, const std::string& dir, double duration_s) {
  static const std::regex prio_duration(R"(^(rx|tx)_prio([0-7])_pause_duration$)");
  PauseShare best;
  for (const auto& [name, us] : m) {
    std::smatch g;
    std::string where;
    if (std::regex_match(name, g, prio_duration) && g[1] == dir)
      where = "priority " + g[2].str();
    else if (name == dir + "_global_pause_duration")
      where = "global pause";
    else
      continue;
    if (us > best.us) best = {where, us, 0};
  }
  if (duration_s > 0) best.share = static_cast<double>(best.us) / (duration_s * 1e6);
  return best;
}

json pause_json(const PauseShare& p) {
  if (p.where.empty()) return nullptr;
  return {{"where", p.where}, {"pause_us", p.us}, {"share", p.share}};
}

}  // namespace

std::map<std::string, StatDeltas> ethtool_ifs(const json& deltas) {
  std::map<std::string, StatDeltas> out;
  for (const auto& [k, v] : deltas.items()) {
    if (k.rfind("ethtool.", 0) != 0 || !v.is_number_integer()) continue;
    const auto slash = k.find('/', 8);
    if (slash == std::string::npos || slash == 8) continue;
    out[k.substr(8, slash - 8)][k.substr(slash + 1)] = v.get<std::int64_t>();
  }
  return out;
}

/// The rules (report/counters.hpp):
/// - PFC_PAUSE_STORM: the NIC's PFC stall prevention counted an event during the step. mlx5 counts
///   `tx_pause_storm_warning_events` when "the device is stalled for a period longer than a pre-configured
///   watermark" and `tx_pause_storm_error_events` when it is stalled longer than the timeout and "the pause
///   transmission is disabled" (Linux commit 5f75a1863eb7, "net/mlx5e: Expose PFC stall prevention
///   counters", 2017; counters.rst: "on the period where pause frames were disabled, drop could have been
///   occurred"). An error event is the NIC's own proof that the host stopped draining its receive buffer and
///   the lossless class lost its guarantee: fail. A warning event alone: warn.
/// - PFC_PAUSE_HIGH (warn): otherwise, one direction of the port was paused for at least kPauseShare of the
///   step on one priority (or by global pause).
void add_pause_findings(Document& doc, std::string_view section, const std::string& host, const json& deltas,
                        double duration_s) {
  for (const auto& [ifname, m] : ethtool_ifs(deltas)) {
    const PauseShare rx = longest_pause(m, "rx", duration_s), tx = longest_pause(m, "tx", duration_s);
    const std::int64_t storm_error = stat_of(m, "tx_pause_storm_error_events");
    const std::int64_t storm_warning = stat_of(m, "tx_pause_storm_warning_events");
    json ev = {{"host", host},
               {"interface", ifname},
               {"section", section},
               {"duration_s", duration_s},
               {"rx_pause", pause_json(rx)},
               {"tx_pause", pause_json(tx)},
               {"share_threshold", kPauseShare}};
    const auto tx_text =
        tx.where.empty()
            ? std::string()
            : fmt::format("; it sent pause frames for {:.1f} % of the step ({})", 100 * tx.share, tx.where);
    if (storm_error > 0 || storm_warning > 0) {
      ev["tx_pause_storm_error_events"] = storm_error;
      ev["tx_pause_storm_warning_events"] = storm_warning;
      Finding f;
      f.severity = storm_error > 0 ? Severity::kFail : Severity::kWarn;
      f.code = "PFC_PAUSE_STORM";
      f.message =
          storm_error > 0
              ? fmt::format(
                    "{} {}: pause storm during the {} step: the NIC kept sending pause frames until its "
                    "stall timeout and then stopped ({} tx_pause_storm_error_events): PFC was off on "
                    "that port and packets could drop{}",
                    host, ifname, section, storm_error, tx_text)
              : fmt::format(
                    "{} {}: the NIC sent pause frames past its stall watermark during the {} step ({} "
                    "tx_pause_storm_warning_events){}",
                    host, ifname, section, storm_warning, tx_text);
      f.evidence = ev;
      f.remedy =
          "the host stopped taking its incoming traffic (a stuck process or driver, a PCIe stall — see "
          "`outbound_pci_stalled_*` — or host memory): check dmesg on that host and its NIC; mlx5's "
          "`device_stall_critical_watermark` sets the timeout";
      doc.add_finding(f);
      continue;
    }
    if (std::max(rx.share, tx.share) < kPauseShare) continue;
    std::vector<std::string> parts;
    if (rx.share >= kPauseShare)
      parts.push_back(
          fmt::format("the network paused it for {:.1f} % of the step ({}): congestion further on "
                      "(an incast or a slow receiver) spreads back to this port",
                      100 * rx.share, rx.where));
    if (tx.share >= kPauseShare)
      parts.push_back(
          fmt::format("it paused the network for {:.1f} % of the step ({}): this host does not take "
                      "its incoming traffic fast enough",
                      100 * tx.share, tx.where));
    Finding f;
    f.severity = Severity::kWarn;
    f.code = "PFC_PAUSE_HIGH";
    f.message = fmt::format("{} {}: during the {} step ({:.1f} s) {}", host, ifname, section, duration_s,
                            fmt::join(parts, "; and "));
    f.evidence = ev;
    f.remedy =
        rx.share >= kPauseShare
            ? "find the congested receiver (the incast step, the pairs matrix) and enable ECN (DCQCN) so "
              "senders "
              "slow down before the switch pauses; check the switch's PFC headroom"
            : "look at the host's receive path: PCIe (`outbound_pci_stalled_*`), IRQ/CPU affinity, memory";
    doc.add_finding(f);
  }
}

}  // namespace fabcheck::report::detail
