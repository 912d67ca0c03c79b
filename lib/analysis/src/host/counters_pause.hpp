#pragma once
// Private to lib/analysis: what the NIC drivers' pause statistics (`ethtool.<if>/<stat>`, model/counters.hpp)
// say about a step — PFC_PAUSE_STORM and PFC_PAUSE_HIGH (report/counters.hpp lists the rules), and the
// console part. counters.cpp calls them.
#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <string_view>

#include "fabcheck/report/document.hpp"

namespace fabcheck::report::detail {

/// `ethtool.<if>/<stat>` → {if: {stat: delta}}.
std::map<std::string, std::map<std::string, std::int64_t>> ethtool_ifs(const nlohmann::json& deltas);

/// PFC_PAUSE_STORM / PFC_PAUSE_HIGH for one host's deltas over a step of `duration_s`.
void add_pause_findings(Document& doc, std::string_view section, const std::string& host,
                        const nlohmann::json& deltas, double duration_s);

}  // namespace fabcheck::report::detail
