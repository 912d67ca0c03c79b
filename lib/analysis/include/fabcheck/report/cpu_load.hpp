#pragma once
/// @file The hosts' CPU load beside each step, and what it explains (a clean fabric measured on
/// busy cores must not read as a faulty fabric; "where a property cannot hold under load, measure the load
/// and say so").
///
/// Every step of a run records `run.sections.<section>.cpu_load` (cpu_load_json: each kernel's load average,
/// its CPUs, fabcheck's ranks on it and the other work per core, core::KernelLoad). explain_cpu_load then:
/// - adds one `HOST_CPU_BUSY` warning when some step ran on a kernel with at least
///   core::kCpuBusyExcessPerCore of other work per core, naming the steps, the busiest kernel's figures and
///   the hosts (and whether hosts share one kernel, as the virtual fabric's do);
/// - turns the warnings of those steps that measure the CPUs as much as the fabric into context (`info`, with
///   `evidence.explained_by = "HOST_CPU_BUSY"`): the latency step's pair outliers and tails, pairs' latency
///   findings (a latency pair, a host blamed for its latency alone), the incast victim's slowdown, a sweep
///   stopped at its time limit, and the TCP losses and netdev drops the hosts counted in that step
///   (report/counters.hpp; not the incast's own loss). Bandwidth verdicts confirmed by retest (a slow host or
///   link, `fail`) are never touched: a retest measures the suspect against references at the same load.
/// - turns a TCP_RETRANSMITS or NETDEV_DROPS warning of a host whose kernel ran more of fabcheck's ranks than
/// it
///   has CPUs into context (`explained_by: "ranks_outnumber_cpus"`: a CPU-starved kernel drops and
///   retransmits by itself; the virtual fabric's 4 ranks on 2 cores).
/// Idempotent; a report without `cpu_load` records is unchanged.
#include <nlohmann/json.hpp>

#include <vector>

#include "fabcheck/core/cpu_load.hpp"

namespace fabcheck::report {

/// The `cpu_load` record of one step: {excess_per_core, busy, kernels: [{hosts, ranks, cpus, loadavg_1m,
/// runnable, runnable_mean, runnable_excess_per_core, other_cpu_per_core (null: not measured),
/// excess_per_core}] (the 8 busiest; hosts capped at 16 each), kernels_total, busy_kernels}.
nlohmann::json cpu_load_json(const std::vector<core::KernelLoad>& kernels);

/// Adds HOST_CPU_BUSY and demotes what it explains (see the file comment).
void explain_cpu_load(nlohmann::json& doc);

}  // namespace fabcheck::report
