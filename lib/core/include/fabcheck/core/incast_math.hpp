#pragma once
/// @file Incast arithmetic (DESIGN §5 "Incast"; congestion impact as GPCNeT defines it). Pure functions.
#include <cstdint>
#include <optional>
#include <span>

namespace fabcheck::core {

/// goodput(k) = k·S / max t_i in GB/s (1e9 bytes/s).
/// @param size_bytes S, bytes each sender sends per burst.
/// @param completion_us t_i per sender: release → last byte received, on the receiver's (aligned) clock, in
/// µs.
/// @return GB/s; 0 when there are no senders or max t_i ≤ 0.
double incast_goodput_gbps(std::uint64_t size_bytes, std::span<const double> completion_us);

/// Jain's fairness index over x_i = S/t_i: J = (Σx)² / (k·Σx²), in [1/k, 1]. 1 when k ≤ 1.
/// @param completion_us t_i per sender in µs (all > 0).
/// @return J; nullopt when a t_i ≤ 0.
std::optional<double> jain_fairness(std::span<const double> completion_us);

/// incast_efficiency(k) = goodput(k) / goodput(1); nullopt when goodput(1) ≤ 0.
std::optional<double> incast_efficiency(double goodput_k_gbps, double goodput_1_gbps);

/// congestion impact = congested / isolated (GPCNeT); nullopt when isolated ≤ 0.
std::optional<double> congestion_impact(double congested, double isolated);

/// A time window [begin_us, end_us) on one clock.
struct Window {
  double begin_us = 0;  ///< inclusive
  double end_us = 0;    ///< exclusive
};

/// Share of sample start times that fall inside any window (the victim's `overlap`); 0 when no samples.
double overlap_share(std::span<const double> sample_times_us, std::span<const Window> windows);

}  // namespace fabcheck::core
