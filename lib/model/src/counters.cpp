#include "fabcheck/model/counters.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>

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

}  // namespace fabcheck::model
