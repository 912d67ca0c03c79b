#pragma once
/// @file The probes, declared once. Each row gives a probe's config key, its report section, its command and
/// help line, its option table and its step adapter; the config schema and its validation, `run.config`, the
/// plan, `--list-options` and the commands are all made from these rows (DESIGN §2, "Adding a probe").
#include <nlohmann/json.hpp>

#include <functional>
#include <string_view>
#include <vector>

#include "fabcheck/model/option_table.hpp"
#include "fabcheck/suite/config.hpp"

namespace fabcheck::suite {

namespace detail {
struct ProbeAdapter;
}

/// A probe's option table without its Options type: what the config layer and `--list-options` need.
struct ProbeOptions {
  std::vector<model::OptionInfo> infos;  ///< every config key with its flags
  /// Normalized given options -> every option's effective value (the table's defaults, then the given keys;
  /// runs the table's `finish`). Errors name the key through `name`.
  std::function<nlohmann::json(const nlohmann::json& given, const model::KeyNamer& name)> effective;
  /// `{"step", "options": [{key, flags, long_flags, negating_flags, default}], "cli_only": [{flag, why}]}`.
  std::function<nlohmann::json()> describe;
};

/// One probe.
struct ProbeSpec {
  StepKind kind;                ///< the step of a plan
  std::string_view config_key;  ///< its config section ("inspect")
  std::string_view section;     ///< the report section it fills ("inventory")
  std::string_view command;     ///< its command ("inspect"; "" for the gate, which is `fabcheck gate`)
  std::string_view help;        ///< one line for `fabcheck --help`
  int help_order = 100;         ///< position in `fabcheck --help` (DESIGN §7 order)
  ProbeOptions options;         ///< its option table (the gate has none: its `checks` are validated apart)
  /// Its step adapter (options -> validate -> measure -> section writers -> console text); nullptr for the
  /// gate and for a probe this binary was built without.
  const detail::ProbeAdapter* (*adapter)() = nullptr;
};

/// Every probe in run order, the gate last.
const std::vector<ProbeSpec>& probe_specs();

/// The row of a step kind (every kind has one).
const ProbeSpec& probe_spec(StepKind k);

}  // namespace fabcheck::suite
