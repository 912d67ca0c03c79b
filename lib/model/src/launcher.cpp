#include "fabcheck/model/launcher.hpp"

#include <cctype>
#include <cstdlib>
#include <tuple>
#include <utility>

namespace fabcheck::model {
namespace {

/// The first dotted number ("4.1.4", "2021.9") at or after `from`; "" when none.
std::string version_after(std::string_view text, std::size_t from) {
  for (std::size_t i = from; i < text.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(text[i]))) continue;
    std::size_t j = i;
    while (j < text.size() && (std::isdigit(static_cast<unsigned char>(text[j])) || text[j] == '.')) ++j;
    std::string_view v = text.substr(i, j - i);
    while (!v.empty() && v.back() == '.') v.remove_suffix(1);
    if (v.find('.') != std::string_view::npos) return std::string(v);
    i = j;
  }
  return {};
}

}  // namespace

EnvLookup process_env() {
  return [](std::string_view name) -> std::optional<std::string> {
    const char* v = std::getenv(std::string(name).c_str());
    if (!v) return std::nullopt;
    return std::string(v);
  };
}

std::pair<std::string, std::string> mpi_implementation_of(std::string_view lib) {
  // Most specific first: Cray's and MVAPICH's texts name MPICH too.
  static constexpr std::pair<std::string_view, std::string_view> kNames[] = {
      {"CRAY MPICH", "Cray MPICH"}, {"MVAPICH2", "MVAPICH2"},      {"MVAPICH", "MVAPICH"},
      {"Open MPI", "Open MPI"},     {"Intel(R) MPI", "Intel MPI"}, {"MPICH", "MPICH"}};
  for (const auto& [needle, name] : kNames) {
    const auto at = lib.find(needle);
    if (at != std::string_view::npos) return {std::string(name), version_after(lib, at + needle.size())};
  }
  return {"", ""};
}

Launcher detect_launcher(const EnvLookup& env, std::string_view mpi_library) {
  Launcher l;
  const auto said = [&](std::string_view name) -> std::optional<std::string> {
    auto v = env(name);
    return v && !v->empty() ? v : std::nullopt;
  };
  l.slurm_job_id = said("SLURM_JOB_ID");
  if (!l.slurm_job_id) l.slurm_job_id = said("SLURM_JOBID");
  l.slurm_step_id = said("SLURM_STEP_ID");
  if (!l.slurm_step_id) l.slurm_step_id = said("SLURM_STEPID");
  l.nodelist = said("SLURM_STEP_NODELIST");
  if (!l.nodelist) l.nodelist = said("SLURM_JOB_NODELIST");
  l.slurm_mpi_type = said("SLURM_MPI_TYPE");
  l.mpijob_role = said("K_MPI_JOB_ROLE");
  if (said("PMIX_RANK") || said("PMIX_NAMESPACE")) {
    l.pmi = "pmix";
  } else if (said("PMI_FD") || said("PMI_RANK")) {
    l.pmi = "pmi";
  }
  std::tie(l.mpi_implementation, l.mpi_version) = mpi_implementation_of(mpi_library);

  const auto ompi_size = said("OMPI_COMM_WORLD_SIZE");
  const auto hydra_rank = l.slurm_step_id ? std::nullopt : said("PMI_RANK");
  std::optional<std::string> operator_hostfile;
  for (const char* v : {"OMPI_MCA_orte_default_hostfile", "HYDRA_HOST_FILE", "I_MPI_HYDRA_HOST_FILE"}) {
    if (auto f = said(v); f && *f == "/etc/mpi/hostfile") operator_hostfile = std::string(v) + "=" + *f;
  }
  const auto pmix_ns = said("PMIX_NAMESPACE");
  if (l.mpijob_role) {
    l.kind = "MPIJob";
    l.evidence = "K_MPI_JOB_ROLE=" + *l.mpijob_role;
  } else if ((ompi_size || hydra_rank) && operator_hostfile) {
    l.kind = "MPIJob";
    l.evidence = *operator_hostfile;
  } else if (pmix_ns && pmix_ns->starts_with("slurm.pmix.")) {
    l.kind = "srun";
    l.evidence = "PMIX_NAMESPACE=" + *pmix_ns;
  } else if (ompi_size) {
    l.kind = "mpirun";
    l.evidence = "OMPI_COMM_WORLD_SIZE=" + *ompi_size;
  } else if (hydra_rank) {
    l.kind = "mpirun";
    l.evidence = "PMI_RANK=" + *hydra_rank + " without SLURM_STEP_ID";
  } else if (l.slurm_step_id) {
    l.kind = "srun";
    l.evidence = "SLURM_STEP_ID=" + *l.slurm_step_id;
  } else {
    l.kind = "other";
    l.evidence = "no launcher variable (OMPI_COMM_WORLD_SIZE, PMI_RANK, SLURM_STEP_ID, K_MPI_JOB_ROLE)";
  }
  return l;
}

}  // namespace fabcheck::model
