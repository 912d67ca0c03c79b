// The option tables of lib/model (issue 16): one definition per option. Every key is one of its long flags
// with '_', keys and flags are unique, the defaults are the Options struct's and survive JSON → Options →
// JSON, normalization names the field, and cross-key rules hold.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "fabcheck/model/options_incast.hpp"
#include "fabcheck/model/options_inventory.hpp"
#include "fabcheck/model/options_latency.hpp"
#include "fabcheck/model/options_pairs.hpp"
#include "fabcheck/model/options_scaling.hpp"
#include "fabcheck/model/options_sweep.hpp"

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

std::string error_of(const std::function<void()>& f) {
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
  EXPECT_EQ(error_of([&] { model::normalize_value(dtype, "float,fp9", "-d/--datatype"); }),
            "-d/--datatype: \"fp9\" is not a dtype (int8 uint8 int32 uint32 int64 uint64 half float double "
            "bfloat16)");
  EXPECT_EQ(error_of([&] {
              model::normalize_value(dtype, "f8e4m3", "-d/--datatype");
            }).rfind("-d/--datatype: f8e4m3 is not supported", 0),
            0u);
  const auto& op = t.find("op")->info;
  EXPECT_EQ(error_of([&] { model::normalize_value(op, "avg", "-o/--op"); }),
            "-o/--op: avg is not supported yet (use sum, prod, min, max, or all)");
  const auto& maxb = t.find("max_bytes")->info;
  EXPECT_EQ(model::normalize_value(maxb, "64M", "/sweep/max_bytes"), 64u << 20);
  EXPECT_EQ(error_of([&] {
              model::normalize_value(maxb, "64Q", "/sweep/max_bytes");
            }).rfind("/sweep/max_bytes: ", 0),
            0u);
  const auto& check = t.find("check")->info;
  EXPECT_EQ(model::normalize_value(check, true, "/sweep/check"), 1);  // older configs: check: true
  EXPECT_EQ(model::from_cli_text(check, "3", "-c"), 3);
  EXPECT_EQ(error_of([&] { model::from_cli_text(check, "3x", "-c/--check"); }),
            "-c/--check: \"3x\" is not an integer");
  EXPECT_EQ(model::flag_display(check), "-c/--check");
}

TEST(ModelOptions, CrossKeyRules) {
  const auto& sweep = model::sweep_option_table();
  // step_bytes alone asks for additive steps; with step_factor both are kept (nccl-tests: -f > 1 wins).
  EXPECT_EQ(sweep.make({{"step_bytes", 4096}}, ptr("sweep")).step_factor, 1u);
  EXPECT_EQ(sweep.make({{"step_bytes", 4096}, {"step_factor", 2}}, ptr("sweep")).step_factor, 2u);
  EXPECT_EQ(
      error_of([&] {
        sweep.make({{"min_bytes", 1024}, {"max_bytes", 8}}, ptr("sweep"));
      }),
      "/sweep/min_bytes: 1024 is larger than /sweep/max_bytes 8 (give /sweep/min_bytes <= /sweep/max_bytes)");
  const auto& lat = model::latency_option_table();
  EXPECT_EQ(lat.make({{"sweep", true}}, ptr("latency")).sizes, model::latency_sweep_sizes());
  // The effective config of a --sweep run says both; read back it is the same run.
  const json eff = lat.to_json(lat.make({{"sweep", true}}, ptr("latency")));
  EXPECT_EQ(eff["sweep"], true);
  EXPECT_EQ(lat.to_json(lat.make(eff, ptr("latency"))), eff);
  EXPECT_NE(error_of([&] { lat.make({{"sweep", true}, {"sizes", json::array({8})}}, ptr("latency")); }), "");
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
