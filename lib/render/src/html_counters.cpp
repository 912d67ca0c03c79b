// HTML report: the hosts' loss and error counters around each step (issue 20; report/counters.hpp judges
// them). One row per step and host where a loss or error counter moved; the rest are counted, not listed.
#include <fmt/format.h>

#include <algorithm>

#include "html_internal.hpp"

namespace fabcheck::report::html {
namespace {

/// Counters whose growth means loss or errors (the ones report/counters.hpp judges), shown when they moved.
constexpr std::string_view kLossCounters[] = {
    "symbol_error",       "link_error_recovery", "link_downed",       "port_rcv_errors",
    "port_xmit_discards", "hw.out_of_sequence",  "hw.packet_seq_err", "hw.local_ack_timeout_err",
    "hw.np_cnp_sent",     "hw.rp_cnp_handled",   "rx_dropped",        "rx_missed_errors",
    "rx_crc_errors",      "tx_dropped",          "rx_errors",         "tx_errors"};

bool is_loss_counter(const std::string& key) {
  for (auto c : kLossCounters) {
    if (key.size() > c.size() && key.compare(key.size() - c.size(), c.size(), c) == 0 &&
        key[key.size() - c.size() - 1] == '.')
      return true;
  }
  return false;
}

std::int64_t int_at(const json& d, const char* k) {
  const json* v = get(d, k);
  return v && v->is_number_integer() ? v->get<std::int64_t>() : 0;
}

}  // namespace

std::string render_host_counters(const json& r) {
  std::string out = section_open(r, "counters", "Host counters: what moved during each step", {});
  std::vector<std::vector<std::string>> rows;
  int quiet = 0, records = 0;
  std::vector<std::string> skipped;  // "host: source: reason", once each
  static const json kNoSections = json::object();
  const json* secs = get_path(r, {"run", "sections"});
  for (const auto& [step, entry] : (secs && secs->is_object() ? *secs : kNoSections).items()) {
    const json* rec = get(entry, "counters");
    if (!rec) continue;
    ++records;
    for (const auto& h : as_array(get(*rec, "hosts"))) {
      for (const auto& s : as_array(get(h, "skipped"))) {
        const std::string line = as_string(get(h, "host")) + ": " + as_string(&s);
        if (std::find(skipped.begin(), skipped.end(), line) == skipped.end()) skipped.push_back(line);
      }
      static const json kEmpty = json::object();
      const json* dp = get(h, "deltas");
      const json& d = dp && dp->is_object() ? *dp : kEmpty;
      const auto retrans = int_at(d, "Tcp.RetransSegs"), dsack = int_at(d, "TcpExt.TCPDSACKRecvSegs");
      std::string moved;
      for (const auto& [k, v] : d.items())
        if (is_loss_counter(k)) moved += (moved.empty() ? "" : ", ") + k + " +" + v.dump();
      if (retrans == 0 && moved.empty()) {
        ++quiet;
        continue;
      }
      rows.push_back({html_escape(step), text(get(h, "host")), fmt::format("{}", int_at(d, "Tcp.OutSegs")),
                      fmt::format("{}", retrans), fmt::format("{}", std::min(dsack, retrans)),
                      moved.empty() ? "—" : html_escape(moved)});
    }
  }
  if (records == 0) {
    out += notice("note", "this report has no counter records (written before issue 20, or imported)");
  } else {
    if (!rows.empty())
      out += table({"step", "host", "TCP segments sent", "retransmitted", "of them spurious (DSACK)",
                    "loss and error counters that moved"},
                   rows, "counters");
    out += notice("note", fmt::format("{} step/host reading(s) with no retransmission and no loss or error "
                                      "counter moved. Thresholds and sources: docs/DESIGN.md §5.",
                                      quiet));
    for (std::size_t i = 0; i < skipped.size() && i < 8; ++i)
      out += notice("skipped", "skipped: " + skipped[i]);
    if (skipped.size() > 8)
      out += notice("skipped", fmt::format("… and {} more skipped sources", skipped.size() - 8));
  }
  out += section_close();
  return out;
}

}  // namespace fabcheck::report::html
