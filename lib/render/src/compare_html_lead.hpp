#pragma once
// Private to lib/render: the head of the compare page (compare_html_lead.cpp).
#include <string>

#include "fabcheck/model/compare.hpp"

namespace fabcheck::report::html {

// Overlaid busBw curves per sweep series, the top tested regressions and improvements, and the per-host and
// per-link changes.
std::string compare_lead(const CompareResult& c);

// The style rules those need (the page is self-contained).
std::string compare_css();

}  // namespace fabcheck::report::html
