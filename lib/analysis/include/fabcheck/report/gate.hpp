#pragma once
/// @file The acceptance gate (DESIGN §6 `gate`): checks `{metric, op, threshold}` evaluated against
/// a report, fail-closed, with per-host verdicts, JUnit XML and an exclude-hostfile. Never calls MPI.
///
/// Metric path syntax (addresses the report of DESIGN §6):
///
///     metric   := segment ("." segment)* ["#count"]
///     segment  := NAME ["@" SIZE [":" PLACEMENT]]      object key; on an array: the elements whose selector
///     equals NAME
///               | KEY "=" VALUE                        array elements whose KEY equals VALUE (string or
///               number text) | "*"                                  every element of an array (every value
///               of an object) | "[" INDEX "]"                        one array element
///
/// - On an array, NAME selects the elements whose first present selector field (`collective`, `kind`,
/// `pattern`,
///   `host`, `receiver`, `name`, `code`) equals NAME: `sweeps.allreduce`, `latency.p2p`.
/// - `FIELD@SIZE` reads FIELD of the entry measured at SIZE bytes (binary suffixes, `1G` = 2^30): an object
/// with a
///   `points` array picks the point with that `size_bytes` (placement `out_of_place` unless `:in_place` is
///   given); an object with its own `size_bytes` is kept only when it matches. `FIELD@max` picks the point
///   with the largest `size_bytes` among the entry's `points` (same placement rule; entries without `points`,
///   such as latency's, have no @max): `sweeps.allreduce.busbw_gbps@max`. `sweeps.allreduce.busbw_gbps@1G`,
///   `latency.p2p.p99_us@8`, `incast.fan_in=2.goodput_gbps@4M`.
/// - `#count` at the end gives the number of matched elements (an array counts its elements):
///   `pairs.suspects#count`, `findings.severity=fail#count`.
/// - A path may match several values (a selector matching several entries, `*`): the check passes only when
/// every
///   value passes. Values found inside an element that has a `host` field are that host's: such a check is
///   per host
///   (`transport.per_host.*.verdict == "rdma"`); a failed `#count` check implicates the hosts of the counted
///   elements.
/// - Fail-closed: a path that matches nothing, or a value that is null, fails the check with reason
/// `missing`; a
///   value of the wrong type (a string against `>=`) fails with reason `type`.
/// - Operators: `>=`, `<=` (numbers), `==`, `!=` (numbers, strings, booleans; numbers compare exactly).
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fabcheck/report/document.hpp"

namespace fabcheck::report {

/// Comparison operators of a gate check.
enum class GateOp { kGe, kLe, kEq, kNe };

/// Parses ">=", "<=", "==", "!=". nullopt otherwise.
std::optional<GateOp> parse_gate_op(std::string_view s);
/// The operator's text.
std::string_view name(GateOp op);

/// One parsed path segment (see the file comment).
struct PathSegment {
  enum class Kind { kName, kFilter, kAll, kIndex } kind = Kind::kName;
  std::string name;                         ///< kName: key / selector; kFilter: KEY
  std::string value;                        ///< kFilter: VALUE text
  std::size_t index = 0;                    ///< kIndex
  std::optional<std::uint64_t> size_bytes;  ///< "@SIZE"; kLargestSize for "@max"
  std::string placement;                    ///< ":PLACEMENT" ("" = out_of_place where points have placements)
};

/// `size_bytes` of "@max": the largest size the entry measured (a sweep that stopped its sizes at
/// the time limit is checked at its largest measured size; the SWEEP_TRUNCATED finding names what was left
/// out).
inline constexpr std::uint64_t kLargestSize = ~std::uint64_t{0};

/// A parsed metric path.
struct MetricPath {
  std::vector<PathSegment> segments;  ///< in order
  bool count = false;                 ///< ends in #count
};

/// Parses a metric path. @throws UsageError "metric \"...\": <what is wrong> (see fabcheck gate --help)".
MetricPath parse_metric_path(std::string_view text);

/// One value a check looked at.
struct GateValue {
  std::string path;                           ///< concrete location, e.g. "sweeps[0].points[37].busbw_gbps"
  std::string host;                           ///< host the value belongs to ("" when not per host)
  nlohmann::json value;                       ///< the value (a number, string, bool)
  bool passed = false;                        ///< value op threshold
  std::vector<std::string> implicated_hosts;  ///< #count: hosts of the counted elements
};

/// Outcome of one check.
struct GateCheckResult {
  std::string metric;             ///< as written
  std::string op;                 ///< as written
  nlohmann::json threshold;       ///< as written
  std::string why;                ///< the explanation from the criteria ("" when none)
  bool passed = false;            ///< every value passed (false when missing)
  std::string reason;             ///< "" when passed; "missing: ...", "type: ...", "failed: ..." otherwise
  nlohmann::json value;           ///< the single value, or the first failing one; null when missing
  std::vector<GateValue> values;  ///< every value examined
  std::vector<std::string> failed_hosts;  ///< hosts with a failing value (per-host checks)
  bool per_host = false;                  ///< some value belonged to a host
  /// Unit of the values: the metric catalogue's for their location, else the suffix rule's
  /// (model::unit_at, model/metrics.hpp); "count" for #count; "" when unknown or the values' units differ.
  std::string unit;
};

/// Outcome of a gate.
struct GateResult {
  bool passed = true;                   ///< every check passed (true for zero checks)
  std::vector<GateCheckResult> checks;  ///< in criteria order
  std::vector<std::string> hosts;       ///< every host of the run (topology.hosts), else those seen in values
  std::vector<std::string> hosts_failed;  ///< hosts named by a failing per-host check or a `fail` finding
  std::vector<std::string> hosts_passed;  ///< hosts minus hosts_failed and hosts_invalid, in topology order
  /// hosts whose names are not host names (core::is_host_name): in no hostfile; a HOST_NAME_INVALID finding
  std::vector<std::string> hosts_invalid;
  std::string criteria_source;  ///< where the checks came from ("config", a file path)
};

/// Evaluates checks (validated `[{metric, op, threshold, why?}]`) against a report. Pure.
/// @throws UsageError when a check is malformed (metric syntax, op).
GateResult evaluate_gate(const nlohmann::json& report, const nlohmann::json& checks,
                         std::string_view criteria_source);

/// Writes the `gate` section (criteria, passed, checks with value/passed/reason, per-host verdicts), one
/// `fail` finding GATE_CHECK_FAILED per failed check (earlier gate findings are replaced), and
/// run.sections.gate = ok.
void add_gate(Document& doc, const GateResult& g);

/// Console text: one line per check (PASS/FAIL, metric, op, threshold, value with its unit where known,
/// reason) and the verdict line.
std::string render_gate(const GateResult& g);

/// JUnit XML (one testsuite "fabcheck.gate", one testcase per check: `<system-out>` "value V UNIT" when it
/// passed, else `<failure>` with the reason, the hosts, why and, last, the value with its unit).
std::string junit_xml(const GateResult& g);

/// Hostfile text with the hosts that passed every per-host check (one per line, with a comment header naming
/// the excluded hosts), for the next job's `--hostfile`.
std::string exclude_hostfile_text(const GateResult& g);

/// A good-hosts file: `title` (a comment line, with the excluded hosts; "" = none), then one passed host per
/// line. A name that is not a host name (core::is_host_name: a newline or `slots=64` in it would add to the
/// next job's hostfile) is never written; the comment line counts those left out.
std::string good_hosts_text(std::string_view title, const std::vector<std::string>& passed,
                            const std::vector<std::string>& excluded);

/// XML-escapes text (& < > " ' and control characters other than tab/newline dropped).
std::string xml_escape(std::string_view s);

}  // namespace fabcheck::report
