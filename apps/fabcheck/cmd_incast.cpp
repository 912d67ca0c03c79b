// `fabcheck incast`: many senders to one receiver, fairness and the congestion it causes to a bystander.
#include <cstdio>

#include "agree.hpp"
#include "command.hpp"
#include "fabcheck/comm/communicator.hpp"
#include "fabcheck/core/error.hpp"
#include "fabcheck/probes/incast.hpp"
#include "fabcheck/probes/topology.hpp"
#include "fabcheck/report/document.hpp"
#include "fabcheck/report/incast.hpp"
#include "fabcheck/report/topology.hpp"
#include "option_cli.hpp"

namespace fabcheck::app {
namespace {

struct IncastCli {
  std::shared_ptr<BoundOptions<probes::IncastOptions>> opts;
  std::string json;
};

std::function<int(const RunContext&)> setup_incast(CLI::App& sub) {
  auto cli = std::make_shared<IncastCli>();
  cli->opts = bind_options(sub, model::incast_option_table());
  sub.add_option("--json,-J,--out", cli->json, "Write the JSON report to FILE (atomically)");
  return [cli](const RunContext& ctx) -> int {
    const double t0 = comm::now_us();
    const probes::IncastOptions o = cli->opts->options();
    probes::validate(o);
    auto world = comm::Communicator::world();
    if (!cli->json.empty()) agree_on_root_check(world, [&] { report::check_writable(cli->json, "--json"); });
    agree_on_all_check(world, [&] { probes::validate(o, probes::incast_endpoints(world).names); });
    const auto clocks = comm::align_clocks(world);  // for the topology section (as every command writes it)
    const auto result = probes::run_incast(world, o);
    if (world.rank() != 0) return 0;
    report::Document doc(ctx.argv);
    report::add_topology(doc, probes::describe_topology(world, "mpi", clocks));
    report::add_incast(doc, result);
    std::fputs(report::render_incast(result).c_str(), stdout);
    std::fflush(stdout);
    const int code = doc.has_fail() ? static_cast<int>(ExitCode::kFail) : static_cast<int>(ExitCode::kOk);
    doc.json()["run"]["config"] = {{"incast", model::incast_option_table().to_json(o)}};
    doc.finish("complete", code, (comm::now_us() - t0) / 1e6);
    if (!cli->json.empty()) doc.write_atomic(cli->json);
    return code;
  };
}

const Registrar kIncast{{"incast", "Incast stress: k senders to one receiver, fairness, bystander congestion",
                         true, 40, setup_incast}};

}  // namespace
}  // namespace fabcheck::app
