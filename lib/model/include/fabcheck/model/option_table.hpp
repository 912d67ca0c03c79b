#pragma once
/// @file One option table per probe: the single definition of every probe option.
///
/// A row's description (OptionInfo) is data, lib/model/options/<probe>.json, compiled in; the C++ of a table
/// binds each row to the Options member it sets (src/option_rows.hpp). From a row come the CLI11 options of
/// the probe's subcommand (apps/fabcheck/option_cli.hpp), the config schema of the probe's `run` section with
/// its JSON-pointer errors (lib/suite/config.cpp), JSON → Options (OptionTable::make) and Options → JSON
/// (OptionTable::to_json: `run.config` and `run --show-config`). The default of every option is the default
/// member initializer of the probe's Options struct: there is no other.
///
/// Naming rule (README "Config"): a config key is one of the option's long flags with `-` turned into `_`
/// (`--per-iter-iters` → `per_iter_iters`, `--min-bytes` → `min_bytes`); nccl-tests' own spellings
/// (`--minbytes`, `--warmup_iters`) stay as aliases. Flags of a subcommand that are not options of the step
/// (`--json`, an output file) are listed in OptionTable::cli_only.
#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fabcheck/core/error.hpp"

namespace fabcheck::model {

/// What values an option takes (and how they are normalized).
enum class OptKind {
  kBool,         ///< true/false (a CLI flag; `!--no-x` in flags negates)
  kInt,          ///< integer in [min, max]
  kNumber,       ///< finite number in [min, max]
  kSize,         ///< bytes: integer or "64M" (binary suffixes) ≥ min
  kSizeList,     ///< list of sizes: array or "8,4K,64K"
  kIntList,      ///< list of integers in [min, max]: array or "1,2,4"
  kString,       ///< any string
  kChoice,       ///< one of `choices` ("ring|all-pairs")
  kCollective,   ///< one collective name
  kCollectives,  ///< collective names: array, "a,b" or "all"
  kDtypes,       ///< data types: "float", "float,half", array, or "all"
  kRedops,       ///< reduction ops: "sum", "sum,max", array, or "all"
};

/// The description of one option (everything but the member it sets).
struct OptionInfo {
  std::string key;    ///< config key ("min_bytes")
  std::string flags;  ///< CLI11 names ("-b,--minbytes,--min-bytes"); `!--no-x` negates a kBool
  OptKind kind = OptKind::kInt;
  double min = -1e18;         ///< kInt/kNumber/kIntList lower bound; kSize/kSizeList least bytes
  double max = 1e18;          ///< upper bound
  std::string choices;        ///< kChoice: "a|b|c"
  std::string help;           ///< one line for --help
  bool nullable = false;      ///< null = not set (the probe's automatic value; JSON only)
  bool empty_ok = false;      ///< lists: an empty list is a value
  bool bool_ok = false;       ///< kInt: true/false are read as 1/0 (older configs)
  std::size_t max_items = 0;  ///< kIntList: at most this many values (0 = no limit)
};

/// Validates and normalizes one value of an option: sizes to integer bytes, lists to arrays, names to their
/// canonical spelling, `all` expanded. @param where the field as the user wrote it: a JSON pointer
/// ("/sweep/max_bytes") or a flag ("-e/--maxbytes"). @throws UsageError "<where>: <what> (<fix>)".
nlohmann::json normalize_value(const OptionInfo& o, const nlohmann::json& v, std::string_view where);

/// A command-line value as JSON, before normalize_value: integers and numbers parsed, lists split at commas,
/// everything else the text. @throws UsageError naming `where` when a number does not parse.
nlohmann::json from_cli_text(const OptionInfo& o, const std::string& text, std::string_view where);

/// The option's long flags without dashes, negations excluded ("minbytes", "min-bytes").
std::vector<std::string> long_flags(const OptionInfo& o);
/// The negating long flags of a kBool ("no-retest").
std::vector<std::string> negating_flags(const OptionInfo& o);
/// The option as users see it on the command line: first short and first long flag ("-b/--minbytes").
std::string flag_display(const OptionInfo& o);
/// A normalized value as text for --help and the plan ("64M" stays bytes: 67108864).
std::string value_text(const nlohmann::json& v);

/// One row: the description plus how it reads and writes the probe's Options struct.
template <class O>
struct OptionSpec {
  OptionInfo info;
  std::function<nlohmann::json(const O&)> get;         ///< the member as a normalized JSON value
  std::function<void(O&, const nlohmann::json&)> set;  ///< from a normalized value
};

/// Names a key for an error message: a JSON pointer in a config, a flag on the command line.
using KeyNamer = std::function<std::string(std::string_view key)>;

/// A CLI-only flag of a command, with the reason it is no option of the step.
using CliOnly = std::pair<std::string, std::string>;

/// The option table of one probe.
template <class O>
struct OptionTable {
  std::string probe;                   ///< "sweep"
  std::vector<OptionSpec<O>> options;  ///< in --help order
  /// Long flags of the standalone command that are not options of the step, each with why ("json": "output
  /// file of the standalone command; `run --json`").
  std::vector<std::pair<std::string, std::string>> cli_only;
  /// Rules across keys, after the given values are set. @param given the keys given (normalized values).
  /// @throws UsageError naming a key through `name`.
  std::function<void(O&, const nlohmann::json& given, const KeyNamer& name)> finish;

  /// The row of a key, or nullptr.
  const OptionSpec<O>* find(std::string_view key) const {
    for (const auto& s : options) {
      if (s.info.key == key) return &s;
    }
    return nullptr;
  }
  /// Every option of `o`, keyed by config key.
  nlohmann::json to_json(const O& o) const {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& s : options) out[s.info.key] = s.get(o);
    return out;
  }
  /// Options from normalized values: the struct's defaults, then every given key, then `finish`.
  O make(const nlohmann::json& given, const KeyNamer& name) const {
    O o{};
    for (const auto& [key, v] : given.items()) {
      const auto* s = find(key);
      if (!s) throw UsageError(name(key) + ": unknown option");
      s->set(o, v);
    }
    if (finish) finish(o, given, name);
    return o;
  }
  /// The descriptions alone.
  std::vector<OptionInfo> infos() const {
    std::vector<OptionInfo> out;
    for (const auto& s : options) out.push_back(s.info);
    return out;
  }
};

}  // namespace fabcheck::model
