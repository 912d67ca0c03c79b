#pragma once
/// @file `fabcheck import`: a parsed nccl-tests result (parse/nccl_tests.hpp) → a normal fabcheck report
/// (DESIGN §6): `sweeps` in the shape `fabcheck sweep` writes (report/sweep.hpp), `topology` from the `#
/// Using devices` lines, `run.imported` naming the file and format. Each row's busBw is recomputed from size,
/// time and rank count (core::busbw_factor, DESIGN §3) and compared with the file's value at the file's
/// printed precision; disagreements are findings, not errors.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "fabcheck/core/collective.hpp"
#include "fabcheck/parse/nccl_tests.hpp"
#include "fabcheck/report/document.hpp"

namespace fabcheck::report {

/// What the user told `import` beyond the file.
struct ImportOptions {
  std::string file;                            ///< the imported file, recorded in run.imported.file
  std::optional<core::Collective> collective;  ///< `--coll`: for files that do not name their collective
  std::optional<int> nranks;                   ///< `--nranks`: for files without `# Using devices` lines
};

/// One busBw comparison (tests and the BUSBW_MISMATCH evidence).
struct BusbwCheck {
  std::uint64_t size_bytes = 0;  ///< row size
  std::string placement;         ///< out_of_place | in_place
  double file_gbps = 0;          ///< busBw as the file printed it
  double recomputed_gbps = 0;    ///< size/1e9/(time·1e-6) · busbw_factor(collective, nranks)
  double tolerance_gbps = 0;     ///< half an ulp of the printed busBw + the time's rounding carried through
  bool agrees = true;            ///< |file − recomputed| ≤ tolerance
};

/// One imported series (one `sweeps[]` entry).
struct ImportedSweep {
  core::Collective collective = core::Collective::kAllReduce;  ///< collective
  std::string collective_source;   ///< "file" (`Collective test starting` / JSON args), "--coll", "inferred"
  std::string dtype, redop;        ///< as printed
  int root = -1;                   ///< −1 when none
  std::size_t rows = 0;            ///< table rows in the series
  std::vector<BusbwCheck> checks;  ///< one per placement block
};

/// What an import produced.
struct ImportSummary {
  int nranks = 0;                     ///< rank count used for busBw (devices in rank 0's group, or given)
  std::string nranks_source;          ///< "devices", "--nranks", "inferred"
  std::vector<ImportedSweep> sweeps;  ///< in report order
  std::size_t mismatches = 0;         ///< placement blocks whose busBw disagrees with the recomputation
};

/// Fills `doc` from `run`: sweeps (points: size_bytes, count, cycle, placement, time_us, algbw_gbps,
/// busbw_gbps — the file's values —, wrong or null with wrong_reason, per_iter null with per_iter_reason,
/// busbw_recomputed_gbps, busbw_agrees), topology (nranks, hosts, devices; clock fields null), run.imported
/// {file, format, layouts, nccl_tests_version, ...}, run.config.sweep (the preamble), run.sections (sweeps
/// ok, every measured-only section skipped with its reason, its key null), and findings: BUSBW_MISMATCH
/// (warn), WRONG_DATA (fail), SINGLE_RANK (warn), IMPORT_INCOMPLETE (warn: no footer, cut rows, failure
/// lines), IMPORT_COLLECTIVE_INFERRED (info). Leaves run.status/exit_code to the caller (Document::finish).
/// @throws UsageError (one line naming the file and the fix) when the run has no result row, the collective
///         cannot be determined or is one fabcheck does not model (hypercube, alltoallv), `--coll`
///         contradicts the file, or the rank count is unknown.
ImportSummary add_import(Document& doc, const parse::NcclTestsRun& run, const ImportOptions& opts);

}  // namespace fabcheck::report
