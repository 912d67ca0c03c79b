// `fabcheck pairs`: every host pair measured, the link matrix, the slow link or bad host named (DESIGN §5).
#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "agree.hpp"
#include "command.hpp"
#include "fabcheck/comm/communicator.hpp"
#include "fabcheck/core/error.hpp"
#include "fabcheck/probes/pairs.hpp"
#include "fabcheck/probes/topology.hpp"
#include "fabcheck/report/document.hpp"
#include "fabcheck/report/pairs.hpp"
#include "fabcheck/report/topology.hpp"
#include "option_cli.hpp"

namespace fabcheck::app {
namespace {

struct PairsFlags {
  std::shared_ptr<BoundOptions<probes::PairsOptions>> opts;
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
  const probes::PairsOptions opts = fl.opts->options();
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
      fl->opts = bind_options(sub, model::pairs_option_table());
      sub.add_option("--exclude-hostfile", fl->exclude_hostfile,
                     "Write the hosts that passed (one per line) for the next job's hostfile");
      sub.add_option("--json,-J,--out", fl->json_path, "Write the JSON report to FILE (atomically)");
      return [fl](const RunContext& ctx) { return run(*fl, ctx); };
    }}};

}  // namespace
}  // namespace fabcheck::app
