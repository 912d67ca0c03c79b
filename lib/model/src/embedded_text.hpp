#pragma once
// lib/model's data files, compiled in (lib/model/CMakeLists.txt generates the definition).
#include <string_view>

namespace fabcheck::model::detail {

/// The text of a data file, named by its path below lib/model without `.json` ("options/sweep", "metrics");
/// empty when there is none.
std::string_view embedded_text(std::string_view name);

}  // namespace fabcheck::model::detail
