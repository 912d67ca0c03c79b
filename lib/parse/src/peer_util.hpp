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
/// The run every text reader fills: its tool, format and the count of `lines` (peer_lines).
PeerRun text_run(std::string tool, std::string format, const std::vector<std::string_view>& lines);
/// Closes `open` (when set), appends `t` to run.tables and returns it: the table that rows now join.
PeerTable* open_table(PeerRun& run, PeerTable* open, PeerTable&& t);
/// One row-shaped line, its tokens `toks` read by t's columns: size_bytes an unsigned integer, `validation`
/// Pass or Fail, any other column a result (parse_result). The row joins t's rows; a line with another
/// column count, or with a token that does not read, is recorded as rejected.
void read_row(PeerTable& t, const std::vector<std::string_view>& toks, std::string_view line,
              std::size_t line_no);

}  // namespace fabcheck::parse::detail
