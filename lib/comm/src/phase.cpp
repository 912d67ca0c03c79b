#include "fabcheck/comm/phase.hpp"

#include <chrono>
#include <csignal>
#include <mutex>
#include <optional>
#include <thread>

#include "fabcheck/comm/communicator.hpp"
#include "fabcheck/core/fault.hpp"

namespace fabcheck::comm {
namespace {
std::mutex g_mu;
PhaseSnapshot g_phase;
int g_rank = -1;
std::optional<core::Fault> g_fault;
bool g_fault_read = false;
}  // namespace

void set_phase_rank(int world_rank) {
  std::lock_guard<std::mutex> lk(g_mu);
  g_rank = world_rank;
}

void enter_phase(std::string_view name) {
  bool hang = false, freeze = false, crash = false;
  {
    std::lock_guard<std::mutex> lk(g_mu);
    if (!g_fault_read) {
      g_fault_read = true;
      try {
        g_fault = core::fault_from_env();
      } catch (...) {
        g_fault.reset();  // malformed specs are reported by the command that parses them
      }
    }
    // The hung rank stops before it arrives: its snapshot keeps the previous operation, as a rank stuck in
    // its own work would, so the watchdog names it among the ranks that did not arrive.
    hang = g_fault && g_fault->kind == core::Fault::Kind::kHang && g_fault->rank == g_rank &&
           g_phase.seq + 1 == g_fault->after;
    freeze = g_fault && g_fault->kind == core::Fault::Kind::kFreeze && g_fault->rank == g_rank &&
             g_phase.seq + 1 == g_fault->after;
    crash = g_fault && g_fault->kind == core::Fault::Kind::kCrash && g_fault->rank == g_rank &&
            g_phase.seq + 1 == g_fault->after;
    if (!hang && !freeze && !crash) {
      g_phase.seq += 1;
      g_phase.name = std::string(name);
      g_phase.since_us = now_us();
    }
  }
  if (crash) std::raise(SIGKILL);   // the process dies at once, as a segmentation fault ends it
  if (freeze) std::raise(SIGSTOP);  // every thread of the process stops (the test's SIGSTOP of a rank)
  while (hang) std::this_thread::sleep_for(std::chrono::seconds(1));
}

PhaseSnapshot current_phase() {
  std::lock_guard<std::mutex> lk(g_mu);
  return g_phase;
}

}  // namespace fabcheck::comm
