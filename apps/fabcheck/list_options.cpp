#include "list_options.hpp"

#include <nlohmann/json.hpp>

#include "fabcheck/model/option_tables.hpp"

namespace fabcheck::app {

namespace {

using nlohmann::json;

template <class O>
json table_json(const model::OptionTable<O>& t, const CLI::App& app, const std::string& command) {
  json out = {{"step", t.probe}, {"options", json::array()}, {"cli_only", json::array()}};
  const json defaults = t.to_json(O{});
  for (const auto& s : t.options) {
    out["options"].push_back({{"key", s.info.key},
                              {"flags", s.info.flags},
                              {"long_flags", model::long_flags(s.info)},
                              {"negating_flags", model::negating_flags(s.info)},
                              {"default", defaults[s.info.key]}});
  }
  for (const auto& [f, why] : t.cli_only) out["cli_only"].push_back({{"flag", f}, {"why", why}});
  json flags = json::array();
  for (const CLI::App* sub :
       app.get_subcommands([&](const CLI::App* a) { return a->get_name() == command; })) {
    for (const CLI::Option* o : sub->get_options()) {
      for (const auto& n : o->get_lnames()) flags.push_back(n);  // negations ("no-retest") included
    }
  }
  out["command_flags"] = flags;
  return out;
}

}  // namespace

std::string list_options_json(const CLI::App& app) {
  json out = json::object();
  out["sweep"] = table_json(model::sweep_option_table(), app, "sweep");
  out["latency"] = table_json(model::latency_option_table(), app, "latency");
  out["incast"] = table_json(model::incast_option_table(), app, "incast");
  out["pairs"] = table_json(model::pairs_option_table(), app, "pairs");
  out["nics"] = table_json(model::nics_option_table(), app, "nics");
  out["overlap"] = table_json(model::overlap_option_table(), app, "overlap");
  out["step"] = table_json(model::step_option_table(), app, "step");
  out["scaling"] = table_json(model::scaling_option_table(), app, "scaling");
  out["inspect"] = table_json(model::inventory_option_table(), app, "inspect");
  return out.dump(2);
}

}  // namespace fabcheck::app
