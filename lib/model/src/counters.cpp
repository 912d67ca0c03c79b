#include "fabcheck/model/counters.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <regex>

namespace fabcheck::model {

HostCounterDelta counter_delta(const std::string& host, const CounterSnapshot& before,
                               const CounterSnapshot& after) {
  HostCounterDelta d;
  d.host = host;
  d.skipped = before.skipped;
  for (const auto& s : after.skipped)
    if (std::find(d.skipped.begin(), d.skipped.end(), s) == d.skipped.end()) d.skipped.push_back(s);
  d.read_us = before.read_us + after.read_us;
  for (const auto& [name, v1] : after.values) {
    const auto it = before.values.find(name);
    if (it == before.values.end()) continue;
    if (v1 < it->second) {
      d.reset.push_back(name);
    } else if (v1 > it->second) {
      d.deltas[name] = v1 - it->second;
    }
  }
  return d;
}

std::string to_line(const CounterSnapshot& s) {
  return nlohmann::json{{"values", s.values}, {"skipped", s.skipped}, {"read_us", s.read_us}}.dump();
}

CounterSnapshot counter_snapshot_from_line(const std::string& line) {
  CounterSnapshot s;
  try {
    const auto j = nlohmann::json::parse(line);
    s.values = j.at("values").get<std::map<std::string, std::int64_t>>();
    s.skipped = j.at("skipped").get<std::vector<std::string>>();
    s.read_us = j.at("read_us").get<double>();
  } catch (const nlohmann::json::exception&) {
    s = CounterSnapshot{};
    s.skipped.push_back("counters: this host sent no reading");
  }
  return s;
}

bool is_shown_ethtool_stat(std::string_view stat) {
  static const std::regex shown(
      R"(^(rx|tx)_prio[0-7]_pause_duration$|^(rx|tx)_global_pause_duration$|pause_storm|^rx_discards_phy$|)"
      R"(^rx_prio[0-7]_(buf|cong)_discard$)");
  return std::regex_search(std::string(stat), shown);
}

bool is_shown_counter(std::string_view name) {
  const auto in = [&](std::string_view prefix, std::string_view rest, const auto& names) {
    return name.substr(0, prefix.size()) == prefix &&
           std::find(std::begin(names), std::end(names), rest) != std::end(names);
  };
  if (name.rfind("rdma.", 0) == 0) {  // rdma.<dev>.<port>.<name>
    const auto a = name.find('.', 5), b = a == std::string_view::npos ? a : name.find('.', a + 1);
    return b != std::string_view::npos && in("rdma.", name.substr(b + 1), kShownRdmaCounters);
  }
  if (name.rfind("ethtool.", 0) == 0) {  // ethtool.<if>/<stat>
    const auto slash = name.find('/');
    return slash != std::string_view::npos && is_shown_ethtool_stat(name.substr(slash + 1));
  }
  const auto dot = name.rfind('.');  // net.<if>.<file>
  return dot != std::string_view::npos && dot > 4 && in("net.", name.substr(dot + 1), kShownNetdevStats);
}

}  // namespace fabcheck::model
