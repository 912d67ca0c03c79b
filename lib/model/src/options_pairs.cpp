// The pairs probe's option table. The window loop follows osu_bw (PairsOptions).
#include "fabcheck/model/option_tables.hpp"

namespace fabcheck::model {

using nlohmann::json;

namespace {

OptionTable<PairsOptions> make_pairs_table() {
  using K = OptKind;
  using O = PairsOptions;
  OptionTable<O> t;
  t.probe = "pairs";
  t.options = {
      field({"size", "--size", K::kSize, 1, 0, "",
             "Bytes per timed window and direction (binary suffixes), split into --window messages"},
            &O::size_bytes),
      field({"window", "--window", K::kInt, 1, 1e6, "", "Messages in flight per window, as osu_bw"},
            &O::window),
      field({"iters", "--iters", K::kInt, 1, 1e9, "", "At most this many timed windows per direction"},
            &O::iters),
      field({"warmup", "--warmup", K::kInt, 0, 1e9, "", "Untimed windows per direction"}, &O::warmup),
      field({"budget_ms", "--budget-ms", K::kNumber, 0, 1e9, "",
             "Per direction: timed windows = clamp(budget / warm-up time, 1, --iters)"},
            &O::budget_ms),
      field({"lat_iters", "--lat-iters", K::kInt, 1, 1e9, "", "8 B ping-pong samples per pair"},
            &O::lat_iters),
      field({"lat_warmup", "--lat-warmup", K::kInt, 0, 1e9, "", "Untimed ping-pongs per pair"},
            &O::lat_warmup),
      field(
          {"bidir", "--bidir", K::kBool, 0, 0, "", "Also measure simultaneous both-way bandwidth (osu_bibw)"},
          &O::bidir),
      field({"all_ranks", "--all-ranks", K::kBool, 0, 0, "",
             "Pair local rank i with local rank i of the peer host (one pair per rail)"},
            &O::all_ranks),
      field({"retest", "--retest,!--no-retest", K::kBool, 0, 0, "",
             "Re-measure suspects against good partners before the verdict (--no-retest: skip)"},
            &O::retest),
      {{"line_rate_gbit", "--line-rate-gbit", K::kNumber, 1e-9, 1e7, "",
        "Expected line rate in Gbit/s: links below 80 % of it are outliers too (null: not known)", true},
       [](const O& o) { return o.line_rate_gbit ? json(*o.line_rate_gbit) : json(nullptr); },
       [](O& o, const json& v) {
         o.line_rate_gbit = v.is_null() ? std::nullopt : std::optional<double>(v.get<double>());
       }},
  };
  t.cli_only = model::command_cli_only(
      {{"exclude-hostfile", "the good-hosts file of the standalone command (run: --exclude-hostfile)"}});
  return t;
}

}  // namespace

const OptionTable<PairsOptions>& pairs_option_table() {
  static const OptionTable<PairsOptions> t = make_pairs_table();
  return t;
}

}  // namespace fabcheck::model
