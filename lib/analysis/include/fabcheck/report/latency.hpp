#pragma once
/// @file The `latency` report section (DESIGN §6) and its console text: percentile table, ASCII histogram,
/// spikes, straggler ranking and tail cost at scale. No MPI.
#include <nlohmann/json.hpp>

#include <string>

#include "fabcheck/model/console_detail.hpp"
#include "fabcheck/model/latency.hpp"
#include "fabcheck/report/document.hpp"

namespace fabcheck::report {

/// One `latency[]` entry of DESIGN §6: {kind, pattern, size_bytes, samples, p50_us, p90_us, p99_us, p999_us,
/// max_us, tail_ratio, histogram: [[lower_ns, upper_ns, count]...] (merged across pairs), per_pair,
/// stragglers, spikes, tail_cost: [{n, expected_us, vs_p50, low_confidence}]} plus min/mean/stdev,
/// low_confidence flags and notes. Percentiles are null (with `percentile_reason`) when the section has no
/// samples.
nlohmann::json latency_section_json(const model::LatencySection& s);

/// Fills `latency` (array of sections), `run.sections.latency` and the findings: LATENCY_FABRIC_NOT_CROSSED
/// (info, one host), LATENCY_PAIR_OUTLIER (warn: a pair's p50 is a DESIGN §4 outlier among the pairs),
/// LATENCY_PAIR_TAIL (warn: a pair's p99 exceeds 3× the median pair p99), LATENCY_SPIKES (info: samples above
/// 10× the median).
void add_latency(Document& doc, const model::LatencyResult& r);

/// Lines of an ASCII histogram of `h` (µs labels): log buckets (4, 2 or 1 per power of two so that at most
/// `max_lines` lines result; fine buckets nest exactly in them), one line per bucket from the first to the
/// last non-empty one: "[lower, upper) us | ####  count". Bars are linear in the count; a non-empty bucket
/// shows at least one '#'. Empty string for an empty histogram. @param skip_empty leave out the lines of
/// empty buckets (the console's --verbose form).
std::string render_histogram(const core::Histogram& h, int bar_width = 50, int max_lines = 40,
                             bool skip_empty = false);

/// "at 512 ranks the tail makes each exchange X× slower than its median" for a section (empty without
/// samples).
std::string tail_sentence(const model::LatencySection& s, std::uint64_t n = 512);

/// Console text of the whole result (rank 0 prints it to stdout): kCompact one line per size; kTables the
/// per-pair tables and tail lines (standalone `latency`); kVerbose adds the histograms (non-empty buckets).
std::string render_latency(const model::LatencyResult& r,
                           model::ConsoleDetail detail = model::ConsoleDetail::kTables);

}  // namespace fabcheck::report
