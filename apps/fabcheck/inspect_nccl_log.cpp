// NCCL-log inspection: parse → transport verdict (judged against recorded hosts offline, or against the
// live inventory under MPI) → console + JSON report.
#include "inspect_nccl_log.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>

#include "fabcheck/comm/agree.hpp"
#include "fabcheck/comm/communicator.hpp"
#include "fabcheck/core/ascii.hpp"
#include "fabcheck/core/error.hpp"
#include "fabcheck/parse/nccl_log.hpp"
#include "fabcheck/probes/inventory.hpp"
#include "fabcheck/report/document.hpp"
#include "fabcheck/report/inventory.hpp"
#include "fabcheck/report/log_host.hpp"
#include "fabcheck/report/transport.hpp"
#include "fabcheck/report/transport_accumulator.hpp"
#include "fabcheck/suite/single.hpp"

namespace fabcheck::app {

namespace {

struct RecordedHost {
  std::string host;  // "" = the log's only host
  std::string root;
};

// `host=DIR` or `DIR` (a path that is a directory as written is never split at its '=').
RecordedHost split_root(const std::string& value) {
  std::error_code ec;
  const auto eq = value.find('=');
  if (eq == std::string::npos || std::filesystem::is_directory(value, ec)) return {"", value};
  return {value.substr(0, eq), value.substr(eq + 1)};
}

// The recorded hosts of `--sysfs-root`, checked against the hosts the logs' lines name.
std::vector<RecordedHost> recorded_hosts(const std::vector<std::string>& roots,
                                         const std::vector<parse::NcclLog>& logs) {
  std::vector<RecordedHost> out;
  const auto names = report::log_host_names(logs);
  const std::string in_logs = names.empty() ? "none" : fmt::format("{}", fmt::join(names, ", "));
  for (const auto& r : roots) {
    RecordedHost h = split_root(r);
    std::error_code ec;
    if (h.host.empty() && !h.root.empty() && r.find('=') == 0)
      throw UsageError("--sysfs-root: '" + r + "' names no host before '=' (give --sysfs-root host=DIR)");
    if (h.root.empty() || !std::filesystem::is_directory(h.root, ec))
      throw UsageError(fmt::format(
          "--sysfs-root: {} is not a directory (give --sysfs-root host=DIR with a recorded sysfs tree)",
          h.root));
    if (h.host.empty() && (roots.size() > 1 || names.size() > 1))
      throw UsageError(fmt::format(
          "--sysfs-root: {} names no host and the logs show {} (give --sysfs-root host=DIR for each host)",
          h.root, names.size() > 1 ? "hosts " + in_logs : "several roots"));
    if (!h.host.empty() && std::none_of(names.begin(), names.end(), [&](const std::string& n) {
          return report::same_host_name(n, h.host);
        }))
      throw UsageError(fmt::format(
          "--sysfs-root: no line of the logs comes from host {} (hosts in the logs: {}; name the host as the "
          "log's host:pid:tid prefix does)",
          h.host, in_logs));
    for (const auto& o : out)
      if (!h.host.empty() && report::same_host_name(o.host, h.host))
        throw UsageError("--sysfs-root: host " + h.host + " given twice (give one tree per host)");
    out.push_back(std::move(h));
  }
  return out;
}

// The recorded hosts' inventories: sysfs only (no libibverbs, no nvidia-smi: neither describes a recorded
// tree), Open MPI's files under DIR/etc, no environment (this process's is not that host's).
model::InventoryResult read_recorded(const std::vector<RecordedHost>& hosts) {
  model::InventoryResult inv;
  for (const auto& h : hosts) {
    probes::InventoryOptions o;
    o.sysfs_root = h.root;
    o.etc_root = h.root + "/etc";
    o.use_verbs = false;
    o.run_nvidia_smi = false;
    const auto verbs = probes::make_system_verbs();
    inv.hosts.push_back(probes::collect_host_inventory(o, *verbs, {}, h.host));
  }
  return inv;
}

}  // namespace

namespace {

// Every input checked before anything is read or written: one line, exit 2 (UsageError).
void check_log_inputs(const std::vector<std::string>& files, const std::string& json_path,
                      const ReportOutputs& outputs) {
  if (files.empty())
    throw UsageError("--nccl-log: no file given (pass one or more NCCL_DEBUG=INFO log files)");
  for (const auto& f : files) {
    if (::access(f.c_str(), R_OK) != 0)
      throw UsageError("--nccl-log: cannot read " + f +
                       " (give an existing, readable NCCL_DEBUG=INFO log file)");
  }
  // One log given twice (or under two names) would double every count.
  for (std::size_t i = 0; i < files.size(); ++i) {
    struct stat a {};
    if (::stat(files[i].c_str(), &a) != 0) continue;
    for (std::size_t j = 0; j < i; ++j) {
      struct stat b {};
      if (::stat(files[j].c_str(), &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
        throw UsageError("--nccl-log: " + files[i] + " is the same file as " + files[j] +
                         " (give each log once)");
    }
  }
  report::Sinks sinks = suite::report_sinks(json_path, outputs.html, outputs.junit);
  for (const auto& f : files) sinks.input("--nccl-log", f);
  sinks.check();
}

// The verdict from the logs judged against `inv` (recorded or live hosts), printed and written.
int judge_logs(std::vector<parse::NcclLog> logs, const model::InventoryResult& inv,
               const std::map<std::string, std::string>& env, const std::vector<std::string>& argv,
               const std::string& hosts_title, const std::string& json_path, const ReportOutputs& outputs,
               bool quiet, std::chrono::steady_clock::time_point t0) {
  report::TransportAccumulator acc;
  if (!inv.hosts.empty()) acc.add_inventories(inv, env);
  acc.add_nccl_logs(std::move(logs), {}, {});
  const report::TransportResult r = acc.result();
  report::Document doc(argv);
  if (!inv.hosts.empty()) report::add_inventory(doc, inv);
  report::add_transport(doc, r);
  int code = doc.exit_code();
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  doc.finish("complete", code, secs);
  if (!quiet) {
    std::string out = report::render_transport(r);
    if (!inv.hosts.empty()) {
      out += "\n" + hosts_title + ":\n" + report::render_inventory(inv);
      const auto fs = report::inventory_findings(inv);
      for (const auto& f : fs)
        out += fmt::format("  [{}] {}: {}\n         remedy: {}\n", report::name(f.severity), f.code,
                           f.message, f.remedy);
    }
    std::fputs(core::terminal_safe(out).c_str(), stdout);  // log lines are quoted in it
    std::fflush(stdout);
  }
  suite::report_sinks(json_path, outputs.html, outputs.junit).write(doc.json());
  return code;
}

}  // namespace

int run_inspect_nccl_logs(const std::vector<std::string>& files, const std::vector<std::string>& sysfs_roots,
                          const std::string& json_path, const ReportOutputs& outputs, bool quiet) {
  auto t0 = std::chrono::steady_clock::now();
  check_log_inputs(files, json_path, outputs);
  std::vector<parse::NcclLog> logs;
  for (const auto& f : files) logs.push_back(parse::parse_nccl_log_file(f));
  const model::InventoryResult inv = read_recorded(recorded_hosts(sysfs_roots, logs));
  std::vector<std::string> argv = {"fabcheck", "inspect"};
  for (const auto& f : files) {
    argv.push_back("--nccl-log");
    argv.push_back(f);
  }
  for (const auto& root : sysfs_roots) {
    argv.push_back("--sysfs-root");
    argv.push_back(root);
  }
  return judge_logs(std::move(logs), inv, {}, argv, "recorded hosts", json_path, outputs, quiet, t0);
}

int run_inspect_nccl_logs_live(const std::vector<std::string>& files, const probes::InventoryOptions& opts,
                               const std::vector<std::string>& argv, const std::string& json_path,
                               const ReportOutputs& outputs, bool quiet) {
  auto t0 = std::chrono::steady_clock::now();
  auto world = comm::Communicator::world();
  comm::agree_on_root(world, [&] { check_log_inputs(files, json_path, outputs); });
  const probes::InventoryResult inv = probes::run_inventory(world, opts);
  int code = 0;
  if (world.rank() == 0) {
    std::vector<parse::NcclLog> logs;
    for (const auto& f : files) logs.push_back(parse::parse_nccl_log_file(f));
    code = judge_logs(std::move(logs), inv, probes::filter_transport_env(probes::process_environment()), argv,
                      "inventory (live)", json_path, outputs, quiet, t0);
  }
  return static_cast<int>(world.allreduce(static_cast<double>(code), comm::ScalarOp::kMax));
}

}  // namespace fabcheck::app
