#pragma once
// `fabcheck --list-options`: every probe's option table next to the flags its subcommand really registered,
// as JSON for tests and tools.
#include <CLI/CLI.hpp>

#include <string>

namespace fabcheck::app {

/// JSON text: `{"<command>": {"step": config key, "options": [{key, flags, default}], "cli_only": [{flag,
/// why}], "command_flags": [long flags registered on the subcommand]}}` for each probe command of `app`.
std::string list_options_json(const CLI::App& app);

}  // namespace fabcheck::app
