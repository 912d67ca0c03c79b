// The incast probe's option table.
#include "fabcheck/model/option_tables.hpp"

namespace fabcheck::model {

using nlohmann::json;

namespace {

OptionTable<IncastOptions> make_incast_table() {
  using K = OptKind;
  using O = IncastOptions;
  OptionTable<O> t;
  t.probe = "incast";
  t.options = {
      field({"receiver", "--receiver", K::kString, 0, 0, "",
             "Receiver host (\"\": the host of rank 0; all: every host in turn)"},
            &O::receiver),
      field({"fan_in", "--fan-in", K::kIntList, 1, 1e6, "",
             "Senders per burst, comma list (empty: 1, 2, 4, ... up to the available senders)", false, true},
            &O::fan_in),
      field({"sizes", "--sizes", K::kSizeList, 1, 0, "", "Bytes per sender per burst, list (K/M/G binary)"},
            &O::sizes_bytes),
      field({"rounds", "--rounds", K::kInt, 1, 1e9, "", "Bursts per (fan-in, size)"}, &O::rounds),
      unset_when_zero({"duration_s", "--duration,--duration-s", K::kNumber, 1e-9, 1e6, "",
                       "Seconds per (fan-in, size), at least one round (null: by --rounds)"},
                      &O::duration_s),
      field({"victim", "--victim,!--congestor-only", K::kBool, 0, 0, "",
             "Measure the bystander victim (needs 3 hosts; --congestor-only: bursts without a victim)"},
            &O::victim),
      field({"congestors", "--congestors,!--victim-only", K::kBool, 0, 0, "",
             "Run the bursts (--victim-only: only the isolated victim)"},
            &O::congestors),
      field(
          {"victim_iters", "--victim-iters", K::kInt, 1, 1e9, "", "Isolated victim ping-pongs per receiver"},
          &O::victim_iters),
      field({"victim_interval_us", "--victim-interval-us", K::kNumber, 0, 1e6, "",
             "Least time between two victim pings, µs (0: back to back)"},
            &O::victim_interval_us),
  };
  t.cli_only = model::command_cli_only();
  return t;
}

}  // namespace

const OptionTable<IncastOptions>& incast_option_table() {
  static const OptionTable<IncastOptions> t = make_incast_table();
  return t;
}

}  // namespace fabcheck::model
