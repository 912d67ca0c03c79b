#include "fabcheck/report/scaling_model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>

#include "fabcheck/core/error.hpp"
#include "fabcheck/core/pipeline_math.hpp"

namespace fabcheck::report {

bool has_ring_model(core::Collective c) {
  return c == core::Collective::kAllReduce || c == core::Collective::kAllGather ||
         c == core::Collective::kReduceScatter;
}

RingCoefficients ring_coefficients(core::Collective c, int nranks) {
  if (nranks < 1) throw std::invalid_argument("ring model: nranks must be >= 1");
  if (!has_ring_model(c)) {
    throw std::invalid_argument(fmt::format("ring model: no model for {}", core::name(c)));
  }
  const double n = nranks;
  if (c == core::Collective::kAllReduce) return {2.0 * (n - 1.0), 2.0 * (n - 1.0) / n};
  return {n - 1.0, (n - 1.0) / n};
}

double ring_time_us(core::Collective c, int nranks, const AlphaBeta& m, double size_bytes) {
  if (!(m.beta_gbps > 0)) throw std::invalid_argument("ring model: beta must be > 0");
  const RingCoefficients k = ring_coefficients(c, nranks);
  // S bytes / (β·1e9 B/s) seconds = S/(β·1e3) µs.
  return k.latency_steps * m.alpha_us + k.bandwidth_factor * size_bytes / (m.beta_gbps * 1e3);
}

std::optional<AlphaBetaFit> fit_alpha_beta(core::Collective c, int nranks, std::span<const CurvePoint> points,
                                           std::string* why_not) {
  auto fail = [&](std::string msg) -> std::optional<AlphaBetaFit> {
    if (why_not) *why_not = std::move(msg);
    return std::nullopt;
  };
  if (!has_ring_model(c)) return fail(fmt::format("no ring model for {}", core::name(c)));
  if (nranks < 2) return fail("one rank: the ring model has no communication to fit");
  std::vector<CurvePoint> pts;
  for (const auto& p : points) {
    if (p.time_us > 0 && p.size_bytes >= 0 && std::isfinite(p.time_us) && std::isfinite(p.size_bytes)) {
      pts.push_back(p);
    }
  }
  std::sort(pts.begin(), pts.end(),
            [](const CurvePoint& a, const CurvePoint& b) { return a.size_bytes < b.size_bytes; });
  std::set<double> sizes;
  for (const auto& p : pts) sizes.insert(p.size_bytes);
  if (sizes.size() < 2) return fail("fewer than 2 distinct measured sizes");

  const RingCoefficients k = ring_coefficients(c, nranks);
  // Relative residual r_i = (a·α + b·S_i·x)/t_i − 1 with x = 1/β in µs per byte: linear in (α, x).
  // u_i = a/t_i, v_i = b·S_i/t_i; minimize Σ(u_i α + v_i x − 1)².
  double suu = 0, suv = 0, svv = 0, su = 0, sv = 0;
  for (const auto& p : pts) {
    const double u = k.latency_steps / p.time_us;
    const double v = k.bandwidth_factor * p.size_bytes / p.time_us;
    suu += u * u;
    suv += u * v;
    svv += v * v;
    su += u;
    sv += v;
  }
  double alpha = 0, x = 0;
  bool clamped = false;
  const double det = suu * svv - suv * suv;
  if (det > 1e-12 * suu * svv) {
    alpha = (su * svv - sv * suv) / det;
    x = (suu * sv - suv * su) / det;
  } else {
    alpha = -1;  // degenerate: fall through to the α = 0 fit
  }
  if (alpha < 0) {
    clamped = true;
    alpha = 0;
    if (!(svv > 0)) return fail("all sizes are 0: bandwidth cannot be fitted");
    x = sv / svv;
  }
  if (!(x > 0)) return fail("time does not grow with size: bandwidth cannot be fitted");

  AlphaBetaFit fit;
  fit.model.alpha_us = alpha;
  fit.model.beta_gbps = 1.0 / (x * 1e3);  // x µs/byte → β = 1/x bytes/µs = 1e6/x B/s = 1e-3/x GB/s
  fit.alpha_clamped = clamped;
  double ss = 0;
  for (const auto& p : pts) {
    FitResidual r;
    r.size_bytes = p.size_bytes;
    r.time_us = p.time_us;
    r.model_us = ring_time_us(c, nranks, fit.model, p.size_bytes);
    r.rel_residual = (r.model_us - p.time_us) / p.time_us;
    ss += r.rel_residual * r.rel_residual;
    fit.max_abs_rel_residual = std::max(fit.max_abs_rel_residual, std::abs(r.rel_residual));
    fit.residuals.push_back(r);
  }
  fit.rms_rel_residual = std::sqrt(ss / static_cast<double>(pts.size()));
  return fit;
}

std::string lookup_method_name(LookupMethod m) {
  switch (m) {
    case LookupMethod::kMeasured:
      return "measured";
    case LookupMethod::kInterpolated:
      return "interpolation";
    case LookupMethod::kExtrapolated:
      return "extrapolation";
    case LookupMethod::kModel:
      return "model";
  }
  return "model";
}

CommCurve CommCurve::measured(core::Collective c, int nranks, std::vector<CurvePoint> points) {
  if (nranks < 1) throw std::invalid_argument("curve: nranks must be >= 1");
  if (!has_ring_model(c))
    throw std::invalid_argument(fmt::format("curve: no ring model for {}", core::name(c)));
  std::map<double, std::pair<double, int>> by_size;
  for (const auto& p : points) {
    if (!(p.size_bytes > 0) || !(p.time_us > 0) || !std::isfinite(p.size_bytes) ||
        !std::isfinite(p.time_us)) {
      continue;
    }
    auto& acc = by_size[p.size_bytes];
    acc.first += p.time_us;
    acc.second += 1;
  }
  if (by_size.empty()) {
    throw std::invalid_argument(fmt::format("curve: no {} point with size > 0 and time > 0", core::name(c)));
  }
  CommCurve curve;
  curve.coll_ = c;
  curve.nranks_ = nranks;
  curve.target_nranks_ = nranks;
  for (const auto& [s, acc] : by_size) curve.points_.push_back({s, acc.first / acc.second});
  curve.fit_ = fit_alpha_beta(c, nranks, curve.points_, &curve.fit_failure_);
  return curve;
}

CommCurve CommCurve::model(core::Collective c, int nranks, const AlphaBeta& m) {
  if (nranks < 1) throw std::invalid_argument("curve: nranks must be >= 1");
  if (!has_ring_model(c))
    throw std::invalid_argument(fmt::format("curve: no ring model for {}", core::name(c)));
  if (!(m.beta_gbps > 0) || !std::isfinite(m.beta_gbps))
    throw std::invalid_argument("curve: beta must be > 0");
  if (!(m.alpha_us >= 0) || !std::isfinite(m.alpha_us))
    throw std::invalid_argument("curve: alpha must be >= 0");
  CommCurve curve;
  curve.coll_ = c;
  curve.nranks_ = nranks;
  curve.target_nranks_ = nranks;
  curve.model_only_ = true;
  AlphaBetaFit f;
  f.model = m;
  curve.fit_ = f;
  return curve;
}

CommCurve CommCurve::at_nranks(int nranks) const {
  if (nranks < 1) throw std::invalid_argument("curve: nranks must be >= 1");
  if (!fit_) throw std::invalid_argument("curve: no alpha-beta model to project with (" + fit_failure_ + ")");
  CommCurve c = *this;
  c.target_nranks_ = nranks;
  return c;
}

CurveLookup CommCurve::lookup_base(double size) const {
  CurveLookup out;
  out.size_bytes = size;
  if (model_only_) {
    out.method = LookupMethod::kModel;
    out.time_us = ring_time_us(coll_, nranks_, fit_->model, size);
    return out;
  }
  const auto& pts = points_;
  auto model_at = [&](double s) { return ring_time_us(coll_, nranks_, fit_->model, s); };
  if (size < pts.front().size_bytes) {
    const CurvePoint& e = pts.front();
    out.method = LookupMethod::kExtrapolated;
    out.points_used = {e};
    const double me = fit_ ? model_at(e.size_bytes) : 0;
    out.time_us = (fit_ && me > 0) ? e.time_us * model_at(size) / me : e.time_us;
    return out;
  }
  if (size > pts.back().size_bytes) {
    const CurvePoint& e = pts.back();
    out.method = LookupMethod::kExtrapolated;
    out.points_used = {e};
    const double me = fit_ ? model_at(e.size_bytes) : 0;
    out.time_us = (fit_ && me > 0) ? e.time_us * model_at(size) / me : e.time_us * size / e.size_bytes;
    return out;
  }
  auto hi = std::lower_bound(pts.begin(), pts.end(), size,
                             [](const CurvePoint& p, double s) { return p.size_bytes < s; });
  if (hi->size_bytes == size) {
    out.method = LookupMethod::kMeasured;
    out.points_used = {*hi};
    out.time_us = hi->time_us;
    return out;
  }
  auto lo = hi - 1;
  out.method = LookupMethod::kInterpolated;
  out.points_used = {*lo, *hi};
  const double f =
      (std::log(size) - std::log(lo->size_bytes)) / (std::log(hi->size_bytes) - std::log(lo->size_bytes));
  out.time_us = std::exp(std::log(lo->time_us) + f * (std::log(hi->time_us) - std::log(lo->time_us)));
  return out;
}

CurveLookup CommCurve::time_at(double size_bytes) const {
  if (!(size_bytes > 0) || !std::isfinite(size_bytes)) throw std::invalid_argument("curve: size must be > 0");
  CurveLookup out = lookup_base(size_bytes);
  if (target_nranks_ != nranks_) {
    const double base = ring_time_us(coll_, nranks_, fit_->model, size_bytes);
    const double proj = ring_time_us(coll_, target_nranks_, fit_->model, size_bytes);
    out.time_us = base > 0 ? out.time_us * proj / base : proj;
    out.projected = true;
  }
  return out;
}

std::string parallelism_name(Parallelism p) {
  switch (p) {
    case Parallelism::kDdp:
      return "ddp";
    case Parallelism::kFsdp:
      return "fsdp";
    case Parallelism::kPp:
      return "pp";
  }
  return "?";
}

void validate(const WorkloadProfile& p, const std::string& where) {
  auto bad = [&](const std::string& msg) { throw UsageError(fmt::format("{}: {}", where, msg)); };
  if (p.parallelism == Parallelism::kPp) {
    if (p.pp_stages < 2)
      bad(fmt::format("pp_stages {} must be >= 2 (one stage is no pipeline)", p.pp_stages));
    if (p.pp_micro_batches < 1) bad(fmt::format("pp_micro_batches {} must be >= 1", p.pp_micro_batches));
    if (!(p.pp_activation_bytes > 0) || !std::isfinite(p.pp_activation_bytes)) {
      bad(fmt::format("pp_activation_bytes {} must be > 0 (micro-batch x sequence x hidden x bytes)",
                      p.pp_activation_bytes));
    }
    std::string why;
    if (!core::pipeline_step(core::PipelineSchedule::kOneFOneB, p.pp_stages, p.pp_micro_batches,
                             p.pp_forward_s, p.pp_backward_s, 0, &why)) {
      bad(fmt::format("pp_forward_s {} / pp_backward_s {}: {}", p.pp_forward_s, p.pp_backward_s, why));
    }
    return;
  }
  if (!(p.compute_s > 0) || !std::isfinite(p.compute_s)) {
    bad(fmt::format("compute_s {} must be > 0 (seconds of compute per step)", p.compute_s));
  }
  if (!(p.overlap >= 0 && p.overlap <= 1)) {
    bad(fmt::format("overlap {} is outside [0, 1] (a fraction of the compute time, e.g. 0.8)", p.overlap));
  }
  if (!(p.parameters > 0) || !std::isfinite(p.parameters))
    bad(fmt::format("parameters {} must be > 0", p.parameters));
  if (!(p.bytes_per_grad > 0) || !std::isfinite(p.bytes_per_grad)) {
    bad(fmt::format("bytes_per_grad {} must be > 0 (2 for bf16, 4 for fp32)", p.bytes_per_grad));
  }
  if (!(p.bytes_per_param > 0) || !std::isfinite(p.bytes_per_param)) {
    bad(fmt::format("bytes_per_param {} must be > 0 (2 for bf16, 4 for fp32)", p.bytes_per_param));
  }
  if (p.parallelism == Parallelism::kDdp && p.bucket_bytes == 0) {
    bad("bucket_bytes must be > 0 for ddp (PyTorch's default is 25M)");
  }
  if (p.parallelism == Parallelism::kFsdp && p.fsdp_units < 1) {
    bad(fmt::format("fsdp_units {} must be >= 1 (e.g. one per transformer layer)", p.fsdp_units));
  }
}

namespace {

std::string join_methods(const std::vector<CommStep>& steps) {
  std::vector<std::string> names;
  for (LookupMethod m : {LookupMethod::kMeasured, LookupMethod::kInterpolated, LookupMethod::kExtrapolated,
                         LookupMethod::kModel}) {
    for (const auto& s : steps) {
      if (s.count > 0 && s.lookup.method == m) {
        names.push_back(lookup_method_name(m));
        break;
      }
    }
  }
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : "+") + n;
  return out;
}

CommStep make_step(std::string what, const CommCurve& curve, std::uint64_t count, double size_bytes) {
  CommStep s;
  s.what = std::move(what);
  s.collective = curve.collective();
  s.count = count;
  s.lookup = curve.time_at(size_bytes);
  s.total_s = static_cast<double>(count) * s.lookup.time_us * 1e-6;
  return s;
}

}  // namespace

namespace {

WorkloadProjection project_pipeline(const WorkloadProfile& p, const WorkloadCurves& curves) {
  if (!curves.p2p_us) {
    throw std::invalid_argument(
        "pp needs the point-to-point time of one activation hop (fabcheck project --p2p-us or --busbw; the "
        "scaling step does not measure it yet)");
  }
  const double t_p2p_s = *curves.p2p_us * 1e-6;
  std::string why;
  const auto s = core::pipeline_step(core::PipelineSchedule::kOneFOneB, p.pp_stages, p.pp_micro_batches,
                                     p.pp_forward_s, p.pp_backward_s, t_p2p_s, &why);
  const auto g = core::pipeline_step(core::PipelineSchedule::kGpipe, p.pp_stages, p.pp_micro_batches,
                                     p.pp_forward_s, p.pp_backward_s, t_p2p_s, &why);
  if (!s || !g) throw std::invalid_argument("pp: " + why);
  WorkloadProjection w;
  w.workload = p.name;
  w.parallelism = p.parallelism;
  w.nranks = p.pp_stages;
  w.t_compute_s = s->t_ideal_s;
  w.overlap = 0;
  w.t_comm_s = 2.0 * (p.pp_stages - 1) * t_p2p_s;
  w.t_last_bucket_s = 0;
  w.exposed_s = s->t_bubble_s;
  w.efficiency = s->efficiency;
  w.method = curves.p2p_source;
  WorkloadProjection::Pipeline pl;
  pl.stages = p.pp_stages;
  pl.micro_batches = p.pp_micro_batches;
  pl.activation_bytes = p.pp_activation_bytes;
  pl.forward_s = p.pp_forward_s;
  pl.backward_s = p.pp_backward_s;
  pl.p2p_us = *curves.p2p_us;
  pl.p2p_source = curves.p2p_source;
  pl.bubble_fraction_1f1b = s->bubble_fraction;
  pl.bubble_fraction_gpipe = g->bubble_fraction;
  pl.t_step_s = s->t_step_s;
  pl.t_bubble_s = s->t_bubble_s;
  w.pipeline = pl;
  return w;
}

}  // namespace

WorkloadProjection project_workload(const WorkloadProfile& p, const WorkloadCurves& curves) {
  if (p.parallelism == Parallelism::kPp) return project_pipeline(p, curves);
  WorkloadProjection w;
  w.workload = p.name;
  w.parallelism = p.parallelism;
  w.t_compute_s = p.compute_s;
  w.overlap = p.overlap;
  if (p.parallelism == Parallelism::kDdp) {
    if (!curves.allreduce) throw std::invalid_argument("no allreduce curve (ddp needs allreduce)");
    const CommCurve& ar = *curves.allreduce;
    w.nranks = ar.nranks();
    const auto grad = static_cast<std::uint64_t>(std::llround(p.parameters * p.bytes_per_grad));
    const std::uint64_t bucket = p.bucket_bytes;
    w.grad_bytes = grad;
    const std::uint64_t full = grad / bucket;
    const std::uint64_t rem = grad % bucket;
    w.buckets = full + (rem > 0 ? 1 : 0);
    if (full > 0)
      w.steps.push_back(make_step("allreduce of a full bucket", ar, full, static_cast<double>(bucket)));
    if (rem > 0)
      w.steps.push_back(make_step("allreduce of the remainder bucket", ar, 1, static_cast<double>(rem)));
    // The last bucket: a full one (the conservative choice), or all gradients when they fit in one bucket.
    w.t_last_bucket_s =
        full > 0 ? w.steps.front().lookup.time_us * 1e-6 : w.steps.back().lookup.time_us * 1e-6;
  } else {
    if (!curves.allgather) throw std::invalid_argument("no allgather curve (fsdp needs allgather)");
    if (!curves.reducescatter)
      throw std::invalid_argument("no reducescatter curve (fsdp needs reducescatter)");
    w.nranks = curves.allgather->nranks();
    const auto units = static_cast<std::uint64_t>(p.fsdp_units);
    const double unit_params = p.parameters / static_cast<double>(units);
    const double ag_bytes = unit_params * p.bytes_per_param;
    const double rs_bytes = unit_params * p.bytes_per_grad;
    w.grad_bytes = static_cast<std::uint64_t>(std::llround(rs_bytes));
    w.buckets = units;
    w.steps.push_back(make_step("allgather of a unit's parameters (forward and backward)", *curves.allgather,
                                2 * units, ag_bytes));
    w.steps.push_back(
        make_step("reducescatter of a unit's gradients", *curves.reducescatter, units, rs_bytes));
    w.t_last_bucket_s = w.steps.back().lookup.time_us * 1e-6;
  }
  for (const auto& s : w.steps) w.t_comm_s += s.total_s;
  w.exposed_s = std::max(w.t_last_bucket_s, w.t_comm_s - p.overlap * p.compute_s);
  w.efficiency = p.compute_s / (p.compute_s + w.exposed_s);
  w.method = join_methods(w.steps);
  return w;
}

BucketAdvice advise_bucket(const CommCurve& allreduce, double fraction) {
  if (allreduce.collective() != core::Collective::kAllReduce) {
    throw std::invalid_argument("bucket advice needs the allreduce curve");
  }
  if (allreduce.points().empty())
    throw std::invalid_argument("bucket advice needs measured allreduce points");
  const double factor = core::busbw_factor(core::Collective::kAllReduce, allreduce.measured_nranks());
  auto busbw = [&](double size, double time_us) {
    return time_us > 0 ? size / (time_us * 1e3) * factor : 0.0;
  };
  BucketAdvice a;
  a.fraction = fraction;
  const auto& pts = allreduce.points();
  for (const auto& p : pts) {
    const double b = busbw(p.size_bytes, p.time_us);
    if (b > a.plateau_busbw_gbps) {
      a.plateau_busbw_gbps = b;
      a.plateau_size_bytes = p.size_bytes;
    }
  }
  a.plateau_at_largest_size = a.plateau_size_bytes == pts.back().size_bytes;
  for (const auto& p : pts) {
    const double b = busbw(p.size_bytes, p.time_us);
    if (b >= fraction * a.plateau_busbw_gbps) {
      a.advised_bucket_bytes = p.size_bytes;
      a.advised_busbw_gbps = b;
      break;
    }
  }
  a.default_bucket_bytes = static_cast<double>(kDdpDefaultBucketBytes);
  const CurveLookup d = allreduce.time_at(a.default_bucket_bytes);
  a.default_busbw_gbps = busbw(a.default_bucket_bytes, d.time_us);
  a.default_method = lookup_method_name(d.method);
  a.default_vs_plateau = a.plateau_busbw_gbps > 0 ? a.default_busbw_gbps / a.plateau_busbw_gbps : 0;
  return a;
}

}  // namespace fabcheck::report
