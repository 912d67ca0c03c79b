// Parsers of the RoCE lossless-configuration text formats (mlnx_qos.hpp).
#include "fabcheck/parse/mlnx_qos.hpp"

#include <charconv>
#include <sstream>

#include "fabcheck/core/ascii.hpp"

namespace fabcheck::parse {
namespace {

/// A whole decimal integer; nullopt for anything else.
std::optional<int> qos_int(std::string_view s) {
  int v = 0;
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (r.ec != std::errc() || r.ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

}  // namespace

std::vector<int> parse_qos_pairs(const std::string& text, int size) {
  std::vector<int> out(size, -1);
  bool any = false;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    auto f = core::split_blanks(line, 3);
    if (f.size() != 2) continue;
    auto k = qos_int(f[0]);
    auto v = qos_int(f[1]);
    if (!k || !v || *k < 0 || *k >= size || *v < 0) continue;
    out[*k] = *v;
    any = true;
  }
  if (!any) out.clear();
  return out;
}

MlnxQosOutput parse_mlnx_qos_output(const std::string& text) {
  MlnxQosOutput out;
  std::istringstream in(text);
  std::string line;
  bool in_pfc = false;
  while (std::getline(in, line)) {
    auto s = core::trim_blanks(line);
    if (s.rfind("Priority trust state:", 0) == 0) {
      out.trust = std::string(core::trim_blanks(s.substr(21)));
    } else if (s.rfind("prio:", 0) == 0 && s.find(" dscp:") != std::string_view::npos) {
      auto prio = qos_int(s.substr(5, s.find(' ') - 5));
      std::string_view list = s.substr(s.find(" dscp:") + 6);
      if (out.dscp2prio.empty()) out.dscp2prio.assign(kQosDscpValues, -1);
      for (std::size_t b = 0; prio && b < list.size();) {
        auto e = list.find(',', b);
        if (e == std::string_view::npos) e = list.size();
        if (auto d = qos_int(list.substr(b, e - b)); d && *d >= 0 && *d < kQosDscpValues)
          out.dscp2prio[*d] = *prio;
        b = e + 1;
      }
    } else if (s.rfind("PFC configuration:", 0) == 0) {
      in_pfc = true;
    } else if (in_pfc && s.rfind("enabled", 0) == 0) {
      auto f = core::split_blanks(s.substr(7));
      int mask = 0;
      bool ok = f.size() == kQosPriorities;
      for (int p = 0; ok && p < kQosPriorities; ++p) {
        auto v = qos_int(f[p]);
        ok = v && (*v == 0 || *v == 1);
        if (ok && *v == 1) mask |= 1 << p;
      }
      if (ok) out.pfc_enabled_mask = mask;
      in_pfc = false;
    }
  }
  return out;
}

}  // namespace fabcheck::parse
