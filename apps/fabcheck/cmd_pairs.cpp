// `fabcheck pairs`: every host pair measured, the link matrix, the slow link or bad host named (DESIGN §5).
#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "agree.hpp"
#include "command.hpp"
#include "fabcheck/comm/communicator.hpp"
#include "fabcheck/core/error.hpp"
#include "fabcheck/core/size.hpp"
#include "fabcheck/probes/pairs.hpp"
#include "fabcheck/probes/topology.hpp"
#include "fabcheck/report/document.hpp"
#include "fabcheck/report/pairs.hpp"
#include "fabcheck/report/topology.hpp"

namespace fabcheck::app {
namespace {

struct PairsFlags {
  std::string size = "64M";
  probes::PairsOptions opts;
  bool no_retest = false;
  double line_rate_gbit = 0;
  CLI::Option* line_rate_opt = nullptr;
  std::string json_path;
  std::string exclude_hostfile;
};

// Writes the hosts that passed, one per line, atomically (temporary file + rename).
void write_hostfile(const std::string& path, const std::vector<std::string>& hosts) {
  const std::string tmp = fmt::format("{}.tmp.{}", path, getpid());
  {
    std::ofstream f(tmp, std::ios::trunc);
    for (const auto& h : hosts) f << h << '\n';
    if (!f) throw RuntimeFailure(fmt::format("--exclude-hostfile: cannot write {}", tmp));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0)
    throw RuntimeFailure(fmt::format("--exclude-hostfile: cannot rename {} to {}", tmp, path));
}

int run(const PairsFlags& fl, const RunContext& ctx) {
  probes::PairsOptions opts = fl.opts;
  opts.size_bytes = core::parse_size(fl.size, "--size");
  opts.retest = !fl.no_retest;
  if (fl.line_rate_opt && fl.line_rate_opt->count() > 0) opts.line_rate_gbit = fl.line_rate_gbit;
  probes::validate(opts);

  const auto comm = comm::Communicator::world();
  // Only rank 0 writes: its file system decides, and every rank stops together when it cannot.
  agree_on_root_check(comm, [&] {
    if (!fl.json_path.empty()) report::check_writable(fl.json_path, "--json");
    if (!fl.exclude_hostfile.empty()) report::check_writable(fl.exclude_hostfile, "--exclude-hostfile");
  });
  if (auto why = probes::pairs_skip_reason(comm)) throw UsageError(*why);
  const double t0 = comm::now_us();
  report::Document doc(ctx.argv);
  const auto clocks = comm::align_clocks(comm);  // for topology.clock_offset_us_max (pairs needs no clocks)
  const auto res = probes::run_pairs(comm, opts);
  if (comm.rank() != 0) return 0;

  report::add_topology(doc, probes::describe_topology(comm, "mpi", clocks));
  report::add_pairs(doc, res);
  std::fputs(report::render_pairs(res).c_str(), stdout);
  std::fflush(stdout);
  const int code = doc.has_fail() ? static_cast<int>(ExitCode::kFail) : static_cast<int>(ExitCode::kOk);
  doc.finish("complete", code, (comm::now_us() - t0) / 1e6);
  if (!fl.json_path.empty()) doc.write_atomic(fl.json_path);
  if (!fl.exclude_hostfile.empty()) {
    const auto passed = res.passed_hosts();
    write_hostfile(fl.exclude_hostfile, passed);
    std::fprintf(stderr, "fabcheck pairs: %zu of %zu hosts passed, written to %s\n", passed.size(),
                 res.hosts.size(), fl.exclude_hostfile.c_str());
  }
  return code;
}

const Registrar kPairs{CommandSpec{
    "pairs", "Every host pair: bandwidth and latency matrix, outliers, the slow link or bad host", true, 50,
    [](CLI::App& sub) -> std::function<int(const RunContext&)> {
      auto fl = std::make_shared<PairsFlags>();
      sub.add_option("--size", fl->size,
                     "Bytes per window per direction (binary K/M/G); each message is size/window bytes")
          ->capture_default_str();
      sub.add_option("--window", fl->opts.window, "Messages in flight per window, as osu_bw")
          ->capture_default_str();
      sub.add_option("--iters", fl->opts.iters, "At most this many timed windows per direction")
          ->capture_default_str();
      sub.add_option("--warmup", fl->opts.warmup, "Untimed windows per direction")->capture_default_str();
      sub.add_option("--budget-ms", fl->opts.budget_ms,
                     "Time per direction: timed windows = clamp(budget / warmup window time, 1, iters)")
          ->capture_default_str();
      sub.add_option("--lat-iters", fl->opts.lat_iters, "8 B ping-pong samples per pair")
          ->capture_default_str();
      sub.add_option("--lat-warmup", fl->opts.lat_warmup, "Untimed ping-pongs per pair")
          ->capture_default_str();
      sub.add_flag("--bidir", fl->opts.bidir, "Also measure simultaneous both-way bandwidth (osu_bibw)");
      sub.add_flag(
          "--all-ranks", fl->opts.all_ranks,
          "Pair local rank i with local rank i of the peer host (one matrix per local rank; multi-NIC)");
      sub.add_flag("--no-retest", fl->no_retest, "Skip re-measuring suspects against good partners");
      fl->line_rate_opt =
          sub.add_option("--line-rate-gbit", fl->line_rate_gbit,
                         "Expected line rate in Gbit/s: links below 80 % of it are outliers too");
      sub.add_option("--exclude-hostfile", fl->exclude_hostfile,
                     "Write the hosts that passed (one per line) for the next job's hostfile");
      sub.add_option("--json,-J,--out", fl->json_path, "Write the JSON report to FILE (atomically)");
      return [fl](const RunContext& ctx) { return run(*fl, ctx); };
    }}};

}  // namespace
}  // namespace fabcheck::app
