#pragma once
// Small helpers shared by the perftest, OSU and IMB readers (not a public header).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fabcheck/parse/peer_bench.hpp"

namespace fabcheck::parse::detail {

/// The lines of `text` without line ends, each with the prefixes launchers and CI logs add removed:
/// `[1,0]<stdout>:` (mpirun --tag-output), `0: ` (srun --label), `HH:MM:SS ` (CI timestamps).
std::vector<std::string_view> peer_lines(std::string_view text);
/// A printed number that a result can hold: finite and not negative (perftest prints negative bandwidth
/// when its cycle counter wraps, linux-rdma/perftest#82: such a row is dropped and reported).
std::optional<PrintedNumber> parse_result(std::string_view tok);
/// First 200 characters of `s`.
std::string clip(std::string_view s);
/// Appends the failure lines every tool shares (MPI aborts, signals, launcher death notes) to `run.errors`;
/// returns true when `line` was one.
bool scan_common_error(std::string_view line, std::size_t line_no, PeerRun& run);
/// Records one rejected row-shaped line in `t`.
void reject_row(PeerTable& t, std::string_view line, std::size_t line_no);
/// The end of every reader's row loop: `r` joins `t`'s rows when `ok`, else its line is recorded as rejected.
void keep_row(PeerTable& t, PeerRow&& r, bool ok, std::string_view line, std::size_t line_no);

}  // namespace fabcheck::parse::detail
