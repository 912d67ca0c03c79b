// The latency probe's option table. Defaults follow osu_latency (LatencyOptions).
#include "fabcheck/model/option_tables.hpp"

#include <fmt/format.h>

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

OptionTable<LatencyOptions> make_latency_table() {
  using K = OptKind;
  using O = LatencyOptions;
  OptionTable<O> t;
  t.probe = "latency";
  t.options = {
      {{"pattern", "--pattern", K::kChoice, 0, 0, "ring|all-pairs",
        "Pairs: ring (each host with the next) or all-pairs (every host pair)"},
       [](const O& o) { return json(name(o.pattern)); },
       [](O& o, const json& v) {
         o.pattern = v.get<std::string>() == "all-pairs" ? LatencyPattern::kAllPairs : LatencyPattern::kRing;
       }},
      field({"sizes", "--sizes", K::kSizeList, 1, 0, "", "Message sizes, comma-separated, binary suffixes"},
            &O::sizes),
      {{"sweep", "--sweep", K::kBool, 0, 0, "", "Sizes 1 B … 4M in powers of two (like osu_latency)"},
       [](const O& o) { return json(o.sizes == latency_sweep_sizes()); },
       [](O&, const json&) {}},
      unset_when_zero({"iters", "--iters", K::kInt, 1, 1e8, "",
                       "Timed iterations per size and pair (null: 10000 for sizes <= 8K, 1000 above)"},
                      &O::iters),
      unset_when_zero({"duration_s", "--duration,--duration-s", K::kNumber, 1e-9, 86400, "",
                       "Seconds per size and pair (with --iters: whichever ends first; null: by iterations)"},
                      &O::duration_s),
      field({"warmup_iters", "--warmup,--warmup-iters", K::kInt, 0, 1e8, "",
             "Untimed iterations before each measurement"},
            &O::warmup),
      {{"kind", "--kind", K::kChoice, 0, 0, "p2p|collective|both",
        "What to measure: p2p, collective (allreduce 8 B … 64K) or both"},
       [](const O& o) { return json(kind_word(o)); },
       [](O& o, const json& v) {
         o.p2p = v.get<std::string>() != "collective";
         o.collective = v.get<std::string>() != "p2p";
       }},
      field({"serial", "--serial", K::kBool, 0, 0, "",
             "Measure the pairs of a round one at a time (oversubscribed machines, virtual fabrics)"},
            &O::serial_pairs),
      field({"passes", "--passes", K::kInt, 1, 1e6, "",
             "Measure every pair in N passes over the schedule (1: each pair in one go)"},
            &O::passes),
      {{"pin_cpus", "--pin-cpus", K::kIntList, 0, 1e6, "",
        "While a pair is measured: initiator on CPU I, responder on CPU R (one value: both), e.g. the NIC's "
        "CPU; 0,1 on a virtual fabric",
        false, true, false, 2},
       [](const O& o) { return json(o.pin_cpus); },
       [](O& o, const json& v) { o.pin_cpus = v.get<std::vector<int>>(); }},
  };
  t.cli_only =
      model::command_cli_only({{"verbose", "console detail of the standalone command (run: --verbose)"}});
  t.finish = [](O& o, const json& given, const KeyNamer& name) {
    if (given.contains("sweep") && given["sweep"].get<bool>()) {
      if (given.contains("sizes") && o.sizes != latency_sweep_sizes())
        throw UsageError(fmt::format("{}/{}: give one of them ({} is 1 B … 4M)", name("sizes"), name("sweep"),
                                     name("sweep")));
      o.sizes = latency_sweep_sizes();
    }
    if (!o.p2p && !o.collective)
      throw UsageError(fmt::format("{}: nothing to measure (give p2p, collective or both)", name("kind")));
  };
  return t;
}

}  // namespace

const OptionTable<LatencyOptions>& latency_option_table() {
  static const OptionTable<LatencyOptions> t = make_latency_table();
  return t;
}

}  // namespace fabcheck::model
