// The overlap section: JSON, findings and console text.
#include "fabcheck/report/overlap.hpp"

#include <fmt/format.h>

#include "fabcheck/core/size.hpp"
#include "scaling/summary_json.hpp"

namespace fabcheck::report {

using model::OverlapPoint;
using model::OverlapResult;
using nlohmann::json;

namespace {

json overlap_or_null(bool have, double v) {
  return have ? json(v) : json(nullptr);
}

}  // namespace

double compute_slowdown(const OverlapPoint& p) {
  const core::Summary& alone = p.t_compute_device.samples > 0 ? p.t_compute_device : p.t_compute;
  return alone.p50 > 0 ? p.compute_during.p50 / alone.p50 : 0.0;
}

namespace {

json string_or_null(const std::string& v) {
  return v.empty() ? json(nullptr) : json(v);
}

std::string overlap_label(const OverlapPoint& p) {
  return fmt::format("{} {}", core::name(p.coll), core::format_size(p.size_bytes));
}

// The point judged per collective: its largest size long enough to judge.
std::vector<const OverlapPoint*> judged_points(const OverlapResult& r) {
  std::vector<const OverlapPoint*> out;
  for (auto c : r.options.collectives) {
    const OverlapPoint* best = nullptr;
    for (const auto& p : r.points) {
      if (p.coll != c || !p.have_overlap || p.t_comm.p50 < kOverlapJudgedMinUs) continue;
      if (!best || p.size_bytes > best->size_bytes) best = &p;
    }
    if (best) out.push_back(best);
  }
  return out;
}

}  // namespace

std::vector<Finding> overlap_findings(const OverlapResult& r) {
  std::vector<Finding> out;
  const OverlapPoint* worst = nullptr;
  for (const auto* p : judged_points(r)) {
    if (p->overlap < kOverlapLow && (!worst || p->overlap < worst->overlap)) worst = p;
  }
  if (!worst) return out;
  Finding f;
  f.severity = Severity::kWarn;
  f.code = "OVERLAP_NO_PROGRESS";
  if (r.backend == "nccl") {
    f.code = "OVERLAP_GPU_LOW";
    f.message = fmt::format(
        "NCCL {} overlaps {:.2f} of its {:.0f} us with a GPU kernel on another stream, and the kernel runs "
        "{:.2f}x as long beside it: NCCL's kernels and the compute compete for the SMs, so a training step "
        "waits for the collective after its compute",
        overlap_label(*worst), worst->overlap, worst->t_comm.p50, compute_slowdown(*worst));
    f.remedy =
        "give the communication stream a higher priority than compute (PyTorch: a high-priority NCCL "
        "stream), leave SMs to NCCL (compute libraries' SM margin; NCCL_MIN_CTAS/NCCL_MAX_CTAS trade "
        "bandwidth for SMs), and check that the transport is NVLink/RDMA with GPUDirect, not copies through "
        "host memory (fabcheck inspect, the sweep's transport section)";
  } else {
    const bool poll_helps =
        worst->have_overlap_poll && worst->overlap_poll >= worst->overlap + kOverlapPollGain;
    const std::string polled = worst->have_overlap_poll
                                   ? fmt::format(", {:.2f} when compute calls MPI_Test every {:g} us",
                                                 worst->overlap_poll, r.options.poll_us)
                                   : "";
    if (poll_helps || !worst->have_overlap_poll) {
      f.message = fmt::format(
          "nonblocking {} overlaps {:.2f} of its {:.0f} us with compute when no MPI call is made during "
          "it{}: "
          "this MPI progresses collectives only inside MPI calls, so a training step waits for them after "
          "its "
          "compute",
          overlap_label(*worst), worst->overlap, worst->t_comm.p50, polled);
      f.remedy =
          "call MPI_Test from the compute loop (what --poll-us emulates) or turn on the MPI's progress "
          "thread "
          "(Intel MPI: I_MPI_ASYNC_PROGRESS=1; MPICH: MPIR_CVAR_ASYNC_PROGRESS=1); NCCL progresses on the "
          "GPU "
          "and needs neither";
    } else {
      f.message = fmt::format(
          "nonblocking {} overlaps {:.2f} of its {:.0f} us with compute{}: the communication does not hide "
          "behind compute even when MPI is polled",
          overlap_label(*worst), worst->overlap, worst->t_comm.p50, polled);
      f.remedy =
          "check CPU contention (ranks per core, a busy host) and the transport: TCP copies through the CPU "
          "that computes, RDMA offloads them (fabcheck inspect)";
    }
  }
  json per = json::array();
  for (const auto* p : judged_points(r))
    per.push_back({{"coll", core::name(p->coll)},
                   {"size_bytes", p->size_bytes},
                   {"t_comm_us", p->t_comm.p50},
                   {"overlap", p->overlap},
                   {"overlap_poll", overlap_or_null(p->have_overlap_poll, p->overlap_poll)},
                   {"compute_slowdown", compute_slowdown(*p)}});
  f.evidence = {{"judged", per},
                {"threshold", kOverlapLow},
                {"poll_us", r.options.poll_us},
                {"judged_min_t_comm_us", kOverlapJudgedMinUs}};
  out.push_back(std::move(f));
  return out;
}

json overlap_json(const OverlapResult& r) {
  json pts = json::array();
  for (const auto& p : r.points) {
    pts.push_back({{"coll", core::name(p.coll)},
                   {"size_bytes", p.size_bytes},
                   {"count", p.count},
                   {"t_comm_us", detail::summary_json(p.t_comm)},
                   {"t_compute_us", detail::summary_json(p.t_compute)},
                   {"t_both_us", detail::summary_json(p.t_both)},
                   {"compute_during_us", detail::summary_json(p.compute_during)},
                   {"t_compute_device_us", detail::summary_json(p.t_compute_device)},
                   {"t_both_poll_us", p.polled ? detail::summary_json(p.t_both_poll) : json(nullptr)},
                   {"test_us_mean", p.polled ? json(p.test_us_mean) : json(nullptr)},
                   {"compute_target_us", p.compute_target_us},
                   {"compute_units", p.compute_units},
                   {"compute_slowdown", compute_slowdown(p)},
                   {"overlap", overlap_or_null(p.have_overlap, p.overlap)},
                   {"overlap_mean", overlap_or_null(p.have_overlap, p.overlap_mean)},
                   {"overlap_poll", overlap_or_null(p.have_overlap_poll, p.overlap_poll)},
                   {"overlap_poll_mean", overlap_or_null(p.have_overlap_poll, p.overlap_poll_mean)}});
  }
  return {
      {"backend", r.backend},
      {"mpi_library", r.mpi_library},
      {"library_version", string_or_null(r.library_version)},
      {"device", string_or_null(r.device)},
      {"nranks", r.nranks},
      {"hosts", r.hosts},
      {"compute_kernel", r.compute_kernel},
      {"us_per_unit", r.us_per_unit},
      {"poll_us", r.options.poll_us},
      {"iters", r.options.iters},
      {"warmup", r.options.warmup},
      {"definition",
       "overlap = clamp(1 - (t_both - t_compute) / t_comm, 0, 1) of the medians (overlap_mean: of the means, "
       "as OSU osu_iallreduce prints it); compute_slowdown = compute_during / compute alone (p50; nccl: both "
       "the GPU kernel's cudaEvent time, t_compute_device_us alone); every sample is the slowest rank's"},
      {"points", std::move(pts)},
      {"duration_s", r.duration_s}};
}

void add_overlap(Document& doc, const OverlapResult& r) {
  doc.json()["overlap"] = overlap_json(r);
  doc.set_section("overlap", SectionStatus::kOk);
  for (const auto& f : overlap_findings(r)) doc.add_finding(f);
}

std::string render_overlap(const OverlapResult& r) {
  const bool nccl = r.backend == "nccl";
  std::string variant;
  if (nccl)
    variant = ", no polled variant (NCCL progresses on the GPU)";
  else if (r.options.poll_us > 0)
    variant = fmt::format(", polled variant: MPI_Test every {:g} us", r.options.poll_us);
  std::string s =
      fmt::format("# fabcheck overlap: {} ranks on {} host{}, {} ({}), {} iterations{} in {:.1f} s\n",
                  r.nranks, r.hosts.size(), r.hosts.size() == 1 ? "" : "s", r.backend,
                  nccl ? fmt::format("{}, {}", r.library_version, r.device) : r.mpi_library, r.options.iters,
                  variant, r.duration_s);
  s += fmt::format("# compute kernel: {} ({:.4f} us per unit on rank 0)\n", r.compute_kernel, r.us_per_unit);
  s += "# overlap = clamp(1 - (t_both - t_compute) / t_comm, 0, 1) of the medians; times p50/p99 in us, "
       "slowest "
       "rank\n";
  if (nccl)
    s += "# slowdown = the GPU kernel's time beside the collective / alone (cudaEvents, p50): SMs NCCL "
         "takes\n";
  s += fmt::format("# {:<14} {:>6} {:>17} {:>17} {:>17} {:>7} {:>17} {:>8} {:>8}\n", "coll", "size", "t_comm",
                   "t_compute", "t_both", "overlap", "t_both_poll", "ov_poll", "slowdown");
  auto pair = [](const core::Summary& x) { return fmt::format("{:.1f}/{:.1f}", x.p50, x.p99); };
  for (const auto& p : r.points) {
    s += fmt::format("  {:<14} {:>6} {:>17} {:>17} {:>17} {:>7} {:>17} {:>8} {:>8}\n", core::name(p.coll),
                     core::format_size(p.size_bytes), pair(p.t_comm), pair(p.t_compute), pair(p.t_both),
                     p.have_overlap ? fmt::format("{:.2f}", p.overlap) : "-",
                     p.polled ? pair(p.t_both_poll) : "-",
                     p.have_overlap_poll ? fmt::format("{:.2f}", p.overlap_poll) : "-",
                     fmt::format("{:.2f}", compute_slowdown(p)));
  }
  const auto findings = overlap_findings(r);
  if (findings.empty()) s += "# no overlap finding\n";
  for (const auto& f : findings) s += fmt::format("# {} {}: {}\n", name(f.severity), f.code, f.message);
  return s;
}

}  // namespace fabcheck::report
