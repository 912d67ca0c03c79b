#pragma once
/// @file The scaling-efficiency model of DESIGN §5: α–β ring model, its least-squares fit,
/// communication time curves (measured points interpolated log-log, α–β beyond them), and the
/// training-workload projection (DDP buckets, FSDP units, `exposed`, `efficiency`). Pure functions: no MPI,
/// no I/O.
///
/// Units: sizes in bytes (the nccl-tests `size` column of DESIGN §3), times in µs unless a name ends in `_s`,
/// α in µs, β in GB/s (1e9 bytes/s).
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "fabcheck/core/collective.hpp"

namespace fabcheck::report {

/// Label of every projection made with the ring model to another rank count (DESIGN §5).
inline constexpr const char* kRingProjectionLabel = "ring model, upper bound on latency terms";
/// Host-count factors of the ring-model projection (2×, 4×, 8× this run), for `scaling` and `project` alike.
inline constexpr int kProjectionFactors[] = {2, 4, 8};

/// Coefficients of the ring model t = latency_steps·α + bandwidth_factor·S/β (DESIGN §5):
/// allreduce 2(n−1) and 2(n−1)/n; allgather and reducescatter (n−1) and (n−1)/n.
struct RingCoefficients {
  double latency_steps = 0;     ///< multiplies α
  double bandwidth_factor = 0;  ///< multiplies S/β (equals the busBw factor of DESIGN §3)
};

/// True for the collectives the ring model covers (allreduce, allgather, reducescatter).
bool has_ring_model(core::Collective c);

/// Ring-model coefficients of `c` on `nranks` ranks.
/// @throws std::invalid_argument when nranks < 1 or `c` has no ring model (see has_ring_model).
RingCoefficients ring_coefficients(core::Collective c, int nranks);

/// α–β parameters: α per latency step, β the asymptotic bus bandwidth.
struct AlphaBeta {
  double alpha_us = 0;   ///< latency per ring step, µs (≥ 0)
  double beta_gbps = 0;  ///< bandwidth, GB/s (> 0); busBw tends to β for large S
};

/// Ring-model time in µs of one `c` of `size_bytes` (size column) on `nranks` ranks:
/// latency_steps·α_us + bandwidth_factor·size_bytes/(β_gbps·1e3).
/// @throws std::invalid_argument as ring_coefficients, or when β ≤ 0.
double ring_time_us(core::Collective c, int nranks, const AlphaBeta& m, double size_bytes);

/// One measured point of a time curve (a sweep row: size column, table time).
struct CurvePoint {
  double size_bytes = 0;  ///< the size column S, bytes
  double time_us = 0;     ///< time per operation, µs
};

/// One point's residual in an α–β fit.
struct FitResidual {
  double size_bytes = 0;    ///< S
  double time_us = 0;       ///< measured
  double model_us = 0;      ///< fitted model at S
  double rel_residual = 0;  ///< (model − measured)/measured
};

/// Result of fit_alpha_beta.
struct AlphaBetaFit {
  AlphaBeta model;                     ///< fitted α (µs) and β (GB/s)
  std::vector<FitResidual> residuals;  ///< one per point used, ascending size
  double rms_rel_residual = 0;         ///< sqrt(mean(rel_residual²))
  double max_abs_rel_residual = 0;     ///< max |rel_residual|
  bool alpha_clamped = false;  ///< the unconstrained optimum had α < 0; α was fixed at 0 and β refitted
};

/// Least-squares fit of the ring model to measured points, minimizing Σ((model(S_i) − t_i)/t_i)² (relative
/// error, so that small and large sizes weigh alike). The model is linear in (α, 1/β): the 2×2 normal
/// equations are solved exactly; when the optimum has α < 0, α = 0 and 1/β is refitted alone (the constrained
/// optimum). Points with time_us ≤ 0 or size_bytes < 0 are ignored.
/// @param why_not receives the reason when no fit is possible (may be null).
/// @return nullopt when fewer than 2 distinct sizes remain, nranks < 2, `c` has no ring model, or the fitted
///         1/β is not positive (time does not grow with size).
std::optional<AlphaBetaFit> fit_alpha_beta(core::Collective c, int nranks, std::span<const CurvePoint> points,
                                           std::string* why_not = nullptr);

/// How a curve lookup got its time.
enum class LookupMethod {
  kMeasured,      ///< the size was measured
  kInterpolated,  ///< log-log interpolation between the two neighbouring measured sizes
  kExtrapolated,  ///< beyond the measured sizes: α–β fit anchored at the nearest measured point
  kModel,         ///< no measurement: the α–β model itself (typed-in numbers, `fabcheck project`)
};

/// Lowercase name: "measured", "interpolation", "extrapolation", "model".
std::string lookup_method_name(LookupMethod m);

/// One time lookup on a curve.
struct CurveLookup {
  double size_bytes = 0;                       ///< the size asked for
  double time_us = 0;                          ///< the time per operation
  LookupMethod method = LookupMethod::kModel;  ///< how it was obtained
  std::vector<CurvePoint> points_used;         ///< the measured points behind it (0, 1 or 2)
  bool projected = false;  ///< scaled to another rank count by the ring model (kRingProjectionLabel)
};

/// The time of one collective as a function of size on one rank count.
/// Measured curves: exact at measured sizes, log-log interpolation between them (log t linear in log S), and
/// beyond them the α–β fit anchored at the nearest measured point, t(S) = t_edge · model(S)/model(S_edge), so
/// the curve stays continuous; without a fit, beyond the largest size the algBw of the largest point is kept
/// (t ∝ S) and below the smallest size its time is kept.
/// Projected curves (at_nranks) multiply by ring_time(n′, S)/ring_time(n, S) of the fitted model.
class CommCurve {
 public:
  /// A curve from measured points (sizes > 0 and times > 0 are kept; duplicate sizes are averaged). Fits α–β.
  /// @throws std::invalid_argument when no usable point remains, nranks < 1, or `c` has no ring model.
  static CommCurve measured(core::Collective c, int nranks, std::vector<CurvePoint> points);
  /// A curve that is the α–β model itself.
  /// @throws std::invalid_argument when β ≤ 0, α < 0, nranks < 1 or `c` has no ring model.
  static CommCurve model(core::Collective c, int nranks, const AlphaBeta& m);

  /// The same curve projected to `nranks` ranks by the ring model (needs a fit or a model).
  /// @throws std::invalid_argument when nranks < 1 or the curve has no α–β model.
  CommCurve at_nranks(int nranks) const;

  /// Time of one operation of `size_bytes` (> 0).
  /// @throws std::invalid_argument when size_bytes ≤ 0.
  CurveLookup time_at(double size_bytes) const;

  /// The collective.
  core::Collective collective() const { return coll_; }
  /// Ranks the curve describes (after at_nranks: the projected count).
  int nranks() const { return target_nranks_; }
  /// Ranks of the measurement (or of the model).
  int measured_nranks() const { return nranks_; }
  /// Measured points, ascending size, unique (empty for a model curve).
  const std::vector<CurvePoint>& points() const { return points_; }
  /// The α–β fit of the points, or the model of a model curve (nullopt when the fit failed).
  const std::optional<AlphaBetaFit>& fit() const { return fit_; }
  /// Why there is no fit (empty when there is one).
  const std::string& fit_failure() const { return fit_failure_; }
  /// True for a curve made by model().
  bool is_model() const { return model_only_; }

 private:
  CurveLookup lookup_base(double size_bytes) const;

  core::Collective coll_ = core::Collective::kAllReduce;
  int nranks_ = 0;
  int target_nranks_ = 0;
  bool model_only_ = false;
  std::vector<CurvePoint> points_;
  std::optional<AlphaBetaFit> fit_;
  std::string fit_failure_;
};

/// Data parallelism of a training profile.
enum class Parallelism {
  kDdp,   ///< DistributedDataParallel: allreduce of all gradients in buckets
  kFsdp,  ///< FullyShardedDataParallel: per unit 2 allgathers (forward, backward) + 1 reducescatter
  kPp,    ///< pipeline parallel: stages pass activations point to point; the bubble (core::pipeline_step)
};

/// "ddp", "fsdp" or "pp".
std::string parallelism_name(Parallelism p);

/// One stated assumption of a profile: a field, its value as written, and why.
struct Assumption {
  std::string field;  ///< e.g. "parameters"
  std::string value;  ///< the value as text, e.g. "7e9"
  std::string why;    ///< the justification written beside it in workloads.json
};

/// A training profile (configs/workloads.json, DESIGN §5).
struct WorkloadProfile {
  std::string name;                             ///< e.g. "llama-7b-ddp-bf16"
  std::string description;                      ///< one line
  Parallelism parallelism = Parallelism::kDdp;  ///< ddp | fsdp
  double parameters = 0;                        ///< model parameters (count)
  double bytes_per_grad = 2;            ///< bytes per gradient element communicated (allreduce/reducescatter)
  double bytes_per_param = 2;           ///< bytes per parameter element gathered (FSDP allgather)
  double compute_s = 0;                 ///< t_compute: compute seconds per step (> 0)
  double overlap = 0;                   ///< fraction of t_compute communication can hide behind, [0, 1]
  std::uint64_t bucket_bytes = 0;       ///< DDP bucket size (> 0 for ddp)
  int fsdp_units = 0;                   ///< FSDP units (> 0 for fsdp)
  int pp_stages = 0;                    ///< pp: pipeline stages p (≥ 2)
  int pp_micro_batches = 0;             ///< pp: micro-batches per step m (≥ 1)
  double pp_activation_bytes = 0;       ///< pp: bytes one micro-batch sends across one stage boundary
  double pp_forward_s = 0;              ///< pp: forward compute per micro-batch per stage, t_f
  double pp_backward_s = 0;             ///< pp: backward compute per micro-batch per stage, t_b
  std::vector<Assumption> assumptions;  ///< every number with its reason
};

/// Checks a profile. Messages name `where` then the field, e.g. "workload x: overlap 1.5 is outside [0, 1]
/// (...)".
/// @throws UsageError (one line) on: compute_s ≤ 0 or not finite, overlap outside [0, 1], parameters ≤ 0,
///         bytes_per_grad/bytes_per_param ≤ 0, ddp with bucket_bytes 0, fsdp with fsdp_units < 1; pp with
///         pp_stages < 2, pp_micro_batches < 1, pp_activation_bytes ≤ 0, pp_forward_s/pp_backward_s < 0 or
///         both 0 (pp needs none of parameters, bytes_per_grad, overlap; compute_s = m·(t_f + t_b)).
void validate(const WorkloadProfile& p, const std::string& where);

/// One group of identical communication operations within a step.
struct CommStep {
  std::string what;                                            ///< e.g. "allreduce of a full bucket"
  core::Collective collective = core::Collective::kAllReduce;  ///< the collective
  std::uint64_t count = 0;                                     ///< operations of this kind per step
  CurveLookup lookup;                                          ///< the time of one
  double total_s = 0;                                          ///< count · time, seconds
};

/// The projection of one profile onto communication curves (DESIGN §5 step 2).
struct WorkloadProjection {
  std::string workload;                         ///< profile name
  Parallelism parallelism = Parallelism::kDdp;  ///< from the profile
  int nranks = 0;                               ///< ranks the curves describe
  double t_compute_s = 0;                       ///< from the profile
  double overlap = 0;                           ///< from the profile
  double t_comm_s = 0;                          ///< Σ over steps
  double t_last_bucket_s =
      0;                  ///< DDP: one full bucket (or all gradients when smaller); FSDP: one reducescatter
  double exposed_s = 0;   ///< max(t_last_bucket, t_comm − overlap · t_compute)
  double efficiency = 0;  ///< t_compute / (t_compute + exposed)
  std::uint64_t grad_bytes =
      0;  ///< DDP: parameters · bytes_per_grad (rounded); FSDP: per unit reducescatter bytes
  std::uint64_t buckets = 0;    ///< DDP buckets (full + remainder); FSDP units
  std::vector<CommStep> steps;  ///< what was summed
  std::string method;  ///< "measured", "interpolation", "extrapolation", "interpolation+extrapolation",
                       ///< "model" ... (distinct lookup methods joined by '+')
  /// pp only: the pipeline step (core::pipeline_step, 1F1B; GPipe's bubble is the same) and its inputs.
  struct Pipeline {
    int stages = 0, micro_batches = 0;
    double activation_bytes = 0, forward_s = 0, backward_s = 0;
    double p2p_us = 0;       ///< one hop at activation_bytes
    std::string p2p_source;  ///< where p2p_us came from ("--p2p-us", "alpha + S/busBw")
    double bubble_fraction_1f1b = 0, bubble_fraction_gpipe = 0;
    double t_step_s = 0, t_bubble_s = 0;
  };
  std::optional<Pipeline> pipeline;
};

/// The communication curves a projection may need (null = not measured).
struct WorkloadCurves {
  const CommCurve* allreduce = nullptr;      ///< DDP
  const CommCurve* allgather = nullptr;      ///< FSDP
  const CommCurve* reducescatter = nullptr;  ///< FSDP
  /// pp: one point-to-point hop at the profile's activation size, µs, and where it came from; absent = not
  /// known (the projection of a pp profile then throws std::invalid_argument).
  std::optional<double> p2p_us;
  std::string p2p_source;
};

/// Projects a profile (DESIGN §5 step 2).
/// DDP: G = round(parameters · bytes_per_grad) bytes in ⌊G/B⌋ full buckets of B = bucket_bytes plus one
/// remainder bucket of G mod B (when non-zero); t_comm = Σ allreduce times; the last bucket (always exposed)
/// is taken to be a full one, min(B, G) — the conservative choice, independent of parameter order. FSDP: U
/// units of parameters/U parameters; per unit 2 allgathers of parameters·bytes_per_param/U bytes (size column
/// = total gathered) and 1 reducescatter of parameters·bytes_per_grad/U bytes (size column = total input);
/// the last unit's reducescatter is the exposed last bucket.
/// exposed = max(t_last_bucket, t_comm − overlap·t_compute); efficiency = t_compute/(t_compute + exposed).
/// PP: t_compute = m·(t_f + t_b) of one stage, t_comm = 2(p − 1)·t_p2p (the fill and drain hops; the others
/// overlap compute), exposed = the bubble (p − 1)·(t_f + t_b + 2·t_p2p), so efficiency = 1 − bubble fraction
/// (core::pipeline_step).
/// @throws std::invalid_argument when a needed curve is null (message names the collective), or a pp profile
///         has no p2p_us.
WorkloadProjection project_workload(const WorkloadProfile& p, const WorkloadCurves& curves);

/// Bucket-size advice from a measured allreduce curve: the smallest measured size whose busBw reaches
/// `fraction` (0.9) of the plateau (the largest measured busBw), beside PyTorch's 25 MiB default.
struct BucketAdvice {
  double plateau_busbw_gbps = 0;         ///< max busBw over measured sizes
  double plateau_size_bytes = 0;         ///< where it was measured
  bool plateau_at_largest_size = false;  ///< the max is the largest size: the curve may still be rising
  double fraction = 0.9;                 ///< of the plateau
  double advised_bucket_bytes = 0;       ///< smallest measured size with busBw ≥ fraction · plateau
  double advised_busbw_gbps = 0;         ///< its busBw
  double default_bucket_bytes = 0;       ///< 25 MiB (PyTorch DDP bucket_cap_mb = 25)
  double default_busbw_gbps = 0;         ///< busBw at the default size (from the curve)
  std::string default_method;            ///< how the default size's time was obtained
  double default_vs_plateau = 0;         ///< default_busbw / plateau
};

/// PyTorch DDP's default bucket size, 25 MiB (torch.nn.parallel.DistributedDataParallel bucket_cap_mb=25).
inline constexpr std::uint64_t kDdpDefaultBucketBytes = 25ull << 20;

/// Computes bucket advice from an allreduce curve with measured points.
/// @throws std::invalid_argument when the curve is not allreduce or has no measured points.
BucketAdvice advise_bucket(const CommCurve& allreduce, double fraction = 0.9);

}  // namespace fabcheck::report
