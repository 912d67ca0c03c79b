#include "fabcheck/report/scaling.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "fabcheck/core/collective.hpp"
#include "fabcheck/core/size.hpp"
#include "fabcheck/report/scaling_overlap.hpp"

namespace fabcheck::report {

using nlohmann::json;

namespace {

std::string size_text(double bytes) {
  const double r = std::round(bytes);
  if (r >= 1 && std::abs(r - bytes) < 1e-9) return core::format_size(static_cast<std::uint64_t>(r));
  return fmt::format("{:.0f}", bytes);
}

json points_json(const std::vector<CurvePoint>& pts) {
  json a = json::array();
  for (const auto& p : pts) a.push_back({{"size_bytes", p.size_bytes}, {"time_us", p.time_us}});
  return a;
}

}  // namespace

WorkloadCurves MeasuredCurves::view() const {
  WorkloadCurves v;
  if (allreduce) v.allreduce = &*allreduce;
  if (allgather) v.allgather = &*allgather;
  if (reducescatter) v.reducescatter = &*reducescatter;
  return v;
}

const CommCurve* MeasuredCurves::get(core::Collective c) const {
  switch (c) {
    case core::Collective::kAllReduce:
      return allreduce ? &*allreduce : nullptr;
    case core::Collective::kAllGather:
      return allgather ? &*allgather : nullptr;
    case core::Collective::kReduceScatter:
      return reducescatter ? &*reducescatter : nullptr;
    default:
      return nullptr;
  }
}

MeasuredCurves curves_from_sweeps(const json& sweeps) {
  MeasuredCurves out;
  if (!sweeps.is_array()) return out;
  for (const auto& s : sweeps) {
    if (!s.is_object() || !s.contains("collective") || !s["collective"].is_string()) continue;
    const auto coll = core::parse_collective(s["collective"].get<std::string>());
    if (!coll || !has_ring_model(*coll)) continue;
    std::optional<CommCurve>* slot = *coll == core::Collective::kAllReduce   ? &out.allreduce
                                     : *coll == core::Collective::kAllGather ? &out.allgather
                                                                             : &out.reducescatter;
    if (slot->has_value()) continue;  // the first entry of each collective
    if (!s.contains("nranks") || !s["nranks"].is_number_integer() || !s.contains("points") ||
        !s["points"].is_array()) {
      continue;
    }
    const int nranks = s["nranks"].get<int>();
    if (nranks < 2) continue;
    std::vector<CurvePoint> pts;
    for (const auto& p : s["points"]) {
      if (!p.is_object() || !p.contains("size_bytes") || !p.contains("time_us")) continue;
      if (!p["size_bytes"].is_number() || !p["time_us"].is_number()) continue;
      if (p.contains("placement") && p["placement"].is_string() && p["placement"] != "out_of_place") continue;
      pts.push_back({p["size_bytes"].get<double>(), p["time_us"].get<double>()});
    }
    try {
      *slot = CommCurve::measured(*coll, nranks, std::move(pts));
    } catch (const std::invalid_argument&) {
      continue;  // no usable point
    }
    if (out.nranks == 0) {
      out.nranks = nranks;
      if (s.contains("dtype") && s["dtype"].is_string()) out.dtype = s["dtype"].get<std::string>();
    }
  }
  return out;
}

std::string score_sentence(const std::string& workload, int hosts, double efficiency, double exposed_s,
                           const std::string& subject) {
  return fmt::format(
      "For {} on {} host{} {} delivers {:.1f} % of ideal scaling; communication exposes {:.1f} ms per step.",
      workload, hosts, hosts == 1 ? "" : "s", subject, efficiency * 100.0, exposed_s * 1e3);
}

json projection_json(const WorkloadProjection& w) {
  json cp = json::array();
  for (const auto& s : w.steps) {
    cp.push_back({{"what", s.what},
                  {"collective", std::string(core::name(s.collective))},
                  {"count", s.count},
                  {"size_bytes", s.lookup.size_bytes},
                  {"time_us", s.lookup.time_us},
                  {"total_s", s.total_s},
                  {"method", lookup_method_name(s.lookup.method)},
                  {"projected", s.lookup.projected},
                  {"points", points_json(s.lookup.points_used)}});
  }
  json out = {{"workload", w.workload},
              {"parallelism", parallelism_name(w.parallelism)},
              {"nranks", w.nranks},
              {"efficiency", w.efficiency},
              {"t_compute_s", w.t_compute_s},
              {"t_comm_s", w.t_comm_s},
              {"t_last_bucket_s", w.t_last_bucket_s},
              {"exposed_s", w.exposed_s},
              {"overlap", w.overlap},
              {"method", w.method},
              {"grad_bytes", w.grad_bytes},
              {"buckets", w.buckets},
              {"curve_points", cp}};
  if (w.pipeline) {
    const auto& pl = *w.pipeline;
    out["pipeline"] = {{"stages", pl.stages},
                       {"micro_batches", pl.micro_batches},
                       {"activation_bytes", pl.activation_bytes},
                       {"forward_s", pl.forward_s},
                       {"backward_s", pl.backward_s},
                       {"p2p_us", pl.p2p_us},
                       {"p2p_source", pl.p2p_source},
                       {"bubble_fraction_1f1b", pl.bubble_fraction_1f1b},
                       {"bubble_fraction_gpipe", pl.bubble_fraction_gpipe},
                       {"t_step_s", pl.t_step_s},
                       {"t_bubble_s", pl.t_bubble_s},
                       {"formula",
                        "bubble = (p-1)(t_f + t_b + 2 t_p2p) / (m(t_f + t_b) + (p-1)(t_f + t_b + 2 t_p2p)), "
                        "1F1B and GPipe alike "
                        "(Narayanan et al. SC'21 2.2.1; Huang et al. NeurIPS'19)"}};
  }
  return out;
}

json assumptions_json(const WorkloadProfile& p, bool measured, bool intra_node_only) {
  json a = json::array();
  for (const auto& x : p.assumptions) a.push_back(fmt::format("{} = {}: {}", x.field, x.value, x.why));
  if (p.parallelism != Parallelism::kPp) {
    a.push_back(
        "exposed = max(t_last_bucket, t_comm - overlap * t_compute); efficiency = t_compute / (t_compute + "
        "exposed) (DESIGN §5)");
  }
  if (p.parallelism == Parallelism::kPp) {
    a.push_back(
        "PP: bubble = (p-1)(t_f + t_b + 2 t_p2p) per step, efficiency = m(t_f + t_b) / (m(t_f + t_b) + "
        "bubble); "
        "hops inside the steady state overlap compute (1F1B; GPipe has the same bubble)");
  } else if (p.parallelism == Parallelism::kDdp) {
    a.push_back(
        "DDP allreduces all gradients in buckets; the last bucket, always exposed, is taken to be a full "
        "bucket (the conservative choice); a remainder bucket is counted once");
  } else {
    a.push_back(
        "FSDP: per unit 2 allgathers (forward and backward) and 1 reducescatter; the last unit's "
        "reducescatter is the exposed last bucket");
  }
  if (measured) {
    a.push_back(
        "per-step communication from the measured curves: log-log interpolation between measured sizes, the "
        "alpha-beta fit anchored at the nearest measured point beyond them");
    a.push_back("communication time depends on bytes only: the sweep's dtype stands in for the profile's");
    a.push_back("the sweep's ranks stand for the job's data-parallel ranks (one rank per GPU)");
  } else {
    a.push_back("ring model with the typed-in busBw as beta (busBw tends to beta for large sizes)");
  }
  if (intra_node_only) a.push_back("measured within one host (shared memory), not across the fabric");
  return a;
}

json fit_json(const CommCurve& curve) {
  const auto& f = curve.fit();
  if (!f) {
    return {{"nranks", curve.measured_nranks()},
            {"alpha_us", nullptr},
            {"beta_gbps", nullptr},
            {"points", curve.points().size()},
            {"reason", curve.fit_failure()}};
  }
  json res = json::array();
  for (const auto& r : f->residuals) {
    res.push_back({{"size_bytes", r.size_bytes},
                   {"time_us", r.time_us},
                   {"model_us", r.model_us},
                   {"rel_residual", r.rel_residual}});
  }
  return {
      {"nranks", curve.measured_nranks()},
      {"alpha_us", f->model.alpha_us},
      {"beta_gbps", f->model.beta_gbps},
      {"alpha_clamped", f->alpha_clamped},
      {"points", f->residuals.size()},
      {"rms_rel_residual", f->rms_rel_residual},
      {"max_abs_rel_residual", f->max_abs_rel_residual},
      {"residuals", res},
      {"fit", "least squares on relative error; t = L(n)*alpha + F(n)*S/beta (DESIGN §5)"},
      {"note", "on the MPI backend alpha and beta are effective values of whatever algorithms MPI chose"}};
}

void check_scaling_workload(const model::ScalingOptions& opts) {
  const WorkloadSet set = load_workloads(opts.workloads_file, "--workloads");
  (void)find_workload(set, opts.workload, "--workload");
}

void add_scaling(Document& doc, const model::ScalingResult& r) {
  add_scaling(doc, r, load_workloads(r.options.workloads_file, "--workloads"));
}

namespace {

constexpr core::Collective kRingCollectives[] = {core::Collective::kAllReduce, core::Collective::kAllGather,
                                                 core::Collective::kReduceScatter};

// 1. Group scaling: the measured busBw per group of hosts (or local ranks), against the first group.
json group_scaling_json(const model::ScalingResult& r) {
  const bool intra = r.intra_node_only;
  json scaling = json::object();
  scaling["collective"] = std::string(core::name(r.options.collective));
  scaling["size_bytes"] = r.groups.empty() ? json(r.options.size_bytes) : json(r.groups.front().size_bytes);
  scaling["intra_node_only"] = intra;
  json groups = json::array();
  const double base = r.groups.empty() ? 0.0 : r.groups.front().busbw_gbps;
  for (const auto& g : r.groups) {
    json j = {{"hosts", g.hosts},
              {"nranks", g.nranks},
              {"host_names", g.host_names},
              {"size_bytes", g.size_bytes},
              {"time_us", g.time_us},
              {"algbw_gbps", g.algbw_gbps},
              {"busbw_gbps", g.busbw_gbps},
              {"vs_2host", base > 0 ? json(g.busbw_gbps / base) : json(nullptr)},
              {"intra_node_only", g.intra_node_only},
              {"iters", g.iters}};
    groups.push_back(j);
  }
  scaling["groups"] = groups;
  scaling["time_limit_s"] = r.options.time_limit_s > 0 ? json(r.options.time_limit_s) : json(nullptr);
  scaling["truncated"] = nullptr;
  if (r.cut.from_hosts > 0 || r.cut.iters_cut_groups > 0)
    scaling["truncated"] = {{"from_group", r.cut.from_hosts > 0 ? json(r.cut.from_hosts) : json(nullptr)},
                            {"predicted_s", r.cut.predicted_s},
                            {"allowance_s", r.cut.allowance_s},
                            {"groups_with_one_iteration", r.cut.iters_cut_groups},
                            {"reason", "the step's time limit (1.5 x budget_s)"}};
  scaling["groups_reason"] = r.skipped_reason.empty() ? json(nullptr) : json(r.skipped_reason);
  scaling["baseline"] = intra ? "2 local ranks" : "2 hosts";
  return scaling;
}

// 2. The alpha-beta fit of each measured curve, by collective name.
json fits_json(const MeasuredCurves& curves) {
  json model = json::object();
  for (core::Collective c : kRingCollectives) {
    if (const CommCurve* cv = curves.get(c)) model[std::string(core::name(c))] = fit_json(*cv);
  }
  return model;
}

// The reference workload's projection, or why there is none.
struct Reference {
  std::optional<WorkloadProjection> projection;
  std::string reason;
};

// 3. Every workload profile projected on the measured curves; fills the reference's projection or reason.
json workloads_json(const WorkloadSet& workloads, const MeasuredCurves& curves, bool have_curves,
                    const WorkloadProfile& reference, Reference& ref) {
  json wl = json::array();
  for (const auto& p : workloads.profiles) {
    json j;
    try {
      if (!have_curves)
        throw std::invalid_argument("no allreduce/allgather/reducescatter sweep in this report");
      const WorkloadProjection w = project_workload(p, curves.view());
      j = projection_json(w);
      if (p.name == reference.name) ref.projection = w;
    } catch (const std::invalid_argument& e) {
      j = {{"workload", p.name},
           {"parallelism", parallelism_name(p.parallelism)},
           {"efficiency", nullptr},
           {"reason", e.what()}};
      if (p.name == reference.name) ref.reason = e.what();
    }
    j["reference"] = p.name == reference.name;
    wl.push_back(j);
  }
  return wl;
}

// The workloads at one projected rank count, each against the reference flag.
json projected_workloads_json(const WorkloadSet& workloads, const MeasuredCurves& projected,
                              const WorkloadProfile& reference) {
  json pw = json::array();
  for (const auto& p : workloads.profiles) {
    try {
      const WorkloadProjection w = project_workload(p, projected.view());
      pw.push_back({{"workload", p.name},
                    {"efficiency", w.efficiency},
                    {"t_comm_s", w.t_comm_s},
                    {"exposed_s", w.exposed_s},
                    {"reference", p.name == reference.name}});
    } catch (const std::invalid_argument& e) {
      pw.push_back({{"workload", p.name},
                    {"efficiency", nullptr},
                    {"reason", e.what()},
                    {"reference", p.name == reference.name}});
    }
  }
  return pw;
}

// Projection to 2×, 4×, 8× hosts (ring model ratio applied to the measured curves).
json host_projection_json(const MeasuredCurves& curves, int hosts, const WorkloadSet& workloads,
                          const WorkloadProfile& reference) {
  json projection = json::array();
  for (int k : kProjectionFactors) {
    const int n2 = curves.nranks * k;
    json pj = {{"hosts_factor", k}, {"hosts", hosts * k}, {"nranks", n2}, {"label", kRingProjectionLabel}};
    json colls = json::array();
    MeasuredCurves projected;
    projected.nranks = n2;
    for (core::Collective c : kRingCollectives) {
      const CommCurve* cv = curves.get(c);
      if (!cv || !cv->fit()) continue;
      CommCurve pc = cv->at_nranks(n2);
      const double size = cv->points().back().size_bytes;
      const CurveLookup l = pc.time_at(size);
      const double busbw = size / (l.time_us * 1e3) * core::busbw_factor(c, n2);
      colls.push_back({{"collective", std::string(core::name(c))},
                       {"size_bytes", size},
                       {"time_us", l.time_us},
                       {"busbw_gbps", busbw}});
      if (c == core::Collective::kAllReduce) projected.allreduce = pc;
      if (c == core::Collective::kAllGather) projected.allgather = pc;
      if (c == core::Collective::kReduceScatter) projected.reducescatter = pc;
    }
    pj["collectives"] = colls;
    pj["workloads"] = projected_workloads_json(workloads, projected, reference);
    projection.push_back(pj);
  }
  return projection;
}

// DDP bucket advice from the allreduce curve, and DDP_BUCKET_BELOW_PLATEAU (info) when 25 MiB buckets fall
// short of the plateau.
json bucket_advice_json(Document& doc, const MeasuredCurves& curves) {
  json advice;
  if (curves.allreduce) {
    const BucketAdvice a = advise_bucket(*curves.allreduce);
    advice = {{"plateau_busbw_gbps", a.plateau_busbw_gbps},
              {"plateau_size_bytes", a.plateau_size_bytes},
              {"plateau_at_largest_size", a.plateau_at_largest_size},
              {"fraction", a.fraction},
              {"advised_bucket_bytes", a.advised_bucket_bytes},
              {"advised_busbw_gbps", a.advised_busbw_gbps},
              {"default_bucket_bytes", a.default_bucket_bytes},
              {"default_busbw_gbps", a.default_busbw_gbps},
              {"default_method", a.default_method},
              {"default_vs_plateau", a.default_vs_plateau},
              {"rule",
               "smallest measured allreduce size whose busBw reaches 90 % of the largest "
               "measured busBw; PyTorch DDP's default bucket_cap_mb is 25"}};
    if (a.default_vs_plateau < a.fraction) {
      doc.add_finding(
          {Severity::kInfo, "DDP_BUCKET_BELOW_PLATEAU",
           fmt::format("25 MiB DDP buckets reach {:.0f} % of this fabric's plateau allreduce busBw "
                       "({:.3f} of {:.3f} GB/s); {} would reach {:.0f} %.",
                       a.default_vs_plateau * 100, a.default_busbw_gbps, a.plateau_busbw_gbps,
                       size_text(a.advised_bucket_bytes), a.fraction * 100),
           advice,
           fmt::format("set bucket_cap_mb to at least {:.0f} in DistributedDataParallel",
                       std::ceil(a.advised_bucket_bytes / (1024.0 * 1024.0)))});
    }
  } else {
    advice = {{"advised_bucket_bytes", nullptr}, {"reason", "no allreduce sweep in this report"}};
  }
  return advice;
}

// SCALING_BUSBW_DROP (the last group's busBw under 0.8 of the first's) and ALPHA_BETA_FIT_ROUGH (a fit's rms
// relative residual over 25 %).
void scaling_findings(Document& doc, const model::ScalingResult& r, const json& scaling) {
  const bool intra = r.intra_node_only;
  const json& groups = scaling.at("groups");
  const json& model = scaling.at("model");
  const double base = r.groups.empty() ? 0.0 : r.groups.front().busbw_gbps;
  if (r.groups.size() >= 2 && base > 0) {
    const auto& last = r.groups.back();
    const double ratio = last.busbw_gbps / base;
    if (ratio < 0.8) {
      // On one host the drop measures shared memory and CPU binding, not the fabric: context (DESIGN §5).
      doc.add_finding(
          {intra ? Severity::kInfo : Severity::kWarn,
           "SCALING_BUSBW_DROP",
           fmt::format("{} busBw at {} falls to {:.2f} of the {} value on {} {} ({:.3f} vs {:.3f} GB/s).",
                       core::name(r.options.collective), size_text(static_cast<double>(last.size_bytes)),
                       ratio, intra ? "2-rank" : "2-host", intra ? last.nranks : last.hosts,
                       intra ? "ranks" : "hosts", last.busbw_gbps, base),
           {{"groups", groups}, {"ratio", ratio}},
           intra ? "intra-node only: check shared-memory transport and CPU binding"
                 : "run fabcheck pairs to find a slow host or link; check switch oversubscription and "
                   "routing"});
    }
  }
  for (auto& [name, m] : model.items()) {
    if (m.contains("rms_rel_residual") && m["rms_rel_residual"].is_number() &&
        m["rms_rel_residual"].get<double>() > 0.25) {
      doc.add_finding(
          {Severity::kInfo,
           "ALPHA_BETA_FIT_ROUGH",
           fmt::format("The ring model fits the {} curve only roughly (rms relative residual {:.0f} %): "
                       "MPI switches algorithms across sizes; projections are rough.",
                       name, m["rms_rel_residual"].get<double>() * 100),
           {{"collective", name}, {"rms_rel_residual", m["rms_rel_residual"]}},
           "read the projection as an order of magnitude; measure at the target size when you can"});
    }
  }
}

// The measured step of the reference workload: the `step` section when it emulated this workload
// and measured an efficiency, else null.
const json* measured_step_for(const json& root, const WorkloadProfile& reference) {
  if (!root.contains("step")) return nullptr;
  const json& s = root["step"];
  if (!s.is_object() || s.value("workload", "") != reference.name || !s.contains("measured_efficiency") ||
      !s["measured_efficiency"].is_number() || !(s["measured_efficiency"].get<double>() > 0)) {
    return nullptr;
  }
  return &s;
}

// score.basis: "measured" when the step ran for the reference workload — its measured efficiency
// is the score (a scaled step keeps compute per byte, so the full step's efficiency is the same; exposed per
// full step = compute_s · (1/efficiency − 1)) and the projection stays beside it — else "projected".
void step_basis(json& score, const json* step, const WorkloadProfile& reference, double& efficiency,
                double& exposed_s) {
  score["basis"] = step ? "measured" : "projected";
  score["scaling_efficiency_projected"] = score["scaling_efficiency"];
  score["step_measured"] = nullptr;
  if (!step) return;
  efficiency = (*step)["measured_efficiency"].get<double>();
  exposed_s = reference.compute_s * (1 / efficiency - 1);
  score["scaling_efficiency"] = efficiency;
  score["step_measured"] = {
      {"measured_efficiency", efficiency},
      {"scale", (*step)["scale"]},
      {"buckets", (*step)["buckets"]},
      {"real_buckets", (*step)["real_buckets"]},
      {"exposed_s_full_step", exposed_s},
      {"projected_efficiency_same_step",
       (*step)["projected"].is_object() ? (*step)["projected"]["efficiency"] : json(nullptr)}};
}

// The score: the reference workload's scaling efficiency (measured by the step when it ran, else projected)
// and its inputs, SCALING_EFFICIENCY_LOW (info) under 50 %, or why there is none.
json score_json(Document& doc, const WorkloadProfile& reference, int hosts, int nranks, bool intra,
                const Reference& ref, const json* step) {
  json score = json::object();
  score["workload"] = reference.name;
  score["hosts"] = hosts;
  score["nranks"] = nranks;
  score["intra_node_only"] = intra;
  if (ref.projection) {
    score["scaling_efficiency"] = ref.projection->efficiency;
    double efficiency = ref.projection->efficiency, exposed_s = ref.projection->exposed_s;
    step_basis(score, step, reference, efficiency, exposed_s);
    score["reason"] = nullptr;
    json in = projection_json(*ref.projection);
    in.erase("efficiency");
    score["inputs"] = in;
    score["sentence"] = score_sentence(reference.name, hosts, efficiency, exposed_s);
    // The score is a projection for an assumed workload, not a fault: context (info) that the summary's score
    // line states first; a fault that causes it (sockets instead of RDMA, a slow host or link) has its own
    // finding (DESIGN §5).
    if (efficiency < 0.5) {
      doc.add_finding(
          {Severity::kInfo,
           "SCALING_EFFICIENCY_LOW",
           score["sentence"].get<std::string>(),
           {{"scaling_efficiency", efficiency},
            {"basis", score["basis"]},
            {"t_comm_s", ref.projection->t_comm_s},
            {"exposed_s", ref.projection->exposed_s},
            {"t_compute_s", ref.projection->t_compute_s}},
           "more busBw (RDMA instead of sockets, all rails up), larger buckets, or more overlap"});
    }
  } else {
    score["scaling_efficiency"] = nullptr;
    score["basis"] = nullptr;
    score["reason"] = ref.reason.empty() ? "no sweep in this report" : ref.reason;
    score["inputs"] = nullptr;
    score["sentence"] = nullptr;
  }
  score["assumptions"] = assumptions_json(reference, true, intra);
  return score;
}

// The measured overlap beside the profile's assumption: score.overlap_basis, the efficiency with
// the assumption, and OVERLAP_BELOW_ASSUMPTION (warn) when the measurement falls short of it by more than
// kOverlapAssumptionGap.
void overlap_basis(Document& doc, json& score, const WorkloadProfile& assumed, const WorkloadProfile& used,
                   const std::optional<MeasuredOverlap>& m, const MeasuredCurves& curves) {
  score["overlap_basis"] = m ? "measured" : "assumed";
  score["overlap_assumed"] = assumed.overlap;
  score["overlap_measured"] = m ? json(m->value) : json(nullptr);
  score["overlap_measured_on"] = m ? json({{"coll", m->coll},
                                           {"size_bytes", m->size_bytes},
                                           {"variant", m->variant},
                                           {"poll_us", m->poll_us}})
                                   : json(nullptr);
  if (!m) return;
  json assumed_eff = nullptr;
  try {
    assumed_eff = project_workload(assumed, curves.view()).efficiency;
  } catch (const std::invalid_argument&) {
  }
  score["scaling_efficiency_assumed_overlap"] = assumed_eff;
  if (assumed.overlap - m->value <= kOverlapAssumptionGap) return;
  const std::string eff =
      score["scaling_efficiency"].is_number() && assumed_eff.is_number()
          ? fmt::format(": score {:.1f} % instead of {:.1f} %",
                        100 * score["scaling_efficiency"].get<double>(), 100 * assumed_eff.get<double>())
          : "";
  doc.add_finding(
      {Severity::kWarn,
       "OVERLAP_BELOW_ASSUMPTION",
       fmt::format(
           "This fabric and MPI do not overlap as {} assumes: assumed {:.2f}, measured {:.2f} ({} {}{}){}.",
           used.name, assumed.overlap, m->value, m->coll, core::format_size(m->size_bytes),
           m->variant == "polled" ? fmt::format(", MPI_Test every {:g} us", m->poll_us) : ", no MPI calls",
           eff),
       {{"workload", used.name},
        {"overlap_assumed", assumed.overlap},
        {"overlap_measured", m->value},
        {"measured_on", score["overlap_measured_on"]},
        {"scaling_efficiency", score["scaling_efficiency"]},
        {"scaling_efficiency_assumed_overlap", assumed_eff},
        {"gap", kOverlapAssumptionGap}},
       "see OVERLAP_NO_PROGRESS: let the MPI progress during compute (a progress thread, MPI_Test), or plan "
       "with "
       "the measured overlap"});
}

}  // namespace

void add_scaling(Document& doc, const model::ScalingResult& r, const WorkloadSet& assumed_workloads) {
  json& root = doc.json();
  // A measured overlap (the overlap step ran before) replaces each profile's assumed one.
  const json no_overlap;
  const json& overlap_section = root.contains("overlap") ? root["overlap"] : no_overlap;
  const WorkloadSet workloads = with_measured_overlap(assumed_workloads, overlap_section);
  const WorkloadProfile& reference = find_workload(workloads, r.options.workload, "--workload");
  const WorkloadProfile& reference_assumed =
      find_workload(assumed_workloads, r.options.workload, "--workload");
  const bool intra = r.intra_node_only;
  const int hosts = std::max(1, r.world_hosts);

  json scaling = group_scaling_json(r);
  const MeasuredCurves curves = curves_from_sweeps(root.contains("sweeps") ? root["sweeps"] : json());
  const bool have_curves = curves.allreduce || curves.allgather || curves.reducescatter;
  scaling["model"] = fits_json(curves);
  Reference ref;
  scaling["workloads"] = workloads_json(workloads, curves, have_curves, reference, ref);
  scaling["workloads_source"] = workloads.source;
  scaling["projection"] =
      have_curves ? host_projection_json(curves, hosts, workloads, reference) : json::array();
  scaling["bucket_advice"] = bucket_advice_json(doc, curves);
  scaling_findings(doc, r, scaling);
  if (!scaling["truncated"].is_null()) {
    Finding f;
    f.severity = Severity::kWarn;
    f.code = "SCALING_TRUNCATED";
    f.message =
        r.cut.from_hosts > 0
            ? fmt::format(
                  "the group scaling stopped before the group of {} {} ({:.1f} s predicted, {:.1f} s "
                  "left of the step's time limit of {:.0f} s)",
                  r.cut.from_hosts, r.intra_node_only ? "ranks" : "hosts", r.cut.predicted_s,
                  std::max(0.0, r.cut.allowance_s), r.options.time_limit_s)
            : fmt::format(
                  "{} group(s) were timed with one iteration instead of {}: the full count would have "
                  "outrun the step's time limit of {:.0f} s",
                  r.cut.iters_cut_groups, r.options.iters, r.options.time_limit_s);
    f.evidence = scaling["truncated"];
    f.evidence["time_limit_s"] = r.options.time_limit_s;
    f.remedy = "find the slow host or link (pairs), or raise the scaling step's budget_s in the config";
    doc.add_finding(f);
  }
  root["scaling"] = scaling;
  root["score"] =
      score_json(doc, reference, hosts, curves.nranks, intra, ref, measured_step_for(root, reference));
  overlap_basis(doc, root["score"], reference_assumed, reference,
                measured_overlap_for(overlap_section, reference), curves);

  if (r.groups.empty() && !have_curves) {
    doc.set_section("scaling", SectionStatus::kSkipped,
                    r.skipped_reason.empty() ? "no groups and no sweep to project from" : r.skipped_reason);
  } else {
    doc.set_section("scaling", SectionStatus::kOk);
  }
}

std::string render_scaling(const model::ScalingResult& r) {
  std::string out;
  const char* unit = r.intra_node_only ? "ranks" : "hosts";
  if (r.groups.empty()) {
    out += fmt::format("# scaling: skipped: {}\n", r.skipped_reason.empty() ? "no groups" : r.skipped_reason);
    return out;
  }
  out += fmt::format("# scaling: {} busBw at {} on groups of {}{} (vs the 2-{} value)\n",
                     core::name(r.options.collective), core::format_size(r.groups.front().size_bytes), unit,
                     r.intra_node_only ? " (intra_node_only: one host)" : "",
                     r.intra_node_only ? "rank" : "host");
  out += fmt::format("#  {:>6}  {:>6}  {:>10}  {:>11}  {:>8}\n", unit, "nranks", "time_us", "busbw_gbps",
                     "vs_2host");
  const double base = r.groups.front().busbw_gbps;
  for (const auto& g : r.groups) {
    out += fmt::format("#  {:>6}  {:>6}  {:>10.1f}  {:>11.3f}  {:>8.3f}\n",
                       r.intra_node_only ? g.nranks : g.hosts, g.nranks, g.time_us, g.busbw_gbps,
                       base > 0 ? g.busbw_gbps / base : 0.0);
  }
  return out;
}

std::string render_scaling(const model::ScalingResult& r, const Document& doc) {
  std::string out = render_scaling(r);
  const json& root = doc.json();
  if (!root.contains("scaling") || !root.contains("score")) return out;
  const json& s = root["scaling"];
  for (const auto& [name, m] : s["model"].items()) {
    if (m["alpha_us"].is_number()) {
      out += fmt::format(
          "# alpha-beta fit {} (n={}): alpha {:.2f} us, beta {:.3f} GB/s, rms residual {:.1f} %\n", name,
          m["nranks"].get<int>(), m["alpha_us"].get<double>(), m["beta_gbps"].get<double>(),
          m["rms_rel_residual"].get<double>() * 100);
    } else {
      out += fmt::format("# alpha-beta fit {}: none ({})\n", name, m.value("reason", ""));
    }
  }
  const json& b = s["bucket_advice"];
  if (b["advised_bucket_bytes"].is_number()) {
    out += fmt::format(
        "# DDP bucket advice: {} reaches 90 % of the plateau busBw ({:.3f} GB/s at {}{}); the 25M default "
        "gets "
        "{:.3f} GB/s ({:.0f} %, {})\n",
        size_text(b["advised_bucket_bytes"].get<double>()), b["plateau_busbw_gbps"].get<double>(),
        size_text(b["plateau_size_bytes"].get<double>()),
        b["plateau_at_largest_size"].get<bool>() ? ", the largest size measured: may still rise" : "",
        b["default_busbw_gbps"].get<double>(), b["default_vs_plateau"].get<double>() * 100,
        b["default_method"].get<std::string>());
  }
  const json& sc = root["score"];
  if (sc["scaling_efficiency"].is_number()) {
    out += sc["sentence"].get<std::string>() + "\n";
    const json& in = sc["inputs"];
    out += fmt::format(
        "#   t_compute {:.4f} s, t_comm {:.4f} s, last bucket {:.4f} s, overlap {:.2f}{}, exposed {:.4f} s "
        "({}){}\n",
        in["t_compute_s"].get<double>(), in["t_comm_s"].get<double>(), in["t_last_bucket_s"].get<double>(),
        in["overlap"].get<double>(),
        sc.value("overlap_basis", "") == "measured"
            ? fmt::format(" measured (assumed {:.2f})", sc["overlap_assumed"].get<double>())
            : "",
        in["exposed_s"].get<double>(), in["method"].get<std::string>(),
        r.intra_node_only ? "; intra_node_only" : "");
    if (sc.value("basis", "") == "measured") {
      const json& st = sc["step_measured"];
      out += fmt::format(
          "#   basis: measured by the emulated step ({} of {} buckets); the projection gives {:.1f} %\n",
          st["buckets"].get<std::uint64_t>(), st["real_buckets"].get<std::uint64_t>(),
          100 * sc["scaling_efficiency_projected"].get<double>());
    }
  } else {
    out +=
        fmt::format("# score: none ({})\n", sc["reason"].is_string() ? sc["reason"].get<std::string>() : "");
  }
  if (!s["projection"].empty()) {
    out += fmt::format("# projection of {} ({}):", sc["workload"].get<std::string>(), kRingProjectionLabel);
    for (const auto& p : s["projection"]) {
      for (const auto& w : p["workloads"]) {
        if (!w["reference"].get<bool>()) continue;
        if (w["efficiency"].is_number()) {
          out +=
              fmt::format(" {} hosts {:.1f} %;", p["hosts"].get<int>(), w["efficiency"].get<double>() * 100);
        } else {
          out += fmt::format(" {} hosts n/a;", p["hosts"].get<int>());
        }
      }
    }
    out.back() = '\n';
  }
  return out;
}

}  // namespace fabcheck::report
