#pragma once
/// @file The lossless configuration of RoCE netdevs: pure parsers of the text formats (the
/// inventory probe reads the files, lib/probes/src/inventory_qos.cpp), unit-tested on strings. Formats:
/// - MLNX_OFED mlx5 `qos/dscp2prio` and `qos/prio2buffer`: one header line, then one "<key> <value>" pair per
///   line, whitespace separated (Mellanox/mlnx-tools python/mlnx_qos `print_dscp2prio_sysfs`,
///   `get_prio2buffer_sysfs`; prio2buffer is "Priority\tBuffer" then "%d\t\t%d", mlx5 en_sysfs.c
///   `mlx5e_show_prio2buffer`).
/// - `mlnx_qos -i <if>` output (a recording of DCB netlink, where PFC lives): "Priority trust state: dscp",
///   "\tprio:3 dscp:31,30,29,28,27,26,25,24," lines under "dscp2prio mapping:", and under
///   "PFC configuration:" the line "\tenabled     0   0   0   1   0   0   0   0" (python/mlnx_qos
///   `pretty_print`).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fabcheck::parse {

/// IEEE 802.1p priorities 0..7, DSCP values 0..63.
inline constexpr int kQosPriorities = 8;
inline constexpr int kQosDscpValues = 64;

/// "<header>\n<k> <v>\n..." → a table of `size` values indexed by k (-1 where no line gave one); lines that
/// are not two integers, or whose k is out of range or whose v is negative, are skipped. Empty when no line
/// gave a value.
std::vector<int> parse_qos_pairs(const std::string& text, int size);

/// What a recorded `mlnx_qos -i <if>` printed.
struct MlnxQosOutput {
  std::string trust;           ///< "pcp" / "dscp" from "Priority trust state:", "" absent
  std::vector<int> dscp2prio;  ///< 64 entries (-1 not listed); empty when no "prio:N dscp:" line
  std::optional<int>
      pfc_enabled_mask;  ///< from the "enabled" row of "PFC configuration:", bit p = priority p
};
/// Parses `mlnx_qos -i <if>` output; parts it does not find stay empty.
MlnxQosOutput parse_mlnx_qos_output(const std::string& text);

}  // namespace fabcheck::parse
