#include "fabcheck/parse/nvidia_smi_topo.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "fabcheck/core/ascii.hpp"

namespace fabcheck::parse {

namespace {

std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> out;
  while (!text.empty()) {
    auto nl = text.find('\n');
    auto line = text.substr(0, nl);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    out.push_back(line);
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return out;
}

// Splits on tabs and on runs of two or more spaces ("CPU Affinity" stays one field).
std::vector<std::string> split_fields(std::string_view line) {
  std::vector<std::string> out;
  std::string cur;
  std::size_t i = 0;
  auto flush = [&] {
    while (!cur.empty() && cur.back() == ' ') cur.pop_back();
    if (!cur.empty()) out.push_back(cur);
    cur.clear();
  };
  while (i < line.size()) {
    char c = line[i];
    if (c == '\t' || (c == ' ' && i + 1 < line.size() && line[i + 1] == ' ')) {
      flush();
      while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
      continue;
    }
    if (c == ' ' && cur.empty()) {
      ++i;
      continue;
    }
    cur.push_back(c);
    ++i;
  }
  flush();
  return out;
}

std::vector<std::string> topo_fields(std::string_view line) {
  const auto fields = core::split_blanks(line);
  return {fields.begin(), fields.end()};
}

bool is_device_name(const std::string& s) {
  return s.rfind("GPU", 0) == 0 || s.rfind("NIC", 0) == 0 || s.rfind("mlx", 0) == 0 ||
         s.rfind("NVS", 0) == 0 || s.rfind("CX", 0) == 0;
}

}  // namespace

TopoMatrix parse_nvidia_smi_topo(std::string_view text) {
  TopoMatrix m;
  auto lines = lines_of(text);
  std::size_t hdr = lines.size();
  std::vector<std::string> header;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    // The header starts with blanks and its first field is GPU0.
    if (lines[i].empty() || (lines[i][0] != ' ' && lines[i][0] != '\t')) continue;
    auto f = split_fields(lines[i]);
    if (!f.empty() && f[0] == "GPU0") {
      header = f;
      hdr = i;
      break;
    }
  }
  if (hdr == lines.size()) return m;
  std::vector<std::string> extra;  // affinity column names
  for (const auto& h : header) {
    if (is_device_name(h) && extra.empty())
      m.devices.push_back(h);
    else
      extra.push_back(h);
  }
  const std::size_t n = m.devices.size();
  m.cells.assign(n, std::vector<std::string>(n));
  for (std::size_t i = hdr + 1; i < lines.size(); ++i) {
    auto toks = topo_fields(lines[i]);
    if (toks.empty()) continue;
    auto it = std::find(m.devices.begin(), m.devices.end(), toks[0]);
    if (it == m.devices.end()) {
      if (toks[0] == "Legend:") continue;
      // NIC legend lines: "NIC0: mlx5_0"
      if (toks.size() == 2 && toks[0].size() > 4 && toks[0].rfind("NIC", 0) == 0 && toks[0].back() == ':')
        m.nic_legend[toks[0].substr(0, toks[0].size() - 1)] = toks[1];
      continue;
    }
    auto row = static_cast<std::size_t>(it - m.devices.begin());
    for (std::size_t c = 0; c < n && c + 1 < toks.size(); ++c) m.cells[row][c] = toks[c + 1];
    // Affinity columns follow the matrix cells: CPU list, NUMA node, GPU NUMA ID.
    std::vector<std::string> rest(toks.begin() + static_cast<long>(std::min(toks.size(), n + 1)), toks.end());
    for (std::size_t k = 0; k < extra.size() && k < rest.size(); ++k) {
      if (extra[k] == "CPU Affinity") m.cpu_affinity[toks[0]] = rest[k];
      if (extra[k] == "NUMA Affinity") m.numa_affinity[toks[0]] = rest[k];
    }
  }
  return m;
}

std::vector<TopoGpuNic> gpu_nic_levels(const TopoMatrix& m) {
  std::vector<TopoGpuNic> out;
  for (std::size_t r = 0; r < m.devices.size(); ++r) {
    const auto& rn = m.devices[r];
    if (rn.rfind("GPU", 0) != 0) continue;
    for (std::size_t c = 0; c < m.devices.size(); ++c) {
      const auto& cn = m.devices[c];
      if (cn.rfind("GPU", 0) == 0 || cn.rfind("NVS", 0) == 0) continue;
      TopoGpuNic g;
      g.gpu = std::atoi(rn.c_str() + 3);
      auto leg = m.nic_legend.find(cn);
      g.nic = leg != m.nic_legend.end() ? leg->second : cn;
      g.level = m.cells[r][c];
      out.push_back(g);
    }
  }
  return out;
}

}  // namespace fabcheck::parse
