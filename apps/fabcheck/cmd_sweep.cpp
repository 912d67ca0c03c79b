// `fabcheck sweep`: nccl-tests-style collective sweep (DESIGN §3, §7). Thin: flags → SweepOptions → probe →
// report.
#include <cstdio>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "agree.hpp"
#include "command.hpp"
#include "fabcheck/comm/backend.hpp"
#include "fabcheck/comm/communicator.hpp"
#include "fabcheck/core/collective.hpp"
#include "fabcheck/core/error.hpp"
#include "fabcheck/core/fault.hpp"
#include "fabcheck/probes/sweep.hpp"
#include "fabcheck/report/document.hpp"
#include "fabcheck/report/sweep.hpp"
#include "option_cli.hpp"

namespace fabcheck::app {
namespace {

struct SweepFlags {
  std::shared_ptr<BoundOptions<probes::SweepOptions>> opts;
  std::string json;
};

int run_sweep_cmd(const RunContext& ctx, const SweepFlags& flags) {
  const double t_start = comm::now_us();
  const probes::SweepOptions opts = flags.opts->options();
  probes::validate(opts);
  (void)core::fault_from_env();  // a malformed test hook is a usage error before anything runs
  const auto world = comm::Communicator::world();

  // Rank 0 owns the report file: check it before measuring, and tell every rank so that all stop together.
  if (!flags.json.empty()) agree_on_root_check(world, [&] { report::check_writable(flags.json, "--json"); });

  auto backend = comm::make_backend(opts.backend, world);
  const probes::SweepResult res = probes::run_sweep(world, *backend, opts);
  const int code = res.total_wrong > 0 ? static_cast<int>(ExitCode::kFail) : static_cast<int>(ExitCode::kOk);
  if (world.rank() == 0) {
    // nccl backend: NCCL's own log of every rank → the transport section, drawn as `inspect --nccl-log` does.
    const auto transport = report::sweep_transport(res);
    std::string text = report::render_sweep(res);
    if (transport) {
      // as comment lines, so that nccl-tests table parsers skip them
      text += fmt::format("#\n# Transport, from NCCL's own log ({} of {} ranks)\n", res.nccl_logs.size(),
                          res.topology.nranks);
      const std::string t = report::render_transport(*transport);
      std::size_t start = 0;
      while (start < t.size()) {
        const auto nl = t.find('\n', start);
        text += "# " + t.substr(start, nl == std::string::npos ? std::string::npos : nl - start) + "\n";
        if (nl == std::string::npos) break;
        start = nl + 1;
      }
    }
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
    if (!flags.json.empty()) {
      report::Document doc(ctx.argv);
      report::add_sweep(doc, res);
      if (transport) report::add_transport(doc, *transport);
      doc.finish("complete", code, (comm::now_us() - t_start) * 1e-6);
      doc.write_atomic(flags.json);
    }
  }
  return code;
}

const Registrar kSweep{CommandSpec{
    "sweep", "nccl-tests-style collective sweep: algBw/busBw tables, exact data check, per-iteration tails",
    true, 20, [](CLI::App& sub) -> std::function<int(const RunContext&)> {
      auto f = std::make_shared<SweepFlags>();
      f->opts = bind_options(sub, model::sweep_option_table());
      sub.add_option("-J,--json,--out,--output_file", f->json, "Write the JSON report here (atomically)");
      return [f](const RunContext& ctx) { return run_sweep_cmd(ctx, *f); };
    }}};

}  // namespace
}  // namespace fabcheck::app
