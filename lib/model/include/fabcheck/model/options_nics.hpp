#pragma once
/// @file Options of the nics probe; its option table is nics_option_table() in
/// model/option_tables.hpp.
#include <cstdint>
#include <string>

namespace fabcheck::model {

/// Options of the nics probe (flags of `fabcheck nics`): every data interface of every host against every
/// data interface of every other host, over TCP sockets bound to the two interfaces.
struct NicsOptions {
  /// Which interfaces are data NICs, in NCCL_SOCKET_IFNAME syntax (NCCL docs, "NCCL_SOCKET_IFNAME"): a
  /// comma-separated list of name prefixes, `^` in front excludes the listed prefixes, `=` in front makes the
  /// names exact. Only interfaces that are up and hold an IPv4 address are candidates.
  std::string ifaces = "^lo,docker,virbr";
  std::uint64_t size_bytes = 256ull << 20;  ///< at most this many bytes per direction and NIC pair (`--size`)
  double budget_ms = 150;         ///< per direction and NIC pair: stream for this long (`--budget-ms`)
  int lat_iters = 200;            ///< 8 B round trips per NIC pair (`--lat-iters`)
  int lat_warmup = 20;            ///< untimed round trips before them (`--lat-warmup`)
  int connect_timeout_ms = 1000;  ///< a NIC pair that does not connect in this time is unreachable
  bool retest = true;             ///< re-measure slow-NIC suspects against good NIC pairs (`--no-retest`)
  /// RDMA verbs per port pair (`--verbs`): "auto" measures where this build has libibverbs and both hosts
  /// have an active RDMA port, and says why not otherwise (`skipped: <reason>`); "on" stops with that reason
  /// instead; "off" skips.
  std::string verbs = "auto";
  /// RDMA WRITE message size of the bandwidth test (`--verbs-size`; ib_write_bw's default `-s 65536`).
  std::uint64_t verbs_size_bytes = 65536;
  /// RDMA WRITEs per direction and port pair (`--verbs-iters`; ib_write_bw's default `-n 5000`,
  /// DEF_ITERS_WB).
  int verbs_iters = 5000;
  /// RDMA WRITEs in flight, the window (`--verbs-tx-depth`; ib_write_bw's default `-t 128`, DEF_TX_BW).
  int verbs_tx_depth = 128;
  /// An NCCL_DEBUG=INFO log of a job on these hosts (`--nccl-log`, config key `nccl_log`; "" none): the
  /// interfaces its `Bootstrap : Using` and `NET/Socket : Using` lines name per host are judged against the
  /// measured data NICs (NICS_MGMT_IN_USE). Read on rank 0 only.
  std::string nccl_log;
};

}  // namespace fabcheck::model
