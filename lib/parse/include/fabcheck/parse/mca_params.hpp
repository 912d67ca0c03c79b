#pragma once
/// @file Reader of Open MPI MCA parameter files (`openmpi-mca-params.conf`,
/// `$HOME/.openmpi/mca-params.conf`): one `name = value` per line, `#` starts a comment, blank lines ignored
/// (Open MPI opal/mca/base mca_base_parse_paramfile). Used by the inventory to see whether MPI may use RDMA
/// at all.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fabcheck::parse {

/// Parsed parameter file.
struct McaParams {
  std::vector<std::pair<std::string, std::string>> params;  ///< (name, value) in file order, both trimmed
  int skipped_lines = 0;                                    ///< non-comment lines without '=' or with no name
};

/// Parses the text of an MCA parameter file. Never throws; malformed lines are counted in skipped_lines.
McaParams parse_mca_params(std::string_view text);

/// Components an MCA selection value excludes or leaves out, for the framework value `value` ("^ucx,openib",
/// "ob1", "tcp,self,vader"). With a leading '^' every listed name is excluded; with a plain list every name
/// in `candidates` not listed is excluded; an empty value excludes nothing.
/// @param candidates the component names of interest, e.g. {"ucx"} for pml.
/// @return the excluded names among `candidates`, in the order of `candidates`.
std::vector<std::string> mca_excluded(std::string_view value, const std::vector<std::string>& candidates);

}  // namespace fabcheck::parse
