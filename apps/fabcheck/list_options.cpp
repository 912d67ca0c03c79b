#include "list_options.hpp"

#include <nlohmann/json.hpp>

#include "fabcheck/suite/probe_spec.hpp"

namespace fabcheck::app {

std::string list_options_json(const CLI::App& app) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& spec : suite::probe_specs()) {
    if (spec.command.empty()) continue;  // the gate: `fabcheck gate`, no option table
    nlohmann::json t = spec.options.describe();
    nlohmann::json flags = nlohmann::json::array();
    for (const CLI::App* sub :
         app.get_subcommands([&](const CLI::App* a) { return a->get_name() == spec.command; })) {
      for (const CLI::Option* o : sub->get_options()) {
        for (const auto& n : o->get_lnames()) flags.push_back(n);  // negations ("no-retest") included
      }
    }
    t["command_flags"] = flags;
    out[std::string(spec.command)] = t;
  }
  return out.dump(2);
}

}  // namespace fabcheck::app
