// run.launcher: which launcher started the ranks, read from the environment each launcher sets.
#include <gtest/gtest.h>

#include <map>

#include "fabcheck/model/launcher.hpp"

using namespace fabcheck::model;

namespace {

EnvLookup env_of(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](std::string_view name) -> std::optional<std::string> {
    const auto it = vars.find(std::string(name));
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

constexpr const char* kOpenMpi =
    "Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4, repo rev: v4.1.4, May 26, 2022";

}  // namespace

TEST(Launcher, SrunDirectLaunchWithPmix) {
  const Launcher l = detect_launcher(env_of({{"SLURM_JOB_ID", "42"},
                                             {"SLURM_STEP_ID", "0"},
                                             {"SLURM_STEP_NODELIST", "fab-h[1-4]"},
                                             {"SLURM_JOB_NODELIST", "fab-h[1-8]"},
                                             {"SLURM_MPI_TYPE", "pmix"},
                                             {"PMIX_RANK", "0"},
                                             {"PMIX_NAMESPACE", "slurm.pmix.42.0"}}),
                                     kOpenMpi);
  EXPECT_EQ(l.kind, "srun");
  EXPECT_EQ(l.evidence, "PMIX_NAMESPACE=slurm.pmix.42.0");
  EXPECT_EQ(l.slurm_job_id, "42");
  EXPECT_EQ(l.slurm_step_id, "0");
  EXPECT_EQ(l.nodelist, "fab-h[1-4]");  // the step's nodes, not the allocation's
  EXPECT_EQ(l.pmi, "pmix");
  EXPECT_EQ(l.slurm_mpi_type, "pmix");
  EXPECT_EQ(l.mpi_implementation, "Open MPI");
  EXPECT_EQ(l.mpi_version, "4.1.4");
}

TEST(Launcher, SrunWithoutPmixIsTheStep) {
  const Launcher l = detect_launcher(env_of({{"SLURM_JOB_ID", "44"}, {"SLURM_STEP_ID", "2"}}), "");
  EXPECT_EQ(l.kind, "srun");
  EXPECT_EQ(l.evidence, "SLURM_STEP_ID=2");
  EXPECT_FALSE(l.pmi);
}

TEST(Launcher, MpirunInsideASlurmAllocationIsMpirunWithTheJobId) {
  // sbatch + mpirun: the orteds run as a Slurm step, so SLURM_STEP_ID is there too; Open MPI's runtime
  // started the ranks.
  const Launcher l = detect_launcher(env_of({{"SLURM_JOB_ID", "43"},
                                             {"SLURM_STEP_ID", "1"},
                                             {"SLURM_JOB_NODELIST", "n[01-02]"},
                                             {"OMPI_COMM_WORLD_SIZE", "8"},
                                             {"PMIX_NAMESPACE", "1234"}}),
                                     kOpenMpi);
  EXPECT_EQ(l.kind, "mpirun");
  EXPECT_EQ(l.evidence, "OMPI_COMM_WORLD_SIZE=8");
  EXPECT_EQ(l.slurm_job_id, "43");
  EXPECT_EQ(l.nodelist, "n[01-02]");
}

TEST(Launcher, PlainMpirunHasNoSlurmFields) {
  const Launcher l = detect_launcher(env_of({{"OMPI_COMM_WORLD_SIZE", "4"}, {"PMIX_RANK", "0"}}), kOpenMpi);
  EXPECT_EQ(l.kind, "mpirun");
  EXPECT_FALSE(l.slurm_job_id);
  EXPECT_FALSE(l.slurm_step_id);
  EXPECT_FALSE(l.nodelist);
  EXPECT_EQ(l.pmi, "pmix");
}

TEST(Launcher, HydraMpiexecAndSlurmPmi2) {
  const Launcher hydra = detect_launcher(env_of({{"PMI_RANK", "0"}, {"PMI_FD", "5"}, {"PMI_SIZE", "2"}}),
                                         "MPICH Version:\t4.0.2");
  EXPECT_EQ(hydra.kind, "mpirun");
  EXPECT_EQ(hydra.pmi, "pmi");
  EXPECT_EQ(hydra.mpi_implementation, "MPICH");
  EXPECT_EQ(hydra.mpi_version, "4.0.2");
  // srun --mpi=pmi2 also sets PMI_RANK: the step decides.
  const Launcher pmi2 = detect_launcher(
      env_of({{"PMI_RANK", "0"}, {"PMI_FD", "5"}, {"SLURM_STEP_ID", "3"}, {"SLURM_JOB_ID", "7"}}), "");
  EXPECT_EQ(pmi2.kind, "srun");
  EXPECT_EQ(pmi2.pmi, "pmi");
}

TEST(Launcher, MpiOperatorPodsAndTheirForwardedHostfile) {
  EXPECT_EQ(
      detect_launcher(env_of({{"K_MPI_JOB_ROLE", "worker"}, {"OMPI_COMM_WORLD_SIZE", "4"}}), kOpenMpi).kind,
      "MPIJob");
  // Open MPI's mpirun forwards the launcher pod's OMPI_MCA_* to every rank; the role variable stays behind.
  const Launcher l = detect_launcher(
      env_of({{"OMPI_COMM_WORLD_SIZE", "4"}, {"OMPI_MCA_orte_default_hostfile", "/etc/mpi/hostfile"}}),
      kOpenMpi);
  EXPECT_EQ(l.kind, "MPIJob");
  EXPECT_EQ(l.evidence, "OMPI_MCA_orte_default_hostfile=/etc/mpi/hostfile");
  // Another host file is an ordinary mpirun.
  EXPECT_EQ(
      detect_launcher(env_of({{"OMPI_COMM_WORLD_SIZE", "4"}, {"OMPI_MCA_orte_default_hostfile", "/tmp/h"}}),
                      kOpenMpi)
          .kind,
      "mpirun");
}

TEST(Launcher, NoLauncherIsOtherAndEmptyValuesAreUnset) {
  const Launcher l = detect_launcher(env_of({{"SLURM_STEP_ID", ""}, {"SLURM_JOB_ID", ""}}), "");
  EXPECT_EQ(l.kind, "other");
  EXPECT_FALSE(l.slurm_job_id);
  EXPECT_FALSE(l.pmi);
  EXPECT_EQ(l.mpi_implementation, "");
  EXPECT_EQ(l.mpi_version, "");
}

TEST(Launcher, MpiImplementationsByTheirLibraryText) {
  using P = std::pair<std::string, std::string>;
  EXPECT_EQ(mpi_implementation_of(kOpenMpi), P("Open MPI", "4.1.4"));
  EXPECT_EQ(mpi_implementation_of("Intel(R) MPI Library 2021.9 for Linux* OS"), P("Intel MPI", "2021.9"));
  EXPECT_EQ(mpi_implementation_of("MVAPICH2 Version      :\t2.3.7"), P("MVAPICH2", "2.3.7"));
  EXPECT_EQ(mpi_implementation_of("CRAY MPICH version 8.1.26.26 (ANL base 3.4a2)"),
            P("Cray MPICH", "8.1.26.26"));
  EXPECT_EQ(mpi_implementation_of("Some MPI 3.1"), P("", ""));
  EXPECT_EQ(mpi_implementation_of("Open MPI"), P("Open MPI", ""));
}
