#pragma once
// A probe's option table built from its rows, lib/model/options/<probe>.json (compiled in:
// embedded_text.hpp), and the C++ that reads and writes the Options member of each row.
//
// A row file: {"options": [row, ...], "cli_only": [[flag, why], ...], "counters": false}. A row holds the
// OptionInfo fields by name ("kind": "int", "size_list", ...; an absent field is OptionInfo's default) and
// "member" when the Options member (or the table's own accessor) is not named as the key. "cli_only" lists
// the command's own CLI-only flags: the loader puts `--json` and `--out` before them and the flags every
// probe command shares after them: `--no-counters` (unless "counters" is false: a command that reads no loss
// counters), `--html` and `--junit`.
#include <nlohmann/json.hpp>

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "fabcheck/core/collective.hpp"
#include "fabcheck/model/option_table.hpp"

namespace fabcheck::model::detail {

/// One probe's rows as its file gives them.
struct OptionRows {
  std::vector<OptionInfo> infos;
  std::vector<std::string> members;  ///< the accessor of each row: "member", else the key
  std::vector<CliOnly> cli_only;
};

/// The rows of `probe` (each table reads them once). @throws std::logic_error for a probe without a file or a
/// field the rows do not know (a misspelt kind or key).
OptionRows option_rows(std::string_view probe);

/// How a row reads and writes an Options struct.
template <class O>
struct Access {
  std::function<nlohmann::json(const O&)> get;         ///< the value as JSON, before the row's null rule
  std::function<void(O&, const nlohmann::json&)> set;  ///< from a normalized value
};

template <class T>
struct is_optional : std::false_type {};
template <class T>
struct is_optional<std::optional<T>> : std::true_type {};
template <class T>
struct is_enum_list : std::false_type {};
template <class T>
struct is_enum_list<std::vector<T>> : std::is_enum<T> {};

/// A member as JSON: collectives, dtypes and redops by name (core::name), an empty optional as null, anything
/// else as its own JSON type.
template <class T>
nlohmann::json member_json(const T& v) {
  if constexpr (is_optional<T>::value) {
    return v ? member_json(*v) : nlohmann::json(nullptr);
  } else if constexpr (std::is_enum_v<T>) {
    return std::string(core::name(v));
  } else if constexpr (is_enum_list<T>::value) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& x : v) out.push_back(member_json(x));
    return out;
  } else {
    return v;
  }
}

/// A member from a normalized value, the inverse of member_json; null is the member's zero (not set).
template <class T>
T member_from(const nlohmann::json& v) {
  if (v.is_null()) return T{};
  if constexpr (is_optional<T>::value) {
    return member_from<typename T::value_type>(v);
  } else if constexpr (std::is_same_v<T, core::Collective>) {
    return *core::parse_collective(v.get<std::string>());
  } else if constexpr (std::is_same_v<T, core::Dtype>) {
    return *core::parse_dtype(v.get<std::string>());
  } else if constexpr (std::is_same_v<T, core::RedOp>) {
    return *core::parse_redop(v.get<std::string>());
  } else if constexpr (is_enum_list<T>::value) {
    T out;
    for (const auto& x : v) out.push_back(member_from<typename T::value_type>(x));
    return out;
  } else {
    return v.get<T>();
  }
}

template <class O, class T>
Access<O> member_access(T O::*member) {
  return {[member](const O& o) { return member_json(o.*member); },
          [member](O& o, const nlohmann::json& v) { o.*member = member_from<T>(v); }};
}

/// The accessors of Options members, each named as its member: `{FABCHECK_OPTION_MEMBERS(iters, warmup)}`
/// where `O` names the Options struct.
#define FABCHECK_OPTION_MEMBER(m) {#m, ::fabcheck::model::detail::member_access(&O::m)},
#define FABCHECK_OPTION_MEMBERS(...) \
  NLOHMANN_JSON_EXPAND(NLOHMANN_JSON_PASTE(FABCHECK_OPTION_MEMBER, __VA_ARGS__))

/// The table of `probe`: its rows, each bound to its accessor, and the cross-key rules `finish`. A nullable
/// row reads a zero member as null ("not set": the probe's automatic value). @throws std::logic_error when a
/// row has no accessor or an accessor no row.
template <class O>
OptionTable<O> load_option_table(const std::string& probe, const std::map<std::string, Access<O>>& access,
                                 decltype(OptionTable<O>::finish) finish = {}) {
  const OptionRows rows = option_rows(probe);
  OptionTable<O> t{probe, {}, rows.cli_only, std::move(finish)};
  std::set<std::string> bound;
  for (std::size_t i = 0; i < rows.infos.size(); ++i) {
    const auto it = access.find(rows.members[i]);
    if (it == access.end()) throw std::logic_error(probe + " option table: no accessor " + rows.members[i]);
    bound.insert(it->first);
    auto get = it->second.get;
    if (rows.infos[i].nullable) {
      get = [get](const O& o) {
        nlohmann::json v = get(o);
        return v == 0 ? nlohmann::json(nullptr) : v;
      };
    }
    t.options.push_back({rows.infos[i], std::move(get), it->second.set});
  }
  if (bound.size() != access.size())
    throw std::logic_error(probe + " option table: an accessor without a row");
  return t;
}

}  // namespace fabcheck::model::detail

/// Defines `const OptionTable<Type>& fn()`: the table of `probe`, built once, its rows bound to the Options
/// members named (each as its row's accessor), with the cross-key rules `finish` (`{}`: none).
#define FABCHECK_OPTION_TABLE(fn, Type, probe, finish, ...)                                  \
  const OptionTable<Type>& fn() {                                                            \
    using O = Type;                                                                          \
    static const OptionTable<O> t =                                                          \
        detail::load_option_table<O>(probe, {FABCHECK_OPTION_MEMBERS(__VA_ARGS__)}, finish); \
    return t;                                                                                \
  }
