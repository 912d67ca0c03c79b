#pragma once
/// @file Result structs of the overlap probe, as the report model holds them: lib/probes fills
/// them, lib/analysis reads them, without MPI.
#include <cstdint>
#include <string>
#include <vector>

#include "fabcheck/core/collective.hpp"
#include "fabcheck/core/stats.hpp"
#include "fabcheck/model/options_overlap.hpp"

namespace fabcheck::model {

/// One (collective, size): every timing is a per-iteration sample, the slowest rank's (max over ranks: the
/// step a rank waits for ends when the last rank is done), in µs.
struct OverlapPoint {
  core::Collective coll = core::Collective::kAllReduce;
  std::uint64_t size_bytes = 0;  ///< nccl-tests size (core::geometry)
  std::uint64_t count = 0;       ///< elements per rank (float)
  core::Summary t_comm;          ///< the collective alone: post, then wait at once
  core::Summary t_compute;       ///< the compute kernel alone
  core::Summary t_both;          ///< post, compute (no MPI call), wait
  core::Summary compute_during;  ///< the compute inside t_both (a slowdown: progress stealing the CPU)
  /// nccl backend: the GPU kernel alone timed on the device (cudaEvents around it, as compute_during is
  /// there); the base of compute_slowdown. No samples for mpi (t_compute is the base).
  core::Summary t_compute_device;
  bool polled = false;              ///< the polling variant ran (OverlapOptions::poll_us > 0)
  core::Summary t_both_poll;        ///< post, compute with MPI_Test every poll_us, wait
  double test_us_mean = 0;          ///< time inside MPI_Test per polled iteration (mean over iterations)
  double compute_target_us = 0;     ///< what the kernel was sized to: the calibrated t_comm (max over ranks)
  std::uint64_t compute_units = 0;  ///< kernel work units on rank 0
  /// core::overlap_fraction of the medians (p50) of t_comm, t_compute, t_both; have_overlap false when
  /// t_comm's median is 0.
  double overlap = 0;
  bool have_overlap = false;
  double overlap_poll = 0;  ///< the same with t_both_poll (have_overlap_poll: polled and defined)
  bool have_overlap_poll = false;
  double overlap_mean = 0;  ///< from the means, as OSU prints it (comparable with osu_iallreduce)
  double overlap_poll_mean = 0;
};

/// The probe's result (complete on rank 0).
struct OverlapResult {
  int nranks = 0;
  std::vector<std::string> hosts;  ///< distinct hosts
  std::string backend = "mpi";
  std::string mpi_library;      ///< MPI_Get_library_version, first line
  std::string library_version;  ///< nccl backend: "NCCL 2.x.y"; empty for mpi
  std::string device;           ///< nccl backend: rank 0's GPU ("[0000:1b:00] NVIDIA H200"); empty for mpi
  std::string compute_kernel;   ///< what the compute kernel does (one sentence)
  double us_per_unit = 0;       ///< calibrated kernel speed on rank 0
  OverlapOptions options;       ///< as run
  std::vector<OverlapPoint> points;  ///< collective-major, sizes ascending
  double duration_s = 0;
};

}  // namespace fabcheck::model
