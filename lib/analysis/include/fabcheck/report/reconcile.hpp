#pragma once
/// @file Reconciling a report's findings before anything shows them (DESIGN §5 "one fault, one
/// headline"). Every probe writes its own findings; this pass decides what a reader sees first:
///
/// 1. **Refuted symptoms.** A latency-pair finding (`LATENCY_PAIR_OUTLIER`, `LATENCY_PAIR_TAIL`) whose two
/// hosts
///    the `pairs` section measured and did not flag (no suspect host, no outlier on that pair) becomes `info`
///    with `evidence.refuted_by = "pairs"`: the retest did not reproduce it. So does a moderate
///    `SCALING_BUSBW_DROP` (ratio >= 0.5) when pairs flagged no host and no link at all.
/// 2. **One headline per fault.** A *headline* is a `fail` finding that names its place: a host
///    (`evidence.host`, e.g. `PAIRS_SLOW_HOST`) or a link (`evidence.from`/`to`, e.g. `PAIRS_SLOW_LINK`).
///    Every warning that names that host (or, for a link, names only its two hosts) is folded into the
///    headline's `evidence.corroborated_by` (`[{code, severity, message}]`) and leaves the list; so does what
///    a link's sending host counted on its own (`TCP_RETRANSMITS`, `RDMA_XMIT_DISCARDS`, `ROCE_PACKET_LOSS`
///    naming only the link's `from` host: report/counters.hpp). When the
///    report has exactly one fail finding of any kind besides the gate's, the fabric-wide consequences — the
///    gate's own failed checks (`GATE_CHECK_FAILED`), `SCALING_BUSBW_DROP`, `SCALING_EFFICIENCY_LOW` — are
///    folded into it too: they restate the one fault, they are not a second one.
/// 3. **Order.** fail → warn → info; inside a severity, confirmed root causes (wrong data, a lost rank, a
/// failed
///    transport, a confirmed slow host, then link) before the rest, the gate's restatements last; inside
///    that, by impact (`evidence.impact` when a writer set it, higher first), then as written.
///
/// The pass is idempotent (a report reconciled twice is unchanged), and never changes whether a report has a
/// `fail` finding, nor which hosts `fail` findings name (the good-hosts file depends on both).
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace fabcheck::report {

/// Reconciles `doc["findings"]` in place (see the file comment). A document without findings is unchanged.
void reconcile_findings(nlohmann::json& doc);

/// The hosts a finding names in its evidence: `host`, `hosts[]`, `senders[]`, `from`, `to`, `receiver`,
/// `victim` (the host part of a "host/rankN" endpoint). Sorted, unique.
std::vector<std::string> hosts_named(const nlohmann::json& finding);

}  // namespace fabcheck::report
