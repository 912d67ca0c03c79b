// Config validation of `fabcheck run`: JSON pointers in errors, wrong types, unknown keys, bad
// sizes.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <fstream>

#include <string>

#include <set>
#include "fabcheck/core/error.hpp"
#include "fabcheck/model/option_tables.hpp"
#include "fabcheck/suite/config.hpp"

using fabcheck::UsageError;
using nlohmann::json;
namespace suite = fabcheck::suite;

namespace {

// The message of the UsageError thrown by make_plan, or "" when none.
std::string plan_error(const std::string& text) {
  try {
    suite::make_plan(json::parse(text), "");
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(SuiteConfig, EmbeddedDefaultIsValidAndOrdered) {
  const auto plan =
      suite::make_plan(suite::parse_json_text(suite::default_config_text(), "embedded"), "embedded");
  ASSERT_EQ(plan.steps.size(), 10u);
  const char* order[] = {"inspect", "sweep",   "latency", "incast",  "pairs",
                         "nics",    "overlap", "step",    "scaling", "gate"};
  for (std::size_t i = 0; i < 10; ++i) {
    EXPECT_EQ(suite::config_key(plan.steps[i].kind), order[i]);
    // nics, overlap and step run where a config asks for them: the default leaves them
    // out (the default suite's 30 s budget), configs/extended.json has them.
    const bool extended = plan.steps[i].kind == suite::StepKind::kNics ||
                          plan.steps[i].kind == suite::StepKind::kOverlap ||
                          plan.steps[i].kind == suite::StepKind::kStep;
    EXPECT_EQ(plan.steps[i].enabled, !extended) << order[i];
    if (extended) {
      EXPECT_NE(plan.steps[i].disabled_reason.find("not in the config"), std::string::npos);
    }
  }
  // Sizes are normalized to bytes; the sweep spans 8 B -> 32 MiB (nccl-tests' own default size).
  const auto& sweep = plan.step(suite::StepKind::kSweep);
  EXPECT_EQ(sweep.options["min_bytes"].get<std::uint64_t>(), 8u);
  EXPECT_EQ(sweep.options["max_bytes"].get<std::uint64_t>(), 32ull << 20);
  EXPECT_GT(plan.total_budget_s(), 20);
  EXPECT_LE(plan.total_budget_s(), 120);
  EXPECT_FALSE(plan.gate_checks.empty());
}

TEST(SuiteConfig, EmbeddedDefaultEqualsTheFileInTheRepository) {
  std::ifstream in(std::string(FABCHECK_SOURCE_DIR) + "/configs/default.json");
  ASSERT_TRUE(in);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(json::parse(text), json::parse(suite::default_config_text()));
}

TEST(SuiteConfig, BadSizeNamesItsPointer) {
  const auto e = plan_error(R"({"sweep": {"max_bytes": "64Q"}})");
  EXPECT_EQ(e.rfind("/sweep/max_bytes: \"64Q\" is not a size", 0), 0u) << e;
  EXPECT_EQ(plan_error(R"({"sweep": {"min_bytes": -3}})").rfind("/sweep/min_bytes: -3 is not a size", 0), 0u);
  EXPECT_EQ(plan_error(R"({"sweep": {"min_bytes": true}})").rfind("/sweep/min_bytes: true is not a size", 0),
            0u);
  EXPECT_EQ(plan_error(R"({"pairs": {"size": "0"}})").rfind("/pairs/size: \"0\" is too small", 0), 0u);
  // A bad element of a size list is named by its index.
  EXPECT_EQ(
      plan_error(R"({"latency": {"sizes": [8, "4X"]}})").rfind("/latency/sizes/1: \"4X\" is not a size", 0),
      0u);
  EXPECT_EQ(plan_error(R"({"latency": {"sizes": "8,,4K"}})").rfind("/latency/sizes:", 0), 0u);
}

TEST(SuiteConfig, WrongTypesNameTheirPointer) {
  EXPECT_EQ(plan_error(R"({"sweep": {"iters": "ten"}})"),
            "/sweep/iters: expected an integer, got a string \"ten\"");
  EXPECT_EQ(plan_error(R"({"sweep": {"iters": 2.5}})"),
            "/sweep/iters: expected an integer, got a fractional number 2.5");
  EXPECT_EQ(plan_error(R"({"sweep": {"check": "yes"}})"),
            "/sweep/check: expected an integer, got a string \"yes\"");
  EXPECT_EQ(plan_error(R"({"timeout_s": "5"})"), "/timeout_s: expected a number, got a string \"5\"");
  EXPECT_EQ(plan_error(R"({"sweep": []})"), "/sweep: expected an object, got an array []");
  EXPECT_EQ(plan_error(R"({"sweep": {"budget_s": -1}})").rfind("/sweep/budget_s: -1 is out of range", 0), 0u);
  EXPECT_EQ(plan_error(R"({"sweep": {"iters": 0}})").rfind("/sweep/iters: 0 is out of range", 0), 0u);
  EXPECT_EQ(plan_error(R"({"sweep": {"collectives": ["allreduce", "allsum"]}})"),
            "/sweep/collectives/1: \"allsum\" is not a collective (see fabcheck --list)");
  EXPECT_EQ(plan_error(R"({"latency": {"pattern": "star"}})"),
            "/latency/pattern: \"star\" is not one of ring|all-pairs");
  EXPECT_EQ(plan_error("[1, 2]"), "/: a config is a JSON object, got an array");
}

TEST(SuiteConfig, UnknownKeysAreErrorsCommentsAreNot) {
  EXPECT_EQ(plan_error(R"({"sweeps": {}})").rfind("/sweeps: unknown key", 0), 0u);
  EXPECT_EQ(
      plan_error(R"({"sweep": {"maxbytes": "1M"}})").rfind("/sweep/maxbytes: unknown key (known: enabled", 0),
      0u);
  EXPECT_EQ(
      plan_error(R"({"gate": {"checks": [{"metric": "transport.verdict", "op": "==", "threshold": "rdma",
                                                 "treshold": 1}]}})")
          .rfind("/gate/checks/0/treshold: unknown key", 0),
      0u);
  // Keys starting with '_' are comments anywhere.
  EXPECT_EQ(plan_error(R"({"_comment": [1], "sweep": {"_why": "x", "iters": 3},
                           "gate": {"_c": 1, "checks": [{"_c": 2, "metric": "a.b", "op": ">=", "threshold": 1}]}})"),
            "");
  // Pointer escaping (RFC 6901) of odd keys.
  EXPECT_EQ(plan_error(R"({"sweep": {"a/b": 1}})").rfind("/sweep/a~1b: unknown key", 0), 0u);
}

TEST(SuiteConfig, SectionsAbsentOrDisabledAreSkippedWithAReason) {
  const auto plan =
      suite::make_plan(json::parse(R"({"sweep": {"iters": 3}, "pairs": {"enabled": false}})"), "x");
  EXPECT_TRUE(plan.step(suite::StepKind::kSweep).enabled);
  EXPECT_FALSE(plan.step(suite::StepKind::kLatency).enabled);
  EXPECT_NE(plan.step(suite::StepKind::kLatency).disabled_reason.find("not in the config"),
            std::string::npos);
  EXPECT_FALSE(plan.step(suite::StepKind::kPairs).enabled);
  EXPECT_NE(plan.step(suite::StepKind::kPairs).disabled_reason.find("enabled: false"), std::string::npos);
  EXPECT_FALSE(plan.step(suite::StepKind::kGate).enabled);
}

TEST(SuiteConfig, ExtendsDefaultMergesSections) {
  const auto plan = suite::make_plan(
      json::parse(R"({"extends": "default", "timeout_s": 30, "sweep": {"max_bytes": "1M"}, "pairs": null})"),
      "x");
  EXPECT_EQ(plan.timeout_s, 30);
  const auto& sweep = plan.step(suite::StepKind::kSweep);
  EXPECT_EQ(sweep.options["max_bytes"].get<std::uint64_t>(), 1u << 20);
  EXPECT_EQ(sweep.options["min_bytes"].get<std::uint64_t>(), 8u);  // kept from the default
  EXPECT_FALSE(plan.step(suite::StepKind::kPairs).enabled);        // null removes a section (merge patch)
  EXPECT_TRUE(plan.step(suite::StepKind::kLatency).enabled);
  EXPECT_EQ(plan_error(R"({"extends": "other"})").rfind("/extends: \"other\" is not a base config", 0), 0u);
}

TEST(SuiteConfig, SweepCrossFieldRules) {
  EXPECT_EQ(plan_error(R"({"sweep": {"min_bytes": "1M", "max_bytes": "1K"}})")
                .rfind("/sweep/min_bytes: 1048576 is larger than /sweep/max_bytes 1024", 0),
            0u);
}

TEST(SuiteConfig, GateChecksAreValidated) {
  EXPECT_EQ(plan_error(R"({"gate": {"checks": [{"metric": "a..b", "op": ">=", "threshold": 1}]}})")
                .rfind("/gate/checks/0/metric: metric \"a..b\": empty segment", 0),
            0u);
  EXPECT_EQ(plan_error(R"({"gate": {"checks": [{"metric": "a", "op": ">", "threshold": 1}]}})"),
            "/gate/checks/0/op: \">\" is not an operator (use >=, <=, == or !=)");
  EXPECT_EQ(plan_error(R"({"gate": {"checks": [{"metric": "a", "op": ">=", "threshold": "x"}]}})"),
            "/gate/checks/0/threshold: >= needs a number, got \"x\"");
  EXPECT_EQ(plan_error(R"({"gate": {"checks": [{"metric": "a", "op": "=="}]}})"),
            "/gate/checks/0: missing \"threshold\" (a check is {metric, op, threshold})");
  EXPECT_EQ(
      plan_error(R"({"gate": {"checks": {"metric": "a"}}})").rfind("/gate/checks: expected an array", 0), 0u);
}

TEST(SuiteConfig, SourceIsPrefixedToErrors) {
  try {
    suite::make_plan(json::parse(R"({"sweep": {"max_bytes": "64Q"}})"), "--config x.json");
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("--config x.json: /sweep/max_bytes: \"64Q\" is not a size", 0), 0u);
  }
}

TEST(SuiteConfig, AcceptanceConfigsAreValid) {
  for (const char* name : {"vfabric", "ib-400g-h100", "roce"}) {
    const std::string path = std::string(FABCHECK_SOURCE_DIR) + "/configs/acceptance/" + name + ".json";
    auto plan = suite::make_plan(suite::load_json_file(path, "--config"), path);
    EXPECT_GE(plan.gate_checks.size(), 3u) << name;
    for (const auto& c : plan.gate_checks) EXPECT_TRUE(c.contains("why")) << name << " " << c.dump();
    EXPECT_EQ(suite::load_criteria(path, "--criteria"), plan.gate_checks) << name;
  }
}

TEST(SuiteConfig, CriteriaFileForms) {
  const std::string dir = ::testing::TempDir();
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir + name) << text;
    return dir + name;
  };
  const auto bare = write(
      "bare.json", R"({"checks": [{"metric": "score.scaling_efficiency", "op": ">=", "threshold": 0.5}]})");
  EXPECT_EQ(suite::load_criteria(bare, "--criteria").size(), 1u);
  const auto wrapped =
      write("gate.json",
            R"({"gate": {"checks": [{"metric": "transport.verdict", "op": "==", "threshold": "rdma"}]}})");
  EXPECT_EQ(suite::load_criteria(wrapped, "--criteria")[0]["threshold"], "rdma");
  const auto bad = write("bad.json", R"({"gate": {"checks": []}})");
  try {
    suite::load_criteria(bad, "--criteria");
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("/gate/checks: no checks"), std::string::npos) << e.what();
  }
  const auto notjson = write("nj.json", "{\"gate\": ");
  try {
    suite::load_criteria(notjson, "--criteria");
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("not valid JSON"), std::string::npos) << e.what();
  }
}

TEST(SuiteConfig, DryRunPlanShowsBudget) {
  const auto plan =
      suite::make_plan(suite::parse_json_text(suite::default_config_text(), "d"), "embedded default");
  const auto text = suite::render_plan(plan, 4, 1);
  EXPECT_NE(text.find("4 ranks on 1 host(s)"), std::string::npos);
  EXPECT_NE(text.find(fmt::format("time budget: {:.0f} s in total", plan.total_budget_s())),
            std::string::npos)
      << text;
  for (const char* s : {"inspect", "sweep", "latency", "incast", "pairs", "scaling", "gate"}) {
    EXPECT_NE(text.find(s), std::string::npos) << s;
  }
}

// The option tables of lib/model: one definition per option. Every key is one of its long flags
// with '_', keys and flags are unique, the defaults are the Options struct's and survive JSON → Options →
// JSON, normalization names the field, and cross-key rules hold.
namespace model_options_tests {
using namespace fabcheck;
using nlohmann::json;

namespace {

std::string underscore(std::string s) {
  for (auto& c : s)
    if (c == '-') c = '_';
  return s;
}

model::KeyNamer ptr(const std::string& step) {
  return [step](std::string_view k) { return "/" + step + "/" + std::string(k); };
}

template <class O>
void check_table(const model::OptionTable<O>& t) {
  SCOPED_TRACE(t.probe);
  std::set<std::string> keys, flags;
  for (const auto& s : t.options) {
    const auto& i = s.info;
    EXPECT_TRUE(keys.insert(i.key).second) << "key twice: " << i.key;
    bool key_is_a_flag = false;
    for (const auto& f : model::long_flags(i)) {
      EXPECT_TRUE(flags.insert(f).second) << "flag twice: --" << f;
      key_is_a_flag = key_is_a_flag || underscore(f) == i.key;
    }
    for (const auto& f : model::negating_flags(i)) {
      EXPECT_EQ(i.kind, model::OptKind::kBool) << "--" << f << " negates a non-boolean";
      EXPECT_TRUE(flags.insert(f).second) << "flag twice: --" << f;
    }
    EXPECT_TRUE(key_is_a_flag) << i.key << " is none of its long flags with '_' (" << i.flags << ")";
    EXPECT_FALSE(i.help.empty()) << i.key;
  }
  for (const auto& [f, why] : t.cli_only) {
    EXPECT_FALSE(flags.count(f)) << "--" << f << " is CLI-only and an option";
    EXPECT_FALSE(why.empty()) << f;
  }
  // Defaults: the struct's; every default is a valid value; JSON → Options → JSON is the identity.
  const json defaults = t.to_json(O{});
  EXPECT_EQ(defaults.size(), t.options.size());
  json normalized = json::object();
  for (const auto& s : t.options) {
    normalized[s.info.key] = model::normalize_value(s.info, defaults[s.info.key], "/" + s.info.key);
  }
  EXPECT_EQ(normalized, defaults);
  EXPECT_EQ(t.to_json(t.make(defaults, ptr(t.probe))), defaults);
  EXPECT_EQ(t.to_json(t.make(json::object(), ptr(t.probe))), defaults);
}

std::string error_of_sc(const std::function<void()>& f) {
  try {
    f();
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(ModelOptions, EveryTableKeepsTheNamingRuleAndItsDefaults) {
  check_table(model::sweep_option_table());
  check_table(model::latency_option_table());
  check_table(model::pairs_option_table());
  check_table(model::incast_option_table());
  check_table(model::scaling_option_table());
  check_table(model::inventory_option_table());
}

TEST(ModelOptions, SweepDefaultsAreNcclTests) {
  const auto j = model::sweep_option_table().to_json(model::SweepOptions{});
  EXPECT_EQ(j["min_bytes"], 32u << 20);
  EXPECT_EQ(j["max_bytes"], 32u << 20);
  EXPECT_EQ(j["step_factor"], 1);
  EXPECT_EQ(j["step_bytes"], 1u << 20);
  EXPECT_EQ(j["iters"], 20);
  EXPECT_EQ(j["warmup_iters"], 1);
  EXPECT_EQ(j["check"], 1);
  EXPECT_EQ(j["op"], json::array({"sum"}));
  EXPECT_EQ(j["dtype"], json::array({"float"}));
  EXPECT_EQ(j["collectives"], json::array({"allreduce"}));
}

TEST(ModelOptions, NormalizationNamesTheFieldAndExpandsLists) {
  const auto& t = model::sweep_option_table();
  const auto& dtype = t.find("dtype")->info;
  EXPECT_EQ(model::normalize_value(dtype, "float,half", "-d"), json::array({"float", "half"}));
  EXPECT_EQ(model::normalize_value(dtype, "all", "-d").size(), 10u);
  EXPECT_EQ(error_of_sc([&] { model::normalize_value(dtype, "float,fp9", "-d/--datatype"); }),
            "-d/--datatype: \"fp9\" is not a dtype (int8 uint8 int32 uint32 int64 uint64 half float double "
            "bfloat16 f8e4m3 f8e5m2)");
  // the fp8 types are asked for by name (nccl-tests' `all` adds them on sm90 GPUs only)
  EXPECT_EQ(model::normalize_value(dtype, "f8e4m3,f8e5m2", "-d"), json::array({"f8e4m3", "f8e5m2"}));
  const auto& op = t.find("op")->info;
  EXPECT_EQ(model::normalize_value(op, "avg", "-o/--op"), json::array({"avg"}));
  EXPECT_EQ(model::normalize_value(op, "all", "-o/--op"), json::array({"sum", "prod", "min", "max", "avg"}));
  // mulsum is asked for by name (not in `all`); the sweep refuses it on the mpi backend (probes::validate)
  EXPECT_EQ(model::normalize_value(op, "sum,mulsum", "-o/--op"), json::array({"sum", "mulsum"}));
  EXPECT_EQ(
      error_of_sc([&] { model::normalize_value(op, "sum,premulsum", "-o/--op"); }),
      "-o/--op: \"premulsum\" is not a reduction op (sum prod min max avg, or mulsum on the nccl backend)");
  const auto& maxb = t.find("max_bytes")->info;
  EXPECT_EQ(model::normalize_value(maxb, "64M", "/sweep/max_bytes"), 64u << 20);
  EXPECT_EQ(error_of_sc([&] {
              model::normalize_value(maxb, "64Q", "/sweep/max_bytes");
            }).rfind("/sweep/max_bytes: ", 0),
            0u);
  const auto& check = t.find("check")->info;
  EXPECT_EQ(model::normalize_value(check, true, "/sweep/check"), 1);  // older configs: check: true
  EXPECT_EQ(model::from_cli_text(check, "3", "-c"), 3);
  EXPECT_EQ(error_of_sc([&] { model::from_cli_text(check, "3x", "-c/--check"); }),
            "-c/--check: \"3x\" is not an integer");
  EXPECT_EQ(model::flag_display(check), "-c/--check");
  // a number flag refuses what strtod reads but no range check can refuse
  const auto& lat = model::latency_option_table();
  const auto* num = [&]() -> const model::OptionInfo* {
    for (const auto& o : lat.options)
      if (o.info.kind == model::OptKind::kNumber) return &o.info;
    return nullptr;
  }();
  ASSERT_NE(num, nullptr);
  for (const char* bad : {"nan", "inf", "-inf", "NAN"})
    EXPECT_NE(error_of_sc([&] { model::from_cli_text(*num, bad, "--x"); }).find("is not a number"),
              std::string::npos)
        << bad;
  EXPECT_EQ(model::from_cli_text(*num, "2.5", "--x"), 2.5);
}

TEST(ModelOptions, CrossKeyRules) {
  const auto& sweep = model::sweep_option_table();
  // step_bytes alone asks for additive steps; with step_factor both are kept (nccl-tests: -f > 1 wins).
  EXPECT_EQ(sweep.make({{"step_bytes", 4096}}, ptr("sweep")).step_factor, 1u);
  EXPECT_EQ(sweep.make({{"step_bytes", 4096}, {"step_factor", 2}}, ptr("sweep")).step_factor, 2u);
  EXPECT_EQ(
      error_of_sc([&] {
        sweep.make({{"min_bytes", 1024}, {"max_bytes", 8}}, ptr("sweep"));
      }),
      "/sweep/min_bytes: 1024 is larger than /sweep/max_bytes 8 (give /sweep/min_bytes <= /sweep/max_bytes)");
  const auto& lat = model::latency_option_table();
  EXPECT_EQ(lat.make({{"sweep", true}}, ptr("latency")).sizes, model::latency_sweep_sizes());
  // The effective config of a --sweep run says both; read back it is the same run.
  const json eff = lat.to_json(lat.make({{"sweep", true}}, ptr("latency")));
  EXPECT_EQ(eff["sweep"], true);
  EXPECT_EQ(lat.to_json(lat.make(eff, ptr("latency"))), eff);
  EXPECT_NE(error_of_sc([&] {
              lat.make({{"sweep", true}, {"sizes", json::array({8})}}, ptr("latency"));
            }),
            "");
  const auto p2p = lat.make({{"kind", "p2p"}}, ptr("latency"));
  EXPECT_TRUE(p2p.p2p);
  EXPECT_FALSE(p2p.collective);
  // Nullable keys: null is "not set" (iters by size, no duration), and stays null.
  const auto auto_iters = lat.make({{"iters", nullptr}, {"duration_s", nullptr}}, ptr("latency"));
  EXPECT_EQ(auto_iters.iters, 0u);
  EXPECT_EQ(lat.to_json(auto_iters)["iters"], nullptr);
  const auto& pairs = model::pairs_option_table();
  EXPECT_FALSE(pairs.make({{"line_rate_gbit", nullptr}}, ptr("pairs")).line_rate_gbit.has_value());
  EXPECT_EQ(*pairs.make({{"line_rate_gbit", 100.0}}, ptr("pairs")).line_rate_gbit, 100.0);
}
}  // namespace model_options_tests
