#pragma once
/// @file Reader of `nvidia-smi topo -m` output: the device matrix (GPUn / NICn / mlx5_n columns), the
/// affinity columns and the "NIC Legend" that maps NICn to RDMA device names (new style); the old
/// style names the NIC column after the device itself.
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace fabcheck::parse {

/// The parsed matrix.
struct TopoMatrix {
  std::vector<std::string> devices;                  ///< column/row names in order ("GPU0", "NIC0", "mlx5_0")
  std::vector<std::vector<std::string>> cells;       ///< cells[row][col] ("X", "NV18", "PIX", "SYS", ...)
  std::map<std::string, std::string> nic_legend;     ///< "NIC0" → "mlx5_0" (empty for old-style output)
  std::map<std::string, std::string> cpu_affinity;   ///< row name → "0-47,96-143" when printed
  std::map<std::string, std::string> numa_affinity;  ///< row name → "0" when printed
};

/// One GPU ↔ NIC cell.
struct TopoGpuNic {
  int gpu = 0;        ///< n of GPUn
  std::string nic;    ///< RDMA device name (legend applied)
  std::string level;  ///< "PIX", "PXB", "PHB", "NODE", "SYS"
};

/// Parses `nvidia-smi topo -m`. Lines before the header and after the matrix are ignored.
/// @return an empty matrix (no devices) when no header row is found.
TopoMatrix parse_nvidia_smi_topo(std::string_view text);

/// Every GPU row × NIC column of the matrix, with NICn names mapped through the legend.
std::vector<TopoGpuNic> gpu_nic_levels(const TopoMatrix& m);

}  // namespace fabcheck::parse
