#pragma once
/// @file The HTML report: one self-contained page rendered from a report document (DESIGN §6) —
/// inline CSS and SVG only, no script, no network, readable offline. At the top the score, the transport
/// verdict, the gate result and the findings; then one section per probe (sweeps, latency, pairs, incast,
/// scaling) and the environment (topology, inventory). A section whose `run.sections` entry is skipped or
/// failed says so with its reason. Every plotted value is its own SVG element with `data-*` attributes
/// (e.g. `data-size-bytes`, `data-busbw-gbps`) so that tests and scripts can read the plot back.
#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

#include "fabcheck/report/sinks.hpp"

namespace fabcheck::report {

/// Element ids of the page sections, in page order. Stable: tests look them up.
/// "summary" (score, transport, gate, run status), "findings", "gate", "sweeps", "latency", "pairs",
/// "incast", "overlap", "step" (the emulated training step), "scaling", "counters" (the hosts' loss and error
/// counters per step), "environment".
inline constexpr std::string_view kHtmlSectionIds[] = {"summary", "findings", "gate",     "sweeps",
                                                       "latency", "pairs",    "incast",   "overlap",
                                                       "step",    "scaling",  "counters", "environment"};

/// Escapes text for HTML element content and double- or single-quoted attribute values: & < > " ' become
/// entities; control characters other than tab, newline and carriage return are dropped (they are not
/// allowed in HTML). UTF-8 passes through unchanged.
std::string html_escape(std::string_view text);

/// Renders the whole page for a report document. Pure: reads only `report`. Tolerates any shape (imported,
/// partial, older or failed reports): a missing or mistyped field is shown as "—" or as the section's
/// "no data" line, never an exception. Every string taken from the report is escaped with html_escape.
/// @param report a parsed fabcheck report (schema_version 1).
/// @return a complete UTF-8 HTML5 document.
std::string render_html(const nlohmann::json& report);

/// The page as a command's output ("" = not asked for): render_html of the finished report.
Sink html_sink(std::string flag, std::string path);

}  // namespace fabcheck::report
