#pragma once
/// @file The emulated training step (`fabcheck step`): the plan of a scaled step from a workload
/// profile, its projection from the curves, the `step` section and its finding. No MPI.
#include <nlohmann/json.hpp>

#include <optional>
#include <string>

#include "fabcheck/model/train_step.hpp"
#include "fabcheck/report/document.hpp"
#include "fabcheck/report/scaling_model.hpp"

namespace fabcheck::report {

/// Measured and projected efficiency of the same scaled step disagree when one exceeds the other by more than
/// this factor: STEP_PROJECTION_MISMATCH. 1.5 = the projection's own stated accuracy on this project's
/// measurements (DESIGN §5 "Training step": the virtual fabric's clean and throttled steps came within it).
inline constexpr double kStepAgreementFactor = 1.5;

/// Share of a unit's compute in backward for the FSDP step: backward costs about twice the forward FLOPs
/// (4 of the 6 FLOP per parameter per token; Kaplan et al. 2020, "Scaling Laws for Neural Language Models"
/// §2.1).
inline constexpr double kBackwardShare = 2.0 / 3.0;

/// The plan of one training step of `p`, scaled (DESIGN §5 "Training step"):
/// - scale: `scale` when > 0, else core::auto_step_scale(real buckets, max_buckets); emulated buckets
///   n = core::scaled_count(real, scale); the plan's scale is n / real.
/// - DDP: G = round(parameters · bytes_per_grad) bytes in real = ⌈G / B⌉ buckets of B = bucket_bytes. At
///   n = real the step is the profile's (the remainder bucket first, so that the last, always exposed, is a
///   full one); below it, n full buckets of min(B, G). Compute = compute_s · (emulated bytes / G), split
///   into n equal backward chunks; bucket k's allreduce is posted when chunk k ends; one wait at the end.
/// - FSDP: n of fsdp_units units, compute = compute_s · n / units, a unit's forward (1 − kBackwardShare) and
///   backward (kBackwardShare) of compute / n. Forward: unit i+1's allgather posted before unit i's
///   compute; backward (units in reverse): unit i−1's allgather posted before unit i's backward, its
///   reducescatter after it; every unit starts with a wait for all posted so far (the backend waits for all
///   at once); one wait at the end.
/// @throws UsageError for a pp profile (its step is a pipeline, not emulated) naming --workload.
model::StepPlan plan_train_step(const WorkloadProfile& p, double scale, int max_buckets);

/// `p` reduced to the emulated step: parameters and compute_s of the plan (bucket size and everything else
/// as in p), so that project_workload() projects the same scaled step.
WorkloadProfile scaled_profile(const WorkloadProfile& p, const model::StepPlan& plan);

/// The projection of the emulated step beside its measurement.
struct StepProjection {
  WorkloadProjection projection;  ///< project_workload(scaled profile with the measured overlap, curves)
  std::string curves_source;      ///< "sweeps" (the report's sweeps) or "step" (the step's own comm points)
  double overlap = 0;             ///< the overlap used
  std::string overlap_source;     ///< e.g. "measured by the step: allreduce 4M, polled"
};

/// Projects r's step — the scaled profile (scaled_profile) with compute_s = the step's measured t_compute
/// median (the compute that ran beside the communication): the curves of `sweeps` (the report's `sweeps`
/// array; null: none) where they have the step's collectives, else the step's own comm points (one measured
/// point per size); the overlap measured by the step's comm points (report/scaling_overlap.hpp
/// measured_overlap_for: the polled figure when the step polls), else the profile's assumption.
/// @return nullopt with `why` when no projection can be made.
std::optional<StepProjection> project_train_step(const model::TrainStepResult& r, const WorkloadProfile& p,
                                                 const nlohmann::json& sweeps, std::string* why);

/// JSON of the `step` section (DESIGN §6).
nlohmann::json step_json(const model::TrainStepResult& r, const std::optional<StepProjection>& proj,
                         const std::string& no_projection_reason);

/// Fills doc["step"] (the projection from doc's `sweeps` when present), run.sections.step = ok and the
/// finding STEP_PROJECTION_MISMATCH (warn): measured and projected efficiency not within
/// kStepAgreementFactor of each other.
void add_step(Document& doc, const model::TrainStepResult& r, const WorkloadProfile& p);

/// Console text of a filled `step` section: the plan, t_step and t_compute (p50/p99), the measured and
/// projected efficiency, the finding.
std::string render_step(const nlohmann::json& step);

}  // namespace fabcheck::report
