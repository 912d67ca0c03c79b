#pragma once
/// @file The `pairs` section of the report (DESIGN §6) and its console text. No MPI.
#include <nlohmann/json.hpp>

#include <string>

#include "fabcheck/model/pairs.hpp"
#include "fabcheck/report/document.hpp"

namespace fabcheck::report {

/// JSON of the `pairs` section: {size_bytes, message_bytes, window, hosts, ranks (the world rank that
/// measured for each host), schedule (rounds of [host, host]), bw_gbps / lat_p50_us / lat_p99_us (source row
/// → destination column, null where not measured), bidir_gbps ([a][b] = [b][a], both directions at once
/// summed; null without --bidir), lat_samples, expected_gbps, medians, outliers [{kind: bw|lat, from, to,
/// value, median, z, rule, confirmed}] (refuted ones are left out and kept in `retests`), suspects [{host,
/// links: [{kind, from, to}], confirmed}] (confirmed, or null when not retested; refuted ones go to
/// `refuted_suspects`), retests, retest_reference, notes}; with --all-ranks and more than one rank per host a
/// `rails` array holds the same per local rank {local_rank, ranks, bw_gbps, …} (top level = local rank 0). z
/// is null when MAD = 0 (z = ±∞), with `z_reason`.
nlohmann::json pairs_json(const model::PairsResult& r);

/// Fills doc["pairs"], run.sections.pairs = ok, and the findings: PAIRS_SLOW_HOST (warn when confirmed or not
/// retested, info when refuted), PAIRS_SLOW_LINK / PAIRS_HIGH_LATENCY (warn, links not explained by a suspect
/// host), PAIRS_RULE_LIMIT (info: too few hosts for the rule). None of them is `fail`.
void add_pairs(Document& doc, const model::PairsResult& r);

/// Console text: the bandwidth and latency matrices (outliers marked `*`, refuted `?`), the outliers and the
/// suspects, one line each.
std::string render_pairs(const model::PairsResult& r);

}  // namespace fabcheck::report
