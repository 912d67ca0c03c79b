// The nics probe's option table.
#include "fabcheck/model/option_tables.hpp"

namespace fabcheck::model {

namespace {

OptionTable<NicsOptions> make_nics_table() {
  using K = OptKind;
  using O = NicsOptions;
  OptionTable<O> t;
  t.probe = "nics";
  t.options = {
      field({"ifaces", "--ifaces", K::kString, 0, 0, "",
             "Data NICs in NCCL_SOCKET_IFNAME syntax: name prefixes, ^ excludes, = exact (\"eth\", "
             "\"^lo,mgmt\")"},
            &O::ifaces),
      field({"size", "--size", K::kSize, 1, 0, "", "At most this many bytes per direction and NIC pair"},
            &O::size_bytes),
      field({"budget_ms", "--budget-ms", K::kNumber, 1, 1e7, "",
             "Per direction and NIC pair: stream for this long (or until --size)"},
            &O::budget_ms),
      field({"lat_iters", "--lat-iters", K::kInt, 1, 1e7, "", "8 B round trips per NIC pair"}, &O::lat_iters),
      field({"lat_warmup", "--lat-warmup", K::kInt, 0, 1e7, "", "Untimed round trips per NIC pair"},
            &O::lat_warmup),
      field({"connect_timeout_ms", "--connect-timeout-ms", K::kInt, 1, 600000, "",
             "A NIC pair that does not connect within this time is unreachable"},
            &O::connect_timeout_ms),
      field({"retest", "--retest,!--no-retest", K::kBool, 0, 0, "",
             "Re-measure slow-NIC suspects against good NIC pairs (--no-retest: skip)"},
            &O::retest),
      field({"verbs", "--verbs", K::kChoice, 0, 0, "auto|on|off",
             "RDMA verbs per port pair: auto (where libibverbs and a device exist, else skipped), on "
             "(required), "
             "off"},
            &O::verbs),
      field({"verbs_size", "--verbs-size", K::kSize, 1, 0, "", "RDMA WRITE message size (ib_write_bw -s)"},
            &O::verbs_size_bytes),
      field({"verbs_iters", "--verbs-iters", K::kInt, 1, 1e7, "",
             "RDMA WRITEs per direction and port pair (ib_write_bw -n)"},
            &O::verbs_iters),
      field({"verbs_tx_depth", "--verbs-tx-depth", K::kInt, 1, 8192, "",
             "RDMA WRITEs in flight (ib_write_bw -t)"},
            &O::verbs_tx_depth),
      field({"nccl_log", "--nccl-log", K::kString, 0, 0, "",
             "An NCCL_DEBUG=INFO log of a job on these hosts: its bootstrap/NET-Socket interfaces are judged "
             "against the data NICs"},
            &O::nccl_log),
  };
  t.cli_only = model::command_cli_only();
  return t;
}

}  // namespace

const OptionTable<NicsOptions>& nics_option_table() {
  static const OptionTable<NicsOptions> t = make_nics_table();
  return t;
}

}  // namespace fabcheck::model
