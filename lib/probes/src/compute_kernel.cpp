// The calibrated CPU compute kernel.
#include "compute_kernel.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "fabcheck/comm/communicator.hpp"
#include "fabcheck/probes/overlap.hpp"

namespace fabcheck::probes {
namespace {

constexpr int kChains = 8;
constexpr int kStepsPerUnit = 64;  // one unit = kChains × kStepsPerUnit FMAs

volatile double g_kernel_sink = 0;

// A kernel duration long enough that now_us()'s resolution and the loop overhead do not matter.
constexpr double kCalibrateUs = 2000;

}  // namespace

double overlap_compute_kernel(std::uint64_t units, double seed) {
  double x[kChains];
  for (int k = 0; k < kChains; ++k) x[k] = seed + k;
  for (std::uint64_t u = 0; u < units; ++u) {
    for (int s = 0; s < kStepsPerUnit; ++s) {
      for (int k = 0; k < kChains; ++k) x[k] = x[k] * 0.9999999 + 1e-7;  // bounded: converges to 1
    }
    asm volatile("" : "+m"(x));  // the chains stay; one unit is not folded into a closed form
  }
  double s = 0;
  for (double v : x) s += v;
  return s;
}

double calibrate_us_per_unit(comm::DeviceCompute& gpu) {
  gpu.launch(1);
  gpu.synchronize();
  std::uint64_t units = 16;
  for (;;) {
    gpu.launch(units);
    gpu.synchronize();
    if (gpu.last_kernel_us() >= kCalibrateUs || units >= (1ull << 40)) break;
    units *= 2;
  }
  std::vector<double> runs;
  for (int i = 0; i < 3; ++i) {
    gpu.launch(units);
    gpu.synchronize();
    runs.push_back(gpu.last_kernel_us() / static_cast<double>(units));
  }
  std::sort(runs.begin(), runs.end());
  return runs[1];
}

namespace detail {

std::string compute_kernel_description() {
  return fmt::format(
      "{} fused multiply-adds per unit on {} independent chains in registers: FLOP-bound, no memory traffic",
      kChains * kStepsPerUnit, kChains);
}

void keep_result(double v) {
  g_kernel_sink = g_kernel_sink + v;
}

double calibrate_us_per_unit() {
  std::uint64_t units = 16;
  for (;;) {
    const double t0 = comm::now_us();
    keep_result(overlap_compute_kernel(units, 1.0));
    if (comm::now_us() - t0 >= kCalibrateUs || units >= (1ull << 40)) break;
    units *= 2;
  }
  std::vector<double> runs;
  for (int i = 0; i < 3; ++i) {
    const double t0 = comm::now_us();
    keep_result(overlap_compute_kernel(units, 1.0 + i));
    runs.push_back((comm::now_us() - t0) / static_cast<double>(units));
  }
  std::sort(runs.begin(), runs.end());
  return runs[1];
}

double compute_polling(comm::CollBackend* be, std::uint64_t units, std::uint64_t poll_units) {
  if (!be || poll_units == 0 || poll_units >= units) {
    keep_result(overlap_compute_kernel(units, 1.0));
    return 0;
  }
  double test_us = 0;
  bool done = false;
  for (std::uint64_t left = units; left > 0;) {
    const std::uint64_t u = std::min(left, poll_units);
    keep_result(overlap_compute_kernel(u, 1.0));
    left -= u;
    if (!done && left > 0) {
      const double p0 = comm::now_us();
      done = be->test_started();
      test_us += comm::now_us() - p0;
    }
  }
  return test_us;
}

}  // namespace detail
}  // namespace fabcheck::probes
