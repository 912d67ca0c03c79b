#pragma once
/// @file The pipeline-parallel bubble. Pure functions, no I/O.
#include <optional>
#include <string>

namespace fabcheck::core {

/// One training step of a pipeline of `stages` (p) stages and `micro_batches` (m) micro-batches, each
/// micro-batch taking `forward_s` (t_f) and `backward_s` (t_b) of compute per stage and `p2p_s` (t_p2p) per
/// hop between stages (activations forward, their gradients backward).
///
/// 1F1B (PipeDream-Flush; Narayanan et al., "Efficient Large-Scale Language Model Training on GPU Clusters
/// Using Megatron-LM", SC'21, §2.2.1): the pipeline fills and drains once per step, p − 1 slots each costing
/// a forward, a backward and the two hops of the stage boundary, so
///
///   t_bubble = (p − 1)·(t_f + t_b + 2·t_p2p),  t_ideal = m·(t_f + t_b),
///   bubble_fraction = t_bubble / (t_ideal + t_bubble),
///
/// which without communication is (p − 1)/(m + p − 1), GPipe's (Huang et al., "GPipe", NeurIPS 2019, §2.3).
/// GPipe (all forwards, then all backwards) fills with p − 1 forwards plus hops and drains with p − 1
/// backwards plus hops: the same t_bubble — 1F1B keeps fewer activations in flight (p instead of m), not a
/// smaller bubble (Narayanan et al. §2.2.1). Hops inside the steady state are taken to overlap compute.
struct PipelineStep {
  double t_ideal_s = 0;        ///< m·(t_f + t_b): the compute of one stage
  double t_bubble_s = 0;       ///< (p − 1)·(t_f + t_b + 2·t_p2p)
  double t_step_s = 0;         ///< t_ideal + t_bubble
  double bubble_fraction = 0;  ///< t_bubble / t_step
  double efficiency = 0;       ///< t_ideal / t_step = 1 − bubble_fraction
};

/// The schedule whose bubble is computed.
enum class PipelineSchedule { kOneFOneB, kGpipe };

/// The step of `schedule` (both give the same bubble; see PipelineStep). nullopt with `why` set when an input
/// is out of range (stages or micro_batches < 1, a time negative or not finite, no compute at all).
std::optional<PipelineStep> pipeline_step(PipelineSchedule schedule, int stages, int micro_batches,
                                          double forward_s, double backward_s, double p2p_s,
                                          std::string* why = nullptr);

}  // namespace fabcheck::core
