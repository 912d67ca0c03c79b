#pragma once
/// @file The `scaling` and `score` sections (DESIGN §5 "Scaling efficiency", §6): group scaling from
/// the scaling probe, and — from the `sweeps` already in the report — the α–β fit per collective, the
/// workload projection, the projection to 2×, 4×, 8× hosts, DDP bucket advice, and
/// `score.scaling_efficiency`. Rank 0 only; never calls MPI.
#include <nlohmann/json.hpp>

#include <optional>
#include <string>

#include "fabcheck/model/scaling.hpp"
#include "fabcheck/report/document.hpp"
#include "fabcheck/report/scaling_model.hpp"
#include "fabcheck/report/workloads.hpp"

namespace fabcheck::report {

/// Communication curves read from a report's `sweeps` array (DESIGN §6): for allreduce, allgather and
/// reducescatter, the out-of-place table times (`time_us`) of the first `sweeps` entry of that collective.
struct MeasuredCurves {
  std::optional<CommCurve> allreduce;      ///< when swept
  std::optional<CommCurve> allgather;      ///< when swept
  std::optional<CommCurve> reducescatter;  ///< when swept
  int nranks = 0;                          ///< ranks of the sweeps (of the first curve found)
  std::string dtype;                       ///< dtype of the curves used (the first found), e.g. "float"
  /// Pointers for project_workload (null where not swept).
  WorkloadCurves view() const;
  /// The curve of `c` (null when absent or `c` has no ring model).
  const CommCurve* get(core::Collective c) const;
};

/// Reads the curves from `sweeps` (an array; null or absent gives no curves). Malformed entries are skipped.
MeasuredCurves curves_from_sweeps(const nlohmann::json& sweeps);

/// The console sentence of the score: "For <workload> on N hosts this fabric delivers E of ideal
/// scaling; communication exposes X ms per step." with E in percent (one decimal) and X in ms (one decimal).
/// @param subject replaces "this fabric" (e.g. "a fabric with busBw 10 GB/s" for `fabcheck project`).
std::string score_sentence(const std::string& workload, int hosts, double efficiency, double exposed_s,
                           const std::string& subject = "this fabric");

/// JSON of a projection: {workload, parallelism, nranks, efficiency, t_compute_s, t_comm_s, t_last_bucket_s,
/// exposed_s, overlap, method, grad_bytes, buckets, curve_points: [{what, collective, count, size_bytes,
/// time_us, method, projected, points: [{size_bytes, time_us}]}]}. Numbers unrounded.
nlohmann::json projection_json(const WorkloadProjection& w);

/// The `assumptions` list of a projection: every profile number with its why, then the model's own
/// assumptions.
nlohmann::json assumptions_json(const WorkloadProfile& p, bool measured, bool intra_node_only);

/// JSON of an α–β fit: {nranks, alpha_us, beta_gbps, alpha_clamped, points, rms_rel_residual,
/// max_abs_rel_residual, residuals: [{size_bytes, time_us, model_us, rel_residual}], note}.
nlohmann::json fit_json(const CommCurve& curve);

/// Fills `scaling` and `score` (DESIGN §6) and their findings from the probe result and the report's
/// `sweeps`, with the workloads named in r.options (built-in file unless workloads_file). Records
/// run.sections.scaling. A score that cannot be computed is null with `reason` (no sweeps, no curve for the
/// workload's collectives).
/// @throws UsageError when r.options.workloads_file cannot be read or names no such workload (validate
/// earlier with
///         check_scaling_workload to fail before measuring).
void add_scaling(Document& doc, const model::ScalingResult& r);

/// As add_scaling(doc, r) with an explicit workload set (tests, callers that loaded the file already).
void add_scaling(Document& doc, const model::ScalingResult& r, const WorkloadSet& workloads);

/// Checks, before measuring, that r.options' workloads file reads and names the workload.
/// @throws UsageError naming --workloads / --workload.
void check_scaling_workload(const model::ScalingOptions& opts);

/// Console text of the group scaling (a table: hosts, nranks, busbw_gbps, vs_2host).
std::string render_scaling(const model::ScalingResult& r);

/// Console text of the group scaling followed by the α–β fits, the bucket advice, the score sentence and the
/// projection, read from a document that add_scaling filled. Use this one in `fabcheck run`.
std::string render_scaling(const model::ScalingResult& r, const Document& doc);

}  // namespace fabcheck::report
