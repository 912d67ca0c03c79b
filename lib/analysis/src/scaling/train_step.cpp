// The `step` section: the emulated training step's measurement beside its projection.
#include "fabcheck/report/train_step.hpp"

#include <fmt/format.h>

#include <map>

#include "fabcheck/core/size.hpp"
#include "fabcheck/core/step_math.hpp"
#include "fabcheck/report/overlap.hpp"
#include "fabcheck/report/scaling.hpp"
#include "fabcheck/report/scaling_overlap.hpp"
#include "scaling/summary_json.hpp"

namespace fabcheck::report {

using nlohmann::json;

namespace {

// The step's comm points in the overlap section's shape (report/overlap.hpp), which measured_overlap_for
// reads.
json comm_points_section(const model::TrainStepResult& r) {
  model::OverlapResult o;
  o.nranks = r.nranks;
  o.hosts = r.hosts;
  o.options.poll_us = r.options.poll_us;
  o.options.iters = r.options.iters;
  o.points = r.comm_points;
  json j = overlap_json(o);
  return {{"poll_us", r.options.poll_us}, {"points", j["points"]}};
}

// The step's own comm points as curves: one measured point per size (the median t_comm).
MeasuredCurves step_curves(const model::TrainStepResult& r) {
  std::map<core::Collective, std::vector<CurvePoint>> by;
  for (const auto& p : r.comm_points) {
    if (p.t_comm.p50 > 0) by[p.coll].push_back({static_cast<double>(p.size_bytes), p.t_comm.p50});
  }
  MeasuredCurves c;
  c.nranks = r.nranks;
  for (auto& [coll, pts] : by) {
    auto curve = CommCurve::measured(coll, r.nranks, std::move(pts));
    if (coll == core::Collective::kAllReduce) c.allreduce = curve;
    if (coll == core::Collective::kAllGather) c.allgather = curve;
    if (coll == core::Collective::kReduceScatter) c.reducescatter = curve;
  }
  return c;
}

bool has_curves_for(const MeasuredCurves& c, const WorkloadProfile& p) {
  return p.parallelism == Parallelism::kDdp ? c.allreduce.has_value()
                                            : c.allgather.has_value() && c.reducescatter.has_value();
}

}  // namespace

std::optional<StepProjection> project_train_step(const model::TrainStepResult& r, const WorkloadProfile& p,
                                                 const json& sweeps, std::string* why) {
  WorkloadProfile q = scaled_profile(p, r.plan);
  // The compute that ran: the kernel is sized to the plan, but on shared cores it lasts what it lasts.
  if (r.t_compute.samples > 0 && r.t_compute.p50 > 0) q.compute_s = r.t_compute.p50 * 1e-6;
  StepProjection sp;
  const json section = comm_points_section(r);
  if (auto m = measured_overlap_for(section, q)) {
    q.overlap = m->value;
    sp.overlap_source =
        fmt::format("measured by the step: {} {}, {}", m->coll, core::format_size(m->size_bytes),
                    m->variant == "polled" ? fmt::format("MPI_Test every {:g} us", m->poll_us)
                                           : std::string("no MPI calls during compute"));
  } else {
    sp.overlap_source = "the profile's assumption (no comm point measured)";
  }
  sp.overlap = q.overlap;
  MeasuredCurves curves = curves_from_sweeps(sweeps);
  sp.curves_source = "sweeps";
  if (!has_curves_for(curves, q)) {
    curves = step_curves(r);
    sp.curves_source = "step";
  }
  try {
    sp.projection = project_workload(q, curves.view());
  } catch (const std::invalid_argument& e) {
    if (why) *why = e.what();
    return std::nullopt;
  }
  return sp;
}

json step_json(const model::TrainStepResult& r, const std::optional<StepProjection>& proj,
               const std::string& no_projection_reason) {
  const auto& pl = r.plan;
  json ops = json::array();
  for (const auto& op : pl.ops) {
    switch (op.kind) {
      case model::StepOp::Kind::kCompute:
        ops.push_back({{"op", "compute"}, {"compute_us", op.compute_us}});
        break;
      case model::StepOp::Kind::kPost:
        ops.push_back({{"op", "post"}, {"coll", core::name(op.coll)}, {"size_bytes", op.size_bytes}});
        break;
      case model::StepOp::Kind::kWaitAll:
        ops.push_back({{"op", "wait_all"}});
        break;
    }
  }
  json projected = nullptr;
  json ratio = nullptr;
  if (proj) {
    json in = projection_json(proj->projection);
    projected = {{"efficiency", proj->projection.efficiency},
                 {"exposed_us", proj->projection.exposed_s * 1e6},
                 {"t_comm_us", proj->projection.t_comm_s * 1e6},
                 {"t_compute_us", proj->projection.t_compute_s * 1e6},
                 {"overlap", proj->overlap},
                 {"overlap_source", proj->overlap_source},
                 {"curves", proj->curves_source},
                 {"method", proj->projection.method},
                 {"inputs", in}};
    if (r.have_efficiency && r.measured_efficiency > 0 && proj->projection.efficiency > 0)
      ratio = r.measured_efficiency / proj->projection.efficiency;
  }
  return {
      {"workload", pl.workload},
      {"parallelism", pl.parallelism},
      {"backend", r.backend},
      {"mpi_library", r.mpi_library},
      {"nranks", r.nranks},
      {"hosts", r.hosts},
      {"compute_kernel", r.compute_kernel},
      {"us_per_unit", r.us_per_unit},
      {"iters", r.options.iters},
      {"warmup", r.options.warmup},
      {"poll_us", r.options.poll_us},
      {"scale", pl.scale},
      {"scale_given", r.options.scale > 0},
      {"real_buckets", pl.real_buckets},
      {"buckets", pl.buckets},
      {"bucket_bytes", pl.parallelism == "ddp" ? json(pl.bucket_bytes) : json(nullptr)},
      {"allgather_bytes", pl.parallelism == "fsdp" ? json(pl.allgather_bytes) : json(nullptr)},
      {"reducescatter_bytes", pl.parallelism == "fsdp" ? json(pl.reducescatter_bytes) : json(nullptr)},
      {"real_compute_us", pl.real_compute_s * 1e6},
      {"compute_us", pl.compute_s * 1e6},
      {"scaled_note",
       fmt::format("scaled step: {} of {} {} ({:.4g} of the step) and {:.1f} of {:.1f} ms of compute; "
                   "bucket sizes as in the profile",
                   pl.buckets, pl.real_buckets, pl.parallelism == "ddp" ? "buckets" : "units", pl.scale,
                   pl.compute_s * 1e3, pl.real_compute_s * 1e3)},
      {"description", pl.description},
      {"ops", ops},
      {"t_step_us", detail::summary_json(r.t_step)},
      {"t_compute_us", detail::summary_json(r.t_compute)},
      {"measured_efficiency", r.have_efficiency ? json(r.measured_efficiency) : json(nullptr)},
      {"exposed_us", r.exposed_us},
      {"definition",
       "measured_efficiency = t_compute / t_step of the medians; exposed = max(0, t_step - t_compute); every "
       "sample is the slowest rank's"},
      {"projected", projected},
      {"projection_reason", proj ? json(nullptr) : json(no_projection_reason)},
      {"measured_vs_projected", ratio},
      {"agreement_factor", kStepAgreementFactor},
      {"comm_points", comm_points_section(r)["points"]},
      {"duration_s", r.duration_s}};
}

void add_step(Document& doc, const model::TrainStepResult& r, const WorkloadProfile& p) {
  json& root = doc.json();
  std::string why;
  const auto proj = project_train_step(r, p, root.contains("sweeps") ? root["sweeps"] : json(), &why);
  root["step"] = step_json(r, proj, why);
  doc.set_section("step", SectionStatus::kOk);
  if (!proj || !r.have_efficiency) return;
  const double m = r.measured_efficiency, e = proj->projection.efficiency;
  if (core::within_factor(m, e, kStepAgreementFactor)) return;
  doc.add_finding(
      {Severity::kWarn,
       "STEP_PROJECTION_MISMATCH",
       fmt::format(
           "The emulated {} step reaches {:.1f} % efficiency, the projection from the curves {:.1f} % "
           "(overlap {:.2f}): they differ by more than a factor {:g}.",
           r.plan.workload, 100 * m, 100 * e, proj->overlap, kStepAgreementFactor),
       {{"measured_efficiency", m},
        {"projected_efficiency", e},
        {"factor", kStepAgreementFactor},
        {"curves", proj->curves_source},
        {"overlap", proj->overlap}},
       m < e ? "the step loses more than its parts predict: look for contention between the buckets "
               "(one slow rank or host: fabcheck pairs), CPU contention with the compute, or an MPI that "
               "serializes nonblocking collectives; trust the measured figure"
             : "the step hides more than the projection assumes (overlap measured on one size); trust the "
               "measured figure"});
}

std::string render_step(const json& s) {
  std::string out = fmt::format(
      "# fabcheck step: {} ({}), {} ranks on {} host{}, {} iterations, {}\n",
      s["workload"].get<std::string>(), s["parallelism"].get<std::string>(), s["nranks"].get<int>(),
      s["hosts"].size(), s["hosts"].size() == 1 ? "" : "s", s["iters"].get<int>(),
      s["poll_us"].get<double>() > 0
          ? fmt::format("MPI_Test every {:g} us of compute", s["poll_us"].get<double>())
          : std::string("no MPI call during compute"));
  out += "# " + s["scaled_note"].get<std::string>() + "\n";
  out += "# " + s["description"].get<std::string>() + "\n";
  for (const auto& p : s["comm_points"]) {
    out += fmt::format(
        "#   {} {}: t_comm p50 {:.1f} us, overlap {}{}\n", p["coll"].get<std::string>(),
        core::format_size(p["size_bytes"].get<std::uint64_t>()), p["t_comm_us"]["p50"].get<double>(),
        p["overlap"].is_number() ? fmt::format("{:.2f}", p["overlap"].get<double>()) : "-",
        p["overlap_poll"].is_number() ? fmt::format(", polled {:.2f}", p["overlap_poll"].get<double>()) : "");
  }
  auto pair = [](const json& x) {
    return x.is_object() ? fmt::format("{:.1f}/{:.1f}", x["p50"].get<double>(), x["p99"].get<double>()) : "-";
  };
  out += fmt::format("# t_step p50/p99 {} us, t_compute {} us, exposed {:.1f} us per step\n",
                     pair(s["t_step_us"]), pair(s["t_compute_us"]), s["exposed_us"].get<double>());
  const std::string meas = s["measured_efficiency"].is_number()
                               ? fmt::format("{:.1f} %", 100 * s["measured_efficiency"].get<double>())
                               : std::string("-");
  if (s["projected"].is_object()) {
    const json& p = s["projected"];
    out += fmt::format(
        "measured efficiency {} (t_compute / t_step); projected {:.1f} % from the {} curves with overlap "
        "{:.2f} "
        "({}), exposed {:.1f} us\n",
        meas, 100 * p["efficiency"].get<double>(), p["curves"].get<std::string>(), p["overlap"].get<double>(),
        p["overlap_source"].get<std::string>(), p["exposed_us"].get<double>());
  } else {
    out += fmt::format("measured efficiency {} (t_compute / t_step); no projection ({})\n", meas,
                       s["projection_reason"].is_string() ? s["projection_reason"].get<std::string>() : "");
  }
  return out;
}

}  // namespace fabcheck::report
