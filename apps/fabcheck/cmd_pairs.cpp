// `fabcheck pairs`: every host pair measured, the link matrix, the slow link or bad host named (DESIGN §5).

#include <cstdio>

#include "command.hpp"
#include "fabcheck/comm/agree.hpp"
#include "fabcheck/comm/communicator.hpp"
#include "fabcheck/core/error.hpp"
#include "fabcheck/model/option_tables.hpp"
#include "fabcheck/probes/pairs.hpp"
#include "fabcheck/report/document.hpp"
#include "fabcheck/report/gate.hpp"
#include "fabcheck/suite/single.hpp"
#include "option_cli.hpp"

namespace fabcheck::app {
namespace {

struct PairsFlags {
  std::shared_ptr<BoundOptions<probes::PairsOptions>> opts;
  std::string json_path;
  std::string exclude_hostfile;
  ReportOutputs out;  // --html, --junit, --no-counters
};

int run(const PairsFlags& fl, const RunContext& ctx) {
  probes::validate(fl.opts->options());  // errors name the flag
  const auto comm = comm::Communicator::world();
  // Only rank 0 writes: its file system decides, and every rank stops together when it cannot.
  if (!fl.exclude_hostfile.empty())
    comm::agree_on_root(comm, [&] { report::check_writable(fl.exclude_hostfile, "--exclude-hostfile"); });
  if (auto why = probes::pairs_skip_reason(comm)) throw UsageError(*why);
  const suite::Step step = suite::make_single_step(suite::StepKind::kPairs, fl.opts->given_json());
  auto so = suite::SingleOptions::of(ctx.argv, fl.json_path)
                .with_counters(!fl.out.no_counters)
                .with_outputs(fl.out.html, fl.out.junit);
  so.other_outputs = {{"--exclude-hostfile", fl.exclude_hostfile}};
  const auto out = suite::run_single(comm, {step}, so);
  if (comm.rank() == 0 && !fl.exclude_hostfile.empty()) {
    std::string text;
    for (const auto& h : out.pairs_passed_hosts) text += h + "\n";
    report::write_text_atomic(fl.exclude_hostfile, text, "--exclude-hostfile");
    std::fprintf(stderr, "fabcheck pairs: %zu of %zu hosts passed, written to %s\n",
                 out.pairs_passed_hosts.size(), out.pairs_hosts, fl.exclude_hostfile.c_str());
  }
  return out.exit_code;
}

const Registrar kPairs{
    probe_command(suite::StepKind::kPairs, [](CLI::App& sub) -> std::function<int(const RunContext&)> {
      auto fl = std::make_shared<PairsFlags>();
      fl->opts = bind_options(sub, model::pairs_option_table());
      sub.add_option("--exclude-hostfile", fl->exclude_hostfile,
                     "Write the hosts that passed (one per line) for the next job's hostfile");
      sub.add_option("--json,-J,--out", fl->json_path, "Write the JSON report to FILE (atomically)");
      add_report_outputs(sub, fl->out);
      return [fl](const RunContext& ctx) { return run(*fl, ctx); };
    })};

}  // namespace
}  // namespace fabcheck::app
