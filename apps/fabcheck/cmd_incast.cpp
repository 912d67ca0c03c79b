// `fabcheck incast`: many senders to one receiver, fairness and the congestion it causes to a bystander.
#include <cstdio>

#include "agree.hpp"
#include "command.hpp"
#include "fabcheck/comm/communicator.hpp"
#include "fabcheck/core/error.hpp"
#include "fabcheck/core/size.hpp"
#include "fabcheck/probes/incast.hpp"
#include "fabcheck/report/document.hpp"
#include "fabcheck/report/incast.hpp"

namespace fabcheck::app {
namespace {

struct IncastCli {
  probes::IncastOptions opts;
  std::string sizes = "256K,4M";
  std::string json;
  bool victim_only = false, congestor_only = false;
};

std::function<int(const RunContext&)> setup_incast(CLI::App& sub) {
  auto cli = std::make_shared<IncastCli>();
  sub.add_option("--receiver", cli->opts.receiver,
                 "Receiving host (default: the host of rank 0; 'all' = each in turn)");
  sub.add_option("--fan-in", cli->opts.fan_in,
                 "Fan-in list k (default 1,2,4,... up to the available senders)")
      ->delimiter(',');
  sub.add_option("--sizes", cli->sizes, "Bytes per sender per burst, list (K/M/G binary)")
      ->capture_default_str();
  sub.add_option("--rounds", cli->opts.rounds, "Bursts per (fan-in, size)")->capture_default_str();
  sub.add_option("--duration", cli->opts.duration_s,
                 "Seconds per (fan-in, size) instead of --rounds (0 = off)");
  sub.add_option("--victim-iters", cli->opts.victim_iters, "Isolated victim ping-pongs per receiver")
      ->capture_default_str();
  sub.add_option("--victim-interval-us", cli->opts.victim_interval_us,
                 "Least time between two victim pings, microseconds (0 = back to back)")
      ->capture_default_str();
  sub.add_flag("--victim-only", cli->victim_only, "Measure only the isolated victim");
  sub.add_flag("--congestor-only", cli->congestor_only, "Run the bursts without a victim");
  sub.add_option("--json,-J,--out", cli->json, "Write the JSON report to FILE (atomically)");
  return [cli](const RunContext& ctx) -> int {
    auto& o = cli->opts;
    o.sizes_bytes = core::parse_size_list(cli->sizes, "--sizes");
    o.victim = !cli->congestor_only;
    o.congestors = !cli->victim_only;
    probes::validate(o);
    auto world = comm::Communicator::world();
    if (!cli->json.empty()) agree_on_root_check(world, [&] { report::check_writable(cli->json, "--json"); });
    agree_on_all_check(world, [&] { probes::validate(o, probes::incast_endpoints(world).names); });
    const auto result = probes::run_incast(world, o);
    if (world.rank() != 0) return 0;
    report::Document doc(ctx.argv);
    report::add_incast(doc, result);
    std::fputs(report::render_incast(result).c_str(), stdout);
    std::fflush(stdout);
    const int code = doc.has_fail() ? 1 : 0;
    doc.finish("complete", code, 0.0);
    if (!cli->json.empty()) doc.write_atomic(cli->json);
    return code;
  };
}

const Registrar kIncast{{"incast", "Incast stress: k senders to one receiver, fairness, bystander congestion",
                         true, 40, setup_incast}};

}  // namespace
}  // namespace fabcheck::app
