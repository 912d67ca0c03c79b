// The probes' option rows (option_rows.hpp), read from their files compiled in.
#include "option_rows.hpp"

#include <fmt/format.h>

#include "embedded_text.hpp"

namespace fabcheck::model {

NLOHMANN_JSON_SERIALIZE_ENUM(OptKind, {{OptKind::kBool, "bool"},
                                       {OptKind::kInt, "int"},
                                       {OptKind::kNumber, "number"},
                                       {OptKind::kSize, "size"},
                                       {OptKind::kSizeList, "size_list"},
                                       {OptKind::kIntList, "int_list"},
                                       {OptKind::kString, "string"},
                                       {OptKind::kChoice, "choice"},
                                       {OptKind::kCollective, "collective"},
                                       {OptKind::kCollectives, "collectives"},
                                       {OptKind::kDtypes, "dtypes"},
                                       {OptKind::kRedops, "redops"}})

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(OptionInfo, key, flags, kind, min, max, choices, help,
                                                nullable, empty_ok, bool_ok, max_items)

namespace detail {

namespace {

using nlohmann::json;

std::vector<CliOnly> cli_only_of(const json& file) {
  std::vector<CliOnly> v = {{"json", "the report file of the standalone command (run: --json)"},
                            {"out", "alias of --json"}};
  for (const auto& f : file.value("cli_only", json::array())) v.emplace_back(f.at(0), f.at(1));
  if (file.value("counters", true)) {
    v.push_back(
        {"no-counters", "the config's top-level counters: false, around every step (run: --no-counters)"});
  }
  v.push_back({"timeout", "the watchdog over the standalone command, nccl-tests' -T (run: --timeout)"});
  v.push_back({"html", "the report as one HTML page, an output of the command (run: --html)"});
  v.push_back(
      {"junit", "JUnit XML of the exit code's rule, an output of the command (run: --junit, the gate's)"});
  return v;
}

}  // namespace

OptionRows option_rows(std::string_view probe) {
  const std::string_view text = embedded_text(fmt::format("options/{}", probe));
  if (text.empty()) throw std::logic_error(fmt::format("no option rows for {} (lib/model/options)", probe));
  const json file = json::parse(text);
  OptionRows rows;
  for (const json& row : file.at("options")) {
    OptionInfo info = row;
    // Every field of the row reads back as written: a misspelt field or kind would be a default in silence.
    const json back = info;
    for (const auto& [field, v] : row.items()) {
      if (field != "member" && (!back.contains(field) || back[field] != v))
        throw std::logic_error(
            fmt::format("option rows of {}: {}.{} is not an option field", probe, info.key, field));
    }
    rows.members.push_back(row.value("member", info.key));
    rows.infos.push_back(std::move(info));
  }
  rows.cli_only = cli_only_of(file);
  return rows;
}

}  // namespace detail

}  // namespace fabcheck::model
