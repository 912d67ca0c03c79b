#pragma once
/// @file How the ranks were started — `run.launcher` of the report: the launcher's kind, the Slurm job and
/// step, the node list, the process-management interface (PMI) and the MPI library. Read from the variables
/// every launcher puts in its ranks' environment; no MPI here (lib/probes passes MPI_Get_library_version's
/// first line).
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace fabcheck::model {

/// `run.launcher`.
struct Launcher {
  std::string kind;                           ///< "srun" | "mpirun" | "MPIJob" | "other"
  std::string evidence;                       ///< the variable that decided `kind`, e.g. "SLURM_STEP_ID=0"
  std::optional<std::string> slurm_job_id;    ///< SLURM_JOB_ID (also under mpirun inside an allocation)
  std::optional<std::string> slurm_step_id;   ///< SLURM_STEP_ID
  std::optional<std::string> nodelist;        ///< SLURM_STEP_NODELIST, else SLURM_JOB_NODELIST (Slurm's form)
  std::optional<std::string> pmi;             ///< "pmix" | "pmi" (PMI-1/PMI-2 wire) ; nullopt: none seen
  std::optional<std::string> slurm_mpi_type;  ///< SLURM_MPI_TYPE (srun --mpi), when set
  std::optional<std::string> mpijob_role;     ///< K_MPI_JOB_ROLE (MPI operator: launcher | worker)
  std::string mpi_implementation;             ///< "Open MPI", "MPICH", "Intel MPI", ...; "" unknown
  std::string mpi_version;                    ///< e.g. "4.1.4"; "" unknown
};

/// A variable of the environment, nullopt when unset.
using EnvLookup = std::function<std::optional<std::string>(std::string_view name)>;

/// This process's environment (getenv).
EnvLookup process_env();

/// The launcher as the environment shows it (first rule that holds):
/// - **MPIJob**: K_MPI_JOB_ROLE is set (kubeflow/mpi-operator v2beta1 sets it in launcher and worker pods,
///   pkg/controller/mpi_job_controller.go `launcherEnvVars`/`workerEnvVars`), or an mpirun launch whose host
///   file is the operator's `/etc/mpi/hostfile` (the operator's OMPI_MCA_orte_default_hostfile,
///   HYDRA_HOST_FILE, I_MPI_HYDRA_HOST_FILE; Open MPI's mpirun forwards OMPI_MCA_* to every rank);
/// - **srun**, when Slurm's PMIx server started the ranks: PMIX_NAMESPACE "slurm.pmix.<job>.<step>" (Slurm's
///   mpi/pmix plugin, src/plugins/mpi/pmix/pmixp_info.c; whatever Open MPI sets in its own process at
///   MPI_Init);
/// - **mpirun**: OMPI_COMM_WORLD_SIZE (Open MPI's runtime sets it in every process its mpirun/orted start,
///   also when mpirun runs inside a Slurm allocation; a direct srun launch has none), or PMI_RANK without
///   SLURM_STEP_ID (MPICH/Intel MPI's Hydra mpiexec);
/// - **srun**: SLURM_STEP_ID (older Slurm: SLURM_STEPID), set in every task of a job step (srun(1), "OUTPUT
///   ENVIRONMENT VARIABLES");
/// - **other**: none of these (a singleton, or a launcher fabcheck does not know).
/// `pmi` is "pmix" when PMIX_RANK or PMIX_NAMESPACE is set (the PMIx server's client variables), "pmi" when
/// PMI_FD or PMI_RANK is (Slurm's mpi/pmi2 plugin, Hydra).
Launcher detect_launcher(const EnvLookup& env, std::string_view mpi_library);

/// The implementation and its version from MPI_Get_library_version's first line: "Open MPI v4.1.4, package:
/// ..." → {"Open MPI", "4.1.4"}; "MPICH Version: 4.0.2" → {"MPICH", "4.0.2"}; "Intel(R) MPI Library 2021.9
/// for Linux* OS" → {"Intel MPI", "2021.9"}; also MVAPICH2 and Cray MPICH; {"", ""} when not recognised
/// (the version then stays empty too: a number in an unknown text is not trusted).
std::pair<std::string, std::string> mpi_implementation_of(std::string_view mpi_library);

}  // namespace fabcheck::model
