#pragma once
/// @file Suite configuration (DESIGN §1/§2 `lib/suite`): a config JSON turned into a validated plan.
///
/// A config is one JSON object. Top-level keys: `extends` ("default": start from the embedded default and
/// override it section by section, RFC 7386 merge patch), `timeout_s` (watchdog: seconds an operation may
/// take before the run is stopped), `counters` (bool, default true: the hosts' loss counters read around each
/// step, so that a report can prove loss; false: not read, `run.sections.<step>.counters` absent), `name`,
/// and one section per step in the fixed order inspect → sweep → latency → incast → pairs → scaling → gate.
/// Every probe section takes `enabled` (bool) and `budget_s` (seconds it is expected to take; used for the
/// plan, the progress estimate and an over-budget note). Keys starting with `_` are comments, allowed
/// anywhere. Any other unknown key is an error. Errors name the RFC 6901 JSON pointer of the bad value:
/// `/sweep/max_bytes: "64Q" is not a size (...)`.
#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace fabcheck::suite {

/// The steps of a suite, in run order.
enum class StepKind { kInspect, kSweep, kLatency, kIncast, kPairs, kNics, kOverlap, kStep, kScaling, kGate };

/// Every step in run order.
const std::vector<StepKind>& all_steps();
/// Config key of a step ("inspect", "sweep", ...).
std::string_view config_key(StepKind k);
/// Report section (key of `run.sections`) a step fills: inspect → "inventory", sweep → "sweeps", latency →
/// "latency", incast → "incast", pairs → "pairs", nics → "nics", overlap → "overlap", step → "step", scaling
/// → "scaling", gate → "gate".
std::string_view section_name(StepKind k);

/// One step of the plan.
struct Step {
  StepKind kind = StepKind::kSweep;  ///< which step
  bool enabled = false;              ///< present in the config and not `enabled: false`
  std::string disabled_reason;       ///< why not enabled ("not in the config", "enabled: false")
  double budget_s = 0;               ///< expected seconds (0 = no budget given)
  /// The section's options as given, normalized: comment keys and `enabled`/`budget_s` removed, sizes
  /// converted to integer bytes, lists to arrays, names to their canonical spelling.
  nlohmann::json options = nlohmann::json::object();
  /// Every option of the step with its effective value (the probe's Options defaults filled in), from the
  /// probe's option table (model/options_*.hpp).
  nlohmann::json effective = nlohmann::json::object();
};

/// A validated plan.
struct Plan {
  std::string name;         ///< config `name` ("" when not given)
  std::string source;       ///< where the config came from ("embedded default", a file path)
  double timeout_s = 120;   ///< watchdog limit per operation (seconds)
  bool counters = true;     ///< read the hosts' loss counters around each step (config `counters`)
  std::vector<Step> steps;  ///< every step in run order (disabled ones included)
  nlohmann::json gate_checks = nlohmann::json::array();  ///< validated `gate.checks` (possibly empty)
  std::string gate_source;  ///< where gate_checks came from when not the config ("--criteria FILE")
  /// Sum of the budgets of enabled steps (seconds).
  double total_budget_s() const;
  /// The step of a kind (always present).
  const Step& step(StepKind k) const;
};

/// The embedded default config (configs/default.json, compiled into the binary at build time).
std::string_view default_config_text();

/// Parses JSON text. @param origin named in errors (a file path or "embedded default").
/// @throws UsageError "<origin>: not valid JSON: <parser message>".
nlohmann::json parse_json_text(std::string_view text, std::string_view origin);

/// Reads and parses a JSON file. @throws UsageError naming `flag` and the path when unreadable or not JSON.
nlohmann::json load_json_file(const std::string& path, std::string_view flag);

/// Validates a config and builds the plan. `extends: "default"` is resolved against the embedded default.
/// @param source recorded in Plan::source and prefixed to errors ("--config x.json: /sweep/max_bytes: ...").
/// @throws UsageError with the JSON pointer of the first bad value.
Plan make_plan(const nlohmann::json& config, std::string_view source);

/// Validates a gate block (`{"checks": [...]}`) at JSON pointer `pointer` and returns the normalized checks.
/// Each check: `{metric, op, threshold, why?}`; metric syntax per report/gate.hpp; op one of >= <= == !=;
/// threshold a number, string or bool (ordering ops need a number).
/// @throws UsageError naming the pointer of the bad value.
nlohmann::json validate_gate_block(const nlohmann::json& gate, std::string_view pointer);

/// Reads a criteria file (`--criteria FILE`): a whole config with a `gate` block, or a bare gate block
/// (`{"gate": {...}}` or `{"checks": [...]}`). @throws UsageError naming the flag, the file and the pointer.
nlohmann::json load_criteria(const std::string& path, std::string_view flag);

/// The effective config of a plan: name, timeout_s, and every step with `enabled`, `budget_s` and every
/// option's effective value (gate: its checks). No `extends`: it stands alone. Recorded in run.config and
/// printed by `run --show-config`; a valid --config that gives the same plan.
nlohmann::json effective_config(const Plan& plan);

/// Overrides one option of a step (e.g. `run --backend`), validated as a config value named `where`; the
/// step's effective options are redrawn. @throws UsageError naming `where`.
void set_option(Plan& plan, StepKind kind, const std::string& key, const nlohmann::json& value,
                std::string_view where);

/// A step of `kind` from options given as a config section gives them (see suite/single.hpp).
/// @throws UsageError naming `/<step>/<key>`.
Step make_single_step(StepKind kind, const nlohmann::json& options);

/// Human-readable expanded plan with its time budget (for --dry-run): one line per step with its options.
std::string render_plan(const Plan& plan, int nranks, int nhosts);

}  // namespace fabcheck::suite
