#pragma once
/// @file Report and console output of the sweep probe: the `sweeps` section (DESIGN §6), its findings, and
/// the nccl-tests table layout (the format strings of nccl-tests v2.19.6's src/common.cu).
#include <optional>
#include <string>
#include <string_view>

#include "fabcheck/model/sweep.hpp"
#include "fabcheck/report/document.hpp"
#include "fabcheck/report/transport.hpp"

namespace fabcheck::report {

/// Fills `sweeps` (one entry per block: {collective, dtype, redop, root, nranks, avg_busbw_gbps, points:
/// [{size_bytes, count, cycle, placement, time_us, algbw_gbps, busbw_gbps, wrong, per_iter}]}), `topology`,
/// run.config.sweep, run.sections.sweeps, and the findings WRONG_DATA (fail, when Σ#wrong > 0) and
/// SINGLE_RANK (warn, n = 1: busBw 0).
void add_sweep(Document& doc, const model::SweepResult& r);

/// Console text in the nccl-tests layout: per collective a preamble (`# Collective test starting`, `# nThread
/// …`,
/// `# Using devices` with one line per rank), the 3-line header, one row per size (out-of-place then in-place
/// block), and the footer (`# Out of bounds values`, `# Avg bus bandwidth`, `# Collective test concluded`).
/// Rows: "%12li  %12li  %8s  %6s  %6s" then per placement "  %7s  %6s  %6s  %6g" or "  %7s  %6s  %6s    N/A".
std::string render_sweep(const model::SweepResult& r);

/// The compact console form (`run` without --verbose): one `#` line per series — sizes, peak busBw
/// and where, busBw at the largest size, the nccl-tests average (mean over both placements of every row),
/// the data check (wrong elements and the ranks that received them) — so that the default run fits on two
/// screens. The nccl-tests table itself stays in `render_sweep` (--verbose, standalone `sweep`) and the HTML.
std::string render_sweep_compact(const model::SweepResult& r);

/// nccl-tests' HEAD `getFloatStr`: the first of %.2f, %.1f, %.0f that fits in `width` characters
/// (right-aligned), otherwise %<width>.1e when width ≥ 7, else %<width>.0e.
std::string nccl_float(double value, int width);

}  // namespace fabcheck::report
