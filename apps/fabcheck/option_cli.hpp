#pragma once
// A probe's option table (lib/model) registered as CLI11 options of its subcommand: the flags, help
// and defaults come from the table, and the given values go through the same normalization as a config's.
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <cmath>

#include <memory>
#include <string>
#include <vector>

#include "fabcheck/core/error.hpp"
#include "fabcheck/model/option_table.hpp"

namespace fabcheck::app {

/// Help of `--no-counters`, which every probe command and `run` take (the config key `counters`).
inline constexpr const char* kNoCountersHelp =
    "Do not read the hosts' loss counters (TCP, netdev, RDMA port, NIC pause) around each step; config key "
    "counters: false";

/// What every probe command writes besides its `--json` report (whose spellings differ: `sweep -J` is
/// nccl-tests' own file), and `--no-counters`.
struct ReportOutputs {
  std::string html;          ///< --html: the report as one self-contained page
  std::string junit;         ///< --junit: JUnit XML of the exit code's rule
  bool no_counters = false;  ///< --no-counters
};

/// Adds `--html`, `--junit` and (where the command reads counters) `--no-counters` to a probe command.
inline void add_report_outputs(CLI::App& sub, ReportOutputs& out, bool counters = true) {
  sub.add_option("--html", out.html,
                 "Also write the report as one self-contained HTML page (as fabcheck report --html)");
  sub.add_option("--junit", out.junit,
                 "Write JUnit XML: one test case, findings.severity=fail#count == 0, failed exactly when the "
                 "command exits 1");
  if (counters) sub.add_flag("--no-counters", out.no_counters, kNoCountersHelp);
}

/// `-T/--timeout S` of every command that measures: the watchdog of `run` over the command (seconds an
/// operation may go without any rank's progress, then every rank leaves with exit 3 naming the operation and
/// the ranks; nccl-tests' -T). On by default, so that one frozen rank never leaves the others or mpirun
/// hanging.
inline void add_timeout(CLI::App& sub, double& timeout_s) {
  sub.add_option("-T,--timeout", timeout_s,
                 "Seconds an operation may make no progress; then every rank leaves with exit 3 naming the "
                 "operation and the ranks (nccl-tests -T: 4; 0 = off)")
      ->check(CLI::Range(0.0, 86400.0))
      ->default_str(fmt::format("{:g}", timeout_s));
}

/// The -T value once parsed: CLI11's Range lets nan through (every comparison with nan is false).
inline double checked_timeout(double timeout_s) {
  if (!std::isfinite(timeout_s))
    throw UsageError("-T/--timeout: not a number of seconds (give 0 to 86400; 0 = off)");
  return timeout_s;
}

/// The table's options on one subcommand. Create it in the command's setup; call options() after parsing.
template <class O>
class BoundOptions {
 public:
  BoundOptions(CLI::App& sub, const model::OptionTable<O>& table)
      : table_(&table), text_(table.options.size()), flag_(new bool[table.options.size()]) {
    const O defaults{};
    for (std::size_t i = 0; i < table.options.size(); ++i) {
      const auto& spec = table.options[i];
      const nlohmann::json d = spec.get(defaults);
      flag_[i] = d.is_boolean() && d.get<bool>();
      CLI::Option* opt = spec.info.kind == model::OptKind::kBool
                             ? sub.add_flag(spec.info.flags, flag_[i], spec.info.help)
                             : sub.add_option(spec.info.flags, text_[i], spec.info.help);
      if (!d.is_null() && !(d.is_string() && d.get<std::string>().empty()))
        opt->default_str(model::value_text(d));
      if (spec.info.kind != model::OptKind::kBool) opt->type_name(type_name(spec.info));
      opts_.push_back(opt);
    }
  }

  /// Whether the option of `key` was given on the command line.
  bool given(std::string_view key) const {
    for (std::size_t i = 0; i < opts_.size(); ++i) {
      if (table_->options[i].info.key == key) return opts_[i]->count() > 0;
    }
    return false;
  }

  /// The given flags as a config section: {key: normalized value}. @throws UsageError naming the flag.
  nlohmann::json given_json() const {
    nlohmann::json given = nlohmann::json::object();
    for (std::size_t i = 0; i < opts_.size(); ++i) {
      if (opts_[i]->count() == 0) continue;
      const auto& info = table_->options[i].info;
      const std::string where = model::flag_display(info);
      const nlohmann::json raw = info.kind == model::OptKind::kBool
                                     ? nlohmann::json(flag_[i])
                                     : model::from_cli_text(info, text_[i], where);
      given[info.key] = model::normalize_value(info, raw, where);
    }
    return given;
  }

  /// The probe's Options: its defaults, then every given flag (normalized, errors naming the flag), then the
  /// table's cross-key rules. @throws UsageError naming the flag.
  O options() const {
    return table_->make(given_json(), [this](std::string_view key) {
      const auto* s = table_->find(key);
      return s ? model::flag_display(s->info) : std::string(key);
    });
  }

 private:
  static std::string type_name(const model::OptionInfo& i) {
    switch (i.kind) {
      case model::OptKind::kInt:
        return "INT";
      case model::OptKind::kNumber:
        return "NUM";
      case model::OptKind::kSize:
        return "SIZE";
      case model::OptKind::kChoice:
        return "{" + i.choices + "}";
      case model::OptKind::kString:
        return "TEXT";
      case model::OptKind::kCollective:
        return "NAME";
      default:
        return "LIST";
    }
  }
  const model::OptionTable<O>* table_;
  std::vector<std::string> text_;
  std::unique_ptr<bool[]> flag_;
  std::vector<CLI::Option*> opts_;
};

/// Registers `table` on `sub`.
template <class O>
std::shared_ptr<BoundOptions<O>> bind_options(CLI::App& sub, const model::OptionTable<O>& table) {
  return std::make_shared<BoundOptions<O>>(sub, table);
}

}  // namespace fabcheck::app
