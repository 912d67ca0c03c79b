// `fabcheck project`: the scaling score's workload model (DESIGN §5) on numbers the user types in —
// no MPI, no measurement. "What if the network gave 4 GB/s busBw at 8 hosts?"
#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <tuple>
#include <utility>

#include "command.hpp"
#include "fabcheck/core/error.hpp"
#include "fabcheck/core/size.hpp"
#include "fabcheck/report/document.hpp"
#include "fabcheck/report/scaling.hpp"
#include "fabcheck/report/scaling_model.hpp"
#include "fabcheck/report/workloads.hpp"

namespace fabcheck::app {
namespace {

struct ProjectCli {
  double busbw_gbps = 0;
  int hosts = 0;
  int ranks_per_host = 1;
  double alpha_us = 0;
  std::string workload;
  std::string workloads_file;
  double compute_s = 0;
  double overlap = 0;
  std::string bucket;
  double p2p_us = 0;
  std::string json;
  CLI::Option* compute_opt = nullptr;
  CLI::Option* overlap_opt = nullptr;
  CLI::Option* bucket_opt = nullptr;
  CLI::Option* p2p_opt = nullptr;
};

std::string collective_models(report::Parallelism p) {
  switch (p) {
    case report::Parallelism::kDdp:
      return "ring allreduce t = 2(n-1)*alpha + 2(n-1)/n * S/busBw";
    case report::Parallelism::kFsdp:
      return "ring allgather/reducescatter t = (n-1)*alpha + (n-1)/n * S/busBw";
    case report::Parallelism::kPp:
      break;
  }
  return "point to point t_p2p = alpha + S/busBw (a send's busBw is its algBw, nccl-tests sendrecv factor 1)";
}

// pp: one hop at the activation size, typed in (--p2p-us) or from alpha + S/busBw.
std::pair<double, std::string> pipeline_hop_us(const ProjectCli& cli, const report::WorkloadProfile& p) {
  if (cli.p2p_opt->count() > 0) return {cli.p2p_us, "--p2p-us"};
  return {cli.alpha_us + p.pp_activation_bytes / (cli.busbw_gbps * 1e3), "alpha + S/busBw"};
}

std::string pipeline_lines(const report::WorkloadProjection& w) {
  const auto& pl = *w.pipeline;
  std::string out = fmt::format(
      "#   {} stages, {} micro-batches: t_f {:.6f} s, t_b {:.6f} s per micro-batch per stage; one hop of "
      "{:.0f} B "
      "= {:.3f} us ({})\n",
      pl.stages, pl.micro_batches, pl.forward_s, pl.backward_s, pl.activation_bytes, pl.p2p_us,
      pl.p2p_source);
  out +=
      "#   bubble = (p-1)(t_f + t_b + 2 t_p2p) / (m(t_f + t_b) + (p-1)(t_f + t_b + 2 t_p2p)), 1F1B and GPipe "
      "alike (Narayanan et al. SC'21 2.2.1)\n";
  out += fmt::format(
      "#   t_compute_s {:.6f}  t_bubble_s {:.6f}  t_step_s {:.6f}  bubble_1f1b {:.6f}  bubble_gpipe {:.6f}  "
      "efficiency {:.6f}\n",
      w.t_compute_s, pl.t_bubble_s, pl.t_step_s, pl.bubble_fraction_1f1b, pl.bubble_fraction_gpipe,
      w.efficiency);
  return out;
}

/// Checks the fabric numbers (busBw, hosts, ranks per host, alpha); returns hosts x ranks per host.
long long project_checked_nranks(const ProjectCli& cli) {
  if (!(cli.busbw_gbps > 0) || !std::isfinite(cli.busbw_gbps)) {
    throw UsageError(fmt::format("--busbw: {} must be > 0 (bus bandwidth in GB/s, e.g. 10)", cli.busbw_gbps));
  }
  if (cli.hosts < 1) throw UsageError(fmt::format("--hosts: {} must be >= 1", cli.hosts));
  if (cli.ranks_per_host < 1)
    throw UsageError(fmt::format("--ranks-per-host: {} must be >= 1", cli.ranks_per_host));
  const long long nranks_ll = static_cast<long long>(cli.hosts) * cli.ranks_per_host;
  if (nranks_ll < 2) {
    throw UsageError("--hosts: 1 host with 1 rank has nothing to communicate (use --hosts 2 or more)");
  }
  if (nranks_ll > 1000000) throw UsageError("--hosts: hosts x ranks-per-host must be at most 1000000");
  if (!(cli.alpha_us >= 0) || !std::isfinite(cli.alpha_us)) {
    throw UsageError(
        fmt::format("--alpha-us: {} must be >= 0 (latency per ring step in microseconds)", cli.alpha_us));
  }
  return nranks_ll;
}

/// The workload profile of --workload with the command line's overrides (each noted as an assumption),
/// checked; throws UsageError for an override that does not fit the profile.
report::WorkloadProfile project_profile(const ProjectCli& cli, const report::WorkloadSet& set) {
  report::WorkloadProfile p = report::find_workload(set, cli.workload, "--workload");
  auto override_note = [&](const std::string& field, const std::string& value) {
    for (auto& a : p.assumptions) {
      if (a.field == field) {
        a.value = value;
        a.why = "typed in on the command line";
        return;
      }
    }
    p.assumptions.push_back({field, value, "typed in on the command line"});
  };
  if (cli.compute_opt->count() > 0) {
    if (!(cli.compute_s > 0) || !std::isfinite(cli.compute_s)) {
      throw UsageError(fmt::format("--compute-s: {} must be > 0 (compute seconds per step)", cli.compute_s));
    }
    p.compute_s = cli.compute_s;
    override_note("compute_s", fmt::format("{}", cli.compute_s));
  }
  if (cli.overlap_opt->count() > 0) {
    if (!(cli.overlap >= 0 && cli.overlap <= 1)) {
      throw UsageError(fmt::format(
          "--overlap: {} is outside [0, 1] (a fraction of the compute time, e.g. 0.8)", cli.overlap));
    }
    p.overlap = cli.overlap;
    override_note("overlap", fmt::format("{}", cli.overlap));
  }
  if (cli.bucket_opt->count() > 0) {
    if (p.parallelism != report::Parallelism::kDdp) {
      throw UsageError(fmt::format("--bucket: workload '{}' is fsdp; buckets apply to ddp only", p.name));
    }
    p.bucket_bytes = core::parse_size(cli.bucket, "--bucket");
    if (p.bucket_bytes == 0) throw UsageError("--bucket: must be > 0 (e.g. 25M)");
    override_note("bucket_bytes", cli.bucket);
  }
  const bool pp = p.parallelism == report::Parallelism::kPp;
  if (cli.p2p_opt->count() > 0) {
    if (!pp)
      throw UsageError(
          fmt::format("--p2p-us: workload '{}' is not pp (the hop time applies to pp only)", p.name));
    if (!(cli.p2p_us >= 0) || !std::isfinite(cli.p2p_us))
      throw UsageError(
          fmt::format("--p2p-us: {} must be >= 0 (microseconds per activation hop)", cli.p2p_us));
  }
  if (pp && (cli.compute_opt->count() > 0 || cli.overlap_opt->count() > 0)) {
    throw UsageError(fmt::format(
        "--compute-s/--overlap: workload '{}' is pp: its compute is m x (t_f + t_b) and the bubble is not "
        "overlapped (edit pp_forward_s / pp_backward_s in a --workloads file)",
        p.name));
  }
  report::validate(p, fmt::format("--workload {}", p.name));
  return p;
}

/// The workload's projection at `n` ranks on the typed-in alpha-beta fabric.
report::WorkloadProjection project_at(const ProjectCli& cli, const report::WorkloadProfile& p, int n) {
  const report::AlphaBeta m{cli.alpha_us, cli.busbw_gbps};
  const report::CommCurve ar = report::CommCurve::model(core::Collective::kAllReduce, n, m);
  const report::CommCurve ag = report::CommCurve::model(core::Collective::kAllGather, n, m);
  const report::CommCurve rs = report::CommCurve::model(core::Collective::kReduceScatter, n, m);
  report::WorkloadCurves v{&ar, &ag, &rs, std::nullopt, ""};
  if (p.parallelism == report::Parallelism::kPp) std::tie(v.p2p_us, v.p2p_source) = pipeline_hop_us(cli, p);
  return report::project_workload(p, v);
}

/// The text's header and model lines: the inputs, the model, the work of one step and its totals.
std::string project_model_lines(const ProjectCli& cli, const report::WorkloadProfile& p,
                                const report::WorkloadProjection& w, int nranks) {
  const bool pp = p.parallelism == report::Parallelism::kPp;
  std::string out;
  out += fmt::format("# fabcheck project: {} ({}), typed-in numbers, nothing measured\n", p.name,
                     report::parallelism_name(p.parallelism));
  out += fmt::format("#   fabric: busBw {} GB/s, alpha {} us, {} hosts x {} ranks = {} ranks\n",
                     cli.busbw_gbps, cli.alpha_us, cli.hosts, cli.ranks_per_host, nranks);
  out += fmt::format("#   model: {} (beta = busBw)\n", collective_models(p.parallelism));
  if (pp) {
    out += pipeline_lines(w);
  } else if (p.parallelism == report::Parallelism::kDdp) {
    const std::uint64_t full = w.grad_bytes / p.bucket_bytes, rem = w.grad_bytes % p.bucket_bytes;
    out += fmt::format("#   gradients {} B in {} buckets of {} ({} full{})\n", w.grad_bytes, w.buckets,
                       core::format_size(p.bucket_bytes), full,
                       rem > 0 ? fmt::format(" + 1 of {} B", rem) : std::string());
  } else {
    out += fmt::format("#   {} units: per unit 2 allgathers of {:.0f} B and 1 reducescatter of {:.0f} B\n",
                       w.buckets, w.steps.at(0).lookup.size_bytes, w.steps.at(1).lookup.size_bytes);
  }
  for (const auto& s : w.steps) {
    out += fmt::format("#   {:>6} x {} ({:.0f} B): {:.3f} us each, {:.6f} s\n", s.count, s.what,
                       s.lookup.size_bytes, s.lookup.time_us, s.total_s);
  }
  if (!pp)
    out += fmt::format(
        "#   t_compute_s {:.6f}  overlap {:.4f}  t_comm_s {:.6f}  t_last_bucket_s {:.6f}  exposed_s {:.6f}"
        "  efficiency {:.6f}\n",
        w.t_compute_s, w.overlap, w.t_comm_s, w.t_last_bucket_s, w.exposed_s, w.efficiency);
  return out;
}

/// The one-sentence verdict: the pipeline bubble for pp, the scaling score otherwise.
std::string project_sentence(const ProjectCli& cli, const report::WorkloadProfile& p,
                             const report::WorkloadProjection& w) {
  if (p.parallelism == report::Parallelism::kPp)
    return fmt::format(
        "For {} ({} stages, {} micro-batches) the pipeline bubble idles every stage {:.1f} % of the "
        "step ({:.1f} ms of {:.1f} ms, {:.1f} ms of it activation hops): {:.1f} % of ideal.",
        p.name, w.pipeline->stages, w.pipeline->micro_batches, 100 * w.pipeline->bubble_fraction_1f1b,
        1e3 * w.exposed_s, 1e3 * w.pipeline->t_step_s, 1e3 * w.t_comm_s, 100 * w.efficiency);
  return report::score_sentence(p.name, cli.hosts, w.efficiency, w.exposed_s,
                                fmt::format("a fabric with busBw {} GB/s", cli.busbw_gbps));
}

/// The projection to more hosts (none for pp): its lines go to `out`, its rows are returned for the JSON.
nlohmann::json project_scaling_table(const ProjectCli& cli, const report::WorkloadProfile& p,
                                     long long nranks_ll, std::string& out) {
  const bool pp = p.parallelism == report::Parallelism::kPp;
  if (pp) {
    out += "# projection: none for pp (the bubble does not depend on the data-parallel width)\n";
  } else {
    out += fmt::format("# projection ({}):\n", report::kRingProjectionLabel);
    out += fmt::format("#  {:>6}  {:>7}  {:>12}  {:>12}  {:>10}\n", "hosts", "nranks", "t_comm_s",
                       "exposed_s", "efficiency");
  }
  nlohmann::json proj = nlohmann::json::array();
  for (int k : report::kProjectionFactors) {
    if (pp) break;
    const long long n2 = nranks_ll * k;
    if (n2 > 8000000) break;
    const report::WorkloadProjection pk = project_at(cli, p, static_cast<int>(n2));
    out += fmt::format("#  {:>6}  {:>7}  {:>12.6f}  {:>12.6f}  {:>10.6f}\n", cli.hosts * k, n2, pk.t_comm_s,
                       pk.exposed_s, pk.efficiency);
    proj.push_back({{"hosts_factor", k},
                    {"hosts", cli.hosts * k},
                    {"nranks", n2},
                    {"label", report::kRingProjectionLabel},
                    {"efficiency", pk.efficiency},
                    {"t_comm_s", pk.t_comm_s},
                    {"exposed_s", pk.exposed_s}});
  }
  return proj;
}

/// Writes the projection as the --json document.
void write_project_json(const ProjectCli& cli, const RunContext& ctx, const report::WorkloadSet& set,
                        const report::WorkloadProfile& p, const report::WorkloadProjection& w, int nranks,
                        const std::string& sentence, const nlohmann::json& proj, const report::Sinks& sinks) {
  report::Document doc(ctx.argv);
  doc.json()["project"] = {
      {"inputs",
       {{"busbw_gbps", cli.busbw_gbps},
        {"alpha_us", cli.alpha_us},
        {"hosts", cli.hosts},
        {"ranks_per_host", cli.ranks_per_host},
        {"nranks", nranks},
        {"workload", p.name},
        {"p2p_us", w.pipeline ? nlohmann::json(w.pipeline->p2p_us) : nlohmann::json(nullptr)},
        {"workloads_source", set.source}}},
      {"result", report::projection_json(w)},
      {"sentence", sentence},
      {"projection", proj},
      {"assumptions", report::assumptions_json(p, false, false)}};
  doc.set_section("project", report::SectionStatus::kOk);
  doc.finish("complete", 0, 0.0);
  sinks.write(doc.json());
}

int run_project(const ProjectCli& cli, const RunContext& ctx) {
  // Validate everything before computing or writing anything.
  const long long nranks_ll = project_checked_nranks(cli);
  report::Sinks sinks;
  sinks.input("--workloads", cli.workloads_file).json("--json", cli.json);
  sinks.check();
  const report::WorkloadSet set = report::load_workloads(cli.workloads_file, "--workloads");
  const report::WorkloadProfile p = project_profile(cli, set);

  const int nranks = static_cast<int>(nranks_ll);
  const report::WorkloadProjection w = project_at(cli, p, nranks);

  std::string out = project_model_lines(cli, p, w, nranks);
  const std::string sentence = project_sentence(cli, p, w);
  out += sentence + "\n";
  const nlohmann::json proj = project_scaling_table(cli, p, nranks_ll, out);
  std::fputs(out.c_str(), stdout);
  std::fflush(stdout);

  if (sinks.any()) write_project_json(cli, ctx, set, p, w, nranks, sentence, proj, sinks);
  return 0;
}

std::function<int(const RunContext&)> setup_project(CLI::App& sub) {
  auto cli = std::make_shared<ProjectCli>();
  sub.add_option("--busbw", cli->busbw_gbps, "Bus bandwidth in GB/s (as nccl-tests prints busbw), > 0")
      ->required();
  sub.add_option("--hosts", cli->hosts, "Hosts in the job")->required();
  sub.add_option("--ranks-per-host", cli->ranks_per_host, "Ranks (GPUs) per host; n = hosts x ranks-per-host")
      ->capture_default_str();
  sub.add_option("--alpha-us", cli->alpha_us, "Latency per ring step in us (alpha; 0 ignores latency terms)")
      ->capture_default_str();
  sub.add_option("--workload", cli->workload,
                 "Training profile from the workloads file (default: its `default`, llama-7b-ddp-bf16)");
  sub.add_option("--workloads", cli->workloads_file,
                 "Workloads JSON file (default: the built-in configs/workloads.json)");
  cli->compute_opt =
      sub.add_option("--compute-s", cli->compute_s, "Override the profile's compute seconds per step (> 0)");
  cli->overlap_opt =
      sub.add_option("--overlap", cli->overlap, "Override the profile's overlap fraction, in [0, 1]");
  cli->bucket_opt =
      sub.add_option("--bucket", cli->bucket, "Override the DDP bucket size (K/M/G binary, e.g. 25M)");
  cli->p2p_opt = sub.add_option("--p2p-us", cli->p2p_us,
                                "pp: one activation hop in us (default: alpha + activation bytes / busBw)");
  sub.add_option("--json,-J,--out", cli->json, "Write the projection as JSON to FILE (atomically)");
  return [cli](const RunContext& ctx) { return run_project(*cli, ctx); };
}

const Registrar kProject{{"project",
                          "Project training scaling efficiency from typed-in busBw (no measurement)", false,
                          90, setup_project}};

}  // namespace
}  // namespace fabcheck::app
