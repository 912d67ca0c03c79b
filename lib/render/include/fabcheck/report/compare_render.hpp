#pragma once
/// @file The comparison of two fabrics as console text and as an HTML fragment (lib/render: formats what
/// compare_reports() computed, computes nothing).
#include <string>

#include "fabcheck/model/compare.hpp"

namespace fabcheck::report {

/// Console table (one line per row) with a header naming the files and the rule, and a summary line.
std::string render_compare(const CompareResult& r);

/// A self-contained HTML page (inline CSS, no script, no network) with the same table and summary.
std::string render_compare_html(const CompareResult& r);

}  // namespace fabcheck::report
