// The latency probe's option table; its rows are lib/model/options/latency.json. Defaults follow osu_latency
// (LatencyOptions).
#include <fmt/format.h>

#include "fabcheck/model/option_tables.hpp"
#include "option_rows.hpp"

namespace fabcheck::model {

using nlohmann::json;

const char* name(LatencyPattern p) {
  return p == LatencyPattern::kRing ? "ring" : "all-pairs";
}

std::vector<std::uint64_t> latency_sweep_sizes() {
  std::vector<std::uint64_t> s;
  for (std::uint64_t b = 1; b <= (std::uint64_t{4} << 20); b *= 2) s.push_back(b);
  return s;
}

namespace {

const char* kind_word(const LatencyOptions& o) {
  if (o.p2p && o.collective) return "both";
  return o.p2p ? "p2p" : "collective";
}

void finish_latency(LatencyOptions& o, const json& given, const KeyNamer& name) {
  if (given.contains("sweep") && given["sweep"].get<bool>()) {
    if (given.contains("sizes") && o.sizes != latency_sweep_sizes())
      throw UsageError(fmt::format("{}/{}: give one of them ({} is 1 B … 4M)", name("sizes"), name("sweep"),
                                   name("sweep")));
    o.sizes = latency_sweep_sizes();
  }
  if (!o.p2p && !o.collective)
    throw UsageError(fmt::format("{}: nothing to measure (give p2p, collective or both)", name("kind")));
}

}  // namespace

const OptionTable<LatencyOptions>& latency_option_table() {
  using O = LatencyOptions;
  // pattern, sweep and kind are no one member: the pattern's name, the sweep's sizes, p2p and collective.
  static const OptionTable<O> t = detail::load_option_table<O>(
      "latency",
      {FABCHECK_OPTION_MEMBERS(sizes, iters, duration_s, warmup, serial_pairs, passes, pin_cpus){
           "pattern",
           {[](const O& o) { return json(name(o.pattern)); },
            [](O& o, const json& v) {
              o.pattern =
                  v.get<std::string>() == "all-pairs" ? LatencyPattern::kAllPairs : LatencyPattern::kRing;
            }}},
       {"sweep", {[](const O& o) { return json(o.sizes == latency_sweep_sizes()); }, [](O&, const json&) {}}},
       {"kind",
        {[](const O& o) { return json(kind_word(o)); },
         [](O& o, const json& v) {
           o.p2p = v.get<std::string>() != "collective";
           o.collective = v.get<std::string>() != "p2p";
         }}}},
      finish_latency);
  return t;
}

}  // namespace fabcheck::model
